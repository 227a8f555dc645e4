//! Python servers: `@server.tool(...)` on the official SDK (`MCPServer`, `FastMCP`), the standalone `fastmcp` package, and the low-level `types.Tool(...)`.
//!
//! The file is parsed with tree-sitter's Python grammar, so every span is a byte range of
//! the text as it is: a slot is where the file's own bytes say the next argument goes. Only
//! what the file itself binds is followed (a module constant bound once, an enum member of a
//! class in the file); anything imported or computed is reported as unread, never guessed.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Parser, Tree};

use super::reader::{Annotations, Entry, Found, Language, Slot, Tool, Value, hint_key};
use crate::error::Error;

/// The Python reader.
pub struct Python;

impl Language for Python {
    fn name(&self) -> &'static str {
        "python"
    }

    fn is_server(&self, text: &str) -> bool {
        let mut types = false;
        // The triple quote a string spanning lines was opened with: an import written in a
        // docstring is prose.
        let mut open: Option<&str> = None;
        for line in text.lines() {
            let was_open = open.is_some();
            for quote in triple_quotes(line) {
                match open {
                    Some(q) if q == quote => open = None,
                    Some(_) => {}
                    None => open = Some(quote),
                }
            }
            if was_open {
                continue;
            }
            match import_of(line.trim_start()) {
                Some(Import::Server) => return true,
                Some(Import::Types) => types = true,
                None => {}
            }
        }
        // `mcp.types` alone is imported by clients too: a low-level server is one that also
        // builds the tools it lists.
        types && text.contains("Tool(")
    }

    fn read(&self, text: &str, _name: &str) -> Result<Found, Error> {
        let tree = parse(text)?;
        let file = File::new(text, &tree);
        Ok(file.read())
    }
}

enum Import {
    Server,
    Types,
}

/// The triple quotes of a line in order, outside a comment (a cheap scan: a triple quote
/// inside a one-line string is rare enough for a precheck).
fn triple_quotes(line: &str) -> impl Iterator<Item = &'static str> + '_ {
    let mut rest = line.split('#').next().unwrap_or(line);
    std::iter::from_fn(move || {
        let double = rest.find("\"\"\"");
        let single = rest.find("'''");
        let (at, quote) = match (double, single) {
            (Some(d), Some(s)) if s < d => (s, "'''"),
            (Some(d), _) => (d, "\"\"\""),
            (None, Some(s)) => (s, "'''"),
            (None, None) => return None,
        };
        rest = &rest[at + 3..];
        Some(quote)
    })
}

/// What an import line brings in, judged on its modules alone (a comment or a string that
/// mentions `mcp` is not an import statement).
fn import_of(line: &str) -> Option<Import> {
    let is_server = |m: &str| under(m, "mcp.server") || under(m, "fastmcp");
    if let Some(rest) = line.strip_prefix("from ") {
        let (module, names) = rest.split_once(" import ")?;
        let module = module.trim();
        if is_server(module) {
            return Some(Import::Server);
        }
        if module == "mcp" {
            let names = names.trim_start_matches(['(', ' ']);
            let mut names = names
                .split(',')
                .map(|n| n.split_whitespace().next().unwrap_or(""));
            if names.clone().any(|n| n == "server") {
                return Some(Import::Server);
            }
            if names.any(|n| n == "types") {
                return Some(Import::Types);
            }
        }
        if under(module, "mcp.types") {
            return Some(Import::Types);
        }
        return None;
    }
    let rest = line.strip_prefix("import ")?;
    let mut found = None;
    for item in rest.split(',') {
        let module = item.split_whitespace().next().unwrap_or("");
        if is_server(module) {
            return Some(Import::Server);
        }
        if under(module, "mcp.types") {
            found = Some(Import::Types);
        }
    }
    found
}

/// Whether dotted module `m` is `base` or inside it.
fn under(m: &str, base: &str) -> bool {
    m.strip_prefix(base)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// Indentation, in the grammar's columns (a tab is 8), beyond which a file is not parsed.
/// The grammar's scanner saves its stack of indentation levels in a buffer of 1,024 bytes,
/// 2 bytes a level, and overruns it (an assertion that aborts the process) past about 383
/// levels; each level is at least one column deeper than the last, so a file indented less
/// than this is safe. Python itself stops at 100 levels.
const DEEPEST_INDENT: usize = 300;

/// The first line indented `DEEPEST_INDENT` columns or more, counted as the grammar's
/// scanner counts: a tab is 8 columns, a form feed starts again, and a line of blanks ended
/// by `\` continues onto the next.
fn too_deep(text: &str) -> Option<(usize, usize)> {
    let mut carried = 0;
    for (i, line) in text.split('\n').enumerate() {
        let mut width = carried;
        carried = 0;
        let mut rest = line;
        for (at, c) in line.char_indices() {
            match c {
                ' ' => width += 1,
                '\t' => width += 8,
                '\x0c' | '\r' => width = 0,
                _ => {
                    rest = &line[at..];
                    break;
                }
            }
            rest = &line[at + c.len_utf8()..];
        }
        if width >= DEEPEST_INDENT {
            return Some((i + 1, width));
        }
        if rest == "\\" || rest == "\\\r" {
            carried = width;
        }
    }
    None
}

fn parse(text: &str) -> Result<Tree, Error> {
    if let Some((line, width)) = too_deep(text) {
        return Err(Error::new(format!(
            "indented {width} columns: deeper than the Python parser is run on (under {DEEPEST_INDENT})"
        ))
        .at(line, 1));
    }
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .map_err(|e| Error::new(format!("the Python grammar cannot be loaded: {e}")))?;
    // A BOM is part of the bytes a patch keeps, but not Python: the parser starts after it,
    // so every span is still a byte of the text as read.
    if text.starts_with('\u{feff}') {
        let range = tree_sitter::Range {
            start_byte: 3,
            end_byte: text.len(),
            start_point: tree_sitter::Point { row: 0, column: 3 },
            end_point: end_point(text),
        };
        parser
            .set_included_ranges(&[range])
            .map_err(|_| Error::new("the text after the BOM cannot be parsed"))?;
    }
    let tree = parser
        .parse(text, None)
        .ok_or_else(|| Error::new("the Python parser gave up"))?;
    if let Some((outer, bad)) = first_error(tree.root_node()) {
        // Python's own message where it applies: a bracket left open swallows the rest.
        if let Some(open) = unclosed(outer) {
            let (line, column) = position(text, open);
            return Err(Error::new(format!(
                "not valid Python: `{}` is never closed",
                open.kind()
            ))
            .at(line, column));
        }
        let (line, column) = position(text, bad);
        let what = if bad.is_missing() {
            format!("missing `{}`", bad.kind())
        } else {
            let snippet: String = text[bad.byte_range()]
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(40)
                .collect();
            format!("unexpected `{}`", snippet.trim())
        };
        return Err(Error::new(format!("not valid Python: {what}")).at(line, column));
    }
    Ok(tree)
}

/// The first bracket opened in an error node and not closed in it.
fn unclosed(error: Node) -> Option<Node> {
    let mut open: Vec<Node> = Vec::new();
    let mut cursor = error.walk();
    'outer: loop {
        let node = cursor.node();
        if !node.is_named() && !node.is_missing() {
            match node.kind() {
                "(" | "[" | "{" => open.push(node),
                ")" | "]" | "}" => {
                    open.pop();
                }
                _ => {}
            }
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'outer;
            }
            if !cursor.goto_parent() || cursor.node() == error {
                break 'outer;
            }
        }
    }
    open.first().copied()
}

fn end_point(text: &str) -> tree_sitter::Point {
    let row = text.bytes().filter(|&b| b == b'\n').count();
    let column = text.len() - text.rfind('\n').map_or(0, |i| i + 1);
    tree_sitter::Point { row, column }
}

/// Where the parser gave up: the first node it marked as an error or as missing, and the
/// innermost such node under it (an outer error node starts at the statement it could not
/// finish, the inner one at the token that broke it).
fn first_error(root: Node) -> Option<(Node, Node)> {
    if !root.has_error() {
        return None;
    }
    let mut node = root;
    let mut outer = None;
    let mut inner = None;
    'down: loop {
        if node.is_error() || node.is_missing() {
            outer = outer.or(Some(node));
            inner = Some(node);
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.is_error() || child.is_missing() || child.has_error() {
                node = child;
                continue 'down;
            }
        }
        return Some((outer.unwrap_or(node), inner.unwrap_or(node)));
    }
}

/// 1-based line and column (in characters) of a node's start.
fn position(text: &str, node: Node) -> (usize, usize) {
    let point = node.start_position();
    let byte = node.start_byte();
    let line_start = byte - point.column;
    (point.row + 1, text[line_start..byte].chars().count() + 1)
}

/// A class of the file that derives from an `Enum`, with the value node of each member.
struct Enum<'t> {
    /// `class E(str, Enum)` or `StrEnum`: a member is itself the string.
    of_str: bool,
    members: HashMap<&'t str, Node<'t>>,
}

