//! The catalog's vote, as data: the key its declarations are counted by ([`Word`]), what they
//! say of one action and what that did to the engine's proposal ([`Vote`], [`Did`]). Carried
//! beside the inference (`classify::classify`, a plan, an action's result) for `explain`, the
//! reason and the review guide; `catalog.rs` counts and casts it.

use super::index::Sym;
use super::plain::{Agreement, Claim};
use super::terms::Confidence;
use crate::effects::Effects;

/// How the HTTP method of an action sits, whatever its claim: what the counts tell apart
/// (a read verb over GET and over POST are different evidence).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MethodClass {
    Get,
    /// POST, PUT, PATCH or DELETE.
    Other,
    /// No HTTP call, or POST on an RPC-style API.
    Neutral,
    /// A POST whose URL ends in the operation's name.
    Named,
}

impl MethodClass {
    pub(super) fn from_claim(claim: Claim, agreement: Agreement) -> MethodClass {
        match (claim, agreement) {
            (_, Agreement::Neutral) => MethodClass::Neutral,
            (_, Agreement::Named) => MethodClass::Named,
            (Claim::Read, Agreement::Agrees) | (Claim::Change, Agreement::Disagrees) => {
                MethodClass::Get
            }
            _ => MethodClass::Other,
        }
    }

    pub(super) fn agreement(self, claim: Claim) -> Agreement {
        match (self, claim) {
            (MethodClass::Neutral, _) => Agreement::Neutral,
            (MethodClass::Named, _) => Agreement::Named,
            (MethodClass::Get, Claim::Read) | (MethodClass::Other, Claim::Change) => {
                Agreement::Agrees
            }
            _ => Agreement::Disagrees,
        }
    }
}

/// What the catalog's declarations are counted by: the verb the engine read, where, and the
/// method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Word {
    pub word: Sym,
    /// Read from a label or description.
    pub prose: bool,
    /// The first word of its text.
    pub first: bool,
    pub method: MethodClass,
    /// The object beside the verb, if any (`list` + `policies`): it changes what the verb
    /// is worth, as the labelled counts tell it apart.
    pub object: Option<usize>,
}

impl Word {}

/// The declarations of one claim for one key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Side {
    pub rows: u32,
    pub connectors: u32,
    /// The rows of the connector that has the most.
    pub top: u32,
}

impl Side {
    /// One connector's rows.
    pub(super) fn add(&mut self, rows: u32) {
        self.rows += rows;
        self.connectors += 1;
        self.top = self.top.max(rows);
    }
}

/// What the catalog said of one action, and what it did: carried beside its inference for
/// `explain`, the reason and the review guide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vote {
    pub key: Word,
    /// The claim most of the key's declarations make, and the effects list declared most
    /// among them, with its rows and connectors.
    pub claim: Claim,
    pub effects: Effects,
    pub effects_rows: u32,
    pub effects_connectors: u32,
    /// Of `effects_rows`, those this run's patch adds.
    pub effects_proposed: u32,
    /// The declarations of that claim, and of the key.
    pub side: Side,
    pub of: u32,
    /// Of `side`, those the engine would not have patched itself: they set the level.
    pub taught: Side,
    /// The level the declarations reach on their own; `None`: too few, or they disagree.
    pub level: Option<Confidence>,
    pub did: Did,
    /// The engine's proposal before the vote.
    pub before: Effects,
    pub before_confidence: Option<Confidence>,
}

/// What a vote did to the engine's proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Did {
    /// Nothing: it agrees and the proposal is as sure already, or it is too weak.
    Nothing,
    /// It agrees: the confidence rose.
    Raised,
    /// It agrees on the claim; its effects were taken (and the confidence may have risen).
    Adopted,
    /// It says change where the engine read: the change is proposed.
    Overruled,
    /// It disagrees and cannot overrule (a read against evidence of change, or declarations
    /// that disagree among themselves): the confidence went down.
    Lowered,
}

impl Did {
    pub fn name(self) -> &'static str {
        match self {
            Did::Nothing => "nothing",
            Did::Raised => "raised",
            Did::Adopted => "adopted",
            Did::Overruled => "overruled",
            Did::Lowered => "lowered",
        }
    }
}
