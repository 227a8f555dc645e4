//! Synthetic StackOne-style connector catalog generator.
//!
//! ```text
//! cargo run --release --example gen_catalog -- --actions N --out DIR [--seed S] [--force]
//! ```
//!
//! Writes about N actions (exactly N tool actions, plus the nested `refreshAuthentication`
//! actions of oauth2 main files, which are not tools) as one folder per connector under
//! `DIR/connectors/` and `DIR/src/configs/`. Output is a pure function of `(N, seed)`: the same
//! arguments give byte-identical files. Files are generated and written one at a time, so
//! memory does not grow with N.
//!
//! Every shape and quirk of docs/connector-format.md is reproduced: shapes A (top-level
//! sequence), B (`actions:` sequence, keys at column 4; bundled `<name>_v1-0-0.s1.yaml` files
//! and main files), C (`actions:` mapping with repeated `$ref:` keys) and D (one top-level
//! `$ref`); partials; full-line comments and commented-out actions; trailing comments on the
//! `actionId` line; `|` block scalars holding YAML-looking text; flow collections; templating;
//! `:id` paths; non-ASCII text; CRLF files; files without a final newline; trailing
//! whitespace; whitespace-only lines; both sequence indentation styles; a few BOM files.
//!
//! This file is also included by `examples/bench.rs` through `#[path]`, so it exposes
//! [`generate`] as well as `main`.

// Also a program run by hand (and a module of the benchmark): it prints what it writes,
// and the size rule is the library's.
#![allow(
    clippy::too_many_arguments,
    clippy::too_many_lines,
    clippy::print_stdout,
    clippy::print_stderr
)]

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// PRNG

/// splitmix64: tiny, fast and good enough for synthetic data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        (((self.next_u64() >> 11) as u128 * n as u128) >> 53) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `p` (0..=1).
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64) < p * (1u64 << 53) as f64
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// Pick by integer weights.
    pub fn weighted<'a, T>(&mut self, items: &'a [(T, u32)]) -> &'a T {
        let total: u64 = items.iter().map(|(_, w)| *w as u64).sum();
        let mut x = self.below(total);
        for (item, w) in items {
            if x < *w as u64 {
                return item;
            }
            x -= *w as u64;
        }
        &items[items.len() - 1].0
    }
}

// ---------------------------------------------------------------------------------------------
// Vocabulary

const PREFIXES: &[&str] = &[
    "bamboo", "green", "work", "pay", "zen", "free", "team", "hub", "fresh", "peo", "lever",
    "gong", "ash", "note", "drive", "box", "desk", "flow", "smart", "cloud", "rippl", "gust",
    "deel", "pers", "hi", "fact", "sage", "xero", "quick", "pipe", "close", "copper", "front",
    "help", "intra", "keka", "lattice", "namely", "oyster", "paylo", "remote", "talent", "ultra",
    "vee", "wrike", "yoo", "zoho", "astra", "bright", "clear",
];
const SUFFIXES: &[&str] = &[
    "hr", "house", "day", "com", "desk", "flow", "hub", "ly", "sheet", "io", "force", "board",
    "works", "track", "point", "base", "ment", "ify", "scale", "logic", "net", "loop", "cat",
    "bee",
];

const CATEGORIES: &[(&str, &[&str])] = &[
    (
        "hris",
        &[
            "employee",
            "time_off_request",
            "department",
            "location",
            "job",
            "benefit",
            "compensation",
            "timesheet",
            "work_eligibility",
            "team",
            "employment",
            "company",
            "holiday",
            "payslip",
            "shift",
            "absence_type",
            "worker",
            "position",
            "cost_center",
            "document",
            "dependent",
            "emergency_contact",
        ],
    ),
    (
        "ats",
        &[
            "candidate",
            "application",
            "job",
            "job_posting",
            "interview",
            "offer",
            "scorecard",
            "note",
            "tag",
            "stage",
            "rejection_reason",
            "department",
            "location",
            "user",
            "assessment",
            "background_check",
            "attachment",
            "source",
            "referral",
            "interviewer",
        ],
    ),
    (
        "crm",
        &[
            "contact",
            "account",
            "deal",
            "lead",
            "opportunity",
            "pipeline",
            "call",
            "task",
            "note",
            "meeting",
            "list",
            "company",
            "activity",
            "product",
            "quote",
            "stage",
        ],
    ),
    (
        "ticketing",
        &[
            "ticket",
            "comment",
            "project",
            "issue",
            "issue_type",
            "board",
            "sprint",
            "user",
            "attachment",
            "component",
            "priority",
            "status",
            "worklog",
            "label",
            "ticket_type",
            "collection",
        ],
    ),
    (
        "documents",
        &[
            "file",
            "folder",
            "drive",
            "permission",
            "revision",
            "comment",
            "shared_link",
            "site",
            "page",
            "data_source",
            "database",
            "block",
            "access_proposal",
        ],
    ),
    (
        "lms",
        &[
            "course",
            "content",
            "assignment",
            "completion",
            "learning_object",
            "user",
            "skill",
            "category",
            "enrollment",
            "certification",
        ],
    ),
    (
        "marketing",
        &[
            "campaign",
            "email_template",
            "list",
            "segment",
            "contact",
            "audience",
            "automation",
            "form",
            "subscriber",
            "push_template",
        ],
    ),
    (
        "iam",
        &[
            "user",
            "group",
            "role",
            "policy",
            "permission",
            "session",
            "api_key",
            "service_account",
            "membership",
        ],
    ),
    (
        "messaging",
        &[
            "message",
            "channel",
            "conversation",
            "thread",
            "reaction",
            "member",
            "file",
        ],
    ),
    (
        "accounting",
        &[
            "invoice",
            "bill",
            "payment",
            "customer",
            "vendor",
            "journal_entry",
            "account",
            "tax_rate",
            "credit_note",
            "expense",
            "purchase_order",
        ],
    ),
];

const NON_ASCII: &[&str] = &[
    "Récupère les données de l'employé",
    "Gibt die Mitarbeiterliste zurück (Größe ≤ 100)",
    "従業員の一覧を取得します",
    "Ñandú — señal de prueba",
    "Zażółć gęślą jaźń",
    "Возвращает список сотрудников",
    "Supports emoji in names 🚀✅",
    "Café résumé naïve façade",
];

const FIELDS: &[(&str, &str)] = &[
    ("first_name", "string"),
    ("last_name", "string"),
    ("email", "string"),
    ("title", "string"),
    ("status", "string"),
    ("start_date", "string"),
    ("amount", "number"),
    ("is_active", "boolean"),
    ("tags", "array"),
    ("metadata", "object"),
    ("notes", "string"),
    ("owner_id", "string"),
    ("department_id", "string"),
    ("due_date", "string"),
    ("priority", "number"),
];