/// A registration found in the walk, read once the whole file is known.
enum Registration<'t> {
    /// `@X.tool(...)` or bare `@X.tool`: the decorator and the definition it decorates.
    Decorator(Node<'t>, Node<'t>),
    /// `X.add_tool(fn, ...)`.
    AddTool(Node<'t>),
    /// `X.tool(...)(fn)`: the outer call and the inner one.
    Wrapped(Node<'t>, Node<'t>),
    /// `X.tool(fn, ...)`.
    Direct(Node<'t>),
    /// `types.Tool(...)` / `Tool(...)` of the low-level server.
    LowLevel(Node<'t>),
}

struct File<'t> {
    text: &'t str,
    /// Module-level names bound exactly once, with the value of that one binding.
    constants: HashMap<&'t str, Node<'t>>,
    enums: HashMap<&'t str, Enum<'t>>,
    /// Module-level classes bound once, for the pydantic models whose schema a low-level
    /// tool lists.
    classes: HashMap<&'t str, Node<'t>>,
    /// How `ToolAnnotations` is spelled where the file binds it (`ToolAnnotations`,
    /// `types.ToolAnnotations`).
    annotations_callee: Option<String>,
    /// The names the file gives `mcp.types.Tool` (`Tool`) and the module (`types`).
    tool_names: Vec<&'t str>,
    types_modules: Vec<String>,
    /// Every `def` by name, or `None` when the name is defined twice.
    functions: HashMap<&'t str, Option<Node<'t>>>,
    /// How often each module constant is named, binding included.
    uses: HashMap<&'t str, usize>,
    /// Hint keywords of `ToolAnnotations(...)` written in snake_case, and in camelCase.
    snake: usize,
    camel: usize,
    /// One-line string literals opened with `'`, and with `"`.
    single: usize,
    double: usize,
    registrations: Vec<Registration<'t>>,
    /// The calls of `@X.tool(...)` decorators and of `X.tool(...)(fn)`, read with their
    /// registration (the walk meets each before its calls).
    read_calls: HashSet<usize>,
}

impl<'t> File<'t> {
    fn new(text: &'t str, tree: &'t Tree) -> File<'t> {
        let mut file = File {
            text,
            constants: HashMap::new(),
            enums: HashMap::new(),
            classes: HashMap::new(),
            annotations_callee: None,
            tool_names: Vec::new(),
            types_modules: Vec::new(),
            functions: HashMap::new(),
            uses: HashMap::new(),
            snake: 0,
            camel: 0,
            single: 0,
            double: 0,
            registrations: Vec::new(),
            read_calls: HashSet::new(),
        };
        let root = tree.root_node();
        let mut bound: HashMap<&'t str, usize> = HashMap::new();
        let mut values: HashMap<&'t str, Node<'t>> = HashMap::new();
        let mut annotations_alias = None;
        file.module_level(root, &mut bound, &mut values, &mut annotations_alias);
        file.constants = values
            .into_iter()
            .filter(|(name, _)| bound.get(name) == Some(&1))
            .collect();
        file.enums.retain(|name, _| bound.get(name) == Some(&1));
        file.classes.retain(|name, _| bound.get(name) == Some(&1));
        file.annotations_callee = annotations_alias.or_else(|| {
            file.types_modules
                .first()
                .map(|m| format!("{m}.ToolAnnotations"))
        });
        file.walk(root);
        file
    }

    fn text_of(&self, node: Node) -> &'t str {
        &self.text[node.byte_range()]
    }

    /// Reads the module's own statements (and those of its `if`/`try`/`with` blocks, which
    /// bind at module level too): every binding is counted, and the value of a plain
    /// `NAME = value` at the top is kept, to be a constant if nothing else binds the name.
    fn module_level(
        &mut self,
        root: Node<'t>,
        bound: &mut HashMap<&'t str, usize>,
        values: &mut HashMap<&'t str, Node<'t>>,
        annotations_alias: &mut Option<String>,
    ) {
        // A list of blocks still to read, not recursion: nesting is as deep as the file.
        let mut blocks = vec![(root, true, true)];
        while let Some((block, top, runtime)) = blocks.pop() {
            let mut cursor = block.walk();
            for stmt in block.named_children(&mut cursor) {
                match stmt.kind() {
                    "expression_statement" => {
                        let Some(inner) = stmt.named_child(0) else {
                            continue;
                        };
                        match inner.kind() {
                            "assignment" => {
                                let mut a = inner;
                                loop {
                                    if let Some(left) = a.child_by_field_name("left") {
                                        self.bind_pattern(left, bound);
                                    }
                                    match a.child_by_field_name("right") {
                                        Some(r) if r.kind() == "assignment" => a = r,
                                        Some(r) => {
                                            let left = inner.child_by_field_name("left");
                                            if top
                                                && a == inner
                                                && let Some(left) = left
                                                && left.kind() == "identifier"
                                            {
                                                values.insert(self.text_of(left), r);
                                            }
                                            break;
                                        }
                                        None => break,
                                    }
                                }
                            }
                            "augmented_assignment" => {
                                if let Some(left) = inner.child_by_field_name("left") {
                                    self.bind_pattern(left, bound);
                                }
                            }
                            _ => {}
                        }
                    }
                    "function_definition" | "class_definition" => {
                        self.bind_definition(stmt, top, bound);
                    }
                    "decorated_definition" => {
                        if let Some(def) = stmt.child_by_field_name("definition") {
                            self.bind_definition(def, top, bound);
                        }
                    }
                    // An import for type checkers binds nothing when the server runs: an
                    // inserted `ToolAnnotations(...)` must not rely on it.
                    "import_statement" | "import_from_statement" if !runtime => {}
                    "import_statement" => self.import(stmt, bound),
                    "import_from_statement" => self.import_from(stmt, bound, annotations_alias),
                    "for_statement" => {
                        if let Some(left) = stmt.child_by_field_name("left") {
                            self.bind_pattern(left, bound);
                        }
                        self.nested_blocks(stmt, runtime, bound, &mut blocks);
                    }
                    "if_statement" | "try_statement" | "with_statement" | "while_statement" => {
                        self.nested_blocks(stmt, runtime, bound, &mut blocks);
                    }
                    _ => {}
                }
            }
        }
    }

    /// The blocks of a compound statement at module level: their bindings count, but bind
    /// only when the branch runs, so none is a constant.
    fn nested_blocks(
        &self,
        stmt: Node<'t>,
        runtime: bool,
        bound: &mut HashMap<&'t str, usize>,
        blocks: &mut Vec<(Node<'t>, bool, bool)>,
    ) {
        let typing_only = stmt.kind() == "if_statement"
            && stmt
                .child_by_field_name("condition")
                .is_some_and(|c| last_name(self.text_of(c)) == "TYPE_CHECKING");
        let mut stack = vec![stmt];
        while let Some(node) = stack.pop() {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind() {
                    "block" => {
                        let only = typing_only && child.id() == consequence_id(stmt);
                        blocks.push((child, false, runtime && !only));
                    }
                    "as_pattern" | "with_clause" | "with_item" => {
                        if let Some(alias) = child.child_by_field_name("alias") {
                            self.bind_pattern(alias, bound);
                        }
                        stack.push(child);
                    }
                    "else_clause"
                    | "elif_clause"
                    | "except_clause"
                    | "finally_clause"
                    | "except_group_clause" => stack.push(child),
                    _ => {}
                }
            }
        }
    }

    fn bind_definition(&mut self, def: Node<'t>, top: bool, bound: &mut HashMap<&'t str, usize>) {
        let Some(name) = def.child_by_field_name("name") else {
            return;
        };
        let name = self.text_of(name);
        *bound.entry(name).or_default() += 1;
        if top && def.kind() == "class_definition" {
            self.classes.insert(name, def);
            self.read_enum(def, name);
        }
    }

    fn bind_pattern(&self, pattern: Node<'t>, bound: &mut HashMap<&'t str, usize>) {
        let mut patterns = vec![pattern];
        while let Some(pattern) = patterns.pop() {
            match pattern.kind() {
                "identifier" => *bound.entry(self.text_of(pattern)).or_default() += 1,
                // Attributes and subscripts (`x.y = 1`, `x[0] = 1`) bind no name.
                "attribute" | "subscript" => {}
                _ => {
                    let mut cursor = pattern.walk();
                    patterns.extend(pattern.named_children(&mut cursor));
                }
            }
        }
    }

    fn import(&mut self, stmt: Node<'t>, bound: &mut HashMap<&'t str, usize>) {
        let mut cursor = stmt.walk();
        for item in stmt.children_by_field_name("name", &mut cursor) {
            let (module, alias) = match item.kind() {
                "aliased_import" => (
                    item.child_by_field_name("name"),
                    item.child_by_field_name("alias"),
                ),
                _ => (Some(item), None),
            };
            let Some(module) = module else { continue };
            let module = self.text_of(module);
            match alias {
                Some(alias) => {
                    let alias = self.text_of(alias);
                    *bound.entry(alias).or_default() += 1;
                    if module == "mcp.types" {
                        self.types_modules.push(alias.to_owned());
                    }
                }
                None => {
                    let first = module.split('.').next().unwrap_or(module);
                    *bound.entry(first).or_default() += 1;
                    if module == "mcp.types" {
                        self.types_modules.push(module.to_owned());
                    }
                }
            }
        }
    }

    fn import_from(
        &mut self,
        stmt: Node<'t>,
        bound: &mut HashMap<&'t str, usize>,
        annotations_alias: &mut Option<String>,
    ) {
        let module = stmt
            .child_by_field_name("module_name")
            .map_or("", |m| self.text_of(m));
        let sdk = under(module, "mcp") || under(module, "fastmcp");
        let mut cursor = stmt.walk();
        for item in stmt.children_by_field_name("name", &mut cursor) {
            let (name, alias) = match item.kind() {
                "aliased_import" => (
                    item.child_by_field_name("name")
                        .map_or("", |n| self.text_of(n)),
                    item.child_by_field_name("alias")
                        .map_or("", |n| self.text_of(n)),
                ),
                _ => (self.text_of(item), self.text_of(item)),
            };
            *bound.entry(alias).or_default() += 1;
            if !sdk {
                continue;
            }
            if name == "ToolAnnotations" && annotations_alias.is_none() {
                *annotations_alias = Some(alias.to_owned());
            }
            if name == "Tool" && (under(module, "mcp.types") || module == "mcp") {
                self.tool_names.push(alias);
            }
            if module == "mcp" && name == "types" {
                self.types_modules.push(alias.to_owned());
            }
        }
    }

    fn read_enum(&mut self, class: Node<'t>, name: &'t str) {
        let Some(supers) = class.child_by_field_name("superclasses") else {
            return;
        };
        let mut cursor = supers.walk();
        let bases: Vec<&str> = supers
            .named_children(&mut cursor)
            .map(|b| last_name(self.text_of(b)))
            .collect();
        if !bases.iter().any(|b| b.ends_with("Enum")) {
            return;
        }
        let of_str = bases.iter().any(|b| *b == "str" || *b == "StrEnum");
        let mut members = HashMap::new();
        if let Some(body) = class.child_by_field_name("body") {
            let mut cursor = body.walk();
            for stmt in body.named_children(&mut cursor) {
                if stmt.kind() != "expression_statement" {
                    continue;
                }
                let Some(a) = stmt.named_child(0).filter(|a| a.kind() == "assignment") else {
                    continue;
                };
                if let (Some(left), Some(right)) = (
                    a.child_by_field_name("left"),
                    a.child_by_field_name("right"),
                ) && left.kind() == "identifier"
                {
                    members.insert(self.text_of(left), right);
                }
            }
        }
        self.enums.insert(name, Enum { of_str, members });
    }

    /// One pass over the whole tree, in document order: registrations, definitions, the
    /// file's style, and how often each constant is named.
    fn walk(&mut self, root: Node<'t>) {
        // Node kinds by number: the walk visits every node, and a number is compared
        // where a name would be looked up and compared by its bytes.
        let language = root.language();
        let id = |kind: &str| language.id_for_node_kind(kind, true);
        let [
            decorated,
            call,
            function,
            string_start,
            identifier,
            global,
            nonlocal,
        ] = [
            "decorated_definition",
            "call",
            "function_definition",
            "string_start",
            "identifier",
            "global_statement",
            "nonlocal_statement",
        ]
        .map(id);
        let mut cursor = root.walk();
        'outer: loop {
            let node = cursor.node();
            match node.kind_id() {
                k if k == identifier && !self.constants.is_empty() => {
                    let name = self.text_of(node);
                    if let Some(n) = self.uses.get_mut(name) {
                        *n += 1;
                    } else if self.constants.contains_key(name) {
                        self.uses.insert(name, 1);
                    }
                }
                k if k == call => self.call(node),
                k if k == decorated => self.decorated_definition(node),
                k if k == function => {
                    if let Some(name) = node.child_by_field_name("name") {
                        let name = self.text_of(name);
                        self.functions
                            .entry(name)
                            .and_modify(|f| *f = None)
                            .or_insert(Some(node));
                    }
                }
                k if k == string_start => {
                    let quote = self.text_of(node).trim_start_matches(char::is_alphabetic);
                    match quote {
                        "'" => self.single += 1,
                        "\"" => self.double += 1,
                        _ => {}
                    }
                }
                k if k == global || k == nonlocal => {
                    // A function that rebinds a module name makes it no constant.
                    let mut c = node.walk();
                    let names: Vec<&str> = node
                        .named_children(&mut c)
                        .map(|n| self.text_of(n))
                        .collect();
                    for name in names {
                        self.constants.remove(name);
                        self.enums.remove(name);
                    }
                }
                _ => {}
            }
            if cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    continue 'outer;
                }
                if !cursor.goto_parent() {
                    break 'outer;
                }
            }
        }
    }

    /// The `@X.tool` decorators of a definition; the call each one makes is not read
    /// again as a call of its own.
    fn decorated_definition(&mut self, decorated: Node<'t>) {
        let Some(def) = decorated.child_by_field_name("definition") else {
            return;
        };
        let mut cursor = decorated.walk();
        for decorator in decorated.named_children(&mut cursor) {
            let Some(expr) = decorator
                .named_child(0)
                .filter(|_| decorator.kind() == "decorator")
            else {
                continue;
            };
            let callee = if expr.kind() == "call" {
                self.read_calls.insert(expr.id());
                expr.child_by_field_name("function")
            } else {
                Some(expr)
            };
            if callee.is_some_and(|c| is_method(self.text, c, "tool")) {
                self.registrations
                    .push(Registration::Decorator(decorator, def));
            }
        }
    }

    fn call(&mut self, call: Node<'t>) {
        let Some(callee) = call.child_by_field_name("function") else {
            return;
        };
        if self.is_annotations(callee) {
            self.count_keywords(call);
            return;
        }
        if is_method(self.text, callee, "tool") {
            self.tool_call(call);
        } else if callee.kind() == "call"
            && callee
                .child_by_field_name("function")
                .is_some_and(|inner| is_method(self.text, inner, "tool"))
        {
            self.read_calls.insert(callee.id());
            self.registrations.push(Registration::Wrapped(call, callee));
        } else if is_method(self.text, callee, "add_tool") {
            self.registrations.push(Registration::AddTool(call));
        } else if self.is_tool_type(callee) {
            self.registrations.push(Registration::LowLevel(call));
        }
    }

    /// A `X.tool(...)` call outside a decorator: registered when its first argument is the
    /// function (`X.tool(fn)`); applied by hand (`X.tool()(fn)`) it is read with the outer
    /// call, and with a name first (`X.tool("n")`) it only makes a decorator.
    fn tool_call(&mut self, call: Node<'t>) {
        if self.read_calls.contains(&call.id()) {
            return;
        }
        let first = call
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0));
        if first.is_some_and(|f| matches!(f.kind(), "identifier" | "attribute" | "lambda")) {
            self.registrations.push(Registration::Direct(call));
        }
    }

    /// `ToolAnnotations`, `types.ToolAnnotations`, or the name the file imported it as.
    fn is_annotations(&self, callee: Node) -> bool {
        if !matches!(callee.kind(), "identifier" | "attribute") {
            return false;
        }
        let text = self.text_of(callee);
        last_name(text) == "ToolAnnotations" || self.annotations_callee.as_deref() == Some(text)
    }

    fn is_tool_type(&self, callee: Node) -> bool {
        match callee.kind() {
            "identifier" => self.tool_names.contains(&self.text_of(callee)),
            "attribute" => {
                let (Some(object), Some(attr)) = (
                    callee.child_by_field_name("object"),
                    callee.child_by_field_name("attribute"),
                ) else {
                    return false;
                };
                self.text_of(attr) == "Tool"
                    && self.types_modules.iter().any(|m| m == self.text_of(object))
            }
            _ => false,
        }
    }

    fn count_keywords(&mut self, call: Node) {
        let Some(args) = call.child_by_field_name("arguments") else {
            return;
        };
        let mut cursor = args.walk();
        for arg in args.named_children(&mut cursor) {
            if arg.kind() != "keyword_argument" {
                continue;
            }
            let Some(key) = arg.child_by_field_name("name") else {
                continue;
            };
            let key = &self.text[key.byte_range()];
            if hint_key(key).is_some_and(|k| k != "title") {
                if key.contains('_') {
                    self.snake += 1;
                } else {
                    self.camel += 1;
                }
            }
        }
    }

    fn read(&self) -> Found {
        let mut found = Found::default();
        for registration in &self.registrations {
            let read = match *registration {
                Registration::Decorator(decorator, def) => self.decorated(decorator, def),
                Registration::AddTool(call) => self.add_tool(call),
                Registration::Wrapped(outer, inner) => self.wrapped(outer, inner),
                Registration::Direct(call) => self.direct(call),
                Registration::LowLevel(call) => self.low_level(call),
            };
            match read {
                Ok(tool) => found.tools.push(tool),
                Err(problem) => found.problems.push(problem),
            }
        }
        found
    }

    fn problem(&self, at: Node, message: String) -> Error {
        let (line, column) = position(self.text, at);
        Error::new(message).at(line, column)
    }

    fn decorated(&self, decorator: Node<'t>, def: Node<'t>) -> Result<Tool, Error> {
        let expr = decorator
            .named_child(0)
            .expect("a decorator has its expression");
        if def.kind() != "function_definition" {
            return Err(self.problem(
                decorator,
                format!(
                    "`@{}` decorates a class, not a function: no tool is read from it",
                    self.text_of(expr)
                ),
            ));
        }
        let args = match expr.kind() {
            "call" => expr.child_by_field_name("arguments"),
            _ => None,
        };
        let args = match args {
            Some(a) if a.kind() == "argument_list" => Some(Args::new(self, a)),
            Some(a) => {
                return Err(self.problem(
                    a,
                    format!(
                        "`{}` is not an argument list a tool can be read from",
                        self.text_of(a)
                    ),
                ));
            }
            None => None,
        };
        let empty = Args::default();
        let a = args.as_ref().unwrap_or(&empty);
        let function_name = def
            .child_by_field_name("name")
            .map_or("", |n| self.text_of(n));
        let name = self.name_or(a.get("name", Some(0)), function_name);
        let slot_place = match args.as_ref().and_then(|a| a.list) {
            Some(list) => Place::List(list),
            None => Place::Bare(expr.end_byte()),
        };
        Ok(self.tool(
            decorator,
            name,
            a,
            Some(def),
            slot_place,
            [Some(1), Some(2), Some(3)],
        ))
    }

    fn add_tool(&self, call: Node<'t>) -> Result<Tool, Error> {
        let Some(list) = call
            .child_by_field_name("arguments")
            .filter(|a| a.kind() == "argument_list")
        else {
            return Err(self.problem(call, "`add_tool` without an argument list".to_owned()));
        };
        let a = Args::new(self, list);
        let Some(function) = a.get("fn", Some(0)) else {
            return Err(self.problem(
                call,
                format!(
                    "`{}` names no function a tool can be read from",
                    self.text_of(call)
                ),
            ));
        };
        let def = self.function(call, function)?;
        let name = self.name_or(a.get("name", Some(1)), self.text_of(function));
        Ok(self.tool(
            call,
            name,
            &a,
            Some(def),
            Place::List(list),
            [Some(2), Some(3), Some(4)],
        ))
    }

    /// The `def` a registration call names, a problem at `call` when it is not one `def`
    /// of this file.
    fn function(&self, call: Node<'t>, function: Node<'t>) -> Result<Node<'t>, Error> {
        let def = match function.kind() {
            "identifier" => self
                .functions
                .get(self.text_of(function))
                .copied()
                .flatten(),
            _ => None,
        };
        def.ok_or_else(|| {
            self.problem(
                call,
                format!(
                    "`{}` registers `{}`, which is no single `def` of this file to read the tool from",
                    self.text_of(call.child_by_field_name("function").unwrap_or(call)),
                    self.text_of(function),
                ),
            )
        })
    }

    /// `X.tool(...)(fn)`: the decorator applied by hand, its arguments those of the inner
    /// call.
    fn wrapped(&self, outer: Node<'t>, inner: Node<'t>) -> Result<Tool, Error> {
        let (Some(outer_list), Some(list)) = (
            outer.child_by_field_name("arguments"),
            inner
                .child_by_field_name("arguments")
                .filter(|a| a.kind() == "argument_list"),
        ) else {
            return Err(self.problem(outer, "a `tool(...)(...)` call without arguments".into()));
        };
        let Some(function) = outer_list.named_child(0) else {
            return Err(self.problem(outer, "`tool(...)()` applied to nothing".into()));
        };
        let def = self.function(inner, function)?;
        let a = Args::new(self, list);
        let name = self.name_or(a.get("name", Some(0)), self.text_of(function));
        Ok(self.tool(
            outer,
            name,
            &a,
            Some(def),
            Place::List(list),
            [Some(1), Some(2), Some(3)],
        ))
    }

    /// `X.tool(fn, name=...)`: the standalone `fastmcp`'s call form, its first argument the
    /// function and the rest keywords.
    fn direct(&self, call: Node<'t>) -> Result<Tool, Error> {
        let Some(list) = call
            .child_by_field_name("arguments")
            .filter(|a| a.kind() == "argument_list")
        else {
            return Err(self.problem(call, "`tool` without an argument list".into()));
        };
        let a = Args::new(self, list);
        let function = a.positional[0];
        let def = self.function(call, function)?;
        let name = self.name_or(a.get("name", None), self.text_of(function));
        Ok(self.tool(call, name, &a, Some(def), Place::List(list), [None; 3]))
    }

    fn low_level(&self, call: Node<'t>) -> Result<Tool, Error> {
        let Some(list) = call
            .child_by_field_name("arguments")
            .filter(|a| a.kind() == "argument_list")
        else {
            return Err(self.problem(call, "`Tool` without an argument list".to_owned()));
        };
        let a = Args::new(self, list);
        let Some(name) = a.get("name", None) else {
            return Err(self.problem(
                call,
                format!(
                    "`{}` has no `name=`",
                    self.text_of(call.child(0).unwrap_or(call))
                ),
            ));
        };
        let name = self
            .string(name)
            .ok_or_else(|| self.text_of(name).to_owned());
        let mut tool = self.tool(call, name, &a, None, Place::List(list), [None; 3]);
        let schema = a
            .get("inputSchema", None)
            .or_else(|| a.get("input_schema", None));
        tool.inputs = schema.map_or_else(Vec::new, |s| self.schema_inputs(s));
        Ok(tool)
    }

    /// The tool of a registration: `at` its start, `positions` of title, description and
    /// annotations among the positional arguments.
    fn tool(
        &self,
        at: Node<'t>,
        name: Result<String, String>,
        a: &Args<'t>,
        def: Option<Node<'t>>,
        place: Place<'t>,
        positions: [Option<usize>; 3],
    ) -> Tool {
        let title = a.get("title", positions[0]).and_then(|t| self.string(t));
        let description = match a.get("description", positions[1]) {
            // The SDK takes `description or fn.__doc__`: an unreadable argument is not
            // known to be empty, so it hides the docstring.
            Some(d) if d.kind() != "none" => match self.string(d) {
                Some(d) if d.is_empty() => def.and_then(|f| self.docstring(f)),
                read => read,
            },
            _ => def.and_then(|d| self.docstring(d)),
        };
        let mut inputs = def.map_or_else(Vec::new, |d| self.parameters(d));
        // The standalone `fastmcp` leaves the parameters named in `exclude_args` out of the
        // tool's schema; a list it cannot read leaves them all in.
        if let Some(excluded) = a
            .get("exclude_args", None)
            .filter(|l| matches!(l.kind(), "list" | "tuple"))
        {
            let mut cursor = excluded.walk();
            let names: Option<Vec<String>> = excluded
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .map(|n| self.string(n))
                .collect();
            if let Some(names) = names {
                inputs.retain(|i| !names.contains(i));
            }
        }
        let (annotations, slot) = match a.get("annotations", positions[2]) {
            Some(value) => self.annotations(value),
            None => (Annotations::Absent, Ok(self.new_argument(place))),
        };
        let slot = match a.splat {
            Some(splat) => Err(format!(
                "the call passes `{}`, which may hold annotations: hints cannot be added beside it",
                self.text_of(splat)
            )),
            None => slot,
        };
        let (line, column) = position(self.text, at);
        Tool {
            name,
            title,
            description,
            inputs,
            annotations,
            start: at.start_byte(),
            line,
            column,
            slot,
        }
    }

    /// The name argument as the SDK takes it (`name or fn.__name__`), `Err` with its text
    /// when it cannot be read.
    fn name_or(&self, argument: Option<Node<'t>>, function: &str) -> Result<String, String> {
        let Some(n) = argument.filter(|n| n.kind() != "none") else {
            return Ok(function.to_owned());
        };
        match self.string(n) {
            Some(name) if name.is_empty() => Ok(function.to_owned()),
            Some(name) => Ok(name),
            None => Err(self.text_of(n).to_owned()),
        }
    }

    /// A string literal (implicit concatenation joined), a module constant holding one, or
    /// a member of a string enum of the file.
    fn string(&self, node: Node<'t>) -> Option<String> {
        self.string_at(node, 0)
    }

    fn string_at(&self, node: Node<'t>, depth: usize) -> Option<String> {
        if depth > 8 {
            return None;
        }
        match node.kind() {
            "string" => string_literal(self.text, node),
            "concatenated_string" => {
                let mut cursor = node.walk();
                let parts: Option<Vec<String>> = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() == "string")
                    .map(|s| string_literal(self.text, s))
                    .collect();
                parts.map(|p| p.concat())
            }
            "parenthesized_expression" => self.string_at(node.named_child(0)?, depth + 1),
            "identifier" => self.string_at(*self.constants.get(self.text_of(node))?, depth + 1),
            "attribute" => {
                let object = node.child_by_field_name("object")?;
                let attr = self.text_of(node.child_by_field_name("attribute")?);
                // `E.M.value`, or `E.M` of a `str` enum.
                let (class, member, value) = if attr == "value" && object.kind() == "attribute" {
                    let class = object.child_by_field_name("object")?;
                    let member = object.child_by_field_name("attribute")?;
                    (class, self.text_of(member), true)
                } else {
                    (object, attr, false)
                };
                if class.kind() != "identifier" {
                    return None;
                }
                let e = self.enums.get(self.text_of(class))?;
                if !value && !e.of_str {
                    return None;
                }
                self.string_at(*e.members.get(member)?, depth + 1)
            }
            _ => None,
        }
    }

    /// The function's docstring, cleaned as `inspect.cleandoc` does.
    fn docstring(&self, def: Node<'t>) -> Option<String> {
        let body = def.child_by_field_name("body")?;
        let mut cursor = body.walk();
        let first = body
            .named_children(&mut cursor)
            .find(|c| c.kind() != "comment")?;
        if first.kind() != "expression_statement" || first.named_child_count() != 1 {
            return None;
        }
        let doc = first.named_child(0)?;
        if !matches!(doc.kind(), "string" | "concatenated_string") {
            return None;
        }
        // An f-string is an expression, not a docstring.
        if self
            .text_of(doc)
            .trim_start_matches(['r', 'R', 'u', 'U'])
            .starts_with(['f', 'F'])
        {
            return None;
        }
        Some(cleandoc(&self.string(doc)?))
    }

    /// The inputs the SDK derives from the signature: every parameter but `self`/`cls`,
    /// `*args`/`**kwargs`, and the one it fills with its `Context`.
    fn parameters(&self, def: Node<'t>) -> Vec<String> {
        let Some(params) = def.child_by_field_name("parameters") else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut context = false;
        let mut cursor = params.walk();
        for (i, p) in params.named_children(&mut cursor).enumerate() {
            let (name, annotation) = match p.kind() {
                "identifier" => (Some(p), None),
                "typed_parameter" => (
                    p.named_child(0).filter(|n| n.kind() == "identifier"),
                    p.child_by_field_name("type"),
                ),
                "default_parameter" => (p.child_by_field_name("name"), None),
                "typed_default_parameter" => {
                    (p.child_by_field_name("name"), p.child_by_field_name("type"))
                }
                _ => (None, None),
            };
            let Some(name) = name.filter(|n| n.kind() == "identifier") else {
                continue;
            };
            let name = self.text_of(name);
            if i == 0 && (name == "self" || name == "cls") {
                continue;
            }
            // The SDK fills the first parameter it finds typed as its `Context`.
            if !context && annotation.is_some_and(|t| self.is_context(t)) {
                context = true;
                continue;
            }
            out.push(name.to_owned());
        }
        out
    }

    /// Whether an annotation is the SDK's `Context`, as the SDK finds it: the class itself
    /// (any module path, subscripted or not), or one of the arguments of `Optional[...]`,
    /// `Union[...]` or `X | None`.
    fn is_context(&self, annotation: Node) -> bool {
        self.is_context_at(annotation, 0)
    }

    fn is_context_at(&self, annotation: Node, depth: usize) -> bool {
        // Deeper than any real annotation: not the SDK's `Context`, and not read further.
        if depth > 16 {
            return false;
        }
        let is_context = |n: &Node| self.is_context_at(*n, depth + 1);
        fn named(n: Node) -> Vec<Node> {
            let mut cursor = n.walk();
            n.named_children(&mut cursor).collect()
        }
        match annotation.kind() {
            "type" | "type_parameter" => named(annotation).iter().any(is_context),
            "attribute" | "identifier" => last_name(self.text_of(annotation)) == "Context",
            "generic_type" | "subscript" => {
                let parts = named(annotation);
                let Some(base) = parts.first() else {
                    return false;
                };
                let base_name = last_name(self.text_of(*base));
                base_name == "Context"
                    || matches!(base_name, "Optional" | "Union")
                        && parts[1..].iter().any(is_context)
            }
            "binary_operator" | "union_type" => named(annotation).iter().any(is_context),
            "string" => string_literal(self.text, annotation).is_some_and(|s| {
                s.split(['[', '|', ']', ','])
                    .any(|part| last_name(part.trim()) == "Context")
            }),
            _ => false,
        }
    }

    /// `properties` keys of a JSON Schema written as a dict literal (or a constant of one).
    fn schema_inputs(&self, schema: Node<'t>) -> Vec<String> {
        if let Some(model) = self.model_of(schema) {
            return self.model_fields(model, 0);
        }
        let Some(schema) = self.dict_of(schema) else {
            return Vec::new();
        };
        let mut cursor = schema.walk();
        for pair in schema.named_children(&mut cursor) {
            let (Some(k), Some(v)) = (
                pair.child_by_field_name("key"),
                pair.child_by_field_name("value"),
            ) else {
                continue;
            };
            if self.string(k).as_deref() != Some("properties") {
                continue;
            }
            let Some(props) = self.dict_of(v) else {
                return Vec::new();
            };
            let mut c = props.walk();
            return props
                .named_children(&mut c)
                .filter_map(|p| p.child_by_field_name("key"))
                .filter_map(|k| self.string(k))
                .collect();
        }
        Vec::new()
    }

    /// The class of `Model.model_json_schema()`, a pydantic model of this file.
    fn model_of(&self, schema: Node<'t>) -> Option<Node<'t>> {
        let callee = schema
            .child_by_field_name("function")
            .filter(|_| schema.kind() == "call")?;
        if !is_method(self.text, callee, "model_json_schema") {
            return None;
        }
        let class = callee.child_by_field_name("object")?;
        self.classes.get(self.text_of(class).trim()).copied()
    }

    /// The properties pydantic lists for a model of this file: the annotated fields of its
    /// bases of this file, then its own, each under its `Field(alias=...)` where it has a
    /// literal one (`model_json_schema` writes aliases), private and `ClassVar` ones left out.
    fn model_fields(&self, class: Node<'t>, depth: usize) -> Vec<String> {
        let mut fields: Vec<String> = Vec::new();
        if depth > 8 {
            return fields;
        }
        if let Some(bases) = class.child_by_field_name("superclasses") {
            let mut cursor = bases.walk();
            for base in bases.named_children(&mut cursor) {
                if let Some(&base) = self.classes.get(self.text_of(base)) {
                    for field in self.model_fields(base, depth + 1) {
                        if !fields.contains(&field) {
                            fields.push(field);
                        }
                    }
                }
            }
        }
        let Some(body) = class.child_by_field_name("body") else {
            return fields;
        };
        let mut cursor = body.walk();
        for stmt in body.named_children(&mut cursor) {
            let Some(a) = stmt
                .named_child(0)
                .filter(|a| stmt.kind() == "expression_statement" && a.kind() == "assignment")
            else {
                continue;
            };
            let (Some(left), Some(annotation)) =
                (a.child_by_field_name("left"), a.child_by_field_name("type"))
            else {
                continue;
            };
            let name = self.text_of(left);
            if left.kind() != "identifier"
                || name.starts_with('_')
                || name == "model_config"
                || self
                    .text_of(annotation)
                    .trim_start()
                    .starts_with("ClassVar")
            {
                continue;
            }
            let alias = a
                .child_by_field_name("right")
                .filter(|r| r.kind() == "call")
                .filter(|r| {
                    r.child_by_field_name("function")
                        .is_some_and(|f| last_name(self.text_of(f)) == "Field")
                })
                .and_then(|r| r.child_by_field_name("arguments"))
                .and_then(|args| Args::new(self, args).get("alias", None))
                .and_then(|alias| self.string(alias));
            let field = alias.unwrap_or_else(|| name.to_owned());
            fields.retain(|f| *f != field);
            fields.push(field);
        }
        fields
    }

    fn dict_of(&self, node: Node<'t>) -> Option<Node<'t>> {
        match node.kind() {
            "dictionary" => Some(node),
            "identifier" => self
                .constants
                .get(self.text_of(node))
                .filter(|n| n.kind() == "dictionary")
                .copied(),
            _ => None,
        }
    }

    /// The declared annotations, and where missing hints would go.
    fn annotations(&self, value: Node<'t>) -> (Annotations, Result<Slot, String>) {
        let text = self.text_of(value);
        if value.kind() == "none" {
            return (
                Annotations::Absent,
                Err("`annotations=None` is written: hints go in place of `None`, by hand".into()),
            );
        }
        let (literal, shared) = match value.kind() {
            "identifier" => match self.constants.get(text) {
                Some(&bound) => {
                    let uses = self.uses.get(text).copied().unwrap_or(0);
                    (bound, (uses > 2).then_some(uses - 1))
                }
                None => {
                    return (
                        Annotations::Unread(text.to_owned()),
                        Err(format!("`{text}` is not a literal of this file")),
                    );
                }
            },
            _ => (value, None),
        };
        match self.literal(literal) {
            Some(Ok((entries, list, entry))) => {
                let slot = match shared {
                    Some(n) => Err(format!(
                        "`{text}` is named {n} times: a hint added to it would change every tool that names it"
                    )),
                    None => Ok(self.append(list, entry, None)),
                };
                (Annotations::Literal(entries), slot)
            }
            Some(Err(why)) => (Annotations::Unread(text.to_owned()), Err(why)),
            None => (
                Annotations::Unread(text.to_owned()),
                Err(format!(
                    "`{text}` is not a `ToolAnnotations(...)` or dict literal: hints are added there by hand"
                )),
            ),
        }
    }

    /// A `ToolAnnotations(...)` call or a dict literal: its hints, the list new entries go
    /// in, and how they are written there. `Err` when it holds what cannot be read as a
    /// whole (a `**spread`, a positional argument, a key that is not a string).
    #[allow(clippy::type_complexity)]
    fn literal(
        &self,
        node: Node<'t>,
    ) -> Option<Result<(Vec<(String, Value)>, Node<'t>, Entry), String>> {
        let mut entries = Vec::new();
        match node.kind() {
            "call" => {
                if !self.is_annotations(node.child_by_field_name("function")?) {
                    return None;
                }
                let list = node.child_by_field_name("arguments")?;
                let (mut snake, mut camel) = (0, 0);
                let mut cursor = list.walk();
                for arg in list.named_children(&mut cursor) {
                    match arg.kind() {
                        "comment" => continue,
                        "keyword_argument" => {}
                        _ => {
                            return Some(Err(format!(
                                "`{}` in the annotations cannot be read as hints",
                                self.text_of(arg)
                            )));
                        }
                    }
                    let (Some(key), Some(value)) = (
                        arg.child_by_field_name("name"),
                        arg.child_by_field_name("value"),
                    ) else {
                        continue;
                    };
                    let written = self.text_of(key);
                    if let Some(key) = hint_key(written).filter(|k| *k != "title") {
                        if written.contains('_') {
                            snake += 1;
                        } else {
                            camel += 1;
                        }
                        entries.push((key.to_owned(), self.hint_value(value)));
                    }
                }
                let snake = if snake + camel == 0 {
                    self.snake > self.camel
                } else {
                    snake > camel
                };
                Some(Ok((entries, list, Entry::Keyword { snake })))
            }
            "dictionary" => {
                let mut quote = None;
                let mut cursor = node.walk();
                for pair in node.named_children(&mut cursor) {
                    match pair.kind() {
                        "comment" => continue,
                        "pair" => {}
                        _ => {
                            return Some(Err(format!(
                                "`{}` in the annotations cannot be read as hints",
                                self.text_of(pair)
                            )));
                        }
                    }
                    let (Some(key), Some(value)) = (
                        pair.child_by_field_name("key"),
                        pair.child_by_field_name("value"),
                    ) else {
                        continue;
                    };
                    let Some(written) = (key.kind() == "string")
                        .then(|| string_literal(self.text, key))
                        .flatten()
                    else {
                        return Some(Err(format!(
                            "the key `{}` of the annotations is not a string literal",
                            self.text_of(key)
                        )));
                    };
                    quote = quote.or_else(|| quote_of(self.text_of(key)));
                    if let Some(key) = hint_key(&written).filter(|k| *k != "title") {
                        entries.push((key.to_owned(), self.hint_value(value)));
                    }
                }
                let quote = quote.unwrap_or_else(|| self.quote());
                Some(Ok((entries, node, Entry::Dict { quote })))
            }
            _ => None,
        }
    }

    fn hint_value(&self, value: Node<'t>) -> Value {
        match value.kind() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "identifier" => match self.constants.get(self.text_of(value)).map(|v| v.kind()) {
                Some("true") => Value::Bool(true),
                Some("false") => Value::Bool(false),
                _ => Value::Unread(self.text_of(value).to_owned()),
            },
            _ => Value::Unread(self.text_of(value).to_owned()),
        }
    }

    /// The file's predominant quote for one-line strings, `"` on a tie.
    fn quote(&self) -> char {
        if self.single > self.double { '\'' } else { '"' }
    }

    /// A new `annotations=` argument for a registration that has none.
    fn new_argument(&self, place: Place<'t>) -> Slot {
        let (open, close, entry) = match &self.annotations_callee {
            Some(callee) => (
                format!("{callee}("),
                ")".to_owned(),
                Entry::Keyword {
                    snake: self.snake > self.camel,
                },
            ),
            None => (
                "{".to_owned(),
                "}".to_owned(),
                Entry::Dict {
                    quote: self.quote(),
                },
            ),
        };
        match place {
            Place::Bare(at) => Slot {
                at,
                before: format!("(annotations={open}"),
                sep: ", ".to_owned(),
                after: format!("{close})"),
                entry,
            },
            Place::List(list) => {
                let value = (format!("annotations={open}"), close);
                self.append(list, entry, Some(value))
            }
        }
    }

    /// A slot at the end of a bracketed list (arguments, dict entries) in the list's own
    /// style: after the last item, on a new line with the items' indentation when they are
    /// one per line, keeping a trailing comma where the list has one. `value` wraps the
    /// entries in a new argument (`annotations=ToolAnnotations(`, `)`); without it the
    /// entries are items of the list themselves.
    fn append(&self, list: Node<'t>, entry: Entry, value: Option<(String, String)>) -> Slot {
        let text = self.text;
        let mut cursor = list.walk();
        let children: Vec<Node> = list.children(&mut cursor).collect();
        let items: Vec<Node> = children
            .iter()
            .copied()
            .filter(|c| c.is_named() && c.kind() != "comment")
            .collect();
        let open = children.first().copied().unwrap_or(list);
        let close = children.last().copied().unwrap_or(list);
        let (open_value, close_value) = value.clone().unwrap_or_default();
        let Some(&last) = items.last() else {
            return Slot {
                at: open.end_byte(),
                before: open_value,
                sep: ", ".to_owned(),
                after: close_value,
                entry,
            };
        };
        let comma = children
            .iter()
            .find(|c| c.start_byte() >= last.end_byte() && c.kind() == ",")
            .copied();
        let rows = |n: Node| (n.start_position().row, n.end_position().row);
        let mut one_per_line = rows(open).1 < rows(items[0]).0 && rows(last).1 < rows(close).0;
        for pair in items.windows(2) {
            one_per_line &= rows(pair[0]).1 < rows(pair[1]).0;
        }
        for item in &items {
            let start = item.start_byte() - item.start_position().column;
            one_per_line &= text[start..item.start_byte()].trim().is_empty();
        }
        let (at, lead, sep, trail) = if one_per_line {
            let line_start = last.start_byte() - last.start_position().column;
            let indent = &text[line_start..last.start_byte()];
            let rest = &text[last.end_byte()..];
            let mut line_end = last.end_byte() + rest.find('\n').unwrap_or(rest.len());
            // A file of CRLF lines gets CRLF lines.
            let newline = if text[..line_end].ends_with('\r') {
                line_end -= 1;
                "\r\n"
            } else {
                "\n"
            };
            match comma {
                Some(comma) => {
                    // A comment after the comma stays with the item it was written beside.
                    let after_comma = text[comma.end_byte()..].trim_start_matches([' ', '\t']);
                    let at = if after_comma.starts_with('#') {
                        line_end
                    } else {
                        comma.end_byte()
                    };
                    (
                        at,
                        format!("{newline}{indent}"),
                        format!(",{newline}{indent}"),
                        ",",
                    )
                }
                None => (
                    last.end_byte(),
                    format!(",{newline}{indent}"),
                    format!(",{newline}{indent}"),
                    "",
                ),
            }
        } else {
            match comma {
                Some(comma) => (comma.end_byte(), " ".to_owned(), ", ".to_owned(), ""),
                None => (last.end_byte(), ", ".to_owned(), ", ".to_owned(), ""),
            }
        };
        match value {
            Some((open_value, close_value)) => Slot {
                at,
                before: format!("{lead}{open_value}"),
                sep: ", ".to_owned(),
                after: format!("{close_value}{trail}"),
                entry,
            },
            None => Slot {
                at,
                before: lead,
                sep,
                after: trail.to_owned(),
                entry,
            },
        }
    }
}

