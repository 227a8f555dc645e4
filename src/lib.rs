//! catalog-effects: infer, explain and backfill MCP `effects` across a connector catalog.
//!
//! Every file goes one way, whatever its source, and the module tree is that way (bottom
//! first, each module imports only those before it; `tests/layering.rs` holds it):
//!
//! ```text
//! run::walk      catalogs -> Work                   run: the only parallel code (+ votes)
//! source         text -> sites and views -> fix::plan::decide (classify) -> Planned, edits
//! fix            Plan -> checked by its source -> one salvage -> patch
//! outcome        Plan -> FileResult, ActionResult
//! report, emit   &FileResult -> findings, sinks; Finding -> one emitter per format
//! ```
//!
//! docs/architecture.md draws it in full. The library never prints; the binary chooses what
//! to show and which exit code to return.

pub mod classify;
pub mod effects;
pub mod emit;
pub mod error;
pub mod fix;
pub mod git;
pub mod lint;
pub mod model;
pub mod outcome;
pub mod report;
pub mod run;
pub mod source;
pub mod text;
pub mod view;
pub mod yaml;
