//! A file's plan: each action's decision, its status against what it declares, and the edits
//! that carry the proposal, as every source makes them and the check, the patch and the
//! results read them.

use crate::classify::{Confidence, Group, Inference, Vote, classify, infer_in};
use crate::error::Error;
use crate::model::edit::{Edit, Status, effects_after};
use crate::model::hints::{HintReview, review};
use crate::model::openapi::Inserted;
use crate::model::site::{ActionSite, Shape};
use crate::view::{ActionView, Declared};

use super::options::Options;

/// What a source's own hints are to the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HintRole {
    /// A person's `annotations:` in a catalog: evidence, weighed with the rest.
    Evidence,
    /// What a server or a generator advertises (an OpenAPI document's `x-*-mcp` maps):
    /// judged against the engine, never evidence for it.
    Advertised,
}

/// The one way into classify for an action of any source: the engine's inference, then the
/// catalog's votes, and the vote cast, if any, beside the inference.
pub fn decide(
    view: &ActionView,
    group: &Group,
    opts: &Options,
    hints: HintRole,
) -> (Inference, Option<Box<Vote>>) {
    match hints {
        HintRole::Evidence => classify(view, group, &opts.rules, opts.votes.as_deref()),
        HintRole::Advertised => {
            let inference = infer_in(view, group, &opts.rules);
            match &opts.votes {
                Some(votes) => votes.apply(view, inference),
                None => (inference, None),
            }
        }
    }
}

/// The proposal counts only at or above `min`; below it, it is listed for a human instead.
pub fn status(declared: &Declared, nested: bool, inference: &Inference, min: Confidence) -> Status {
    let confident = !inference.effects.is_empty() && inference.confident(min);
    match declared {
        _ if nested => Status::Skipped,
        Declared::Invalid(_) => Status::Invalid,
        // A declaration that says what a departure too weak to stand said (`sync_users` over
        // GET declared [execute]) is a person settling the doubt, not a conflict.
        Declared::Valid(d) if inference.doubted_by(*d) => Status::Agrees,
        Declared::Valid(d) if confident && *d != inference.effects => Status::Conflict,
        Declared::Valid(_) => Status::Agrees,
        Declared::None if confident => Status::Added,
        Declared::None => Status::Unclassified,
    }
}

/// One action as planned: its site, the inference, the status, the edit of its `effects`
/// and its hints judged (with the removals planned), if any.
#[derive(Debug, Clone)]
pub struct Planned {
    pub site: ActionSite,
    pub inference: Inference,
    /// What the catalog's declarations said of the action and did to its inference.
    pub vote: Option<Box<Vote>>,
    pub status: Status,
    pub edit: Option<Edit>,
    pub hints: Option<Box<HintReview>>,
    /// Edits besides `edit` that add keys (an OpenAPI operation's hints merged into a
    /// generator's existing map); kept or dropped with the action's others.
    pub more: Vec<Edit>,
}

impl Planned {
    /// Every edit planned for the action.
    pub fn edits(&self) -> impl Iterator<Item = &Edit> {
        self.edit
            .iter()
            .chain(&self.more)
            .chain(self.hints.iter().flat_map(|h| &h.edits))
    }

    /// Judges the action's hints against the effects it has with its edit; with
    /// `--migrate-hints` its source then plans the removal of the redundant ones, where it
    /// can remove any (`source::connector::hints`).
    pub fn judge_hints(&mut self, opts: &Options) {
        let after = effects_after(&self.site.view.declared, self.status, self.edit.as_ref());
        self.hints = review(
            self.site.view.annotations.as_ref(),
            self.site.view.label.as_deref(),
            after,
            opts.policy,
            self.inference.overwrites,
        )
        .map(|mut review| {
            review.migrate = opts.migrate_hints;
            Box::new(review)
        });
    }

    /// Leaves the action unedited, `why` said of it: an added proposal then counts as
    /// unclassified (it is listed for a human), a conflict stays one. A proposal its hints
    /// were judged against no longer counts, and none of them is removed.
    pub(crate) fn refuse(&mut self, why: &str) -> Error {
        let hints_only =
            self.edit.is_none() && self.hints.as_ref().is_some_and(|h| !h.edits.is_empty());
        let what = match self.status {
            _ if hints_only => "`: redundant hints not removed",
            Status::Added => {
                self.status = Status::Unclassified;
                "` not edited"
            }
            _ => "` not rewritten",
        };
        self.edit = None;
        self.more.clear();
        if let Some(h) = &mut self.hints {
            if !h.edits.is_empty() {
                h.refused = Some(why.to_owned());
            }
            h.without_proposal();
        }
        Error::new(format!("`{}{what}: {why}", self.site.view.id))
            .at(self.site.view.line, self.site.column)
    }
}

/// A file's text, planned and checked: everything the run needs, and the sorted edits,
/// each of which passed its source's check ([`super::finish`]).
#[derive(Debug, Clone)]
pub struct Plan {
    pub shape: Shape,
    pub group: Group,
    pub info_key: Option<String>,
    /// Whether `info_key` is written in the file (a connector's `info.key`, an OpenAPI
    /// document's `info.x-effects-key`) rather than made from its title.
    pub key_written: bool,
    pub info_title: Option<String>,
    pub problems: Vec<Error>,
    pub notes: Vec<Error>,
    pub actions: Vec<Planned>,
    pub edits: Vec<Edit>,
    /// The edited text, with `keep_texts` when there are edits.
    pub new_text: Option<String>,
    /// The `$ref:` values of the file, with their line and column.
    pub refs: Vec<(String, usize, usize)>,
    /// Actions listed again through an alias item (`- *a`): id, line, column.
    pub repeats: Vec<(String, usize, usize)>,
    /// `# catalog-effects: ignore[...]` in the file's leading comment lines: (line, code).
    pub silences: Vec<(usize, String)>,
    /// What an OpenAPI document's edits insert where.
    pub inserted: Vec<Inserted>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::Effects;

    #[test]
    fn statuses() {
        use crate::effects::Effect;
        let read = Effects::single(Effect::Read);
        let inf = Inference {
            effects: read,
            confidence: Some(Confidence::High),
            ..Inference::default()
        };
        let low = Inference {
            confidence: Some(Confidence::Low),
            ..inf.clone()
        };
        let none = Inference::default();
        let m = Confidence::Medium;
        assert_eq!(status(&Declared::None, false, &inf, m), Status::Added);
        assert_eq!(
            status(&Declared::None, false, &low, m),
            Status::Unclassified
        );
        assert_eq!(
            status(&Declared::None, false, &none, m),
            Status::Unclassified
        );
        assert_eq!(
            status(&Declared::Valid(read), false, &inf, m),
            Status::Agrees
        );
        assert_eq!(
            status(
                &Declared::Valid(Effects::single(Effect::Write)),
                false,
                &inf,
                m
            ),
            Status::Conflict
        );
        assert_eq!(
            status(&Declared::Invalid("x".into()), false, &inf, m),
            Status::Invalid
        );
        assert_eq!(status(&Declared::None, true, &inf, m), Status::Skipped);
    }
}