/// Where a registration's new `annotations=` argument goes.
#[derive(Clone, Copy)]
enum Place<'t> {
    /// Right after a bare `@X.tool`.
    Bare(usize),
    /// At the end of the call's argument list.
    List(Node<'t>),
}

/// A call's arguments: positional ones in order, keyword ones by name, and the first
/// `*args`/`**kwargs` spread.
#[derive(Default)]
struct Args<'t> {
    list: Option<Node<'t>>,
    positional: Vec<Node<'t>>,
    keywords: Vec<(&'t str, Node<'t>)>,
    splat: Option<Node<'t>>,
}

impl<'t> Args<'t> {
    fn new(file: &File<'t>, list: Node<'t>) -> Args<'t> {
        let mut args = Args {
            list: Some(list),
            ..Args::default()
        };
        let mut cursor = list.walk();
        for arg in list.named_children(&mut cursor) {
            match arg.kind() {
                "comment" => {}
                "keyword_argument" => {
                    if let (Some(k), Some(v)) = (
                        arg.child_by_field_name("name"),
                        arg.child_by_field_name("value"),
                    ) {
                        args.keywords.push((file.text_of(k), v));
                    }
                }
                "list_splat" | "dictionary_splat" => {
                    args.splat.get_or_insert(arg);
                }
                _ => args.positional.push(arg),
            }
        }
        args
    }

    fn get(&self, keyword: &str, position: Option<usize>) -> Option<Node<'t>> {
        self.keywords
            .iter()
            .find(|(k, _)| *k == keyword)
            .map(|(_, v)| *v)
            .or_else(|| position.and_then(|p| self.positional.get(p).copied()))
    }
}