// ---------------------------------------------------------------------------------------------
// Text document builder

struct Doc {
    s: String,
    /// Probability that a line gets trailing whitespace.
    trailing_ws: f64,
}

impl Doc {
    fn new(trailing_ws: f64) -> Self {
        Doc {
            s: String::with_capacity(64 * 1024),
            trailing_ws,
        }
    }

    fn line(&mut self, r: &mut Rng, indent: usize, text: &str) {
        for _ in 0..indent {
            self.s.push(' ');
        }
        self.s.push_str(text);
        if self.trailing_ws > 0.0 && r.chance(self.trailing_ws) {
            self.s.push_str(if r.chance(0.5) { " " } else { "   " });
        }
        self.s.push('\n');
    }

    fn kv(&mut self, r: &mut Rng, indent: usize, key: &str, value: &str) {
        let mut t = String::with_capacity(key.len() + value.len() + 2);
        t.push_str(key);
        t.push_str(": ");
        t.push_str(value);
        self.line(r, indent, &t);
    }

    fn blank(&mut self, r: &mut Rng, ws_only: bool) {
        if ws_only {
            let n = r.range(1, 4) as usize;
            for _ in 0..n {
                self.s.push(' ');
            }
        }
        self.s.push('\n');
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers

fn plural(s: &str) -> String {
    let b = s.as_bytes();
    if s.ends_with('y') && b.len() > 1 && !b"aeiou".contains(&b[b.len() - 2]) {
        format!("{}ies", &s[..s.len() - 1])
    } else if s.ends_with('s') || s.ends_with('x') || s.ends_with("ch") || s.ends_with("sh") {
        format!("{s}es")
    } else {
        format!("{s}s")
    }
}

fn title_case(snake: &str) -> String {
    let mut out = String::new();
    for (i, w) in snake
        .split(['_', '-'])
        .filter(|w| !w.is_empty())
        .enumerate()
    {
        if i > 0 {
            out.push(' ');
        }
        let mut cs = w.chars();
        if let Some(c) = cs.next() {
            out.extend(c.to_uppercase());
            out.push_str(cs.as_str());
        }
    }
    out
}

fn camel(snake: &str) -> String {
    let mut out = String::new();
    for (i, w) in snake.split('_').enumerate() {
        if i == 0 {
            out.push_str(w);
        } else {
            let mut cs = w.chars();
            if let Some(c) = cs.next() {
                out.extend(c.to_uppercase());
                out.push_str(cs.as_str());
            }
        }
    }
    out
}

fn pascal_underscore(snake: &str) -> String {
    title_case(snake).replace(' ', "_")
}

/// Sequence item prefix for a list under a key at column `k`: `(dash column, item key column)`.
fn seq_cols(k: usize, so: usize) -> (usize, usize) {
    (k + so, k + so + 2)
}

// ---------------------------------------------------------------------------------------------
// Action model

#[derive(Clone, Copy, PartialEq)]
enum Method {
    Get,
    Post,
    Delete,
    Put,
    Patch,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Post => "post",
            Method::Delete => "delete",
            Method::Put => "put",
            Method::Patch => "patch",
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// One plain HTTP request (maybe paginated).
    Http,
    /// RPC-style POST read (`/candidate.list`).
    Rpc,
    /// SOAP step.
    Soap,
    /// `static_values` only.
    Static,
}

struct Action {
    id: String,
    verb: &'static str,
    res: &'static str,
    method: Method,
    kind: Kind,
    reads: bool,
}

/// Per-connector context.
struct Conn {
    slug: String,
    key: String,
    title: String,
    category: &'static str,
    extra_category: Option<&'static str>,
    resources: &'static [&'static str],
    path_style: u8,
    soap: bool,
    rpc: bool,
    version_prefix: &'static str,
    ids: HashSet<String>,
}

const GET_VERBS: &[(&str, u32)] = &[
    ("list", 42),
    ("get", 38),
    ("search", 8),
    ("export", 4),
    ("download", 3),
    ("count", 2),
    ("fetch", 3),
];
const POST_VERBS: &[(&str, u32)] = &[
    ("create", 40),
    ("add", 8),
    ("send", 6),
    ("cancel", 4),
    ("approve", 4),
    ("sync", 3),
    ("run", 3),
    ("submit", 3),
    ("upsert", 3),
    ("initiate", 2),
    ("deny", 2),
    ("complete", 2),
    ("move", 2),
    ("update", 4),
    ("rescind", 1),
];
const RPC_READ_VERBS: &[&str] = &["list", "search", "get", "info"];
const DELETE_VERBS: &[(&str, u32)] = &[("delete", 85), ("remove", 15)];
const PUT_VERBS: &[(&str, u32)] = &[("update", 70), ("replace", 15), ("upsert", 15)];
const PATCH_VERBS: &[(&str, u32)] = &[("update", 90), ("manage", 10)];

fn is_read_verb(v: &str) -> bool {
    matches!(
        v,
        "list" | "get" | "search" | "export" | "download" | "count" | "fetch" | "info"
    )
}

fn new_action(r: &mut Rng, c: &mut Conn, file_res: Option<&'static str>) -> Action {
    let res: &'static str = match file_res {
        Some(fr) if r.chance(0.8) => fr,
        _ => c.resources[r.below(c.resources.len() as u64) as usize],
    };
    let (method, verb, kind) = if r.chance(0.02) {
        (Method::Get, *r.pick(&["list", "get"]), Kind::Static)
    } else if c.soap {
        let v = *r.weighted(&[
            ("get", 45),
            ("list", 10),
            ("create", 10),
            ("update", 10),
            ("cancel", 5),
            ("submit", 5),
            ("approve", 5),
            ("rescind", 3),
            ("delete", 4),
            ("manage", 3),
        ]);
        (Method::Post, v, Kind::Soap)
    } else {
        let m = *r.weighted(&[
            (Method::Get, 600),
            (Method::Post, 280),
            (Method::Delete, 50),
            (Method::Put, 40),
            (Method::Patch, 20),
        ]);
        match m {
            Method::Get => (m, *r.weighted(GET_VERBS), Kind::Http),
            Method::Post => {
                if r.chance(if c.rpc { 0.45 } else { 0.08 }) {
                    (m, *r.pick(RPC_READ_VERBS), Kind::Rpc)
                } else {
                    (m, *r.weighted(POST_VERBS), Kind::Http)
                }
            }
            Method::Delete => (m, *r.weighted(DELETE_VERBS), Kind::Http),
            Method::Put => (m, *r.weighted(PUT_VERBS), Kind::Http),
            Method::Patch => (m, *r.weighted(PATCH_VERBS), Kind::Http),
        }
    };
    let noun = if matches!(verb, "list" | "search" | "export" | "count" | "sync") {
        plural(res)
    } else {
        res.to_string()
    };
    let mut base = if verb == "info" {
        format!("get_{noun}_info")
    } else if verb == "search" && r.chance(0.05) {
        "search".to_string()
    } else {
        format!("{verb}_{noun}")
    };
    if r.chance(0.03) {
        base = format!("unified_{base}");
    } else if kind == Kind::Soap && is_read_verb(verb) && r.chance(0.15) {
        base = format!("wql_{base}");
    } else if kind == Kind::Soap && r.chance(0.25) {
        base.push_str("_soap");
    }
    let mut id = base.clone();
    const VARIANTS: &[&str] = &[
        "_by_id",
        "_details",
        "_batch",
        "_v2",
        "_legacy",
        "_all",
        "_custom",
        "_bulk",
        "_async",
        "_for_user",
    ];
    let mut n = 0;
    while c.ids.contains(&id) {
        id = if n < VARIANTS.len() {
            format!("{base}{}", VARIANTS[n])
        } else {
            format!("{base}_{}", n - VARIANTS.len() + 2)
        };
        n += 1;
    }
    c.ids.insert(id.clone());
    let reads = is_read_verb(verb);
    Action {
        id,
        verb,
        res,
        method,
        kind,
        reads,
    }
}

