//! catalog-effects: infer, explain and backfill MCP `effects` across a connector catalog.
//!
//! The pipeline is one line and the module tree shows it:
//! walk -> parse -> classify -> diff -> emit. Each module imports only those below it
//! (docs/architecture.md has the order; tests/layering.rs holds it). The library never
//! prints; the binary chooses what to show and which exit code to return.

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
