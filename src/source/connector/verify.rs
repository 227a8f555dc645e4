//! The digests the connector check compares, so the edited document is known to hold the
//! original's nodes, in the same places, plus exactly the planned `effects`. Each
//! tree is reduced to a digest of its nodes (depth, kind, style, anchors, tags, positions
//! mapped back into the original, values), so the original's tree
//! can be dropped before the edited one is built: one large file never has both in memory.
//!
//! Positions stand in for most values: outside the edits the two texts are byte-identical,
//! so a scalar that is a slice of the text, starts and ends at the same mapped places and
//! holds no edit has the same value. Values the parser rewrote (escapes, folded lines,
//! block scalars) are hashed byte by byte.

use crate::model::edit::Edit;
use saphyr_parser::ScalarStyle;

use crate::yaml::tree::{Kind, NodeId, Tree};

/// What two trees are compared by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Digest(u64, u64);

/// Two independent 64-bit lanes: a collision would need both to collide at once. Each
/// lane is one multiply per word, and the lanes do not wait on each other.
struct Hasher(u64, u64);

impl Hasher {
    fn new() -> Hasher {
        Hasher(0x243F_6A88_85A3_08D3, 0x1319_8A2E_0370_7344)
    }

    fn word(&mut self, x: u64) {
        self.0 = (self.0 ^ x)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
        self.1 = (self.1.rotate_left(17) ^ x).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    }

    fn bytes(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.word(u64::from_le_bytes(w.try_into().unwrap_or_default()));
        }
        let mut last = [0u8; 8];
        last[..words.remainder().len()].copy_from_slice(words.remainder());
        self.word(u64::from_le_bytes(last) ^ (bytes.len() as u64) << 56);
    }
}

/// The properties a node carries besides its position: its anchor id and tag.
fn hash_properties(h: &mut Hasher, tree: &Tree, id: NodeId) {
    let n = tree.node(id);
    if n.anchored() {
        h.word(tree.anchor_id(id).unwrap_or(0) as u64);
    }
    if let Some(tag) = tree.tag(id) {
        h.bytes(tag.as_bytes());
    }
}

/// One node's part of the digest: what the event stream says about it, and where it sits
/// (`start`, `end` in the original's coordinates).
fn hash_node(h: &mut Hasher, tree: &Tree, id: NodeId, depth: usize, start: usize, end: usize) {
    let n = tree.node(id);
    let flags = u64::from(n.flow()) | u64::from(n.anchored()) << 1 | u64::from(n.tagged()) << 2;
    let head = (depth as u64) << 16 | (n.kind() as u64) << 8 | flags << 4 | n.style() as u64;
    let tail = match n.kind() {
        Kind::Scalar if tree.pooled(id) => {
            h.bytes(tree.scalar_text(id).map_or("", |(v, _)| v).as_bytes());
            end
        }
        Kind::Scalar | Kind::Alias => end,
        Kind::Seq | Kind::Map if n.flow() => end,
        _ => 0,
    };
    let extra = match n.kind() {
        Kind::Alias => tree.alias_id(id).unwrap_or(0) as u64,
        Kind::Scalar if !tree.pooled(id) => tree.sliced_len(id) as u64,
        _ => 0,
    };
    h.word(head ^ extra << 32);
    h.word((start as u64) << 32 | tail as u64);
    if n.anchored() || n.tagged() {
        hash_properties(h, tree, id);
    }
}

/// Where the edits sit in one of the two texts: (start, end, edit index) of each edit's
/// old bytes in the original, of its new bytes in the edited text, and the bytes added
/// before each range's end (`shift[0]` is 0; all zero on the original's side).
struct Ranges {
    ranges: Vec<(usize, usize)>,
    shift: Vec<isize>,
    /// Ranges wholly before the node being looked at: nodes come in text order.
    cursor: usize,
}

impl Ranges {
    fn original(edits: &[Edit]) -> Ranges {
        Ranges {
            ranges: edits.iter().map(|e| (e.start, e.end)).collect(),
            shift: vec![0; edits.len() + 1],
            cursor: 0,
        }
    }