fn effects_for(a: &Action) -> &'static [&'static str] {
    if a.reads {
        if a.verb == "search" {
            &["read", "search"]
        } else {
            &["read"]
        }
    } else if matches!(a.verb, "delete" | "remove" | "rescind") {
        &["delete"]
    } else if matches!(a.verb, "run" | "sync" | "initiate") {
        &["execute"]
    } else if a.verb == "replace" {
        &["write", "delete"]
    } else {
        &["write"]
    }
}

fn url_for(r: &mut Rng, c: &Conn, a: &Action) -> String {
    let p = plural(a.res).replace('_', "-");
    let with_id = matches!(
        a.verb,
        "get"
            | "update"
            | "delete"
            | "remove"
            | "cancel"
            | "approve"
            | "deny"
            | "replace"
            | "complete"
            | "move"
            | "rescind"
            | "manage"
            | "download"
            | "fetch"
    );
    match a.kind {
        Kind::Rpc => {
            let camel_res = camel(a.res);
            match a.verb {
                "info" | "get" => format!("/{camel_res}.info"),
                v => format!("/{camel_res}.{v}"),
            }
        }
        Kind::Soap => format!(
            "/ccx/service/${{credentials.tenant}}/{}/v42.0",
            pascal_underscore(c.category_service())
        ),
        _ => {
            let mut u = format!("{}/{}", c.version_prefix, p);
            if with_id {
                match c.path_style {
                    0 => u.push_str("/:id"),
                    1 => {
                        u.push_str("/{");
                        u.push_str(&camel(a.res));
                        u.push_str("Id}");
                    }
                    _ => u.push_str("/${inputs.id}"),
                }
            }
            match a.verb {
                "approve" | "deny" | "cancel" | "complete" | "move" | "rescind" => {
                    if c.path_style == 1 && r.chance(0.5) {
                        u.push(':');
                        u.push_str(a.verb);
                    } else {
                        u.push('/');
                        u.push_str(a.verb);
                    }
                }
                "search" => u.push_str("/search"),
                "export" => u.push_str("/export"),
                "count" => u.push_str("/count"),
                "send" | "run" | "sync" | "submit" | "initiate" => {
                    u.push('/');
                    u.push_str(a.verb);
                }
                _ => {}
            }
            u
        }
    }
}

impl Conn {
    fn category_service(&self) -> &'static str {
        match self.category {
            "hris" => "human_resources",
            "ats" => "recruiting",
            "accounting" => "financial_management",
            "lms" => "talent",
            _ => "integrations",
        }
    }
}

fn soap_operation(a: &Action) -> String {
    let noun = pascal_underscore(&plural(a.res));
    let prefix = match a.verb {
        "get" | "list" | "search" | "export" | "fetch" | "count" | "info" | "download" => "Get",
        "create" | "update" | "upsert" | "manage" => "Put",
        "delete" | "remove" => "Delete",
        "cancel" => "Cancel",
        "submit" => "Submit",
        "approve" => "Approve",
        "rescind" => "Rescind",
        _ => "Put",
    };
    format!("{prefix}_{noun}_Request")
}

// ---------------------------------------------------------------------------------------------
// Action emission

struct FileStyle {
    /// Sequence offset: 0 => `key:\n- a`, 2 => `key:\n  - a`.
    so: usize,
    quote_urls: bool,
}

fn description(r: &mut Rng, d: &mut Doc, k: usize, a: &Action, c: &Conn) {
    let noun = a.res.replace('_', " ");
    let sentence = match a.verb {
        "list" => format!(
            "Retrieve a paginated list of {} from {}",
            plural(&noun),
            c.title
        ),
        "get" | "fetch" | "info" => format!("Get a single {noun} by its identifier"),
        "search" => format!("Search {} by query, filter or text criteria", plural(&noun)),
        "create" => format!("Create a new {noun}"),
        "update" => format!("Update an existing {noun}"),
        "delete" | "remove" => format!("Delete the {noun}. This cannot be undone."),
        v => format!("{} the {noun}", title_case(v)),
    };
    let non_ascii = r.chance(0.08);
    let roll = r.below(100);
    if roll < 35 {
        // Block scalar, sometimes with YAML-looking text.
        let ind = if r.chance(0.1) { "|-" } else { "|" };
        d.kv(r, k, "description", ind);
        d.line(r, k + 2, &format!("{sentence}."));
        if r.chance(0.4) {
            d.line(r, k + 2, "Possible values:");
            d.line(r, k + 2, "- accept: Grant the request");
            d.line(r, k + 2, "- deny: Reject it, key: value");
            d.line(r, k + 2, "# this is not a comment");
        }
        if r.chance(0.3) {
            d.line(r, k + 2, "");
            d.line(
                r,
                k + 2,
                "Note: `GET /v1/things/:id` returns {\"data\": [...]}; see ${inputs.id}.",
            );
        }
        if non_ascii {
            let t = *r.pick(NON_ASCII);
            d.line(r, k + 2, t);
        }
    } else if roll < 40 {
        d.kv(r, k, "description", ">");
        d.line(r, k + 2, &format!("{sentence},"));
        d.line(r, k + 2, "folded onto one line by YAML loaders.");
    } else if roll < 55 {
        d.kv(
            r,
            k,
            "description",
            &format!("'{}'", sentence.replace('\'', "''")),
        );
    } else if non_ascii {
        let t = format!("\"{sentence} – {}\"", r.pick(NON_ASCII));
        d.kv(r, k, "description", &t);
    } else {
        d.kv(r, k, "description", &sentence);
    }
}

