//! Connector files (`*.s1.yaml`, `*.s1.partial.yaml`): the catalog format the tool was
//! built for. Read ([`read`]) into action sites, each decided and given its `effects` edit
//! ([`edit`]) and hint removals ([`hints`]) as it is read ([`plan`]), then checked by
//! digest and a second plan ([`check`], [`verify`]) on [`crate::fix`]'s path.

pub mod check;
pub mod edit;
pub mod hints;
pub mod plan;
pub mod read;
pub mod verify;

use std::borrow::Cow;
use std::path::Path;

use crate::classify::Group;
use crate::error::Error;
use crate::fix::options::Options;
use crate::fix::plan::Plan;
use crate::model::edit::Edit;
use crate::source::kind::Input;
use crate::yaml::Reuse;

pub struct Connector;

/// True for the names this tool edits: `*.s1.yaml` and `*.s1.partial.yaml`.
pub fn is_connector_file(name: &str) -> bool {
    name.ends_with(".s1.yaml") || name.ends_with(".s1.partial.yaml")
}

impl super::kind::Source for Connector {
    fn name(&self) -> &'static str {
        "connector"
    }

    fn claims(&self, name: &str, _path: &Path) -> bool {
        is_connector_file(name)
    }

    fn owns_name(&self, name: &str) -> bool {
        is_connector_file(name)
    }

    fn plan(
        &self,
        file: Input<'_>,
        text: String,
        opts: &Options,
        render: &mut dyn FnMut(&str, &[Edit]),
    ) -> Result<Plan, Error> {
        plan_owned(text, opts, file.left_alone, file.group, file.tree, render)
    }
}

/// Plans a connector file's text, taking it: it becomes the edited text in place while that
/// is checked (one large file is never held twice then); `render` sees the original with
/// the edits that passed.
pub fn plan_owned(
    text: String,
    opts: &Options,
    left_alone: Option<&str>,
    group: Option<&Group>,
    reuse: Reuse<'_>,
    render: &mut dyn FnMut(&str, &[Edit]),
) -> Result<Plan, Error> {
    let (tree, _) =
        crate::yaml::parse_reusing(&text, reuse, |t| Ok((crate::yaml::parse_tree(t)?, false)))?;
    let mut plan = plan::plan_tree(&tree, opts, opts.keep_views, group)?;
    crate::fix::leave_alone(&mut plan, left_alone);
    if !crate::fix::checks(&plan, opts) {
        drop(tree);
        return crate::fix::finish(Cow::Owned(text), plan, opts, None, render);
    }
    // The original's digest is all the check needs of its tree: dropping it first keeps
    // one large file from holding two trees at once.
    let mut checker = check::Checker {
        digest: verify::original(&tree, &plan.edits),
        storage: Some(tree.into_storage()),
        opts,
    };
    crate::fix::finish(Cow::Owned(text), plan, opts, Some(&mut checker), render)
}