fn consequence_id(stmt: Node) -> usize {
    stmt.child_by_field_name("consequence")
        .map_or(usize::MAX, |c| c.id())
}

/// Whether `callee` is `X.method` for some expression `X`.
fn is_method(text: &str, callee: Node, method: &str) -> bool {
    callee.kind() == "attribute"
        && callee
            .child_by_field_name("attribute")
            .is_some_and(|a| &text[a.byte_range()] == method)
}

/// `c` of `a.b.c`.
fn last_name(dotted: &str) -> &str {
    dotted.rsplit('.').next().unwrap_or(dotted).trim()
}

fn quote_of(literal: &str) -> Option<char> {
    literal
        .trim_start_matches(char::is_alphabetic)
        .chars()
        .next()
        .filter(|c| *c == '"' || *c == '\'')
}

/// The value of one string literal, escapes decoded; `None` for bytes, an f-string with
/// a replacement field, or an escape that cannot be decoded here (`\N{...}`).
fn string_literal(text: &str, node: Node) -> Option<String> {
    let written = &text[node.byte_range()];
    let prefix_len = written.find(['"', '\'']).filter(|&i| i <= 3)?;
    let prefix = written[..prefix_len].to_ascii_lowercase();
    if prefix.contains('b') {
        return None;
    }
    let raw = prefix.contains('r');
    let f = prefix.contains('f');
    if f {
        let mut cursor = node.walk();
        if node
            .named_children(&mut cursor)
            .any(|c| c.kind() == "interpolation")
        {
            return None;
        }
    }
    let rest = &written[prefix_len..];
    let quote = if rest.starts_with("\"\"\"") || rest.starts_with("'''") {
        &rest[..3]
    } else {
        &rest[..1]
    };
    let body = rest.strip_prefix(quote)?.strip_suffix(quote)?;
    let mut out = if raw {
        body.to_owned()
    } else {
        unescape(body)?
    };
    if f {
        out = out.replace("{{", "{").replace("}}", "}");
    }
    Some(out)
}