fn emit_effects(r: &mut Rng, d: &mut Doc, k: usize, so: usize, a: &Action) {
    let mut eff: Vec<&str> = effects_for(a).to_vec();
    if r.chance(0.2) {
        // A declared set that disagrees with the inferred one.
        eff = vec![*r.pick(&["read", "write", "execute"])];
        if r.chance(0.3) {
            eff.push("delete");
        }
    }
    if r.chance(0.6) {
        d.kv(r, k, "effects", &format!("[{}]", eff.join(", ")));
    } else {
        d.line(r, k, "effects:");
        let (dash, _) = seq_cols(k, so);
        for e in eff {
            d.line(r, dash, &format!("- {e}"));
        }
    }
}

fn emit_input(
    r: &mut Rng,
    d: &mut Doc,
    dash: usize,
    name: &str,
    desc: &str,
    ty: &str,
    loc: &str,
    required: bool,
) {
    d.line(r, dash, &format!("- name: {name}"));
    let k = dash + 2;
    d.kv(r, k, "description", desc);
    d.kv(r, k, "type", ty);
    d.kv(r, k, "in", loc);
    d.kv(r, k, "required", if required { "true" } else { "false" });
}

fn emit_inputs(r: &mut Rng, d: &mut Doc, k: usize, st: &FileStyle, a: &Action) -> Vec<String> {
    let (dash, _) = seq_cols(k, st.so);
    let mut names = Vec::new();
    let needs_id = !matches!(
        a.verb,
        "list" | "search" | "create" | "export" | "count" | "sync"
    ) && a.kind != Kind::Static;
    let body = matches!(
        a.verb,
        "create" | "update" | "upsert" | "add" | "send" | "replace" | "submit" | "manage"
    );
    let paged = matches!(a.verb, "list" | "search" | "export");
    if !needs_id && !body && !paged {
        d.kv(r, k, "inputs", "[]");
        return names;
    }
    if paged && r.chance(0.1) {
        d.kv(r, k, "inputs", "[]");
        return names;
    }
    d.line(r, k, "inputs:");
    if needs_id {
        let loc = if a.kind == Kind::Http { "path" } else { "body" };
        emit_input(
            r,
            d,
            dash,
            "id",
            &format!("The {} identifier", a.res.replace('_', " ")),
            "string",
            loc,
            true,
        );
        names.push("id".to_string());
    }
    if paged {
        emit_input(
            r,
            d,
            dash,
            "limit",
            "Maximum number of records to return",
            "number",
            "query",
            false,
        );
        emit_input(
            r,
            d,
            dash,
            "cursor",
            "Cursor from the previous page",
            "string",
            "query",
            false,
        );
        names.push("limit".into());
        names.push("cursor".into());
        if a.verb == "search" {
            emit_input(
                r,
                d,
                dash,
                "query",
                "Text to search for",
                "string",
                if a.kind == Kind::Rpc { "body" } else { "query" },
                true,
            );
            names.push("query".into());
        }
    }
    if body {
        let n = r.range(1, 6);
        let start = r.below(FIELDS.len() as u64) as usize;
        for i in 0..n as usize {
            let (f, ty) = FIELDS[(start + i) % FIELDS.len()];
            if r.chance(0.15) && ty == "object" {
                d.line(r, dash, &format!("- name: {f}"));
                let ik = dash + 2;
                d.kv(r, ik, "description", "Free-form key/value pairs");
                d.kv(r, ik, "type", "object");
                d.kv(r, ik, "in", "body");
                d.kv(r, ik, "required", "false");
                d.line(r, ik, "properties:");
                let (pd, _) = seq_cols(ik, st.so);
                emit_input(r, d, pd, "key", "Key", "string", "body", true);
                emit_input(r, d, pd, "value", "Value", "string", "body", false);
            } else {
                let desc = if r.chance(0.05) {
                    format!("{} ({})", title_case(f), r.pick(NON_ASCII))
                } else {
                    title_case(f)
                };
                let req = i == 0 && r.chance(0.5);
                emit_input(r, d, dash, f, &desc, ty, "body", req);
            }
            names.push(f.to_string());
        }
    }
    names
}