    fn edited(edits: &[Edit]) -> Ranges {
        let mut ranges = Vec::with_capacity(edits.len());
        let mut shift = vec![0isize];
        for e in edits {
            let s = shift[shift.len() - 1];
            let start = (e.start as isize + s) as usize;
            ranges.push((start, start + e.text.len()));
            shift.push(s + e.text.len() as isize - (e.end - e.start) as isize);
        }
        Ranges {
            ranges,
            shift,
            cursor: 0,
        }
    }

    /// Where the next range at or after the cursor starts: nothing before it needs looking
    /// at twice.
    fn edge(&self) -> usize {
        self.ranges.get(self.cursor).map_or(usize::MAX, |r| r.0)
    }

    /// Moves the cursor to byte `p`: past every range that ends at or before it.
    fn seek(&mut self, p: usize) {
        if self.cursor > 0 && self.ranges[self.cursor - 1].1 > p {
            self.cursor = self.ranges.partition_point(|r| r.1 <= p);
        }
        while self.ranges.get(self.cursor).is_some_and(|r| r.1 <= p) {
            self.cursor += 1;
        }
    }

    /// The edit whose (non-empty) range holds byte `p`, at or after the cursor.
    fn holding(&self, p: usize) -> Option<usize> {
        let mut c = self.cursor;
        while self.ranges.get(c).is_some_and(|r| r.1 <= p) {
            c += 1;
        }
        let r = self.ranges.get(c)?;
        (r.0 <= p && p < r.1).then_some(c)
    }

    /// True when an edit lies inside the value `start..end` (after `seek(start)`): an
    /// insertion strictly inside it, or a replacement overlapping it.
    fn crosses(&self, start: usize, end: usize) -> bool {
        self.ranges[self.cursor..]
            .iter()
            .take_while(|r| r.0 < end)
            .any(|r| r.0 < r.1 || r.0 > start)
    }

    /// The end `p` of a node starting at `start`, in the original's coordinates: by its last
    /// byte, so an end where a removal left nothing (an empty range) is not moved past it.
    fn to_old_end(&self, start: usize, p: usize) -> usize {
        if p > start {
            self.to_old(p - 1) + 1
        } else {
            self.to_old(p)
        }
    }

    /// Byte `p` (outside the edits, at or after the cursor) in the original's coordinates.
    fn to_old(&self, p: usize) -> usize {
        let mut c = self.cursor;
        while self.ranges.get(c).is_some_and(|r| r.1 <= p) {
            c += 1;
        }
        (p as isize - self.shift[c]) as usize
    }
}

/// The items of `seq` are plain scalars naming exactly `effects`, in order (double-quoted in
/// a mapping written as JSON).
fn declares(tree: &Tree, seq: NodeId, effects: crate::effects::Effects) -> bool {
    if tree.node(seq).kind() != Kind::Seq {
        return false;
    }
    let want = effects.iter().map(|e| Some(e.name()));
    let got = (seq + 1..seq + 1 + tree.descendants(seq)).map(|i| {
        let n = tree.node(i);
        let plain = n.kind() == Kind::Scalar
            && matches!(n.style(), ScalarStyle::Plain | ScalarStyle::DoubleQuoted)
            && !n.anchored()
            && !n.tagged();
        plain.then(|| tree.scalar_text(i).map(|(v, _)| v)).flatten()
    });
    got.eq(want)
}

fn wrong_at(tree: &Tree, at: usize) -> String {
    format!(
        "the edited text does not hold the planned effects at line {}",
        tree.lines.line(at)
    )
}

/// The digest of the original tree, the lists the edits rewrite left out; an edit landing
/// inside a value fails.
pub fn original(tree: &Tree, edits: &[Edit]) -> Result<Digest, String> {
    digest(tree, edits, false)
}

/// The digest of the edited tree, each inserted `effects` entry and each rewritten list
/// checked and left out, positions mapped back into the original's coordinates: it equals
/// the original's exactly when the edits did what they were planned to do.
pub fn edited(tree: &Tree, edits: &[Edit]) -> Result<Digest, String> {
    digest(tree, edits, true)
}

fn digest(tree: &Tree, edits: &[Edit], is_edited: bool) -> Result<Digest, String> {
    let mut w = Walk {
        tree,
        edits,
        is_edited,
        ranges: if is_edited {
            Ranges::edited(edits)
        } else {
            Ranges::original(edits)
        },
        seen: vec![false; edits.len()],
        h: Hasher::new(),
        frames: Vec::new(),
    };
    let mut id = 0;
    while id < tree.len() {
        id = w.node(id)?;
    }
    w.finish()
}