fn unescape(body: &str) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            '\n' => {}
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '0'..='7' => {
                let mut n = e.to_digit(8)?;
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            n = n * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(n)?);
            }
            'x' | 'u' | 'U' => {
                let len = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = (0..len).filter_map(|_| chars.next()).collect();
                if hex.len() != len {
                    return None;
                }
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            'N' => return None,
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Some(out)
}

/// Python's `inspect.cleandoc`: tabs expanded, the first line's leading whitespace and the
/// other lines' common indentation removed, blank lines at either end dropped. Lengths are
/// in characters, as Python counts them.
pub fn cleandoc(doc: &str) -> String {
    let lines: Vec<String> = doc.split('\n').map(expand_tabs).collect();
    let margin = lines
        .iter()
        .skip(1)
        .filter_map(|l| {
            let content = l.trim_start();
            (!content.is_empty()).then(|| l[..l.len() - content.len()].chars().count())
        })
        .min();
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if i == 0 {
            out.push(line.trim_start());
        } else {
            match margin {
                Some(m) => out.push(line.char_indices().nth(m).map_or("", |(b, _)| &line[b..])),
                None => out.push(line),
            }
        }
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    let first = out.iter().position(|l| !l.is_empty()).unwrap_or(out.len());
    out[first..].join("\n")
}