fn emit_request_step(
    r: &mut Rng,
    d: &mut Doc,
    dash: usize,
    st: &FileStyle,
    c: &Conn,
    a: &Action,
    step_id: &str,
    inputs: &[String],
    paginated: bool,
) {
    let k = dash + 2;
    d.line(r, dash, &format!("- stepId: {step_id}"));
    d.kv(r, k, "description", &title_case(step_id));
    d.line(r, k, "stepFunction:");
    let fk = k + 2;
    let fname = match a.kind {
        Kind::Soap if paginated => "soap_paginated_request",
        Kind::Soap => "soap_request",
        _ if paginated => "paginated_request",
        _ => "request",
    };
    d.kv(r, fk, "functionName", fname);
    d.line(r, fk, "parameters:");
    let pk = fk + 2;
    let url = url_for(r, c, a);
    if st.quote_urls {
        d.kv(r, pk, "url", &format!("'{url}'"));
    } else {
        d.kv(r, pk, "url", &url);
    }
    d.kv(r, pk, "method", a.method.name());
    if a.kind == Kind::Soap {
        d.kv(r, pk, "soapOperation", &soap_operation(a));
        d.kv(
            r,
            pk,
            "soapAction",
            &format!(
                "urn:com.{}/bsvc/{}",
                c.slug,
                pascal_underscore(c.category_service())
            ),
        );
        d.line(r, pk, "namespaces:");
        let (nd, nk) = seq_cols(pk, st.so);
        d.kv(r, nd, "- namespaceIdentifier", "bsvc");
        d.kv(r, nk, "namespace", &format!("urn:com.{}/bsvc", c.slug));
        d.line(r, pk, "args:");
        let (ad, ak) = seq_cols(pk, st.so);
        d.kv(r, ad, "- name", "Request_References");
        d.line(r, ak, "value:");
        d.line(
            r,
            ak + 2,
            &format!("{}_Reference:", pascal_underscore(a.res)),
        );
        d.line(r, ak + 4, "ID:");
        d.kv(
            r,
            ak + 6,
            "'@_bsvc:type'",
            &format!("{}_ID", pascal_underscore(a.res)),
        );
        d.kv(r, ak + 6, "'#text'", "${inputs.id}");
        d.kv(r, ak, "in", "body");
        d.kv(r, ak, "condition", "'{{present(inputs.id)}}'");
        d.kv(r, pk, "useSoapContext", "true");
        return;
    }
    if r.chance(0.1) {
        d.kv(
            r,
            pk,
            "headers",
            "{\"Content-Type\": \"application/json\", \"Accept\": \"application/json\"}",
        );
    }
    if r.chance(0.05) {
        d.kv(
            r,
            pk,
            "baseUrl",
            &format!("https://api.{}.example.com/v3", c.slug),
        );
    }
    let args: Vec<&String> = inputs
        .iter()
        .filter(|n| n.as_str() != "id" || a.kind != Kind::Http)
        .collect();
    if args.is_empty() {
        if r.chance(0.1) {
            d.kv(r, pk, "args", "[]");
        }
        return;
    }
    d.line(r, pk, "args:");
    let (ad, ak) = seq_cols(pk, st.so);
    for n in args {
        d.kv(r, ad, "- name", n);
        d.kv(r, ak, "value", &format!("$.inputs.{n}"));
        let loc =
            if matches!(n.as_str(), "limit" | "cursor") || (n == "query" && a.kind != Kind::Rpc) {
                "query"
            } else {
                "body"
            };
        d.kv(r, ak, "in", loc);
        if r.chance(0.4) {
            d.kv(
                r,
                ak,
                "condition",
                &format!("'{{{{present(inputs.{n})}}}}'"),
            );
        } else if r.chance(0.05) {
            d.kv(
                r,
                ak,
                "condition",
                &format!("'{{{{inputs.{n} != \"\" && inputs.{n} != null}}}}'"),
            );
        }
    }
}

fn emit_static_step(r: &mut Rng, d: &mut Doc, dash: usize, a: &Action) {
    let k = dash + 2;
    let sid = format!("{}_values", a.res);
    d.line(r, dash, &format!("- stepId: {sid}"));
    d.kv(r, k, "description", "Static list of values");
    d.line(r, k, "stepFunction:");
    d.kv(r, k + 2, "functionName", "static_values");
    d.line(r, k + 2, "parameters:");
    let pk = k + 4;
    let n = r.range(2, 5);
    if r.chance(0.5) {
        d.s.push_str(&" ".repeat(pk));
        d.s.push_str("values: [ ");
        for i in 0..n {
            if i > 0 {
                d.s.push_str(",\n");
                d.s.push_str(&" ".repeat(pk + 2));
            }
            d.s.push_str(&format!("{{ id: \"value_{i}\", name: \"Value {i}\" }}"));
        }
        d.s.push_str(" ]\n");
    } else {
        d.line(r, pk, "values:");
        d.line(r, pk + 2, "[");
        for i in 0..n {
            let comma = if i + 1 < n { "," } else { "" };
            d.line(
                r,
                pk + 4,
                &format!("{{ \"id\": \"v{i}\", \"name\": \"Wert {i} — ü\" }}{comma}"),
            );
        }
        d.line(r, pk + 2, "]");
    }
}

fn emit_aux_step(
    r: &mut Rng,
    d: &mut Doc,
    dash: usize,
    st: &FileStyle,
    prev: &str,
    i: usize,
) -> String {
    let k = dash + 2;
    let (fname, sid) = *r.pick(&[
        ("map_fields", "map_fields"),
        ("typecast", "typecast"),
        ("group_data", "group_data"),
    ]);
    let step_id = format!("{sid}_{i}");
    d.line(r, dash, &format!("- stepId: {step_id}"));
    d.kv(r, k, "description", &title_case(fname));
    d.line(r, k, "stepFunction:");
    d.kv(r, k + 2, "functionName", fname);
    d.line(r, k + 2, "parameters:");
    let pk = k + 4;
    d.kv(r, pk, "dataSource", &format!("$.steps.{prev}.output.data"));
    if fname == "map_fields" {
        d.line(r, pk, "fields:");
        let (fd, fk) = seq_cols(pk, st.so);
        for (t, e) in [
            ("id", "$.id"),
            ("name", "$.attributes.name"),
            ("updated_at", "$.updatedAt"),
        ] {
            d.kv(r, fd, "- targetFieldKey", t);
            d.kv(r, fk, "expression", e);
            d.kv(r, fk, "type", "string");
        }
    }
    step_id
}

