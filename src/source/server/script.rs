//! TypeScript and JavaScript servers, parsed with oxc: `registerTool(...)` / `tool(...)` on
//! the official SDK, `addTool({...})` on npm `fastmcp`, tool objects of a low-level
//! `Server` (`{ name, inputSchema }`), and action modules that default-export
//! `{ key, type: "action", run() }`.
//!
//! The file is read in two passes. The first walks the syntax tree once and copies what the
//! second needs into owned values (`Val`): every `const` of the file, every string `enum`,
//! and every registration's arguments, with their byte spans. The second resolves names
//! through those constants and builds the tools. Copying rather than borrowing lets the
//! second pass follow a constant declared after its use, as JavaScript allows inside
//! functions, without a second walk.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    Argument, BinaryOperator, CallExpression, ExportDefaultDeclaration, Expression,
    ObjectExpression, ObjectPropertyKind, TSEnumDeclaration, TSEnumMemberName, VariableDeclaration,
    VariableDeclarationKind,
};
use oxc_ast_visit::{Visit, walk};
use oxc_parser::Parser;
use oxc_span::{GetSpan, SourceType};

use super::reader::{Annotations, Entry, Found, Language, Slot, Tool, Value, hint_key};
use crate::error::Error;

/// The TypeScript/JavaScript reader.
pub struct Script;

/// How deep an expression is copied: past it, an expression reads as unknown, so a
/// pathological nesting cannot exhaust the stack.
const MAX_DEPTH: usize = 48;

/// How many constants a name is followed through (`const A = B; const B = "x"`); a cycle of
/// constants stops there.
const MAX_HOPS: usize = 8;

impl Language for Script {
    fn name(&self) -> &'static str {
        "TypeScript/JavaScript"
    }

    fn is_server(&self, text: &str) -> bool {
        imports_sdk(text) || action_module(text) || defines_annotated(text)
    }

    fn read(&self, text: &str, name: &str) -> Result<Found, Error> {
        let source_type = SourceType::from_path(Path::new(name)).map_err(|_| {
            Error::new(format!(
                "`{name}` is not a TypeScript or JavaScript file name \
                 (.ts .tsx .mts .cts .js .jsx .mjs .cjs)"
            ))
        })?;
        read_as(text, source_type)
    }
}

/// Whether the text may define tools through a project's own helper ([`Kind::Defined`]): it
/// writes an `annotations` key and a hint the clients act on. Which calls are tools the
/// parse decides.
fn defines_annotated(text: &str) -> bool {
    text.contains("annotations")
        && (text.contains("readOnlyHint") || text.contains("destructiveHint"))
}

/// Whether the text imports or requires a server SDK: `@modelcontextprotocol/sdk/server/…`,
/// `@modelcontextprotocol/server` (the SDK's second major version), or `fastmcp`. Read
/// from the text without parsing, as a module specifier (a quoted string right after
/// `from`, `import`, `require(` or `import(`), so that a mention in prose does not count.
fn imports_sdk(text: &str) -> bool {
    ["@modelcontextprotocol/", "fastmcp"].iter().any(|needle| {
        text.match_indices(needle).any(|(at, _)| {
            let Some(quote) = text[..at].chars().next_back() else {
                return false;
            };
            if !matches!(quote, '"' | '\'' | '`') {
                return false;
            }
            let Some(len) = text[at..].find(quote) else {
                return false;
            };
            server_module(&text[at..at + len]) && after_import(&text[..at - 1])
        })
    })
}

fn server_module(spec: &str) -> bool {
    let under = |root: &str| {
        spec == root
            || spec
                .strip_prefix(root)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    under("@modelcontextprotocol/sdk/server")
        || under("@modelcontextprotocol/server")
        || under("fastmcp")
}

/// Whether `before` (the text before a module specifier's quote) ends with a keyword that
/// takes a module specifier.
fn after_import(before: &str) -> bool {
    let before = before.trim_end();
    let word_end = |text: &str, word: &str| {
        text.strip_suffix(word).is_some_and(|rest| {
            !rest
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.')
        })
    };
    if word_end(before, "from") || word_end(before, "import") {
        return true;
    }
    before
        .strip_suffix('(')
        .map(str::trim_end)
        .is_some_and(|callee| word_end(callee, "require") || word_end(callee, "import"))
}

/// Whether the file default-exports an action module: an object with a string `key`,
/// `type: "action"` and a `run` method. Parsed, since the shape is the whole object; the
/// cheap text test first keeps other files from being parsed at all.
fn action_module(text: &str) -> bool {
    if !text.contains("export default") || !text.contains("action") {
        return false;
    }
    // The name is not known here: TypeScript first (a superset of most JavaScript), then JSX.
    [SourceType::ts(), SourceType::jsx()]
        .into_iter()
        .find_map(|source_type| first_pass(text, source_type).ok())
        .is_some_and(|(file, candidates)| {
            candidates
                .iter()
                .any(|c| c.kind == Kind::Action && matches!(file.tool(c), Ok(Some(_))))
        })
}

/// A copy of an expression: what the reader needs of it, with its byte span.
#[derive(Debug, Clone)]
struct Val {
    start: u32,
    end: u32,
    kind: ValKind,
}

#[derive(Debug, Clone)]
enum ValKind {
    /// A string literal or a template literal without expressions, its value cooked.
    Str(String),
    Bool(bool),
    Ident(String),
    /// `object.property` or `object["property"]`.
    Member(Box<Val>, String),
    /// `a + b + …`.
    Concat(Vec<Val>),
    Object(Obj),
    Call(Box<Val>, Vec<Val>),
    Function,
    Other,
}

#[derive(Debug, Clone)]
struct Obj {
    start: u32,
    end: u32,
    props: Vec<Prop>,
}

#[derive(Debug, Clone)]
struct Prop {
    /// The static key; `None` for a computed key or a spread.
    key: Option<String>,
    spread: bool,
    start: u32,
    end: u32,
    /// The property's value, or a spread's argument.
    value: Val,
}

impl Obj {
    /// The value of the property `key` that takes effect (the last one written).
    fn get(&self, key: &str) -> Option<&Val> {
        self.props
            .iter()
            .rev()
            .find(|p| !p.spread && p.key.as_deref() == Some(key))
            .map(|p| &p.value)
    }

    fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for key in self.props.iter().filter_map(|p| p.key.as_ref()) {
            if !keys.contains(key) {
                keys.push(key.clone());
            }
        }
        keys
    }

    fn spreads(&self) -> impl Iterator<Item = &Prop> {
        self.props.iter().filter(|p| p.spread)
    }
}