/// `str.expandtabs()` with its default tab size of 8.
fn expand_tabs(line: &str) -> String {
    if !line.contains('\t') {
        return line.to_owned();
    }
    let mut out = String::with_capacity(line.len() + 8);
    let mut column = 0;
    for c in line.chars() {
        match c {
            '\t' => {
                let n = 8 - column % 8;
                out.extend(std::iter::repeat_n(' ', n));
                column += n;
            }
            '\r' => {
                out.push(c);
                column = 0;
            }
            _ => {
                out.push(c);
                column += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Found {
        Python.read(text, "server.py").unwrap()
    }

    fn tools(text: &str) -> Vec<Tool> {
        let found = read(text);
        assert!(found.problems.is_empty(), "{:?}", found.problems);
        found.tools
    }

    fn one(text: &str) -> Tool {
        let mut tools = tools(text);
        assert_eq!(tools.len(), 1, "{tools:?}");
        tools.remove(0)
    }

    fn names(text: &str) -> Vec<Result<String, String>> {
        tools(text).into_iter().map(|t| t.name).collect()
    }

    fn lit(pairs: &[(&str, Value)]) -> Annotations {
        Annotations::Literal(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        )
    }

    const HEAD: &str = "from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP(\"s\")\n\n";

    const ADDED: [(&str, bool); 2] = [("readOnlyHint", true), ("destructiveHint", false)];

    /// The text with `readOnlyHint=True, destructiveHint=False` (those a tool lacks)
    /// inserted at every slot, and the check that it reads back: the same tools, each with
    /// exactly those hints added.
    fn fill(text: &str) -> String {
        let before = read(text);
        let missing = |t: &Tool| -> Vec<(&str, bool)> {
            ADDED
                .into_iter()
                .filter(|(k, _)| match &t.annotations {
                    Annotations::Literal(entries) => entries.iter().all(|(e, _)| e != k),
                    _ => true,
                })
                .collect()
        };
        let mut edits: Vec<(usize, String)> = before
            .tools
            .iter()
            .filter_map(|t| Some((t.slot.as_ref().ok()?, missing(t))))
            .filter(|(_, keys)| !keys.is_empty())
            .map(|(s, keys)| (s.at, s.render(&keys)))
            .collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.0));
        let mut out = text.to_owned();
        for (at, inserted) in edits {
            out.insert_str(at, &inserted);
        }
        let after = Python
            .read(&out, "server.py")
            .unwrap_or_else(|e| panic!("{e}\n{out}"));
        assert_eq!(after.tools.len(), before.tools.len(), "{out}");
        for (b, a) in before.tools.iter().zip(&after.tools) {
            assert_eq!(
                (&a.name, &a.description, &a.inputs),
                (&b.name, &b.description, &b.inputs)
            );
            if b.slot.is_err() {
                assert_eq!(a.annotations, b.annotations);
                continue;
            }
            let mut expected = match &b.annotations {
                Annotations::Literal(entries) => entries.clone(),
                _ => Vec::new(),
            };
            for (k, v) in missing(b) {
                expected.push((k.to_owned(), Value::Bool(v)));
            }
            assert_eq!(a.annotations, Annotations::Literal(expected), "{out}");
        }
        out
    }

    #[test]
    fn a_server_is_a_file_that_imports_an_sdk() {
        let yes = [
            "from mcp.server.fastmcp import FastMCP\n",
            "from mcp.server import MCPServer\n",
            "from mcp.server.mcpserver import MCPServer, Context\n",
            "import mcp.server.stdio\n",
            "from fastmcp import FastMCP\n",
            "import fastmcp\n",
            "try:\n    from fastmcp.server import FastMCP\nexcept ImportError:\n    pass\n",
            "from mcp import types\n\nTOOLS = [types.Tool(name='x', inputSchema={})]\n",
            "import mcp.types as t\nt.Tool(name='x', inputSchema={})\n",
            "from mcp.types import Tool\nTool(name='x', inputSchema={})\n",
            "\"\"\"A server.\"\"\"\n\nfrom fastmcp import FastMCP\n",
            "'''A server\n'''\ndoc = \"\"\"x\"\"\"  # '''\nimport fastmcp\n",
        ];
        for text in yes {
            assert!(Python.is_server(text), "{text}");
        }
        let no = [
            "# This talks to an mcp server over stdio.\nimport json\n",
            "\"\"\"Client for mcp.\"\"\"\nfrom mcp import ClientSession\n",
            "from mcp.types import ToolAnnotations\nx = ToolAnnotations()\n",
            "from mcp import types\nprint(types.CallToolResult)\n",
            "import mcp_servers_helpers\nfrom fastmcpx import thing\nimport mcp.serverless\n",
            "x = 'from mcp.server import MCPServer'\n",
            "\"\"\"Use it like this:\n\nfrom mcp.server import MCPServer\n\"\"\"\nimport json\n",
            "def f():\n    '''Or so.\n    import fastmcp\n    '''\n",
        ];
        for text in no {
            assert!(!Python.is_server(text), "{text}");
        }
    }

    #[test]
    fn decorators_of_every_shape_register_their_function() {
        let text = format!(
            "{HEAD}@mcp.tool()\ndef a(x: int) -> int:\n    return x\n\n\
             @mcp.tool\nasync def b(y):\n    return y\n\n\
             @log_calls\n@mcp.tool(name=\"c_tool\")\n@retry(3)\nasync def c():\n    pass\n\n\
             class Holder:\n    def setup(self):\n        @self.server.tool()\n        def d(self, z: str):\n            return z\n\n\
             @mcp.resource(\"r://x\")\ndef not_a_tool():\n    pass\n\n\
             @tool\ndef not_registered_either():\n    pass\n"
        );
        let tools = tools(&text);
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_deref().unwrap()).collect();
        assert_eq!(names, ["a", "b", "c_tool", "d"]);
        assert_eq!(tools[0].inputs, ["x"]);
        assert_eq!(tools[1].inputs, ["y"]);
        assert!(tools[2].inputs.is_empty());
        assert_eq!(tools[3].inputs, ["z"]);
        // The registration starts at the decorator's `@`, even under another decorator.
        for t in &tools {
            assert_eq!(&text[t.start..t.start + 1], "@");
        }
        assert_eq!((tools[2].line, tools[2].column), (14, 1));
        assert_eq!((tools[3].line, tools[3].column), (21, 9));
    }

    #[test]
    fn names_come_from_literals_constants_and_enum_members() {
        let text = format!(
            "from enum import Enum, StrEnum\nfrom names import IMPORTED\n\n\
             PREFIX = \"app_\"\nNAME = 'from_constant'\nTWICE = 'a'\nTWICE = 'b'\n\n\
             @unique\nclass T(str, Enum):\n    LIST = \"list_items\"\n    GET = 'get_item'\n\n\
             class Plain(Enum):\n    DROP = \"drop_item\"\n\n\
             class S(StrEnum):\n    PUT = \"put_item\"\n\n\
             {HEAD}\
             @mcp.tool(name=\"lit\" 'eral')\ndef f1(): ...\n\
             @mcp.tool(\"positional\")\ndef f2(): ...\n\
             @mcp.tool(name=NAME)\ndef f3(): ...\n\
             @mcp.tool(name=T.LIST.value)\ndef f4(): ...\n\
             @mcp.tool(name=T.GET)\ndef f5(): ...\n\
             @mcp.tool(name=Plain.DROP.value)\ndef f6(): ...\n\
             @mcp.tool(name=S.PUT)\ndef f7(): ...\n\
             @mcp.tool(name=Plain.DROP)\ndef f8(): ...\n\
             @mcp.tool(name=f\"{{PREFIX}}x\")\ndef f9(): ...\n\
             @mcp.tool(name=IMPORTED)\ndef f10(): ...\n\
             @mcp.tool(name=TWICE)\ndef f11(): ...\n\
             @mcp.tool(name=PREFIX + \"y\")\ndef f12(): ...\n\
             @mcp.tool(name=\"esc\\u00e9\\x41\\n\")\ndef f13(): ...\n\
             @mcp.tool(name=r\"raw\\n\")\ndef f14(): ...\n"
        );
        let ok = |s: &str| Ok(s.to_owned());
        let err = |s: &str| Err(s.to_owned());
        assert_eq!(
            names(&text),
            [
                ok("literal"),
                ok("positional"),
                ok("from_constant"),
                ok("list_items"),
                ok("get_item"),
                ok("drop_item"),
                ok("put_item"),
                err("Plain.DROP"),
                err("f\"{PREFIX}x\""),
                err("IMPORTED"),
                err("TWICE"),
                err("PREFIX + \"y\""),
                ok("esc\u{e9}A\n"),
                ok("raw\\n"),
            ]
        );
    }

    #[test]
    fn title_and_description_from_keywords_constants_or_the_docstring() {
        let text = format!(
            "DESC = (\n    \"Lists \"\n    \"things.\"\n)\n\n{HEAD}\
             @mcp.tool(title=\"Lister\", description=DESC)\ndef a():\n    \"\"\"Not this.\"\"\"\n\n\
             @mcp.tool()\ndef b():\n    \"\"\"\n    Gets one thing.\n\n      Indented more.\n\tTabbed.\n    \"\"\"\n\n\
             @mcp.tool()\ndef c():\n    # a comment first\n    '''One line.'''\n    return 1\n\n\
             @mcp.tool()\ndef d():\n    x = 1\n    \"\"\"Not a docstring.\"\"\"\n\n\
             @mcp.tool(description=make())\ndef e():\n    \"\"\"Shadowed by the argument.\"\"\"\n"
        );
        let tools = tools(&text);
        assert_eq!(tools[0].title.as_deref(), Some("Lister"));
        assert_eq!(tools[0].description.as_deref(), Some("Lists things."));
        assert_eq!(
            tools[1].description.as_deref(),
            Some("Gets one thing.\n\n  Indented more.\n    Tabbed.")
        );
        assert_eq!(tools[2].description.as_deref(), Some("One line."));
        assert_eq!(tools[3].description, None);
        assert_eq!(tools[4].description, None);
        assert!(tools[1].title.is_none());
    }

    #[test]
    fn cleandoc_matches_python() {
        // Expected values from Python 3.11's inspect.cleandoc.
        assert_eq!(cleandoc("  First.\n    a\n      b\n    "), "First.\na\n  b");
        assert_eq!(cleandoc("\n\n   x\n\n"), "x");
        assert_eq!(cleandoc("a\n\tb\n        c"), "a\nb\nc");
        assert_eq!(cleandoc(""), "");
        assert_eq!(cleandoc("é\n  ü\n   ö"), "é\nü\n ö");
    }

    #[test]
    fn inputs_leave_out_self_splats_and_the_context() {
        let text = format!(
            "from mcp.server.fastmcp import Context\nimport mcp.server.fastmcp as fm\n{HEAD}\
             @mcp.tool()\nasync def a(self, ctx: Context, q: str, *args, limit: int = 5, **kwargs): ...\n\
             @mcp.tool()\ndef b(cls, /, page, ctx: Context[ServerSession, None] = None, *, size=3): ...\n\
             @mcp.tool()\ndef c(context: fm.Context, x: \"Context\", y: list[int] = []): ...\n\
             @mcp.tool()\ndef d(a, self): ...\n\
             @mcp.tool()\ndef e(a: Optional[Context], b: Context | None = None): ...\n\
             @mcp.tool()\ndef f(a: int | None, b: \"Optional[Context]\", c: Union[str, fm.Context]): ...\n"
        );
        let tools = tools(&text);
        assert_eq!(tools[0].inputs, ["q", "limit"]);
        assert_eq!(tools[1].inputs, ["page", "size"]);
        assert_eq!(tools[2].inputs, ["x", "y"]);
        assert_eq!(tools[3].inputs, ["a", "self"]);
        // The SDK fills only the first `Context` parameter; a second is an input.
        assert_eq!(tools[4].inputs, ["b"]);
        assert_eq!(tools[5].inputs, ["a", "c"]);
        let excluded = format!(
            "{HEAD}@mcp.tool(exclude_args=[\"state\", 'token'])\ndef a(q, state=None, token=None): ...\n\
             @mcp.tool(exclude_args=EXCLUDED)\ndef b(q, state=None): ...\n"
        );
        let tools = self::tools(&excluded);
        assert_eq!(tools[0].inputs, ["q"]);
        assert_eq!(tools[1].inputs, ["q", "state"]);
    }

    #[test]
    fn annotations_are_read_as_literals_or_left_unread() {
        let text = format!(
            "from mcp.types import ToolAnnotations\nfrom mcp import types\nfrom hints import SHARED\n\n\
             SAFE = True\nLOOKUP = ToolAnnotations(readOnlyHint=SAFE, openWorldHint=False)\n\
             AS_DICT = {{\"readOnlyHint\": True}}\n\n{HEAD}\
             @mcp.tool(annotations=ToolAnnotations(title=\"T\", readOnlyHint=True, destructive_hint=False))\ndef a(): ...\n\
             @mcp.tool(annotations=types.ToolAnnotations(idempotentHint=flag))\ndef b(): ...\n\
             @mcp.tool(annotations={{'read_only_hint': False, \"destructiveHint\": True, \"color\": 1}})\ndef c(): ...\n\
             @mcp.tool(annotations=LOOKUP)\ndef d(): ...\n\
             @mcp.tool(annotations=AS_DICT)\ndef e(): ...\n\
             @mcp.tool(annotations=writes(destructive=True, idempotent=False))\ndef f(): ...\n\
             @mcp.tool(annotations=SHARED)\ndef g(): ...\n\
             @mcp.tool()\ndef h(): ...\n\
             @mcp.tool(annotations=ToolAnnotations(**base))\ndef i(): ...\n\
             @mcp.tool(annotations={{**base, \"readOnlyHint\": True}})\ndef j(): ...\n"
        );
        let tools = tools(&text);
        let t = |b| Value::Bool(b);
        assert_eq!(
            tools[0].annotations,
            lit(&[("readOnlyHint", t(true)), ("destructiveHint", t(false))])
        );
        assert_eq!(
            tools[1].annotations,
            lit(&[("idempotentHint", Value::Unread("flag".into()))])
        );
        assert_eq!(
            tools[2].annotations,
            lit(&[("readOnlyHint", t(false)), ("destructiveHint", t(true))])
        );
        assert_eq!(
            tools[3].annotations,
            lit(&[("readOnlyHint", t(true)), ("openWorldHint", t(false))])
        );
        assert_eq!(tools[4].annotations, lit(&[("readOnlyHint", t(true))]));
        assert_eq!(
            tools[5].annotations,
            Annotations::Unread("writes(destructive=True, idempotent=False)".into())
        );
        assert_eq!(tools[6].annotations, Annotations::Unread("SHARED".into()));
        assert_eq!(tools[7].annotations, Annotations::Absent);
        assert_eq!(
            tools[8].annotations,
            Annotations::Unread("ToolAnnotations(**base)".into())
        );
        assert!(matches!(tools[9].annotations, Annotations::Unread(_)));
        for i in [5, 6, 8, 9] {
            assert!(tools[i].slot.is_err(), "{i}");
        }
        // A constant named once is the tool's own: its literal takes the new hints.
        for i in [0, 1, 2, 3, 4, 7] {
            assert!(tools[i].slot.is_ok(), "{i}");
        }
        fill(&text);
    }

    #[test]
    fn a_constant_shared_by_tools_is_not_patched() {
        let text = format!(
            "from mcp.types import ToolAnnotations\nRO = ToolAnnotations(readOnlyHint=True)\n{HEAD}\
             @mcp.tool(annotations=RO)\ndef a(): ...\n@mcp.tool(annotations=RO)\ndef b(): ...\n"
        );
        for tool in tools(&text) {
            assert_eq!(
                tool.annotations,
                lit(&[("readOnlyHint", Value::Bool(true))])
            );
            let why = tool.slot.unwrap_err();
            assert!(why.contains("`RO` is named 2 times"), "{why}");
        }
    }

    #[test]
    fn a_new_annotations_argument_is_written_in_the_calls_style() {
        let text = format!(
            "{HEAD}@mcp.tool()\ndef a(): ...\n\n\
             @mcp.tool(name=\"b\")\ndef b(): ...\n\n\
             @mcp.tool(name=\"c\",)\ndef c(): ...\n\n\
             @mcp.tool(\n    name=\"d\",\n    description=\"D\",\n)\ndef d(): ...\n\n\
             @mcp.tool(\n    name=\"e\",\n    description=\"E\"\n)\ndef e(): ...\n\n\
             @mcp.tool(\n        name=\"f\",  # why f\n)\ndef f(): ...\n\n\
             @mcp.tool(name=\"g\",\n          description=\"G\")\ndef g(): ...\n\n\
             @mcp.tool\ndef h(): ...\n\n\
             @mcp.tool(**options)\ndef i(): ...\n"
        );
        let out = fill(&text);
        let dict = "{\"readOnlyHint\": True, \"destructiveHint\": False}";
        let expected = format!(
            "{HEAD}@mcp.tool(annotations={dict})\ndef a(): ...\n\n\
             @mcp.tool(name=\"b\", annotations={dict})\ndef b(): ...\n\n\
             @mcp.tool(name=\"c\", annotations={dict})\ndef c(): ...\n\n\
             @mcp.tool(\n    name=\"d\",\n    description=\"D\",\n    annotations={dict},\n)\ndef d(): ...\n\n\
             @mcp.tool(\n    name=\"e\",\n    description=\"E\",\n    annotations={dict}\n)\ndef e(): ...\n\n\
             @mcp.tool(\n        name=\"f\",  # why f\n        annotations={dict},\n)\ndef f(): ...\n\n\
             @mcp.tool(name=\"g\",\n          description=\"G\", annotations={dict})\ndef g(): ...\n\n\
             @mcp.tool(annotations={dict})\ndef h(): ...\n\n\
             @mcp.tool(**options)\ndef i(): ...\n"
        );
        assert_eq!(out, expected);
        let i = tools(&text).pop().unwrap();
        assert_eq!(i.annotations, Annotations::Absent);
        assert!(i.slot.unwrap_err().contains("`**options`"));
    }

    #[test]
    fn a_file_of_crlf_lines_gets_crlf_lines() {
        let text = "from mcp.server.fastmcp import FastMCP\r\nmcp = FastMCP(\"s\")\r\n\
                    @mcp.tool(\r\n    name=\"a\",  # why\r\n)\r\ndef a(): ...\r\n\
                    @mcp.tool(\r\n    name=\"b\"\r\n)\r\ndef b(): ...\r\n";
        let out = fill(text);
        let dict = "{\"readOnlyHint\": True, \"destructiveHint\": False}";
        assert_eq!(
            out,
            format!(
                "from mcp.server.fastmcp import FastMCP\r\nmcp = FastMCP(\"s\")\r\n\
                 @mcp.tool(\r\n    name=\"a\",  # why\r\n    annotations={dict},\r\n)\r\ndef a(): ...\r\n\
                 @mcp.tool(\r\n    name=\"b\",\r\n    annotations={dict}\r\n)\r\ndef b(): ...\r\n"
            )
        );
    }

    #[test]
    fn an_empty_or_none_argument_is_the_sdks_default() {
        let text = format!(
            "{HEAD}@mcp.tool(name=None, description=\"\")\ndef a():\n    \"\"\"Doc.\"\"\"\n\
             @mcp.tool(name=\"\", description=None, annotations=None)\ndef b():\n    \"\"\"Doc.\"\"\"\n"
        );
        let tools = tools(&text);
        assert_eq!(tools[0].name.as_deref(), Ok("a"));
        assert_eq!(tools[1].name.as_deref(), Ok("b"));
        assert_eq!(tools[0].description.as_deref(), Some("Doc."));
        assert_eq!(tools[1].description.as_deref(), Some("Doc."));
        assert_eq!(tools[1].annotations, Annotations::Absent);
        assert!(tools[1].slot.as_ref().unwrap_err().contains("None"));
    }

    #[test]
    fn the_new_value_follows_how_the_file_binds_and_spells_hints() {
        let body = "@mcp.tool()\ndef a(): ...\n";
        let cases = [
            // Imported `ToolAnnotations`, no hint written yet: camelCase, which every SDK
            // version takes.
            (
                "from mcp.types import ToolAnnotations\n",
                "ToolAnnotations(readOnlyHint=True, destructiveHint=False)",
            ),
            (
                "from mcp.types import ToolAnnotations as TA\nX = TA(open_world_hint=True)\n",
                "TA(read_only_hint=True, destructive_hint=False)",
            ),
            (
                "from mcp import types as mt\n",
                "mt.ToolAnnotations(readOnlyHint=True, destructiveHint=False)",
            ),
            (
                "import mcp.types\n",
                "mcp.types.ToolAnnotations(readOnlyHint=True, destructiveHint=False)",
            ),
            (
                "x = 'a'\ny = 'b'\nz = 'c'\n",
                "{'readOnlyHint': True, 'destructiveHint': False}",
            ),
        ];
        for (head, value) in cases {
            let text = format!("{head}{HEAD}{body}");
            let out = fill(&text);
            assert!(
                out.contains(&format!("@mcp.tool(annotations={value})")),
                "{out}"
            );
        }
    }

    #[test]
    fn an_import_for_type_checkers_only_is_not_relied_on() {
        let text = format!(
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mcp.types import ToolAnnotations\nelse:\n    pass\n{HEAD}@mcp.tool()\ndef a(): ...\n"
        );
        let out = fill(&text);
        assert!(
            out.contains(
                "@mcp.tool(annotations={\"readOnlyHint\": True, \"destructiveHint\": False})"
            ),
            "{out}"
        );
        let runtime = text.replace("TYPE_CHECKING:", "True:");
        assert!(fill(&runtime).contains("@mcp.tool(annotations=ToolAnnotations("));
    }

    #[test]
    fn missing_hints_go_inside_an_existing_literal() {
        let text = format!(
            "from mcp.types import ToolAnnotations\n{HEAD}\
             @mcp.tool(annotations=ToolAnnotations(openWorldHint=True))\ndef a(): ...\n\
             @mcp.tool(annotations=ToolAnnotations())\ndef b(): ...\n\
             @mcp.tool(annotations={{'idempotentHint': True}})\ndef c(): ...\n\
             @mcp.tool(\n    annotations={{\n        \"openWorldHint\": False,\n    }},\n)\ndef d(): ...\n\
             @mcp.tool(annotations=ToolAnnotations(\n    idempotent_hint=True\n))\ndef e(): ...\n"
        );
        let out = fill(&text);
        let expected = format!(
            "from mcp.types import ToolAnnotations\n{HEAD}\
             @mcp.tool(annotations=ToolAnnotations(openWorldHint=True, readOnlyHint=True, destructiveHint=False))\ndef a(): ...\n\
             @mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False))\ndef b(): ...\n\
             @mcp.tool(annotations={{'idempotentHint': True, 'readOnlyHint': True, 'destructiveHint': False}})\ndef c(): ...\n\
             @mcp.tool(\n    annotations={{\n        \"openWorldHint\": False,\n        \"readOnlyHint\": True,\n        \"destructiveHint\": False,\n    }},\n)\ndef d(): ...\n\
             @mcp.tool(annotations=ToolAnnotations(\n    idempotent_hint=True,\n    read_only_hint=True,\n    destructive_hint=False\n))\ndef e(): ...\n"
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn add_tool_reads_the_function_it_is_given() {
        let text = format!(
            "{HEAD}def search(query: str, ctx: Context) -> list:\n    \"\"\"Searches.\"\"\"\n\n\
             mcp.add_tool(search)\n\
             mcp.add_tool(search, name=\"find\", description=\"Finds.\")\n\
             mcp.add_tool(\n    search,\n    \"lookup\",\n)\n"
        );
        let tools = tools(&text);
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_deref().unwrap()).collect();
        assert_eq!(names, ["search", "find", "lookup"]);
        assert_eq!(tools[0].description.as_deref(), Some("Searches."));
        assert_eq!(tools[1].description.as_deref(), Some("Finds."));
        for t in &tools {
            assert_eq!(t.inputs, ["query"]);
            assert_eq!(&text[t.start..t.start + 12], "mcp.add_tool");
        }
        let out = fill(&text);
        assert!(out.contains(
            "mcp.add_tool(\n    search,\n    \"lookup\",\n    annotations={\"readOnlyHint\": True, \"destructiveHint\": False},\n)"
        ));
    }

    #[test]
    fn the_decorator_applied_by_hand_and_fastmcps_call_form_register_too() {
        let text = format!(
            "{HEAD}def search(query: str) -> list:\n    \"\"\"Searches.\"\"\"\n\n\
             mcp.tool()(search)\n\
             mcp.tool(\"find\", description=\"Finds.\")(search)\n\
             mcp.tool(search, name=\"lookup\")\n\
             named = mcp.tool(\"made_only\")\n"
        );
        let tools = tools(&text);
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_deref().unwrap()).collect();
        assert_eq!(names, ["search", "find", "lookup"]);
        assert_eq!(tools[1].description.as_deref(), Some("Finds."));
        for t in &tools {
            assert_eq!(t.inputs, ["query"]);
            assert_eq!(&text[t.start..t.start + 9], "mcp.tool(");
        }
        let out = fill(&text);
        let dict = "{\"readOnlyHint\": True, \"destructiveHint\": False}";
        assert!(
            out.contains(&format!("mcp.tool(annotations={dict})(search)")),
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "mcp.tool(\"find\", description=\"Finds.\", annotations={dict})(search)"
            )),
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "mcp.tool(search, name=\"lookup\", annotations={dict})"
            )),
            "{out}"
        );
    }

    #[test]
    fn a_registration_that_cannot_be_read_is_a_problem_and_the_rest_are_read() {
        let text = format!(
            "from helpers import imported_fn\n{HEAD}\
             mcp.add_tool(imported_fn)\n\
             @mcp.tool()\nclass NotAFunction: ...\n\
             mcp.add_tool(lambda x: x, name=\"l\")\n\
             @mcp.tool()\ndef fine(): ...\n"
        );
        let found = read(&text);
        assert_eq!(found.tools.len(), 1);
        assert_eq!(found.tools[0].name.as_deref(), Ok("fine"));
        let at: Vec<(Option<usize>, Option<usize>)> =
            found.problems.iter().map(|p| (p.line, p.column)).collect();
        assert_eq!(
            at,
            [(Some(6), Some(1)), (Some(7), Some(1)), (Some(9), Some(1))]
        );
        assert!(found.problems[0].message.contains("imported_fn"));
        assert!(found.problems[1].message.contains("class"));
    }

    #[test]
    fn low_level_tools_are_read_from_their_schema() {
        let text = "from mcp.server import Server\nfrom mcp import types\nfrom mcp.types import Tool\n\n\
             SCHEMA = {\"type\": \"object\", \"properties\": {\"id\": {}, \"force\": {}}}\n\n\
             async def list_tools():\n    return [\n        types.Tool(\n            name=\"get\",\n            description=\"Gets.\",\n            inputSchema={\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"string\"}}},\n            annotations=types.ToolAnnotations(readOnlyHint=True),\n        ),\n        Tool(name=\"delete\", input_schema=SCHEMA),\n        types.Tool(title=\"nameless\", inputSchema={}),\n    ]\n\nother.Tool(name=\"not mcp's\")\n";
        assert!(Python.is_server(text));
        let found = read(text);
        assert_eq!(found.tools.len(), 2);
        let get = &found.tools[0];
        assert_eq!(get.name.as_deref(), Ok("get"));
        assert_eq!(get.description.as_deref(), Some("Gets."));
        assert_eq!(get.inputs, ["id"]);
        assert_eq!(get.annotations, lit(&[("readOnlyHint", Value::Bool(true))]));
        assert_eq!((get.line, get.column), (9, 9));
        let delete = &found.tools[1];
        assert_eq!(delete.inputs, ["id", "force"]);
        assert_eq!(delete.annotations, Annotations::Absent);
        assert_eq!(found.problems.len(), 1);
        assert_eq!(found.problems[0].line, Some(16));
        let models = "from mcp import types\nfrom pydantic import BaseModel, Field\n\n\
             class Base(BaseModel):\n    repo: str\n    _cache: dict = {}\n\n\
             class Fetch(Base):\n    url: str = Field(description=\"u\")\n    max_len: int = Field(5, alias=\"maxLength\")\n    kind: ClassVar[str] = \"x\"\n    model_config = {}\n\n\
             TOOLS = [types.Tool(name=\"fetch\", inputSchema=Fetch.model_json_schema())]\n\
             OTHER = [types.Tool(name=\"other\", inputSchema=Imported.model_json_schema())]\n";
        let tools = tools(models);
        assert_eq!(tools[0].inputs, ["repo", "url", "maxLength"]);
        assert!(tools[1].inputs.is_empty());
        let out = fill(text);
        assert!(
            out.contains(
                "            annotations=types.ToolAnnotations(readOnlyHint=True, destructiveHint=False),\n"
            ),
            "{out}"
        );
        assert!(out.contains(
            "Tool(name=\"delete\", input_schema=SCHEMA, annotations=types.ToolAnnotations(readOnlyHint=True, destructiveHint=False))"
        ), "{out}");
    }

    #[test]
    fn a_parse_error_names_where_the_file_stops_being_python() {
        let err = Python
            .read(
                &format!("{HEAD}@mcp.tool()\ndef broken(x:\n    return x\n"),
                "s.py",
            )
            .unwrap_err();
        assert_eq!((err.line, err.column), (Some(6), Some(11)), "{err:?}");
        assert_eq!(err.message, "not valid Python: `(` is never closed");
        let err = Python
            .read(&format!("{HEAD}x = 1 +\n"), "s.py")
            .unwrap_err();
        assert_eq!((err.line, err.column), (Some(5), Some(1)), "{err:?}");
        assert_eq!(err.message, "not valid Python: unexpected `x = 1 +`");
        let err = Python.read("x = (1,\n", "s.py").unwrap_err();
        assert_eq!(err.message, "not valid Python: `(` is never closed");
        assert_eq!((err.line, err.column), (Some(1), Some(5)));
        let err = Python.read("x = [1, 2\ny = {3: (4)\n", "s.py").unwrap_err();
        assert_eq!(err.message, "not valid Python: `[` is never closed");
        assert_eq!((err.line, err.column), (Some(1), Some(5)));
        let err = Python.read("def f(:\n    pass\n", "s.py").unwrap_err();
        assert_eq!(err.message, "not valid Python: missing `)`");
        assert_eq!((err.line, err.column), (Some(1), Some(7)));
    }

    #[test]
    fn columns_count_characters_and_a_bom_keeps_its_bytes() {
        let text =
            "\u{feff}from mcp import types\nß = 1; é = types.Tool(name=\"x\", inputSchema={})\n";
        let t = one(text);
        // `ß = 1; é = ` is 11 characters (13 bytes).
        assert_eq!((t.line, t.column), (2, 12));
        assert_eq!(&text[t.start..t.start + 10], "types.Tool");
    }

    #[test]
    fn deep_nesting_is_read_without_exhausting_the_stack() {
        let n = 20_000;
        let deep_type = format!(
            "{HEAD}@mcp.tool()\ndef a(x: {}int{}, ctx: Context): ...\n",
            "Optional[".repeat(n),
            "]".repeat(n)
        );
        let tool = one(&deep_type);
        assert_eq!(tool.inputs, ["x"]);
        let deep_pattern = format!("{}a{} = 1\n{HEAD}", "(".repeat(n), ")".repeat(n));
        let _ = Python.read(&deep_pattern, "s.py");
        let mut deep_blocks = String::from(HEAD);
        for i in 0..2_000 {
            deep_blocks.push_str(&" ".repeat(i));
            deep_blocks.push_str("if x:\n");
        }
        deep_blocks.push_str(&" ".repeat(2_000));
        deep_blocks.push_str("NAME = 'n'\n");
        let err = Python.read(&deep_blocks, "s.py").unwrap_err();
        assert_eq!((err.line, err.column), (Some(305), Some(1)), "{err}");
        // Blank lines continued by `\\` add up, as the grammar's scanner counts them.
        let continued = format!("{HEAD}if x:\n{}    y = 1\n", "\t\t\\\n".repeat(19));
        let err = Python.read(&continued, "s.py").unwrap_err();
        assert_eq!(err.line, Some(24), "{err}");
        let within = format!("{HEAD}if x:\n{}    y = 1\n", "\t\t\\\n".repeat(18));
        assert!(Python.read(&within, "s.py").is_ok());
        let deep_string = format!(
            "{HEAD}@mcp.tool(name={}'n'{})\ndef a(): ...\n",
            "(".repeat(n),
            ")".repeat(n)
        );
        assert_eq!(
            one(&deep_string).name,
            Err(format!("{}'n'{}", "(".repeat(n), ")".repeat(n)))
        );
    }
}