fn emit_action(r: &mut Rng, d: &mut Doc, k: usize, st: &FileStyle, c: &Conn, a: &Action) {
    let dash = k - 2;
    let mut head = format!("- actionId: {}", a.id);
    if r.chance(0.03) {
        let note = *r.pick(&[
            " # TODO: pagination",
            " # deprecated upstream",
            " #see docs: v2",
        ]);
        head.push_str(note);
    }
    d.line(r, dash, &head);
    let effects = r.chance(0.03);
    let effects_early = r.chance(0.5);
    if effects && effects_early {
        emit_effects(r, d, k, st.so, a);
    }
    if r.chance(0.15) {
        match c.extra_category {
            Some(x) => d.kv(r, k, "categories", &format!("[{}, {x}]", c.category)),
            None => d.kv(r, k, "categories", &format!("[{}]", c.category)),
        }
    } else {
        d.line(r, k, "categories:");
        let (cd, _) = seq_cols(k, st.so);
        d.line(r, cd, &format!("- {}", c.category));
        if let Some(x) = c.extra_category {
            d.line(r, cd, &format!("- {x}"));
        }
    }
    let at = match a.verb {
        "get" | "list" | "create" | "update" | "delete" if r.chance(0.36) => a.verb,
        _ => "custom",
    };
    d.kv(r, k, "actionType", at);
    d.kv(r, k, "label", &title_case(&a.id));
    description(r, d, k, a, c);
    if r.chance(0.1) {
        d.kv(
            r,
            k,
            "details",
            "Requires admin scope; rate limited to 10 req/s",
        );
    }
    if r.chance(0.05) {
        let v = *r.pick(&["preview", "ga", "beta"]);
        d.kv(r, k, "releaseStage", v);
    }
    if r.chance(0.08) {
        d.line(r, k, "resources:");
        let (rd, _) = seq_cols(k, st.so);
        d.line(
            r,
            rd,
            &format!("- https://developer.{}.example.com/docs/{}", c.slug, a.res),
        );
    }
    let inputs = emit_inputs(r, d, k, st, a);
    if a.reads && a.verb == "list" && r.chance(0.3) {
        d.line(r, k, "cursor:");
        d.kv(r, k + 2, "enabled", "true");
        d.kv(r, k + 2, "pageSize", "100");
    }
    d.line(r, k, "steps:");
    let (sd, _) = seq_cols(k, st.so);
    let main_step = a.id.clone();
    let mut last = main_step.clone();
    if a.kind == Kind::Static {
        emit_static_step(r, d, sd, a);
        last = format!("{}_values", a.res);
    } else {
        let nsteps = if r.chance(0.12) { r.range(2, 5) } else { 1 };
        let paginated = a.verb == "list" && r.chance(0.5);
        let lookup = nsteps >= 3 && r.chance(0.5);
        if lookup {
            // A lookup before the main request.
            let mut look = Action {
                id: String::new(),
                verb: "list",
                res: a.res,
                method: Method::Get,
                kind: if a.kind == Kind::Soap {
                    Kind::Soap
                } else {
                    Kind::Http
                },
                reads: true,
            };
            if a.kind == Kind::Soap {
                look.method = Method::Post;
            }
            emit_request_step(r, d, sd, st, c, &look, "lookup", &[], false);
        }
        emit_request_step(r, d, sd, st, c, a, &main_step, &inputs, paginated);
        let extra = if lookup { nsteps - 2 } else { nsteps - 1 };
        for i in 0..extra as usize {
            last = emit_aux_step(r, d, sd, st, &last, i + 1);
        }
    }
    if effects && !effects_early {
        emit_effects(r, d, k, st.so, a);
    }
    d.line(r, k, "result:");
    if a.reads {
        d.kv(r, k + 2, "data", &format!("$.steps.{last}.output.data"));
        if a.verb == "list" {
            d.kv(r, k + 2, "next", &format!("$.steps.{last}.output.next"));
        }
    } else if matches!(a.verb, "delete" | "remove") {
        d.kv(
            r,
            k + 2,
            "message",
            &format!("{} deleted", title_case(a.res)),
        );
    } else {
        d.kv(r, k + 2, "data", &format!("$.steps.{last}.output.data"));
    }
}

fn emit_commented_action(r: &mut Rng, d: &mut Doc, k: usize, c: &Conn) {
    let dash = k - 2;
    let res = c.resources[r.below(c.resources.len() as u64) as usize];
    let pad = " ".repeat(dash);
    d.line(r, 0, &format!("{pad}# - actionId: upload_{res}"));
    d.line(r, 0, &format!("{pad}#   categories:"));
    d.line(r, 0, &format!("{pad}#     - {}", c.category));
    d.line(r, 0, &format!("{pad}#   actionType: custom"));
    d.line(r, 0, &format!("{pad}#   label: Upload {}", title_case(res)));
    d.line(r, 0, &format!("{pad}#   steps:"));
    d.line(r, 0, &format!("{pad}#     - stepId: upload"));
    d.line(r, 0, &format!("{pad}#       stepFunction:"));
    d.line(r, 0, &format!("{pad}#         functionName: upload_file"));
}

/// Emit `n` actions with action keys at column `k`.
fn emit_actions(
    r: &mut Rng,
    d: &mut Doc,
    k: usize,
    st: &FileStyle,
    c: &mut Conn,
    n: u64,
    file_res: Option<&'static str>,
    sep: u8,
) {
    for i in 0..n {
        if i > 0 {
            match sep {
                1 => d.blank(r, false),
                2 => {
                    let ws = r.chance(0.5);
                    d.blank(r, ws)
                }
                _ => {}
            }
        }
        if r.chance(0.04) {
            let t = format!(
                "# --- {} ---",
                title_case(c.resources[r.below(c.resources.len() as u64) as usize])
            );
            d.line(r, k - 2, &t);
        }
        if r.chance(0.02) {
            emit_commented_action(r, d, k, c);
        }
        let a = new_action(r, c, file_res);
        emit_action(r, d, k, st, c, &a);
    }
}

// ---------------------------------------------------------------------------------------------
// Files

