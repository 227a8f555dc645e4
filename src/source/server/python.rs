//! Python servers: `@server.tool(...)` on the official SDK (`MCPServer`, `FastMCP`), the standalone `fastmcp` package, and the low-level `types.Tool(...)`.
//!
//! The file is parsed with tree-sitter's Python grammar, so every span is a byte range of
//! the text as it is: a slot is where the file's own bytes say the next argument goes. Only
//! what the file itself binds is followed (a module constant bound once, an enum member of a
//! class in the file); anything imported or computed is reported as unread, never guessed.

use std::collections::HashMap;

use tree_sitter::{Node, Parser, Tree};

use super::{Annotations, Entry, Found, Language, Slot, Tool, Value, hint_key};
use crate::error::Error;

/// The Python reader.
pub struct Python;

impl Language for Python {
    fn name(&self) -> &'static str {
        "python"
    }

    fn is_server(&self, text: &str) -> bool {
        let mut types = false;
        for line in text.lines() {
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

/// What an import line brings in, judged on its modules alone (a comment or a string that
/// mentions `mcp` is not an import statement).
fn import_of(line: &str) -> Option<Import> {
    let is_server =
        |m: &str| under(m, "mcp.server") || under(m, "fastmcp") || under(m, "mcp.server.fastmcp");
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

fn parse(text: &str) -> Result<Tree, Error> {
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
    if let Some(bad) = first_error(tree.root_node()) {
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

fn end_point(text: &str) -> tree_sitter::Point {
    let row = text.bytes().filter(|&b| b == b'\n').count();
    let column = text.len() - text.rfind('\n').map_or(0, |i| i + 1);
    tree_sitter::Point { row, column }
}

/// The first node in document order that the parser marked as an error or as missing.
fn first_error(root: Node) -> Option<Node> {
    if !root.has_error() {
        return None;
    }
    let mut node = root;
    'down: loop {
        if node.is_error() || node.is_missing() {
            return Some(node);
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.is_error() || child.is_missing() || child.has_error() {
                node = child;
                continue 'down;
            }
        }
        return Some(node);
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
enum Found1<'t> {
    /// `@X.tool(...)` or bare `@X.tool`: the decorator and the definition it decorates.
    Decorator(Node<'t>, Node<'t>),
    /// `X.add_tool(fn, ...)`.
    AddTool(Node<'t>),
    /// `types.Tool(...)` / `Tool(...)` of the low-level server.
    LowLevel(Node<'t>),
}

struct File<'t> {
    text: &'t str,
    /// Module-level names bound exactly once, with the value of that one binding.
    constants: HashMap<&'t str, Node<'t>>,
    enums: HashMap<&'t str, Enum<'t>>,
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
    registrations: Vec<Found1<'t>>,
}

impl<'t> File<'t> {
    fn new(text: &'t str, tree: &'t Tree) -> File<'t> {
        let mut file = File {
            text,
            constants: HashMap::new(),
            enums: HashMap::new(),
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
        };
        let root = tree.root_node();
        let mut bound: HashMap<&'t str, usize> = HashMap::new();
        let mut values: HashMap<&'t str, Node<'t>> = HashMap::new();
        let mut annotations_alias = None;
        file.module_level(root, true, &mut bound, &mut values, &mut annotations_alias);
        file.constants = values
            .into_iter()
            .filter(|(name, _)| bound.get(name) == Some(&1))
            .collect();
        file.enums.retain(|name, _| bound.get(name) == Some(&1));
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
        block: Node<'t>,
        top: bool,
        bound: &mut HashMap<&'t str, usize>,
        values: &mut HashMap<&'t str, Node<'t>>,
        annotations_alias: &mut Option<String>,
    ) {
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
                        self.bind_definition(def, false, bound);
                    }
                }
                "import_statement" => self.import(stmt, bound),
                "import_from_statement" => self.import_from(stmt, bound, annotations_alias),
                "for_statement" => {
                    if let Some(left) = stmt.child_by_field_name("left") {
                        self.bind_pattern(left, bound);
                    }
                    self.nested_blocks(stmt, bound, values, annotations_alias);
                }
                "if_statement" | "try_statement" | "with_statement" | "while_statement" => {
                    self.nested_blocks(stmt, bound, values, annotations_alias);
                }
                _ => {}
            }
        }
    }

    /// The blocks of a compound statement at module level: their bindings count, but bind
    /// only when the branch runs, so none is a constant.
    fn nested_blocks(
        &mut self,
        stmt: Node<'t>,
        bound: &mut HashMap<&'t str, usize>,
        values: &mut HashMap<&'t str, Node<'t>>,
        annotations_alias: &mut Option<String>,
    ) {
        let mut stack = vec![stmt];
        while let Some(node) = stack.pop() {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind() {
                    "block" => self.module_level(child, false, bound, values, annotations_alias),
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
            self.read_enum(def, name);
        }
    }

    fn bind_pattern(&self, pattern: Node<'t>, bound: &mut HashMap<&'t str, usize>) {
        if pattern.kind() == "identifier" {
            *bound.entry(self.text_of(pattern)).or_default() += 1;
            return;
        }
        // Attributes and subscripts (`x.y = 1`, `x[0] = 1`) bind no name.
        if matches!(pattern.kind(), "attribute" | "subscript") {
            return;
        }
        let mut cursor = pattern.walk();
        for child in pattern.named_children(&mut cursor) {
            self.bind_pattern(child, bound);
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
        let mut cursor = root.walk();
        'outer: loop {
            let node = cursor.node();
            match node.kind() {
                "decorator" => self.decorator(node),
                "call" => self.call(node),
                "function_definition" => {
                    if let Some(name) = node.child_by_field_name("name") {
                        let name = self.text_of(name);
                        self.functions
                            .entry(name)
                            .and_modify(|f| *f = None)
                            .or_insert(Some(node));
                    }
                }
                "string_start" => {
                    let quote = self.text_of(node).trim_start_matches(char::is_alphabetic);
                    match quote {
                        "'" => self.single += 1,
                        "\"" => self.double += 1,
                        _ => {}
                    }
                }
                "identifier" => {
                    if let Some(n) = self.uses.get_mut(&self.text[node.byte_range()]) {
                        *n += 1;
                    } else if self.constants.contains_key(&self.text[node.byte_range()]) {
                        self.uses.insert(self.text_of(node), 1);
                    }
                }
                "global_statement" | "nonlocal_statement" => {
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

    fn decorator(&mut self, decorator: Node<'t>) {
        let Some(expr) = decorator.named_child(0) else {
            return;
        };
        let callee = if expr.kind() == "call" {
            expr.child_by_field_name("function")
        } else {
            Some(expr)
        };
        if !callee.is_some_and(|c| is_method(self.text, c, "tool")) {
            return;
        }
        if let Some(def) = decorator
            .parent()
            .and_then(|d| d.child_by_field_name("definition"))
        {
            self.registrations.push(Found1::Decorator(decorator, def));
        }
    }

    fn call(&mut self, call: Node<'t>) {
        let Some(callee) = call.child_by_field_name("function") else {
            return;
        };
        if callee.kind() == "attribute" || callee.kind() == "identifier" {
            let name = last_name(self.text_of(callee));
            if name == "ToolAnnotations" {
                self.count_keywords(call);
                return;
            }
        }
        // The decorator's own call is read with its definition.
        if call.parent().is_some_and(|p| p.kind() == "decorator") {
            return;
        }
        if is_method(self.text, callee, "add_tool") {
            self.registrations.push(Found1::AddTool(call));
        } else if self.is_tool_type(callee) {
            self.registrations.push(Found1::LowLevel(call));
        }
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
                Found1::Decorator(decorator, def) => self.decorated(decorator, def),
                Found1::AddTool(call) => self.add_tool(call),
                Found1::LowLevel(call) => self.low_level(call),
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
        let name = match a.get("name", Some(0)) {
            Some(n) => self.string(n).ok_or_else(|| self.text_of(n).to_owned()),
            None => Ok(function_name.to_owned()),
        };
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
        let def = match function.kind() {
            "identifier" => self
                .functions
                .get(self.text_of(function))
                .copied()
                .flatten(),
            _ => None,
        };
        let Some(def) = def else {
            return Err(self.problem(
                call,
                format!(
                    "`add_tool({})`: no single `def {}` in this file to read the tool from",
                    self.text_of(function),
                    self.text_of(function)
                ),
            ));
        };
        let name = match a.get("name", Some(1)) {
            Some(n) => self.string(n).ok_or_else(|| self.text_of(n).to_owned()),
            None => Ok(self.text_of(function).to_owned()),
        };
        Ok(self.tool(
            call,
            name,
            &a,
            Some(def),
            Place::List(list),
            [Some(2), Some(3), Some(4)],
        ))
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
            Some(d) => self.string(d),
            None => def.and_then(|d| self.docstring(d)),
        };
        let inputs = def.map_or_else(Vec::new, |d| self.parameters(d));
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
            if annotation.is_some_and(|t| self.is_context(t)) {
                continue;
            }
            out.push(name.to_owned());
        }
        out
    }

    fn is_context(&self, annotation: Node) -> bool {
        let mut node = annotation;
        loop {
            match node.kind() {
                "type" | "generic_type" => match node.named_child(0) {
                    Some(n) => node = n,
                    None => return false,
                },
                "subscript" => match node.child_by_field_name("value") {
                    Some(n) => node = n,
                    None => return false,
                },
                "attribute" | "identifier" => return last_name(self.text_of(node)) == "Context",
                "string" => {
                    let Some(s) = string_literal(self.text, node) else {
                        return false;
                    };
                    let base = s.split('[').next().unwrap_or("").trim();
                    return last_name(base) == "Context";
                }
                _ => return false,
            }
        }
    }

    /// `properties` keys of a JSON Schema written as a dict literal (or a constant of one).
    fn schema_inputs(&self, schema: Node<'t>) -> Vec<String> {
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
                let callee = node.child_by_field_name("function")?;
                if last_name(self.text_of(callee)) != "ToolAnnotations" {
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
            match comma {
                Some(comma) => {
                    // A comment after the comma stays with the item it was written beside.
                    let rest = &text[comma.end_byte()..];
                    let line_end = comma.end_byte() + rest.find('\n').unwrap_or(rest.len());
                    let at = if rest.trim_start_matches([' ', '\t']).starts_with('#') {
                        line_end
                    } else {
                        comma.end_byte()
                    };
                    (at, format!("\n{indent}"), format!(",\n{indent}"), ",")
                }
                None => (
                    last.end_byte(),
                    format!(",\n{indent}"),
                    format!(",\n{indent}"),
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
