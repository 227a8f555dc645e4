//! Where a source found each action, and what the edits need to know of it: the file's
//! shape, where an `effects` key goes, an existing one, and an action's `annotations:`.

use crate::view::ActionView;

/// The file shapes of connector-format.md, decided by content, never by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A top-level sequence of actions.
    A,
    /// A mapping with an `actions:` sequence.
    B,
    /// A main file whose `actions:` is a mapping of repeated `$ref:` keys.
    C,
    /// A main file with one top-level `$ref` and no `actions:`.
    D,
    /// Anything else: no actions, left alone.
    Other,
    /// An OpenAPI or Swagger document (see [`openapi`]): its operations are the actions.
    OpenApi,
    /// An MCP server's source (Python, TypeScript, JavaScript): its tool registrations
    /// are the actions, and their hints what the patch writes.
    Server,
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::A => "A",
            Shape::B => "B",
            Shape::C => "C",
            Shape::D => "D",
            Shape::Other => "other",
            Shape::OpenApi => "openapi",
            Shape::Server => "server",
        }
    }
}

/// Where a proposed `effects` goes in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Insert {
    /// Block mapping: new lines at byte `at` (a line start, or the end of a file without a
    /// final newline), keys indented `indent` columns.
    Block { at: usize, indent: usize },
    /// Flow mapping: `, effects: [..]` at byte `at`, right after the `actionId` value.
    Flow { at: usize },
    /// No key can be added here without rewriting what is written: why.
    Unsafe(&'static str),
}

/// An existing `effects:` value, for rewriting a conflict in the style it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffectsSite {
    /// Byte range of the value node; for a block list, its first `-` and the end of the
    /// last item.
    pub start: usize,
    pub end: usize,
    pub flow: bool,
    /// Column of the first `-` of a block list.
    pub item_indent: usize,
    /// False when the value comes through a `<<` merge: rewriting it would change other
    /// actions too.
    pub own: bool,
    /// Why the value cannot be rewritten in place, when it cannot (an alias, or an anchor
    /// other nodes refer to).
    pub unsafe_rewrite: Option<&'static str>,
}

/// One action item found in a file.
#[derive(Debug, Clone)]
pub struct ActionSite {
    pub view: ActionView,
    /// 1-based column of the `actionId` key.
    pub column: usize,
    /// Byte where the action's mapping starts: an inserted `effects` must land in it.
    pub map_start: usize,
    /// The nested `refreshAuthentication.action`: reported as skipped, never patched.
    pub nested: bool,
    pub insert: Insert,
    pub effects: Option<EffectsSite>,
    /// How this action indents its own block lists, when it has one.
    pub seq_offset: Option<usize>,
    /// Where its `annotations:` mapping is written, for removing hints; boxed, since most
    /// actions have none.
    pub annotations: Option<Box<AnnotationsSite>>,
}

/// One entry of an action's `annotations:` mapping, as a removal needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HintEntry {
    pub key: String,
    pub key_start: usize,
    pub value_end: usize,
    /// A plain or quoted scalar on its key's line, neither key nor value anchored, tagged
    /// or an alias: the only entries removed in place.
    pub simple: bool,
}

/// An action's own `annotations:` mapping: where it and its entries are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnnotationsSite {
    /// The `annotations` key and the end of the mapping (its `}` when flow, the end of its
    /// last value when block).
    pub key_start: usize,
    pub end: usize,
    pub flow: bool,
    /// The mapping carries an anchor (`&name`): it may lose keys, never go whole.
    pub anchored: bool,
    pub entries: Vec<HintEntry>,
    /// Why no key of it can be removed in place, when none can (a merge, an alias, an
    /// anchor other nodes use, a tag).
    pub unsafe_why: Option<&'static str>,
    /// The action is a flow mapping (`{actionId: x, annotations: {...}}`).
    pub action_flow: bool,
    /// The end of the action's entry before `annotations`, and the start of the one after.
    pub prev_end: usize,
    pub next_start: Option<usize>,
}