fn copy(expr: &Expression, depth: usize) -> Val {
    let expr = expr.get_inner_expression();
    let span = expr.span();
    let kind = if depth > MAX_DEPTH {
        ValKind::Other
    } else {
        match expr {
            Expression::StringLiteral(s) => ValKind::Str(s.value.to_string()),
            Expression::TemplateLiteral(t) => t
                .single_quasi()
                .map_or(ValKind::Other, |s| ValKind::Str(s.to_string())),
            Expression::BooleanLiteral(b) => ValKind::Bool(b.value),
            Expression::Identifier(i) => ValKind::Ident(i.name.to_string()),
            Expression::StaticMemberExpression(m) => ValKind::Member(
                Box::new(copy(&m.object, depth + 1)),
                m.property.name.to_string(),
            ),
            Expression::ComputedMemberExpression(m) => match copy(&m.expression, depth + 1).kind {
                ValKind::Str(key) => ValKind::Member(Box::new(copy(&m.object, depth + 1)), key),
                _ => ValKind::Other,
            },
            Expression::BinaryExpression(b) if b.operator == BinaryOperator::Addition => {
                let mut parts = Vec::new();
                for side in [&b.left, &b.right] {
                    let part = copy(side, depth + 1);
                    match part.kind {
                        ValKind::Concat(inner) => parts.extend(inner),
                        _ => parts.push(part),
                    }
                }
                ValKind::Concat(parts)
            }
            Expression::ObjectExpression(o) => ValKind::Object(copy_object(o, depth)),
            Expression::CallExpression(c) => ValKind::Call(
                Box::new(copy(&c.callee, depth + 1)),
                c.arguments
                    .iter()
                    .map(|a| copy_argument(a, depth + 1))
                    .collect(),
            ),
            Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_) => {
                ValKind::Function
            }
            _ => ValKind::Other,
        }
    };
    Val {
        start: span.start,
        end: span.end,
        kind,
    }
}

/// A call argument; a spread argument (`...args`) reads as unknown.
fn copy_argument(arg: &Argument, depth: usize) -> Val {
    match arg {
        Argument::SpreadElement(s) => Val {
            start: s.span.start,
            end: s.span.end,
            kind: ValKind::Other,
        },
        _ => copy(arg.to_expression(), depth),
    }
}

fn copy_object(o: &ObjectExpression, depth: usize) -> Obj {
    let props = o
        .properties
        .iter()
        .map(|p| match p {
            ObjectPropertyKind::ObjectProperty(p) => Prop {
                key: if p.computed {
                    None
                } else {
                    p.key.static_name().map(|k| k.to_string())
                },
                spread: false,
                start: p.span.start,
                end: p.span.end,
                value: copy(&p.value, depth + 1),
            },
            ObjectPropertyKind::SpreadProperty(s) => Prop {
                key: None,
                spread: true,
                start: s.span.start,
                end: s.span.end,
                value: copy(&s.argument, depth + 1),
            },
        })
        .collect();
    Obj {
        start: o.span.start,
        end: o.span.end,
        props,
    }
}

/// The registration shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `X.registerTool(name, config, cb)` (and the SDK's task variant, `registerToolTask`).
    Register,
    /// `X.tool(name, [description], [params], [annotations], cb)`.
    Tool,
    /// fastmcp's `X.addTool({ name, description, parameters, annotations, execute })`.
    AddTool,
    /// A low-level server's tool object `{ name, inputSchema, … }`.
    Object,
    /// A default-exported action module.
    Action,
    /// A tool a project's own helper defines, its config carrying an `annotations` literal
    /// with a hint: `defineTool({ name, annotations, … })`, `ctx.accountTool(name, { … })`,
    /// or `name: tool({ … })` named by its key (`name` in `args[0]` when it is the key).
    Defined,
}

/// A registration as the first pass saw it.
struct Candidate {
    kind: Kind,
    start: u32,
    /// What names the registration in a problem: the call (`` `server.registerTool(…)` ``)
    /// or the kind of object.
    label: String,
    args: Vec<Val>,
    /// A spread argument: the arguments' positions are unknown.
    spread: bool,
}

