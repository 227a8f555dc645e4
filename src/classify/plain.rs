//! The plain reading: what an action's name and method say at a glance, the rule every
//! figure is compared with and every proposal starts from. PUT, PATCH or DELETE change; a
//! name that opens with a read verb reads; GET reads; anything else changes.
//!
//! The engine departs from it only through named departures (`departure.rs`), each with its
//! record against this reading on the labelled sets: a reviewer trusts the patch only where
//! what it says beyond the plain reading is right.
//!
//! Its vocabulary is every later stage's: the HTTP method as it counts (`Method`), what a
//! proposal claims (`Claim`), and how the method sits with the claim (`Agreement`).

use super::index::Sym;
use crate::effects::Effects;
use crate::text::words::each_token;

/// Whether a proposal says read-only or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Claim {
    Read,
    Change,
}

impl Claim {
    pub fn name(self) -> &'static str {
        match self {
            Claim::Read => "read",
            Claim::Change => "change",
        }
    }

    pub fn from_effects(effects: Effects) -> Claim {
        if effects.is_read_only() {
            Claim::Read
        } else {
            Claim::Change
        }
    }
}

/// How the HTTP method sits with a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Agreement {
    /// GET for a read; POST, PUT, PATCH or DELETE for a change.
    Agrees,
    /// No HTTP call (an MCP tool, a static step), or POST on an RPC-style API (every call
    /// POST, the URL or SOAP operation names the method), where the method says nothing; and
    /// GET there for a change.
    Neutral,
    /// POST for a read elsewhere; GET for a change.
    Disagrees,
    /// POST to a URL whose last segment names the operation (`/candidates/search`,
    /// `/users/{id}/getMemberGroups`): the method is how such calls are made, read or not,
    /// so each verb's record under it is measured apart.
    Named,
}

impl Agreement {
    pub const ALL: [Agreement; 4] = [
        Agreement::Agrees,
        Agreement::Neutral,
        Agreement::Disagrees,
        Agreement::Named,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Agreement::Agrees => "agrees",
            Agreement::Neutral => "neutral",
            Agreement::Disagrees => "disagrees",
            Agreement::Named => "named",
        }
    }
}

/// The strongest HTTP method among an action's steps: one DELETE makes the action a
/// delete, a read step that feeds a write is still a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Method {
    #[default]
    None,
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::None => "no HTTP call",
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT/PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// The read verbs the plain reading knows: the leading verbs careful OpenAPI-to-MCP
/// generators read as reads (get, list, search, find, query, count, describe, fetch), and
/// their usual kin. Kept as short as the peer rule it is, so that every read word beyond it
/// is a departure with a record.
pub const READ_WORDS: &[&str] = &[
    "get", "list", "search", "find", "query", "count", "describe", "fetch", "read", "retrieve",
    "show", "view", "lookup", "browse", "check",
];

/// Which line of the plain reading spoke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Line {
    /// PUT, PATCH or DELETE.
    Method,
    /// The name opens with a read verb.
    LeadingRead,
    /// GET.
    Get,
    /// Anything else.
    Otherwise,
}

impl Line {
    pub const ALL: [Line; 4] = [Line::Method, Line::LeadingRead, Line::Get, Line::Otherwise];

    /// The line's id in `measured.tsv`.
    pub fn id(self) -> &'static str {
        match self {
            Line::Method => "method",
            Line::LeadingRead => "leading-read",
            Line::Get => "get",
            Line::Otherwise => "otherwise",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Line::Method => "PUT, PATCH or DELETE",
            Line::LeadingRead => "the name opens with a read verb",
            Line::Get => "GET",
            Line::Otherwise => "otherwise",
        }
    }
}

/// The plain reading of one action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Plain {
    pub claim: Claim,
    pub line: Line,
    /// The read verb the name opens with, on [`Line::LeadingRead`] (a symbol of the
    /// lexicon; `None` when the lexicon does not know it).
    pub word: Option<Sym>,
    /// How the HTTP method sits with the claim, as the engine's decisions record it.
    pub agreement: Agreement,
}

/// The plain reading of an action named `name` whose strongest HTTP method is `method`
/// (its word and agreement are the caller's to fill).
pub fn reading(name: &str, method: Method) -> Plain {
    given(leading_read(name).is_some(), method)
}

/// The plain reading of an action whose name opens with a read verb or not (`leads`).
pub fn given(leads: bool, method: Method) -> Plain {
    let line = if matches!(method, Method::Put | Method::Delete) {
        Line::Method
    } else if leads {
        Line::LeadingRead
    } else if method == Method::Get {
        Line::Get
    } else {
        Line::Otherwise
    };
    let claim = match line {
        Line::LeadingRead | Line::Get => Claim::Read,
        Line::Method | Line::Otherwise => Claim::Change,
    };
    Plain {
        claim,
        line,
        word: None,
        agreement: Agreement::Neutral,
    }
}

/// The read verb `name` opens with, if it is one of [`READ_WORDS`].
pub fn leading_read(name: &str) -> Option<&'static str> {
    let mut first = None;
    each_token(name, &mut String::new(), |t| {
        if first.is_none() {
            first = Some(READ_WORDS.iter().find(|w| **w == t).copied());
        }
    });
    first.flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_lines() {
        let r = |name, m| reading(name, m);
        assert_eq!(r("get_user", Method::Delete).line, Line::Method);
        assert_eq!(r("getUser", Method::Post).claim, Claim::Read);
        assert_eq!(r("users_get", Method::Post).claim, Claim::Change);
        assert_eq!(r("users_get", Method::Get).line, Line::Get);
        assert_eq!(r("describe-stacks", Method::None).claim, Claim::Read);
        assert_eq!(r("sync", Method::None).line, Line::Otherwise);
        assert_eq!(r("", Method::None).claim, Claim::Change);
    }
}
