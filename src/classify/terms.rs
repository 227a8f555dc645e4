//! The words every reading is told in, below everything that reads: how sure a proposal is
//! ([`Confidence`]), where a verb was read ([`Field`]), an object beside it ([`ObjectHit`]),
//! what overrules a read ([`Veto`]) and what a report names as deciding ([`Ref`]). Plain
//! data: the records (`record.rs`) are keyed by them, and the stages above fill them in.

use std::fmt;

use super::index::Sym;

/// How sure a proposal is: below the patch level it is listed for a person, not patched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Confidence {
    Low,
    Medium,
    High,
}

impl Confidence {
    pub fn name(self) -> &'static str {
        match self {
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }

    pub fn parse(s: &str) -> Option<Confidence> {
        [Confidence::Low, Confidence::Medium, Confidence::High]
            .into_iter()
            .find(|c| c.name() == s)
    }
}

impl fmt::Display for Confidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a verb was read, in the order the decision trusts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    /// The action id or tool name.
    Name,
    /// The operation a URL or SOAP call names: an RPC method (`/users.list`), a custom method
    /// (`/files/{id}:batchGet`), an `?action=` selector, a SOAP operation.
    Operation,
    Label,
    /// The last literal segment of the URL (`/tickets/{id}/archive`).
    Path,
    /// The first sentence of the description.
    Description,
}

impl Field {
    pub const ALL: [Field; 5] = [
        Field::Name,
        Field::Operation,
        Field::Label,
        Field::Path,
        Field::Description,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Operation => "operation",
            Field::Label => "label",
            Field::Path => "path",
            Field::Description => "description",
        }
    }

    pub fn parse(s: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|x| x.name() == s)
    }

    /// Whether `Evidence::object` is read beside a verb from here: the name's, or the
    /// label's where the name has none.
    pub fn has_object(self) -> bool {
        matches!(self, Field::Name | Field::Label)
    }
}

/// An object of the name's (or the label's) verb (`token` in `get_session_token`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectHit {
    /// Index into the lexicon's objects.
    pub object: usize,
    pub word: Sym,
}

/// A read verb overruled by what says change beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Veto {
    Object,
    Conjunction,
    Operation,
    Path,
    /// A change verb elsewhere in the name (`mark_chat_read_for_user`).
    Name,
    /// A description that opens with a change verb, beside a read that is also a state
    /// (`event_read`, "Marks a single Event as read.").
    Prose,
}

impl Veto {
    pub const ALL: [Veto; 6] = [
        Veto::Object,
        Veto::Conjunction,
        Veto::Operation,
        Veto::Path,
        Veto::Name,
        Veto::Prose,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Veto::Object => "object",
            Veto::Conjunction => "conjunction",
            Veto::Operation => "operation",
            Veto::Path => "path",
            Veto::Name => "name",
            Veto::Prose => "prose",
        }
    }
}

/// Something a report names as deciding: a sense, an object or a rule, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ref {
    Sense(u8),
    Object(usize),
    Rule(usize),
    /// A hint declared in the catalog.
    Hint,
    /// The plain reading.
    Plain,
}
