//! What a kind of file that holds actions does: say which files are its own, and plan one
//! file's text in its own syntax (read, decide, edit, and check the edit by reading it
//! again).

use std::path::Path;

use crate::classify::Group;
use crate::error::Error;
use crate::fix::options::Options;
use crate::fix::plan::Plan;
use crate::model::edit::Edit;
use crate::yaml::Reuse;

/// A kind of file that holds actions.
pub trait Source: Sync {
    fn name(&self) -> &'static str;

    /// Whether a file is one of this source's, from its name and, where the name cannot
    /// tell, its content (read from `path`).
    fn claims(&self, name: &str, path: &Path) -> bool;

    /// Whether a file the walk admitted is this source's, from its name alone: a source
    /// that claims by content answers for every name no earlier source claims.
    fn owns_name(&self, name: &str) -> bool;

    /// Parses, classifies and plans one file's text; `render` sees the original text and
    /// the edits that passed their check (for the patch).
    fn plan(
        &self,
        file: Input<'_>,
        text: String,
        opts: &Options,
        render: &mut dyn FnMut(&str, &[Edit]),
    ) -> Result<Plan, Error>;
}

/// One file, as its source is asked to plan it.
#[derive(Debug)]
pub struct Input<'a> {
    /// The file's name, which a source may read the syntax it expects from.
    pub name: &'a str,
    /// Why no edit of this file may leave the run, when none may (a file the routes must not
    /// touch): its proposals are listed for a human instead.
    pub left_alone: Option<&'a str>,
    /// The names the file's actions are read among when they are more than the file's own
    /// (a connector's main file and partials): how its actions are split into files says
    /// nothing of them.
    pub group: Option<&'a Group>,
    /// What the plan does with the file's tree besides planning with it.
    pub tree: Reuse<'a>,
}
