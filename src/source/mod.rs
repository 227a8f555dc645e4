//! Sources: the kinds of file that hold actions. Each is one implementation of [`Source`]:
//! it says which files are its own, reads one file's syntax into actions (as
//! [`ActionView`](crate::view::ActionView)s), plans their edits in that syntax and checks
//! the edited text by reading it again, on [`crate::fix`]'s path to a checked
//! [`Plan`]. The walk asks every source, the run plans each file with the source that
//! claimed it, and every output reads the same per-file results; a new kind of file is a
//! folder here and one line in [`SOURCES`]. An MCP `tools/list` ([`mcp`]) is read into the
//! same views, for `audit` and `lint --tools`.

pub mod connector;
pub mod mcp;
pub mod openapi;

use std::path::Path;

use crate::classify::Group;
use crate::error::Error;
use crate::fix::options::Options;
use crate::fix::plan::Plan;
use crate::model::edit::Edit;

/// A kind of file that holds actions.
pub trait Source: Sync {
    fn name(&self) -> &'static str;

    /// Whether a file is one of this source's, from its name and, where the name cannot
    /// tell, its content (read from `path`).
    fn claims(&self, name: &str, path: &Path) -> bool;

    /// Whether a file the walk admitted is this source's, from its name alone: a source
    /// that claims by content answers for every name no earlier source claims.
    fn owns_name(&self, name: &str) -> bool;

    /// Parses, classifies and plans one file's text (`name` is the file's name, which a
    /// source may read the syntax it expects from); `render` sees the original text and
    /// the edits that passed their check (for the patch).
    /// `left_alone` says why no edit of this file may leave the run, when none may (a
    /// file the routes must not touch): its proposals are listed for a human instead.
    /// `group` is the names the file's actions are read among when they are more than the
    /// file's own (a connector's main file and partials): how its actions are split into
    /// files says nothing of them.
    fn plan(
        &self,
        name: &str,
        text: String,
        opts: &Options,
        left_alone: Option<&str>,
        group: Option<&Group>,
        render: &mut dyn FnMut(&str, &[Edit]),
    ) -> Result<Plan, Error>;
}

/// Every source, asked in this order: connector files are decided by name, before any
/// content is read.
pub const SOURCES: [&dyn Source; 2] = [&connector::Connector, &openapi::OpenApi];

/// The source that claims a file found by the walk, if any.
pub fn claiming(name: &str, path: &Path) -> Option<&'static dyn Source> {
    SOURCES.into_iter().find(|s| s.claims(name, path))
}

/// Whether a source claims the file: what the walk is given (`run::walk::Claims`).
pub fn claims(name: &str, path: &Path) -> bool {
    claiming(name, path).is_some()
}

/// The source of a file the walk admitted, from its name (`rel` or a file name).
pub fn of_file(name: &str) -> &'static dyn Source {
    let name = name.rsplit('/').next().unwrap_or(name);
    SOURCES
        .into_iter()
        .find(|s| s.owns_name(name))
        .unwrap_or(&connector::Connector)
}