fn emit_header(r: &mut Rng, d: &mut Doc, c: &Conn, st: &FileStyle, oauth: bool) -> u64 {
    let mut nested = 0;
    d.line(r, 0, "StackOne: 1.0.0");
    d.line(r, 0, "info:");
    d.kv(r, 2, "title", &c.title);
    d.kv(r, 2, "key", &c.key);
    let v = format!("1.{}.{}", r.below(5), r.below(10));
    d.kv(r, 2, "version", &v);
    if r.chance(0.1) {
        let t = format!(
            "'{} connector — {}'",
            c.title,
            r.pick(NON_ASCII).replace('\'', "''")
        );
        d.kv(r, 2, "description", &t);
    } else {
        d.kv(
            r,
            2,
            "description",
            &format!("{} connector for the {} category", c.title, c.category),
        );
    }
    d.line(r, 2, "assets:");
    d.kv(
        r,
        4,
        "icon",
        &format!("https://stackone-logos.com/api/{}/filled/png", c.slug),
    );
    let base = if r.chance(0.3) {
        format!("https://${{credentials.subdomain}}.{}.com/api", c.slug)
    } else {
        format!("https://api.{}.com", c.slug)
    };
    d.kv(r, 0, "baseUrl", &base);
    if r.chance(0.3) {
        d.line(r, 0, "rateLimit:");
        let v = r.range(5, 50).to_string();
        d.kv(r, 2, "mainRatelimit", &v);
    }
    if r.chance(0.4) {
        let v = *r.pick(&["preview", "ga", "beta"]);
        d.kv(r, 0, "releaseStage", v);
    }
    if r.chance(0.2) {
        d.line(r, 0, "context: |");
        d.line(r, 2, &format!("{} uses cursor pagination.", c.title));
        d.line(r, 2, "- actionId: not_an_action");
        d.line(r, 2, "  steps: []");
    }
    let (ad, ak) = seq_cols(0, st.so);
    d.line(r, 0, "authentication:");
    if !oauth || r.chance(0.3) {
        if r.chance(0.5) {
            d.line(r, ad, "- custom:");
        } else {
            d.line(r, ad, "- apikey:");
        }
        let k = ak + 2;
        d.kv(r, k, "type", "custom");
        d.kv(r, k, "label", "API Key");
        d.line(r, k, "authorization:");
        d.kv(r, k + 2, "type", "basic");
        d.kv(r, k + 2, "username", "$.credentials.apiKey");
        d.kv(r, k + 2, "password", "x");
        d.line(r, k, "configFields:");
        let (cd, ck) = seq_cols(k, st.so);
        d.kv(r, cd, "- key", "apiKey");
        d.kv(r, ck, "label", "API Key");
        d.kv(r, ck, "type", "password");
        d.kv(r, ck, "required", "true");
        d.kv(r, ck, "secret", "true");
        d.line(r, k, "environments:");
        d.kv(r, cd, "- key", "production");
        d.kv(r, ck, "name", "Production");
    }
    if oauth {
        d.line(r, ad, "- oauth2:");
        let k = ak + 2;
        d.kv(r, k, "type", "oauth2");
        d.kv(r, k, "label", "OAuth 2.0");
        d.kv(r, k, "grantType", "authorization_code");
        d.line(r, k, "authorization:");
        d.kv(r, k + 2, "type", "bearer");
        d.kv(r, k + 2, "token", "$.credentials.accessToken");
        d.line(r, k, "refreshAuthentication:");
        d.line(r, k + 2, "action:");
        let a = k + 4;
        d.kv(r, a, "actionId", &format!("refresh_token_{}", c.slug));
        d.kv(r, a, "categories", "[internal]");
        d.kv(r, a, "actionType", "refresh_token");
        d.kv(r, a, "label", "Refresh Token");
        d.kv(r, a, "description", "Refresh the OAuth access token");
        d.kv(r, a, "inputs", "[]");
        d.line(r, a, "steps:");
        let (sd, sk) = seq_cols(a, st.so);
        d.kv(r, sd, "- stepId", "refresh_token_request");
        d.kv(r, sk, "description", "Refresh token request");
        d.line(r, sk, "stepFunction:");
        d.kv(r, sk + 2, "functionName", "request");
        d.line(r, sk + 2, "parameters:");
        let pk = sk + 4;
        d.kv(
            r,
            pk,
            "url",
            &format!("https://auth.{}.com/oauth/token", c.slug),
        );
        d.kv(r, pk, "method", "post");
        d.line(r, pk, "args:");
        let (gd, gk) = seq_cols(pk, st.so);
        d.kv(r, gd, "- name", "grant_type");
        d.kv(r, gk, "value", "refresh_token");
        d.kv(r, gk, "in", "body");
        d.kv(r, gd, "- name", "refresh_token");
        d.kv(r, gk, "value", "$.credentials.refreshToken");
        d.kv(r, gk, "in", "body");
        d.line(r, a, "result:");
        d.kv(
            r,
            a + 2,
            "accessToken",
            "$.steps.refresh_token_request.output.data.access_token",
        );
        d.kv(
            r,
            a + 2,
            "expiresIn",
            "$.steps.refresh_token_request.output.data.expires_in",
        );
        nested += 1;
        d.line(r, k, "configFields:");
        let (cd, ck) = seq_cols(k, st.so);
        d.kv(r, cd, "- key", "clientId");
        d.kv(r, ck, "label", "Client ID");
        d.kv(r, ck, "type", "text");
        d.kv(r, ck, "required", "true");
    }
    nested
}

fn file_size(r: &mut Rng) -> u64 {
    match r.below(100) {
        0..=69 => r.range(5, 30),
        70..=84 => r.range(1, 4),
        85..=96 => r.range(31, 80),
        _ => r.range(81, 200),
    }
}

fn new_style(r: &mut Rng) -> (FileStyle, f64, u8) {
    let st = FileStyle {
        so: if r.chance(0.5) { 2 } else { 0 },
        quote_urls: r.chance(0.4),
    };
    let tw = if r.chance(0.2) { 0.03 } else { 0.0 };
    let sep = *r.weighted(&[(0u8, 50), (1, 35), (2, 15)]);
    (st, tw, sep)
}

/// Summary of one generation run.
#[derive(Debug, Default, Clone)]
pub struct GenSummary {
    pub connectors: u64,
    pub files: u64,
    pub actions: u64,
    pub nested_actions: u64,
    pub bytes: u64,
    pub crlf_files: u64,
}

struct Writer {
    summary: GenSummary,
}

impl Writer {
    fn write(&mut self, r: &mut Rng, path: &Path, d: Doc) -> io::Result<()> {
        let mut s = d.s;
        // Quirks applied to the whole file.
        if r.chance(0.03) {
            while s.ends_with('\n') {
                s.pop();
            }
        }
        let mut bytes = s.into_bytes();
        if r.chance(0.05) {
            let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 30);
            for &b in &bytes {
                if b == b'\n' {
                    out.push(b'\r');
                }
                out.push(b);
            }
            bytes = out;
            self.summary.crlf_files += 1;
        }
        if r.chance(0.005) {
            let mut out = vec![0xEF, 0xBB, 0xBF];
            out.extend_from_slice(&bytes);
            bytes = out;
        }
        fs::write(path, &bytes)?;
        self.summary.files += 1;
        self.summary.bytes += bytes.len() as u64;
        Ok(())
    }
}

fn new_conn(r: &mut Rng, i: u64, seed: u64) -> (Conn, String) {
    let combos = (PREFIXES.len() * SUFFIXES.len()) as u64;
    // 7919 is prime and coprime to `combos`, so each block of `combos` names is a permutation.
    let j = (i.wrapping_mul(7919).wrapping_add(seed)) % combos;
    let generation = i / combos;
    let pre = PREFIXES[(j / SUFFIXES.len() as u64) as usize];
    let suf = SUFFIXES[(j % SUFFIXES.len() as u64) as usize];
    let gen_s = if generation == 0 {
        String::new()
    } else {
        (generation + 1).to_string()
    };
    let slug = format!("{pre}{suf}{gen_s}");
    let kebab = r.chance(0.15);
    let folder = if kebab {
        format!("{pre}-{suf}{gen_s}")
    } else {
        slug.clone()
    };
    let key = match r.below(10) {
        0 => format!("{pre}_{suf}{gen_s}"),
        1 => format!("{pre}-{suf}{gen_s}-custom"),
        _ => slug.clone(),
    };
    let (category, resources) = *r.pick(CATEGORIES);
    let extra_category = if r.chance(0.1) {
        Some(r.pick(CATEGORIES).0)
    } else {
        None
    };
    let title = format!("{}{}", title_case(pre), suf);
    let version_prefix = *r.pick(&["", "/v1", "/v2", "/api/v3", "/rest/api/2"]);
    let c = Conn {
        slug,
        key,
        title,
        category,
        extra_category,
        resources,
        path_style: r.below(3) as u8,
        soap: r.chance(0.05),
        rpc: r.chance(0.08),
        version_prefix,
        ids: HashSet::new(),
    };
    let root = if r.chance(0.15) {
        "src/configs"
    } else {
        "connectors"
    };
    (c, format!("{root}/{folder}"))
}