/// The first pass.
struct Collect<'s> {
    src: &'s str,
    /// Each `const` of the file by name; `None` where two scopes bind the same name, since
    /// which one a use means is not known without scopes.
    consts: HashMap<String, Option<Val>>,
    /// Each `enum`'s string members.
    enums: HashMap<String, Option<HashMap<String, String>>>,
    found: Vec<Candidate>,
    /// Objects already read as a registration's argument, not to be read again as a
    /// low-level tool object.
    taken: HashSet<u32>,
    /// Multi-line objects whose last property is followed by a comma, and those whose is not.
    commas: (usize, usize),
}

impl<'a> Visit<'a> for Collect<'_> {
    fn visit_variable_declaration(&mut self, it: &VariableDeclaration<'a>) {
        if it.kind == VariableDeclarationKind::Const {
            for d in &it.declarations {
                let Some(id) = d.id.get_binding_identifier() else {
                    continue;
                };
                // A `const` without an initializer is a loop's (`for (const tool of tools)`):
                // its name means no one value, and it shadows any other binding of it.
                // A name bound twice is not copied again: it resolves to nothing either way,
                // and handlers bind the same local names (`response`, `data`) over and over.
                match self.consts.get_mut(id.name.as_str()) {
                    Some(bound) => *bound = None,
                    None => {
                        let val = d.init.as_ref().map(|init| copy(init, 0));
                        self.consts.insert(id.name.to_string(), val);
                    }
                }
            }
        }
        walk::walk_variable_declaration(self, it);
    }

    fn visit_ts_enum_declaration(&mut self, it: &TSEnumDeclaration<'a>) {
        let mut members = HashMap::new();
        for m in &it.body.members {
            let key = match &m.id {
                TSEnumMemberName::Identifier(i) => i.name.to_string(),
                TSEnumMemberName::String(s) | TSEnumMemberName::ComputedString(s) => {
                    s.value.to_string()
                }
                TSEnumMemberName::ComputedTemplateString(t) => match t.single_quasi() {
                    Some(s) => s.to_string(),
                    None => continue,
                },
            };
            if let Some(ValKind::Str(value)) = m.initializer.as_ref().map(|e| copy(e, 0).kind) {
                members.insert(key, value);
            }
        }
        self.enums
            .entry(it.id.name.to_string())
            .and_modify(|v| *v = None)
            .or_insert(Some(members));
        walk::walk_ts_enum_declaration(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let property = it
            .callee
            .get_inner_expression()
            .get_member_expr()
            .and_then(|m| m.static_property_name());
        let kind = match property {
            Some("registerTool" | "registerToolTask") => Some(Kind::Register),
            Some("tool") => Some(Kind::Tool),
            Some("addTool") => Some(Kind::AddTool),
            _ => None,
        };
        if kind.is_none()
            && !self.taken.contains(&it.span.start)
            && let Some(args) = defined_args(it)
        {
            for arg in &args {
                if let ValKind::Object(o) = &arg.kind {
                    self.taken.insert(o.start);
                }
            }
            let callee = it.callee.span();
            self.found.push(Candidate {
                kind: Kind::Defined,
                start: it.span.start,
                label: format!(
                    "`{}(…)`",
                    &self.src[callee.start as usize..callee.end as usize]
                ),
                args,
                spread: false,
            });
        }
        if let Some(kind) = kind {
            let args: Vec<Val> = it.arguments.iter().map(|a| copy_argument(a, 0)).collect();
            let spread = it.arguments.iter().any(Argument::is_spread);
            if kind != Kind::Tool || is_tool_call(&args) || spread {
                for arg in &args {
                    if let ValKind::Object(o) = &arg.kind {
                        self.taken.insert(o.start);
                    }
                }
                let callee = it.callee.span();
                self.found.push(Candidate {
                    kind,
                    start: it.span.start,
                    label: format!(
                        "`{}(…)`",
                        &self.src[callee.start as usize..callee.end as usize]
                    ),
                    args,
                    spread,
                });
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_export_default_declaration(&mut self, it: &ExportDefaultDeclaration<'a>) {
        if let Some(expr) = it.declaration.as_expression()
            && let Expression::ObjectExpression(o) = expr.get_inner_expression()
        {
            let obj = copy_object(o, 0);
            let run = obj.props.iter().any(|p| {
                p.key.as_deref() == Some("run") && matches!(p.value.kind, ValKind::Function)
            });
            if run && obj.has("key") && obj.has("type") {
                self.taken.insert(obj.start);
                self.found.push(Candidate {
                    kind: Kind::Action,
                    start: obj.start,
                    label: "the default-exported action".to_owned(),
                    args: vec![Val {
                        start: obj.start,
                        end: obj.end,
                        kind: ValKind::Object(obj),
                    }],
                    spread: false,
                });
            }
        }
        walk::walk_export_default_declaration(self, it);
    }

    fn visit_object_expression(&mut self, it: &ObjectExpression<'a>) {
        if let Some(last) = it.properties.last() {
            let (comma, newline) = after_item(self.src, last.span().end as usize);
            if newline {
                if comma.is_some() {
                    self.commas.0 += 1;
                } else {
                    self.commas.1 += 1;
                }
            }
        }
        for p in it
            .properties
            .iter()
            .filter_map(ObjectPropertyKind::as_property)
        {
            let (Some(key), false) = (p.key.static_name(), p.computed) else {
                continue;
            };
            // `key: tool({ … })`, or `key: { description, …, annotations }` in a map of
            // definitions: the key names the tool.
            let (o, start, callee) = match p.value.get_inner_expression() {
                Expression::CallExpression(call) => match call.arguments.as_slice() {
                    [Argument::ObjectExpression(o)] => (&**o, call.span.start, call.callee.span()),
                    _ => continue,
                },
                Expression::ObjectExpression(o) if has_key(o, "description") => {
                    (&**o, o.span.start, p.key.span())
                }
                _ => continue,
            };
            if !annotated(o) || has_key(o, "name") || self.taken.contains(&o.span.start) {
                continue;
            }
            let obj = copy_object(o, 0);
            self.taken.insert(obj.start);
            self.taken.insert(start);
            let name = Val {
                start: p.key.span().start,
                end: p.key.span().end,
                kind: ValKind::Str(key.to_string()),
            };
            let config = Val {
                start: obj.start,
                end: obj.end,
                kind: ValKind::Object(obj),
            };
            self.found.push(Candidate {
                kind: Kind::Defined,
                start,
                label: format!(
                    "`{}`",
                    &self.src[callee.start as usize..callee.end as usize]
                ),
                args: vec![name, config],
                spread: false,
            });
        }
        let has = |key: &str| {
            it.properties.iter().any(|p| {
                p.as_property()
                    .is_some_and(|p| !p.computed && p.key.is_specific_static_name(key))
            })
        };
        if !self.taken.contains(&it.span.start) && has("name") && has("inputSchema") {
            let obj = copy_object(it, 0);
            self.found.push(Candidate {
                kind: Kind::Object,
                start: obj.start,
                label: "the tool object".to_owned(),
                args: vec![Val {
                    start: obj.start,
                    end: obj.end,
                    kind: ValKind::Object(obj),
                }],
                spread: false,
            });
        }
        walk::walk_object_expression(self, it);
    }
}

/// Whether `X.tool(...)`'s arguments look like the SDK's: a name, up to three of
/// description, params and annotations, then a handler. Other libraries name a method
/// `tool` too; a call that does not end in something callable is not read as a tool.
fn is_tool_call(args: &[Val]) -> bool {
    (2..=5).contains(&args.len())
        && !matches!(args[0].kind, ValKind::Object(_) | ValKind::Function)
        && matches!(
            args[args.len() - 1].kind,
            ValKind::Function | ValKind::Ident(_) | ValKind::Member(..) | ValKind::Call(..)
        )
}

/// Whether an object literal has the static key `key`.
fn has_key(o: &ObjectExpression, key: &str) -> bool {
    o.properties
        .iter()
        .filter_map(ObjectPropertyKind::as_property)
        .any(|p| !p.computed && p.key.is_specific_static_name(key))
}

/// Whether an object literal carries an `annotations` object literal with at least one
/// hint key: what makes a project's own tool helper's config recognisable as a tool's,
/// whatever the helper is called, and what says its type admits the hints.
fn annotated(o: &ObjectExpression) -> bool {
    o.properties
        .iter()
        .filter_map(ObjectPropertyKind::as_property)
        .any(|p| {
            !p.computed
                && p.key.is_specific_static_name("annotations")
                && matches!(p.value.get_inner_expression(), Expression::ObjectExpression(a)
                if a.properties.iter().filter_map(ObjectPropertyKind::as_property).any(|h| {
                    h.key.static_name().is_some_and(|k| {
                        matches!(hint_key(&k), Some(k) if k != "title")
                    })
                }))
        })
}

/// A call of a project's own helper that defines a tool: `(config)` with a string `name`,
/// or `(name, config)`, the config annotated ([`annotated`]). Its arguments, copied.
fn defined_args(call: &CallExpression) -> Option<Vec<Val>> {
    let objects = |arg: &Argument| match arg {
        Argument::ObjectExpression(o) if annotated(o) => Some(copy_object(o, 0)),
        _ => None,
    };
    let as_val = |obj: Obj| Val {
        start: obj.start,
        end: obj.end,
        kind: ValKind::Object(obj),
    };
    match call.arguments.as_slice() {
        [config] => {
            let obj = objects(config)?;
            let name = obj.get("name")?.clone();
            Some(vec![name, as_val(obj)])
        }
        [name, config, ..] if !name.is_spread() => {
            let obj = objects(config)?;
            let name = copy_argument(name, 0);
            matches!(
                name.kind,
                ValKind::Str(_) | ValKind::Ident(_) | ValKind::Member(..)
            )
            .then(|| vec![name, as_val(obj)])
        }
        _ => None,
    }
}

/// After a list item ending at `end`: the byte of the comma that follows it, if one does
/// (comments and whitespace skipped), and whether a line ends before the next token.
fn after_item(src: &str, end: usize) -> (Option<usize>, bool) {
    let (at, newline) = skip_trivia(src, end);
    if src.as_bytes().get(at) == Some(&b',') {
        let (_, after_comma) = skip_trivia(src, at + 1);
        (Some(at), newline || after_comma)
    } else {
        (None, newline)
    }
}

/// The first byte at or after `at` that is not whitespace or a comment, and whether a line
/// ended on the way.
fn skip_trivia(src: &str, mut at: usize) -> (usize, bool) {
    let b = src.as_bytes();
    let mut newline = false;
    while at < b.len() {
        match b[at] {
            b'\n' => {
                newline = true;
                at += 1;
            }
            b' ' | b'\t' | b'\r' => at += 1,
            b'/' if b.get(at + 1) == Some(&b'/') => {
                at = src[at..].find('\n').map_or(b.len(), |n| at + n);
            }
            b'/' if b.get(at + 1) == Some(&b'*') => {
                let close = src[at + 2..].find("*/").map_or(b.len(), |n| at + 2 + n + 2);
                newline |= src[at..close].contains('\n');
                at = close;
            }
            _ => break,
        }
    }
    (at, newline)
}

fn read_as(text: &str, source_type: SourceType) -> Result<Found, Error> {
    let (file, candidates) = first_pass(text, source_type)?;
    let mut found = Found::default();
    for candidate in &candidates {
        match file.tool(candidate) {
            Ok(Some(tool)) => found.tools.push(tool),
            Ok(None) => {}
            Err(why) => {
                let (line, column) = file.lines.at(text, candidate.start as usize);
                found
                    .problems
                    .push(Error::new(format!("{}: {why}", candidate.label)).at(line, column));
            }
        }
    }
    Ok(found)
}

/// Parses the text and copies out its constants and registrations, in source order.
fn first_pass(text: &str, source_type: SourceType) -> Result<(File<'_>, Vec<Candidate>), Error> {
    let lines = Lines::new(text);
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, text, source_type).parse();
    if let Some(first) = parsed.diagnostics.errors().next() {
        let mut error = Error::new(first.message.to_string());
        if let Some(label) = first.labels.first() {
            let (line, column) = lines.at(text, label.offset() as usize);
            error = error.at(line, column);
        }
        return Err(error);
    }
    let mut collect = Collect {
        src: text,
        consts: HashMap::new(),
        enums: HashMap::new(),
        found: Vec::new(),
        taken: HashSet::new(),
        commas: (0, 0),
    };
    collect.visit_program(&parsed.program);
    let file = File {
        src: text,
        lines,
        consts: collect.consts,
        enums: collect.enums,
        trailing_commas: collect.commas.0 > collect.commas.1,
        newline: if text.contains("\r\n") { "\r\n" } else { "\n" },
    };
    let mut candidates = collect.found;
    candidates.sort_by_key(|c| c.start);
    Ok((file, candidates))
}

/// Byte offsets to 1-based lines and columns (columns in characters).
struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Lines { starts }
    }

    fn at(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1];
        let column = text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line, column + 1)
    }
}