/// One tree walked in document order into its digest, with the edits it is checked for.
struct Walk<'a, 't> {
    tree: &'a Tree<'t>,
    edits: &'a [Edit],
    is_edited: bool,
    ranges: Ranges,
    /// Each edit found where it was planned.
    seen: Vec<bool>,
    h: Hasher,
    /// Open collections: (end, is a mapping, children seen, start).
    frames: Vec<(usize, bool, usize, usize)>,
}

impl Walk<'_, '_> {
    /// Hashes or checks the node `id` (and what it holds, where that goes whole); returns
    /// the next node to walk.
    #[inline]
    fn node(&mut self, id: NodeId) -> Result<NodeId, String> {
        let tree = self.tree;
        while self.frames.last().is_some_and(|f| f.0 <= id) {
            self.frames.pop();
        }
        let depth = self.frames.len();
        let n = *tree.node(id);
        let next = id + 1 + tree.descendants(id);
        self.ranges.seek(n.start());
        let first_item =
            (n.kind() == Kind::Seq && next > id + 1).then(|| tree.node(id + 1).start());
        // Most nodes lie wholly before the next edit: hashed at once, their positions
        // shifted by what the edits before them added.
        let end_used = matches!(n.kind(), Kind::Scalar | Kind::Alias) || n.flow();
        let reach = first_item
            .unwrap_or(0)
            .max(if end_used { n.end() } else { n.start() });
        if reach < self.ranges.edge() {
            let shift = self.ranges.shift[self.ranges.cursor];
            let old = |p: usize| (p as isize - shift) as usize;
            hash_node(&mut self.h, tree, id, depth, old(n.start()), old(n.end()));
            self.open(id, next, 1);
            return Ok(id + 1);
        }
        if let Some(k) = first_item.and_then(|p| self.ranges.holding(p)) {
            return self.rewritten(id, next, depth, k);
        }
        let holding = self.ranges.holding(n.start());
        if let Some(k) = holding.filter(|&k| self.edits[k].is_removal()) {
            return self.removed(id, next, depth, k);
        }
        if let Some(k) = holding {
            return self.inserted(id, k);
        }
        if matches!(n.kind(), Kind::Scalar | Kind::Alias) && self.ranges.crosses(n.start(), n.end())
        {
            return Err(if self.is_edited {
                wrong_at(tree, n.start())
            } else {
                format!(
                    "an edit lands inside the value at line {}",
                    tree.lines.line(n.start())
                )
            });
        }
        let (start, end) = (
            self.ranges.to_old(n.start()),
            self.ranges.to_old_end(n.start(), n.end()),
        );
        hash_node(&mut self.h, tree, id, depth, start, end);
        self.open(id, next, 1);
        Ok(id + 1)
    }

    /// Counts `children` more in the open collection, and opens `id` if it is one.
    #[inline]
    fn open(&mut self, id: NodeId, next: NodeId, children: usize) {
        if let Some(f) = self.frames.last_mut() {
            f.2 += children;
        }
        let n = self.tree.node(id);
        if matches!(n.kind(), Kind::Seq | Kind::Map) {
            self.frames
                .push((next, n.kind() == Kind::Map, 0, n.start()));
        }
    }

    /// A rewritten list (edit `k`): hashed by what surrounds it, its items checked on the
    /// edited side against what was planned.
    fn rewritten(
        &mut self,
        id: NodeId,
        next: NodeId,
        depth: usize,
        k: usize,
    ) -> Result<NodeId, String> {
        let tree = self.tree;
        if self.is_edited && (self.seen[k] || !declares(tree, id, self.edits[k].effects)) {
            return Err(wrong_at(tree, tree.node(id).start()));
        }
        self.seen[k] = true;
        self.h.word(u64::MAX - k as u64);
        self.h.word(depth as u64);
        hash_properties(&mut self.h, tree, id);
        if let Some(f) = self.frames.last_mut() {
            f.2 += 1;
        }
        Ok(next)
    }