/// Generate a catalog of exactly `actions` tool actions under `out`.
pub fn generate(actions: u64, out: &Path, seed: u64) -> io::Result<GenSummary> {
    let mut r = Rng::new(seed);
    let mut w = Writer {
        summary: GenSummary::default(),
    };
    let mut remaining = actions;
    let mut i = 0u64;
    while remaining > 0 {
        let (mut c, folder) = new_conn(&mut r, i, seed);
        i += 1;
        let dir = out.join(&folder);
        fs::create_dir_all(&dir)?;
        w.summary.connectors += 1;
        let oauth = r.chance(0.35);
        let layout = *r.weighted(&[(0u8, 34), (1, 10), (2, 48), (3, 8)]);
        match layout {
            0 | 1 => {
                // Shape C main (refs to several partials) or shape D main (one ref).
                let nparts = if layout == 1 { 1 } else { r.range(2, 12) };
                let mut refs: Vec<String> = Vec::new();
                let mut used = HashSet::new();
                for _ in 0..nparts {
                    if remaining == 0 {
                        break;
                    }
                    let res = c.resources[r.below(c.resources.len() as u64) as usize];
                    let mut rname = if r.chance(0.1) {
                        format!(
                            "{}.{}",
                            camel(res),
                            *r.pick(&["eventDetails", "v2", "admin"])
                        )
                    } else {
                        camel(&plural(res))
                    };
                    if !used.insert(rname.clone()) {
                        rname = format!("{rname}{}", refs.len() + 1);
                        used.insert(rname.clone());
                    }
                    let n = (if r.chance(0.8) {
                        r.range(1, 16)
                    } else {
                        file_size(&mut r)
                    })
                    .min(remaining);
                    remaining -= n;
                    let (st, tw, sep) = new_style(&mut r);
                    let mut d = Doc::new(tw);
                    if r.chance(0.15) {
                        d.line(
                            &mut r,
                            0,
                            &format!("# {} actions for {}", title_case(res), c.title),
                        );
                    }
                    if r.chance(0.75) {
                        emit_actions(&mut r, &mut d, 2, &st, &mut c, n, Some(res), sep);
                    } else {
                        d.line(&mut r, 0, "actions:");
                        emit_actions(&mut r, &mut d, 4, &st, &mut c, n, Some(res), sep);
                    }
                    w.summary.actions += n;
                    let p = dir.join(format!("{}.{}.s1.partial.yaml", c.slug, rname));
                    w.write(&mut r, &p, d)?;
                    refs.push(rname);
                }
                let (st, tw, _) = new_style(&mut r);
                let mut d = Doc::new(tw);
                w.summary.nested_actions += emit_header(&mut r, &mut d, &c, &st, oauth);
                if layout == 1 {
                    d.line(&mut r, 0, "");
                    d.kv(&mut r, 0, "$ref", &format!("{}.{}", c.slug, refs[0]));
                } else {
                    d.line(&mut r, 0, "actions:");
                    for rf in &refs {
                        d.kv(&mut r, 2, "$ref", &format!("{}.{rf}", c.slug));
                    }
                }
                w.write(
                    &mut r,
                    &dir.join(format!("{}.connector.s1.yaml", c.slug)),
                    d,
                )?;
            }
            2 => {
                // Shape B main file with inline actions.
                let n = file_size(&mut r).min(remaining);
                remaining -= n;
                let (st, tw, sep) = new_style(&mut r);
                let mut d = Doc::new(tw);
                w.summary.nested_actions += emit_header(&mut r, &mut d, &c, &st, oauth);
                if sep != 0 {
                    d.blank(&mut r, sep == 2);
                }
                d.line(&mut r, 0, "actions:");
                emit_actions(&mut r, &mut d, 4, &st, &mut c, n, None, sep);
                w.summary.actions += n;
                w.write(
                    &mut r,
                    &dir.join(format!("{}.connector.s1.yaml", c.slug)),
                    d,
                )?;
            }
            _ => {
                // Bundled single-file build.
                let n = r.range(40, 200).min(remaining);
                remaining -= n;
                let (st, tw, sep) = new_style(&mut r);
                let mut d = Doc::new(tw);
                w.summary.nested_actions += emit_header(&mut r, &mut d, &c, &st, oauth);
                d.line(&mut r, 0, "actions:");
                emit_actions(&mut r, &mut d, 4, &st, &mut c, n, None, sep);
                w.summary.actions += n;
                w.write(&mut r, &dir.join(format!("{}_v1-0-0.s1.yaml", c.slug)), d)?;
            }
        }
    }
    Ok(w.summary)
}

// ---------------------------------------------------------------------------------------------
// CLI

fn usage() -> ! {
    eprintln!("usage: gen_catalog --actions N --out DIR [--seed S] [--force]");
    eprintln!("  --force  remove DIR first if it exists");
    std::process::exit(2);
}

#[allow(dead_code)]
fn main() {
    let mut actions: Option<u64> = None;
    let mut out: Option<PathBuf> = None;
    let mut seed = 42u64;
    let mut force = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--actions" => actions = args.next().and_then(|v| v.replace('_', "").parse().ok()),
            "--out" => out = args.next().map(PathBuf::from),
            "--seed" => {
                seed = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--force" => force = true,
            "-h" | "--help" => usage(),
            _ => {
                eprintln!("unknown argument: {a}");
                usage()
            }
        }
    }
    let (Some(actions), Some(out)) = (actions, out) else {
        usage()
    };
    if out.exists() {
        let non_empty = fs::read_dir(&out)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true);
        if non_empty {
            if !force {
                eprintln!(
                    "{} exists and is not empty (use --force to replace it)",
                    out.display()
                );
                std::process::exit(2);
            }
            if let Err(e) = fs::remove_dir_all(&out) {
                eprintln!("cannot remove {}: {e}", out.display());
                std::process::exit(1);
            }
        }
    }
    let t = std::time::Instant::now();
    match generate(actions, &out, seed) {
        Ok(s) => println!(
            "files={} actions={} bytes={} connectors={} nested_actions={} crlf_files={} seed={} seconds={:.2} out={}",
            s.files,
            s.actions,
            s.bytes,
            s.connectors,
            s.nested_actions,
            s.crlf_files,
            seed,
            t.elapsed().as_secs_f64(),
            out.display()
        ),
        Err(e) => {
            eprintln!("gen_catalog: {e}");
            std::process::exit(1);
        }
    }
}
