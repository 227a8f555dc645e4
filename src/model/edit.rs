//! An edit and what it does to an action: the status of its declaration against the
//! proposal, the byte-exact change, and the effects the action has once it is applied.

use crate::effects::Effects;
use crate::view::Declared;

/// How an action's declared effects relate to the proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// Nothing declared; a proposal is inserted.
    Added,
    /// Declared and valid, and no confident proposal disagrees.
    Agrees,
    /// Declared and valid, and a confident proposal differs.
    Conflict,
    /// Nothing declared and no confident proposal.
    Unclassified,
    /// Declared, but not a list of known effects: an error, never fixed silently.
    Invalid,
    /// Not a tool (the nested `refreshAuthentication.action`): reported, never patched.
    Skipped,
}

impl Status {
    pub const ALL: [Status; 6] = [
        Status::Added,
        Status::Agrees,
        Status::Conflict,
        Status::Unclassified,
        Status::Invalid,
        Status::Skipped,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Status::Added => "added",
            Status::Agrees => "agrees",
            Status::Conflict => "conflict",
            Status::Unclassified => "unclassified",
            Status::Invalid => "invalid",
            Status::Skipped => "skipped",
        }
    }
}

/// Replace `start..end` with `text`. Edits of one file never overlap, and every edit of an
/// action names its mapping (`map`, where it starts): they are kept or dropped together.
/// An insertion (`start == end`) adds an `effects` key to that mapping; a replacement
/// rewrites an `effects` list; a removal (`removes` not 0, `text` empty) takes out hint
/// entries of its `annotations:` (see [`hints`]). A replacement or removal keeps what it
/// replaces in `old`, so the original can be had back from the edited text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
    pub effects: Effects,
    pub map: usize,
    pub old: String,
    /// For a removal, what it removes: [`hints::HintKey`] bits, or
    /// [`hints::ANNOTATIONS`] for the `annotations` key itself. 0 for an `effects` edit.
    pub removes: u8,
}

impl Edit {
    pub fn is_removal(&self) -> bool {
        self.removes != 0
    }

    /// The order edits are applied in: by place, an insertion before a removal that starts
    /// where it is inserted, and the action's mapping between edits at one place.
    pub fn order(&self) -> (usize, usize, usize) {
        (self.start, self.end, self.map)
    }
}

/// Where an action's effects come from once the patch is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EffectsFrom {
    Declared,
    /// Proposed, and inserted (or rewritten) by this patch.
    Proposed,
}

impl EffectsFrom {
    pub fn name(self) -> &'static str {
        match self {
            EffectsFrom::Declared => "declared",
            EffectsFrom::Proposed => "proposed, not yet declared",
        }
    }
}

/// The effects an action has once the patch is applied, and where they come from: what it
/// declares (when valid and not rewritten), else what the patch gives it. The one place
/// this is decided: the CSV's hints, the hints `--migrate-hints` removes and the hint
/// findings of `check` all read it. An action whose proposal the patch does not carry (below
/// the confidence, held back, refused) has none.
pub fn effects_after(
    declared: &Declared,
    status: Status,
    edit: Option<&Edit>,
) -> Option<(Effects, EffectsFrom)> {
    match (declared, status, edit) {
        (_, Status::Skipped, _) => None,
        (_, _, Some(e)) if !e.is_removal() => Some((e.effects, EffectsFrom::Proposed)),
        (Declared::Valid(d), _, _) => Some((*d, EffectsFrom::Declared)),
        _ => None,
    }
}
