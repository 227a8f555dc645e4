//! A light, span-aware YAML tree built from the event parser.
//!
//! Only what locating and editing actions needs: mappings, sequences, scalars and aliases
//! with byte offsets into the original text. Built iteratively, so nesting depth cannot
//! overflow the stack.

use saphyr_parser::{Event, Parser, ScalarStyle};

use crate::error::Error;

pub type NodeId = usize;

/// No node: the end of a child list.
const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A scalar; its value is [`Tree::scalar_text`]. Values are copied into one pool per
    /// tree and the parser's own string dropped at once, as the bare event parse does:
    /// keeping a string per scalar until the tree went away made freeing them cost more
    /// than building the tree.
    Scalar { value: Text, style: ScalarStyle },
    /// Children are linked through `first_child` / `next`, so building a tree allocates
    /// nothing per collection and parsing stays close to the event parser's own cost.
    Seq,
    /// Children alternate key, value.
    Map,
    /// An alias; the target is resolved at build time (`None` cannot happen for valid YAML).
    Alias(Option<NodeId>),
}

/// Where a scalar's value sits in [`Tree::pool`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text {
    at: usize,
    len: usize,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub kind: Kind,
    /// Byte offset where the node starts. Block mappings start at their first key, block
    /// sequences at their first `-`, block scalars at their content.
    pub start: usize,
    /// Byte offset where the node ends. Reliable for scalars and flow collections only:
    /// block collections end at the next token, after comments and blank lines.
    pub end: usize,
    /// 1-based line of `start`.
    pub line: usize,
    /// True for `{...}` and `[...]` collections.
    pub flow: bool,
    /// True when the node carries an anchor (`&name`).
    pub anchored: bool,
    first_child: u32,
    last_child: u32,
    next: u32,
}

/// The parsed file: every node in document order, and one root per document.
#[derive(Debug, Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
    pub roots: Vec<NodeId>,
    /// Every scalar value, back to back.
    pool: String,
}

/// Converts saphyr's character offsets to byte offsets. Only multi-byte characters are
/// recorded (with the extra bytes counted up to and including each), so an ASCII file needs
/// nothing and a file with a few accents needs a few entries; a lookup is a binary search.
struct CharCursor<'a> {
    text: &'a str,
    /// (char index, extra bytes of every multi-byte char up to and including this one).
    marks: Vec<(usize, usize)>,
    /// How many marks the previous lookup was past: events arrive in text order, so the
    /// next answer is almost always at or just after it.
    hint: usize,
}

impl<'a> CharCursor<'a> {
    fn new(text: &'a str) -> Self {
        let mut marks = Vec::new();
        if !text.is_ascii() {
            let bytes = text.as_bytes();
            let mut extra = 0;
            // Whole ASCII blocks are skipped with a word-at-a-time check.
            for (k, block) in bytes.chunks(64).enumerate() {
                if block.is_ascii() {
                    continue;
                }
                for (j, &byte) in block.iter().enumerate() {
                    // A lead byte of a multi-byte character (continuations are 0b10xxxxxx).
                    if byte >= 0xC0 {
                        let width = utf8_width(byte);
                        marks.push((k * 64 + j - extra, extra + width - 1));
                        extra += width - 1;
                    }
                }
            }
        }
        CharCursor {
            text,
            marks,
            hint: 0,
        }
    }

    fn byte(&mut self, char_index: usize) -> usize {
        let marks = &self.marks;
        let mut before = self.hint;
        if before > 0 && marks[before - 1].0 >= char_index {
            before = marks.partition_point(|&(c, _)| c < char_index);
        } else {
            while before < marks.len() && marks[before].0 < char_index {
                before += 1;
            }
        }
        self.hint = before;
        let extra = if before == 0 {
            0
        } else {
            self.marks[before - 1].1
        };
        (char_index + extra).min(self.text.len())
    }
}