    /// What a removal (edit `k`) takes, which only the original holds (its edited range is
    /// empty): whole entries, each a key naming what the edit removes and its value, every
    /// node of them inside a removal of the same action. They are left out of the digest;
    /// a block mapping whose first keys go starts, once edited, at its first kept key.
    fn removed(
        &mut self,
        id: NodeId,
        next: NodeId,
        depth: usize,
        k: usize,
    ) -> Result<NodeId, String> {
        let (tree, edits) = (self.tree, self.edits);
        let n = *tree.node(id);
        if n.kind() == Kind::Map && !n.flow() {
            let kept = tree
                .own_entries(id)
                .into_iter()
                .flatten()
                .map(|(key, _)| tree.node(key).start())
                .find(|&p| {
                    self.ranges
                        .holding(p)
                        .is_none_or(|j| !edits[j].is_removal())
                });
            let Some(start) = kept else {
                return Err(format!(
                    "a removal empties the mapping at line {}",
                    tree.lines.line(n.start())
                ));
            };
            hash_node(&mut self.h, tree, id, depth, start, 0);
            self.open(id, next, 1);
            return Ok(id + 1);
        }
        let e = &edits[k];
        let in_map = self.frames.last().is_some_and(|f| f.1 && f.2 % 2 == 0);
        let names = tree.scalar_text(id).is_some_and(|(v, _)| {
            let bit = match v {
                "annotations" => crate::model::hints::ANNOTATIONS,
                _ => crate::model::hints::HintKey::parse(v)
                    .map_or(0, crate::model::hints::HintKey::bit),
            };
            bit != 0 && e.removes & bit != 0
        });
        let value = id + 1;
        if self.is_edited || !in_map || !names || value >= tree.len() {
            return Err(format!(
                "a removal takes more than the planned keys at line {}",
                tree.lines.line(n.start())
            ));
        }
        let end = value + 1 + tree.descendants(value);
        for i in id..end {
            match self.ranges.holding(tree.node(i).start()) {
                Some(j) if edits[j].is_removal() && edits[j].map == e.map => self.seen[j] = true,
                _ => {
                    return Err(format!(
                        "a removal takes part of an entry at line {}",
                        tree.lines.line(tree.node(i).start())
                    ));
                }
            }
        }
        if let Some(f) = self.frames.last_mut() {
            f.2 += 2;
        }
        Ok(end)
    }

    /// An inserted entry (edit `k`): only an insertion's key starts inside an edit,
    /// `effects`, and its list, as the next two children of the mapping the edit was
    /// planned for.
    fn inserted(&mut self, id: NodeId, k: usize) -> Result<NodeId, String> {
        let tree = self.tree;
        let n = *tree.node(id);
        let e = &self.edits[k];
        let value = id + 1;
        let in_map = self
            .frames
            .last()
            .is_some_and(|f| f.1 && f.2 % 2 == 0 && self.ranges.to_old(f.3) == e.map);
        let key = n.kind() == Kind::Scalar
            && matches!(n.style(), ScalarStyle::Plain | ScalarStyle::DoubleQuoted)
            && !n.anchored()
            && !n.tagged()
            && tree.scalar_text(id).is_some_and(|(v, _)| v == "effects");
        let list = value < tree.len()
            && !tree.node(value).anchored()
            && !tree.node(value).tagged()
            && declares(tree, value, e.effects);
        if !self.is_edited || e.start != e.end || self.seen[k] || !in_map || !key || !list {
            return Err(wrong_at(tree, n.start()));
        }
        let end = value + 1 + tree.descendants(value);
        if (id..end).any(|i| self.ranges.holding(tree.node(i).start()) != Some(k)) {
            return Err(wrong_at(tree, n.start()));
        }
        self.seen[k] = true;
        if let Some(f) = self.frames.last_mut() {
            f.2 += 2;
        }
        Ok(end)
    }

    /// The digest, once every edit was found where it was planned: insertions on the
    /// edited side, rewrites on both.
    fn finish(mut self) -> Result<Digest, String> {
        self.h.word(self.tree.roots.len() as u64);
        let is_edited = self.is_edited;
        let missing = self.edits.iter().zip(&self.seen).position(|(e, &s)| {
            !s && if is_edited {
                !e.is_removal()
            } else {
                e.start < e.end
            }
        });
        if let Some(k) = missing {
            let at = self.ranges.ranges[k].0.min(self.tree.text().len());
            return Err(format!(
                "the edit at line {} is not where it was planned",
                self.tree.lines.line(at)
            ));
        }
        Ok(Digest(self.h.0, self.h.1))
    }
}