/// The second pass: one file's constants, and the tools built from its candidates.
struct File<'s> {
    src: &'s str,
    lines: Lines,
    consts: HashMap<String, Option<Val>>,
    enums: HashMap<String, Option<HashMap<String, String>>>,
    /// Whether the file's multi-line objects mostly end their last property with a comma.
    trailing_commas: bool,
    newline: &'static str,
}

/// What a tool's annotations read to, and where missing hints go.
struct Declared {
    annotations: Annotations,
    title: Option<String>,
    slot: Result<Slot, String>,
}

impl File<'_> {
    fn text(&self, v: &Val) -> String {
        self.src[v.start as usize..v.end as usize].to_owned()
    }

    fn position(&self, offset: u32) -> (usize, usize) {
        self.lines.at(self.src, offset as usize)
    }

    /// The value a constant's name stands for.
    fn constant(&self, name: &str) -> Option<&Val> {
        self.consts.get(name).and_then(Option::as_ref)
    }

    fn string(&self, v: &Val) -> Option<String> {
        self.string_in(v, 0)
    }

    fn string_in(&self, v: &Val, hops: usize) -> Option<String> {
        if hops > MAX_HOPS {
            return None;
        }
        match &v.kind {
            ValKind::Str(s) => Some(s.clone()),
            ValKind::Ident(name) => self.string_in(self.constant(name)?, hops + 1),
            ValKind::Concat(parts) => parts.iter().map(|p| self.string_in(p, hops)).collect(),
            ValKind::Member(object, key) => {
                let ValKind::Ident(name) = &object.kind else {
                    return None;
                };
                if let Some(Some(members)) = self.enums.get(name) {
                    return members.get(key).cloned();
                }
                let (obj, _) = self.object_in(object, hops + 1)?;
                self.string_in(obj.get(key)?, hops + 1)
            }
            _ => None,
        }
    }

    fn boolean(&self, v: &Val) -> Option<bool> {
        let mut v = v;
        for _ in 0..MAX_HOPS {
            match &v.kind {
                ValKind::Bool(b) => return Some(*b),
                ValKind::Ident(name) => v = self.constant(name)?,
                _ => return None,
            }
        }
        None
    }

    /// The object literal `v` is, or the constant it names holds (then `true`: the object is
    /// shared, not the registration's own).
    fn object<'v>(&'v self, v: &'v Val) -> Option<(&'v Obj, bool)> {
        self.object_in(v, 0)
    }

    fn object_in<'v>(&'v self, v: &'v Val, hops: usize) -> Option<(&'v Obj, bool)> {
        if hops > MAX_HOPS {
            return None;
        }
        match &v.kind {
            ValKind::Object(o) => Some((o, false)),
            ValKind::Ident(name) => {
                let (o, _) = self.object_in(self.constant(name)?, hops + 1)?;
                Some((o, true))
            }
            _ => None,
        }
    }

    /// Input names from a schema: a zod raw shape's keys, `z.object({...})`'s (through
    /// chained calls such as `.strict()`), or a JSON Schema's `properties`.
    fn inputs(&self, v: &Val) -> Vec<String> {
        self.inputs_in(v, 0)
    }

    fn inputs_in(&self, v: &Val, hops: usize) -> Vec<String> {
        if hops > MAX_HOPS {
            return Vec::new();
        }
        match &v.kind {
            ValKind::Object(o) => {
                let json_schema =
                    o.get("type").and_then(|t| self.string(t)).as_deref() == Some("object");
                match o.get("properties").and_then(|p| self.object(p)) {
                    Some((properties, _)) if json_schema => properties.keys(),
                    _ => o.keys(),
                }
            }
            ValKind::Ident(name) => self
                .constant(name)
                .map_or_else(Vec::new, |c| self.inputs_in(c, hops + 1)),
            // `schema.shape`: the shape `schema` was made from.
            ValKind::Member(inner, property) if property == "shape" => {
                self.inputs_in(inner, hops + 1)
            }
            ValKind::Call(callee, args) => {
                let function = match &callee.kind {
                    ValKind::Ident(name) => Some(name.as_str()),
                    ValKind::Member(_, method) => Some(method.as_str()),
                    _ => None,
                };
                match (function, &callee.kind, args.first()) {
                    (
                        Some("object" | "strictObject" | "looseObject"),
                        ValKind::Member(..),
                        Some(shape),
                    ) if self.object(shape).is_some() => self.inputs_in(shape, hops + 1),
                    // A zod schema converted to JSON Schema has the zod schema's keys.
                    (
                        Some("zodToJsonSchema" | "toJSONSchema" | "toJsonSchema"),
                        _,
                        Some(schema),
                    ) => self.inputs_in(schema, hops + 1),
                    // zod's methods that change an object schema's keys.
                    (
                        Some(method @ ("extend" | "merge" | "pick" | "omit")),
                        ValKind::Member(inner, _),
                        Some(arg),
                    ) if matches!(inner.kind, ValKind::Call(..) | ValKind::Ident(_)) => {
                        let mut keys = self.inputs_in(inner, hops + 1);
                        let named = self.inputs_in(arg, hops + 1);
                        match method {
                            "pick" => keys.retain(|k| named.contains(k)),
                            "omit" => keys.retain(|k| !named.contains(k)),
                            _ => {
                                for key in named {
                                    if !keys.contains(&key) {
                                        keys.push(key);
                                    }
                                }
                            }
                        }
                        keys
                    }
                    // A method chained on a schema (`.strict()`, `.describe(…)`) keeps its keys.
                    (_, ValKind::Member(inner, _), _)
                        if matches!(inner.kind, ValKind::Call(..)) =>
                    {
                        self.inputs_in(inner, hops + 1)
                    }
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    fn tool(&self, c: &Candidate) -> Result<Option<Tool>, String> {
        if c.spread {
            return Err("arguments spread from elsewhere: which is the name cannot be told".into());
        }
        let (line, column) = self.position(c.start);
        let mut tool = Tool {
            name: Err(String::new()),
            title: None,
            description: None,
            inputs: Vec::new(),
            annotations: Annotations::Absent,
            start: c.start as usize,
            line,
            column,
            slot: Err(String::new()),
        };
        match c.kind {
            Kind::Register => {
                let [name, config, ..] = c.args.as_slice() else {
                    return Err("expected a name and a config object".into());
                };
                tool.name = self.name(name);
                self.config(&mut tool, config, "inputSchema");
            }
            Kind::Tool => self.tool_call(&mut tool, &c.args)?,
            Kind::AddTool => {
                let [config] = c.args.as_slice() else {
                    return Err("expected one tool object".into());
                };
                let Some((obj, _)) = self.object(config) else {
                    return Err(format!(
                        "the tool `{}` is not an object literal of this file",
                        self.text(config)
                    ));
                };
                tool.name = match obj.get("name") {
                    Some(name) => self.name(name),
                    None => return Err("the tool object has no `name`".into()),
                };
                self.config(&mut tool, config, "parameters");
            }
            Kind::Object => {
                let obj_val = &c.args[0];
                let ValKind::Object(obj) = &obj_val.kind else {
                    return Ok(None);
                };
                tool.name = self.spec_name(obj.get("name").expect("the first pass saw `name`"));
                self.config(&mut tool, obj_val, "inputSchema");
            }
            Kind::Defined => {
                let [name, config] = c.args.as_slice() else {
                    return Ok(None);
                };
                tool.name = self.spec_name(name);
                let ValKind::Object(obj) = &config.kind else {
                    return Ok(None);
                };
                let schema_key = ["inputSchema", "schema", "parameters"]
                    .into_iter()
                    .find(|k| obj.has(k))
                    .unwrap_or("inputSchema");
                self.config(&mut tool, config, schema_key);
            }
            Kind::Action => {
                let obj_val = &c.args[0];
                let ValKind::Object(obj) = &obj_val.kind else {
                    return Ok(None);
                };
                let is_action =
                    obj.get("type").and_then(|t| self.string(t)).as_deref() == Some("action");
                let key = obj.get("key").and_then(|k| self.string(k));
                let (true, Some(key)) = (is_action, key) else {
                    return Ok(None);
                };
                tool.name = Ok(key);
                self.config(&mut tool, obj_val, "props");
                tool.title = obj.get("name").and_then(|n| self.string(n)).or(tool.title);
            }
        }
        Ok(Some(tool))
    }

    fn name(&self, v: &Val) -> Result<String, String> {
        self.string(v).ok_or_else(|| self.text(v))
    }

    /// The name of a tool found by its shape alone (a tool object, a project's helper),
    /// which may keep the MCP name elsewhere and a display name in `name` (`Retrieve
    /// Balance`): a name the specification would refuse is not taken for the tool's.
    fn spec_name(&self, v: &Val) -> Result<String, String> {
        self.name(v).and_then(|n| {
            let valid = !n.is_empty()
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
            if valid { Ok(n) } else { Err(self.text(v)) }
        })
    }

    /// A tool given as one object (`registerTool`'s config, fastmcp's tool, a low-level
    /// tool object, an action module): its title, description, inputs (under `schema_key`)
    /// and annotations.
    fn config(&self, tool: &mut Tool, config: &Val, schema_key: &str) {
        let Some((obj, shared)) = self.object(config) else {
            tool.annotations = Annotations::Unread(self.text(config));
            tool.slot = Err(format!(
                "the tool config `{}` is not an object literal",
                self.text(config)
            ));
            return;
        };
        tool.description = obj.get("description").and_then(|d| self.string(d));
        tool.inputs = obj
            .get(schema_key)
            .map_or_else(Vec::new, |s| self.inputs(s));
        let declared = match obj.get("annotations") {
            Some(annotations) => self.declared(annotations, shared),
            None => self.absent_in(obj, shared, config),
        };
        tool.title = obj
            .get("title")
            .and_then(|t| self.string(t))
            .or(declared.title);
        tool.annotations = declared.annotations;
        tool.slot = declared.slot;
    }

    /// A config object without an `annotations` property: absent, unless a spread may bring
    /// one in.
    fn absent_in(&self, obj: &Obj, shared: bool, config: &Val) -> Declared {
        for spread in obj.spreads().collect::<Vec<_>>().into_iter().rev() {
            match self.object(&spread.value) {
                Some((inner, _)) => {
                    if let Some(annotations) = inner.get("annotations") {
                        return self.declared(annotations, true);
                    }
                }
                None => {
                    let text = self.text(&spread.value);
                    return Declared {
                        annotations: Annotations::Unread(format!("...{text}")),
                        title: None,
                        slot: Err(format!(
                            "the tool config spreads `{text}`, which may hold annotations"
                        )),
                    };
                }
            }
        }
        let slot = if shared {
            Err(format!(
                "the tool config is the constant `{}`, not an object literal here",
                self.text(config)
            ))
        } else if let Some(spread) = obj.spreads().next() {
            Err(format!(
                "the tool config spreads `{}`: annotations added here could be overridden",
                self.text(&spread.value)
            ))
        } else {
            let layout = self.layout(obj);
            Ok(Slot {
                at: layout.at,
                before: format!("{}annotations: {{ ", layout.lead),
                sep: ", ".into(),
                after: format!(" }}{}", layout.tail),
                entry: Entry::Property,
            })
        };
        Declared {
            annotations: Annotations::Absent,
            title: None,
            slot,
        }
    }

    /// An annotations value: a literal (its hints read), or an expression left unread.
    /// `shared`: the literal is reached through a constant, so no hint is inserted into it.
    fn declared(&self, v: &Val, shared: bool) -> Declared {
        let Some((obj, through_const)) = self.object(v) else {
            return Declared {
                annotations: Annotations::Unread(self.text(v)),
                title: None,
                slot: Err(format!("annotations are `{}`, not a literal", self.text(v))),
            };
        };
        if let Some(spread) = obj.spreads().next() {
            return Declared {
                annotations: Annotations::Unread(self.text(v)),
                title: None,
                slot: Err(format!(
                    "annotations spread `{}` from elsewhere",
                    self.text(&spread.value)
                )),
            };
        }
        let mut hints: Vec<(String, Value)> = Vec::new();
        let mut title = None;
        for prop in &obj.props {
            let Some(key) = prop.key.as_deref().and_then(hint_key) else {
                continue;
            };
            if key == "title" {
                title = self.string(&prop.value);
                continue;
            }
            let value = match self.boolean(&prop.value) {
                Some(b) => Value::Bool(b),
                None => Value::Unread(self.text(&prop.value)),
            };
            hints.retain(|(k, _)| k != key);
            hints.push((key.to_owned(), value));
        }
        let slot = if shared || through_const {
            Err("annotations shared through a constant".to_owned())
        } else {
            let layout = self.layout(obj);
            Ok(Slot {
                at: layout.at,
                before: layout.lead,
                sep: layout.sep,
                after: layout.tail,
                entry: Entry::Property,
            })
        };
        Declared {
            annotations: Annotations::Literal(hints),
            title,
            slot,
        }
    }

    /// `X.tool(name, [description], [params], [annotations], cb)`: the SDK tells a string
    /// argument for the description, and an object for the annotations when its every key is
    /// a hint's (or `title`) and no value is a schema, else for the params.
    fn tool_call(&self, tool: &mut Tool, args: &[Val]) -> Result<(), String> {
        tool.name = self.name(&args[0]);
        let (callback, middle) = args[1..].split_last().expect("two arguments at least");
        let mut middle = middle;
        if let Some((first, rest)) = middle.split_first()
            && let Some(description) = self.string(first)
        {
            tool.description = Some(description);
            middle = rest;
        }
        #[derive(PartialEq)]
        enum Arg {
            Params,
            Annotations,
            Unknown,
        }
        // The SDK tells them by value, not by key: an object holding a schema (a call or a
        // member of `z`) is a params shape, `{ title: z.string() }` among them.
        let schema = |v: &Val| matches!(v.kind, ValKind::Call(..) | ValKind::Member(..));
        let class = |v: &Val| match (&v.kind, self.object(v)) {
            (_, Some((obj, _))) => {
                let all_hints = !obj.props.is_empty()
                    && obj.props.iter().all(|p| {
                        p.key.as_deref().and_then(hint_key).is_some() && !schema(&p.value)
                    });
                if all_hints {
                    Arg::Annotations
                } else {
                    Arg::Params
                }
            }
            (ValKind::Call(..), None) => Arg::Params,
            _ => Arg::Unknown,
        };
        // An argument that is neither a string nor a readable object before two others is
        // a description the reader cannot read.
        if middle.len() == 3 && class(&middle[0]) == Arg::Unknown {
            middle = &middle[1..];
        }
        let (params, annotations, unsure) = match middle {
            [] => (None, None, None),
            [one] => match class(one) {
                Arg::Params => (Some(one), None, None),
                Arg::Annotations => (None, Some(one), None),
                Arg::Unknown => (None, None, Some(one)),
            },
            [first, second] => match (class(first), class(second)) {
                (Arg::Annotations, _) => {
                    return Err(format!(
                        "`{}` reads as annotations but is followed by `{}`",
                        self.text(first),
                        self.text(second)
                    ));
                }
                (Arg::Unknown, Arg::Params) => (Some(second), None, None),
                _ => (Some(first), Some(second), None),
            },
            _ => return Err(format!("{} arguments: more than the SDK takes", args.len())),
        };
        if let Some(params) = params {
            tool.inputs = self.inputs(params);
        }
        if let Some(annotations) = annotations {
            let declared = self.declared(annotations, false);
            tool.title = declared.title;
            tool.annotations = declared.annotations;
            tool.slot = declared.slot;
            return Ok(());
        }
        tool.slot = match unsure {
            Some(arg) => Err(format!(
                "`{}` may be the params schema or the annotations",
                self.text(arg)
            )),
            None => {
                let previous = &args[args.len() - 2];
                let between = &self.src[previous.end as usize..callback.start as usize];
                let only_comma = between.trim_matches(|c: char| c.is_whitespace()).eq(",");
                let separator = if only_comma {
                    between.trim_start()
                } else {
                    ", "
                };
                Ok(Slot {
                    at: callback.start as usize,
                    before: "{ ".into(),
                    sep: ", ".into(),
                    after: format!(" }}{separator}"),
                    entry: Entry::Property,
                })
            }
        };
        Ok(())
    }

    /// Where a new entry goes at the end of an object literal, in its style: on the last
    /// property's line for a one-line object, else on a new line with the siblings'
    /// indentation, a comma after it where the object (or else the file) puts one.
    fn layout(&self, obj: &Obj) -> Layout {
        let Some(last) = obj.props.last() else {
            let open = obj.start as usize + 1;
            let tight = self.src.as_bytes().get(open) == Some(&b'}');
            return Layout {
                at: open,
                lead: " ".into(),
                sep: ", ".into(),
                tail: if tight { " ".into() } else { String::new() },
            };
        };
        let (comma, newline) = after_item(self.src, last.end as usize);
        if !newline {
            return Layout {
                at: last.end as usize,
                lead: ", ".into(),
                sep: ", ".into(),
                tail: String::new(),
            };
        }
        let indent = self.indent_of(last.start as usize);
        let nl = self.newline;
        let sep = format!(",{nl}{indent}");
        match comma {
            Some(comma) => Layout {
                at: self.end_of_comma_line(comma + 1),
                lead: format!("{nl}{indent}"),
                sep,
                tail: ",".into(),
            },
            None => Layout {
                at: last.end as usize,
                lead: sep.clone(),
                sep,
                tail: if self.trailing_commas {
                    ",".into()
                } else {
                    String::new()
                },
            },
        }
    }

    /// The whitespace that starts the line holding byte `at`.
    fn indent_of(&self, at: usize) -> &str {
        let line_start = self.src[..at].rfind('\n').map_or(0, |n| n + 1);
        let line = &self.src[line_start..];
        let len = line.len() - line.trim_start_matches([' ', '\t']).len();
        &line[..len]
    }

    /// Right after a comma, or, when a line comment follows it on the same line, the end of
    /// that line, so the comment stays with the property it was written after.
    fn end_of_comma_line(&self, after_comma: usize) -> usize {
        let rest = &self.src[after_comma..];
        let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        if rest[spaces..].starts_with("//") {
            let line_end = rest.find('\n').map_or(self.src.len(), |n| after_comma + n);
            if self.src[..line_end].ends_with('\r') {
                line_end - 1
            } else {
                line_end
            }
        } else {
            after_comma
        }
    }
}

/// See `File::layout`: insert at `at`, `lead` before the first entry, `sep` between
/// entries, `tail` after the last.
struct Layout {
    at: usize,
    lead: String,
    sep: String,
    tail: String,
}