fn utf8_width(first: u8) -> usize {
    match first {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// The first byte of a collection that starts at `start`, past its properties: the span of
/// `&a {x: 1}` or `!!map {x: 1}` starts at the anchor or tag, not at the brace (fuzzer crash
/// ee4b7845: an anchored flow mapping taken for a block one got block lines inserted).
fn opener(text: &str, start: usize) -> Option<u8> {
    let bytes = text.as_bytes();
    let mut i = start;
    loop {
        match bytes.get(i)? {
            b'&' | b'!' => {
                while bytes.get(i).is_some_and(|b| !b" \t\r\n".contains(b)) {
                    i += 1;
                }
            }
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' => {
                while bytes.get(i).is_some_and(|&b| b != b'\n') {
                    i += 1;
                }
            }
            &b => return Some(b),
        }
    }
}

/// Parses `text` into a [`Tree`]. Errors carry 1-based line and column.
pub fn parse(text: &str) -> Result<Tree, Error> {
    // About one node per 12 bytes in connector files: reserving avoids regrowing the
    // arena, which costs as much as building it.
    let mut tree = Tree {
        nodes: Vec::with_capacity(text.len() / 12 + 16),
        roots: Vec::new(),
        pool: String::with_capacity(text.len() / 2),
    };
    let mut cursor = CharCursor::new(text);
    // Open collections.
    let mut stack: Vec<NodeId> = Vec::new();
    // Anchor ids are small integers handed out in order; aliases refer back to them.
    let mut anchors: Vec<Option<NodeId>> = Vec::new();

    for item in Parser::new_from_str(text) {
        let (event, span) = item.map_err(|e| {
            let m = e.marker();
            Error::new(format!("invalid YAML: {}", e.info())).at(m.line(), m.col() + 1)
        })?;
        let start = cursor.byte(span.start.index());
        let (kind, anchor, flow) = match event {
            Event::Scalar(value, style, anchor, _) => {
                let at = tree.pool.len();
                tree.pool.push_str(&value);
                let value = Text {
                    at,
                    len: value.len(),
                };
                (Kind::Scalar { value, style }, anchor, false)
            }
            Event::SequenceStart(anchor, _) => {
                (Kind::Seq, anchor, opener(text, start) == Some(b'['))
            }
            Event::MappingStart(anchor, _) => {
                (Kind::Map, anchor, opener(text, start) == Some(b'{'))
            }
            Event::Alias(id) => (Kind::Alias(anchors.get(id).copied().flatten()), 0, false),
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some(id) = stack.pop() {
                    tree.nodes[id].end = cursor.byte(span.end.index());
                }
                continue;
            }
            _ => continue,
        };
        let id = tree.nodes.len();
        let is_container = matches!(kind, Kind::Seq | Kind::Map);
        let end = if is_container {
            start
        } else {
            cursor.byte(span.end.index()).max(start)
        };
        tree.nodes.push(Node {
            kind,
            start,
            end,
            line: span.start.line(),
            flow,
            anchored: anchor > 0,
            first_child: NONE,
            last_child: NONE,
            next: NONE,
        });
        if anchor > 0 {
            if anchors.len() <= anchor {
                anchors.resize(anchor + 1, None);
            }
            anchors[anchor] = Some(id);
        }
        match stack.last() {
            Some(&parent) => {
                let p = &mut tree.nodes[parent];
                let last = p.last_child;
                p.last_child = id as u32;
                if last == NONE {
                    p.first_child = id as u32;
                } else {
                    tree.nodes[last as usize].next = id as u32;
                }
            }
            None => tree.roots.push(id),
        }
        if is_container {
            stack.push(id);
        }
    }
    Ok(tree)
}

/// The children of a collection, in order.
#[derive(Clone)]
pub struct Children<'t> {
    tree: &'t Tree,
    next: u32,
}

impl Iterator for Children<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        if self.next == NONE {
            return None;
        }
        let id = self.next as usize;
        self.next = self.tree.nodes[id].next;
        Some(id)
    }
}

/// The (key, value) entries of a mapping, in order.
#[derive(Clone)]
pub struct Entries<'t>(Children<'t>);

impl Iterator for Entries<'_> {
    type Item = (NodeId, NodeId);

    fn next(&mut self) -> Option<(NodeId, NodeId)> {
        let key = self.0.next()?;
        let value = self.0.next()?;
        Some((key, value))
    }
}

impl Tree {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// Follows aliases to the node they stand for. Bounded, so a malformed chain cannot
    /// loop.
    pub fn resolve(&self, mut id: NodeId) -> NodeId {
        for _ in 0..16 {
            match self.nodes[id].kind {
                Kind::Alias(Some(target)) => id = target,
                _ => break,
            }
        }
        id
    }

    fn text(&self, t: Text) -> &str {
        &self.pool[t.at..t.at + t.len]
    }

    /// The value and style of a scalar node itself (no alias resolution).
    pub fn scalar_text(&self, id: NodeId) -> Option<(&str, ScalarStyle)> {
        match self.nodes[id].kind {
            Kind::Scalar { value, style } => Some((self.text(value), style)),
            _ => None,
        }
    }

    /// The scalar text of a node (after alias resolution), if it is a scalar.
    pub fn scalar(&self, id: NodeId) -> Option<&str> {
        match &self.nodes[self.resolve(id)].kind {
            Kind::Scalar { value, .. } => Some(self.text(*value)),
            _ => None,
        }
    }

    fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            tree: self,
            next: self.nodes[id].first_child,
        }
    }

    /// The items of a sequence (after alias resolution).
    pub fn items(&self, id: NodeId) -> Option<Children<'_>> {
        let id = self.resolve(id);
        matches!(self.nodes[id].kind, Kind::Seq).then(|| self.children(id))
    }

    /// The entries of a mapping (after alias resolution).
    pub fn entries(&self, id: NodeId) -> Option<Entries<'_>> {
        let id = self.resolve(id);
        matches!(self.nodes[id].kind, Kind::Map).then(|| Entries(self.children(id)))
    }

    /// The entries of the mapping itself, without alias resolution or merges.
    pub fn own_entries(&self, id: NodeId) -> Option<Entries<'_>> {
        matches!(self.nodes[id].kind, Kind::Map).then(|| Entries(self.children(id)))
    }

    /// The entry with a scalar key `key`: own keys first, then `<<` merge sources, as YAML
    /// merge keys specify. Returns (key node, value node).
    pub fn entry(&self, map: NodeId, key: &str) -> Option<(NodeId, NodeId)> {
        let mut merge = None;
        for (k, v) in self.entries(map)? {
            match self.scalar(k) {
                Some(name) if name == key => return Some((k, v)),
                Some("<<") => merge = Some(v),
                _ => {}
            }
        }
        let merge = merge?;
        let sources: Vec<NodeId> = match self.items(merge) {
            Some(items) => items.collect(),
            None => vec![merge],
        };
        sources.into_iter().find_map(|src| {
            // Merge sources are never followed through further merges: one level is what
            // real files use, and it keeps alias bombs cheap.
            self.entries(src)?
                .find(|&(k, _)| self.scalar(k) == Some(key))
        })
    }

    /// The values of several keys at once, as [`Tree::get`] would find each: one pass over
    /// the mapping's own entries, and the merge sources only for keys it lacks. Reading an
    /// action asks for a dozen keys; one pass instead of a dozen is most of that cost.
    pub fn fields<const N: usize>(&self, map: NodeId, keys: [&str; N]) -> [Option<NodeId>; N] {
        let mut found = [None; N];
        let Some(entries) = self.entries(map) else {
            return found;
        };
        let mut merge = false;
        for (k, v) in entries {
            let Some(name) = self.scalar(k) else { continue };
            match keys.iter().position(|&key| key == name) {
                Some(i) if found[i].is_none() => found[i] = Some(v),
                Some(_) => {}
                None => merge |= name == "<<",
            }
        }
        if merge {
            for (slot, key) in found.iter_mut().zip(keys) {
                if slot.is_none() {
                    *slot = self.get(map, key);
                }
            }
        }
        found
    }

    pub fn get(&self, map: NodeId, key: &str) -> Option<NodeId> {
        self.entry(map, key).map(|(_, v)| v)
    }

    pub fn get_str(&self, map: NodeId, key: &str) -> Option<&str> {
        self.get(map, key).and_then(|v| self.scalar(v))
    }

    pub fn is_map(&self, id: NodeId) -> bool {
        self.entries(id).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_offsets_survive_non_ascii() {
        let text = "a: \"é日本\"\nb: x\n";
        let tree = parse(text).unwrap();
        let root = tree.roots[0];
        let b = tree.get(root, "b").unwrap();
        let n = tree.node(b);
        assert_eq!(&text[n.start..n.end], "x");
        assert_eq!(n.line, 2);
    }

    #[test]
    fn flow_and_block_are_told_apart() {
        let tree = parse("a: [1]\nb:\n  - 1\nc: {x: 1}\n").unwrap();
        let root = tree.roots[0];
        assert!(tree.node(tree.get(root, "a").unwrap()).flow);
        assert!(!tree.node(tree.get(root, "b").unwrap()).flow);
        assert!(tree.node(tree.get(root, "c").unwrap()).flow);
        // Behind an anchor or a tag (spans start at the property, not at the bracket).
        let tree =
            parse("a: &x [1]\nb: &y\n  - 1\nc: !!map {x: 1}\nd: &z # c\n  {x: 1}\n").unwrap();
        let root = tree.roots[0];
        let flow = |k: &str| tree.node(tree.get(root, k).unwrap()).flow;
        assert!(flow("a") && !flow("b") && flow("c") && flow("d"));
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 10_000;
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        // saphyr refuses very deep nesting or accepts it; either way no stack overflow.
        let _ = parse(&text);
    }

    #[test]
    fn merge_keys_are_followed_once() {
        let tree = parse("base: &b {label: L}\nitem:\n  <<: *b\n  id: x\n").unwrap();
        let item = tree.get(tree.roots[0], "item").unwrap();
        assert_eq!(tree.get_str(item, "label"), Some("L"));
        assert_eq!(tree.get_str(item, "id"), Some("x"));
    }

    #[test]
    fn errors_have_positions() {
        let err = parse("a: \"unclosed\nb: c\n").unwrap_err();
        assert!(err.line.is_some());
    }
}
