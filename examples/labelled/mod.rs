//! The labelled sets of `heuristics/labelled`, the two forms the evaluation feeds them to the tool
//! in (a connector catalog for `backfill`, an MCP `tools/list` for `audit`), the peer rules
//! it is compared with, and the figures. Shared by `examples/eval.rs` (which runs the real
//! binary) and `tests/eval.rs` (which calls the library), so both measure the same thing.

#![allow(dead_code)]

pub mod contested;
pub mod declared;
pub mod departures;
pub mod half;
pub mod transform;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use catalog_effects::classify::confidence::{ByProvider, Tally};
use catalog_effects::classify::{Confidence, Group, Inference, Measured, RuleSet, infer_in};
use catalog_effects::effects::{DestructivePolicy, Hints};
use catalog_effects::report::audit::audit;
use catalog_effects::source::connector::read::parse_file;
use catalog_effects::source::mcp::parse_tools;

pub mod openapi_shape;

/// One of the five dev sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Set {
    Openapi,
    Google,
    Graph,
    Azure,
    Mcp,
}

impl Set {
    pub const ALL: [Set; 5] = [Set::Openapi, Set::Google, Set::Graph, Set::Azure, Set::Mcp];

    pub fn name(self) -> &'static str {
        match self {
            Set::Openapi => "openapi-scopes-dev",
            Set::Google => "google-dev",
            Set::Graph => "graph-dev",
            Set::Azure => "azure-dev",
            Set::Mcp => "mcp-dev",
        }
    }

    pub fn file(self) -> String {
        format!("{}.tsv", self.name())
    }
}

/// The two ways an action reaches the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Route {
    /// As a connector action (method, path, description, inputs) through `backfill`.
    Backfill,
    /// As an MCP tool (name, title, description, input names) through `audit`.
    Audit,
}

impl Route {
    pub const ALL: [Route; 2] = [Route::Backfill, Route::Audit];

    pub fn name(self) -> &'static str {
        match self {
            Route::Backfill => "backfill",
            Route::Audit => "audit",
        }
    }
}

/// One labelled operation or tool.
#[derive(Debug, Clone)]
pub struct Row {
    pub set: Set,
    pub server: String,
    pub name: String,
    pub title: String,
    /// Lower case; empty when unknown.
    pub method: String,
    pub path: String,
    pub description: String,
    pub inputs: Vec<String>,
    /// Whether it is read-only, by the set's own authority; `None`: unknown.
    pub truth: Option<bool>,
    /// The hints a server declares (mcp-dev only).
    pub hints: Hints,
}

impl Row {
    /// The provider the counts tell apart: the set's server up to its first `/` or `@` (an
    /// API's vendor domain, an MCP server's repository, a Google API, a Graph area, an Azure
    /// namespace), so the documents of one vendor and the apps of one monorepo are one
    /// provider, held out together.
    pub fn provider(&self) -> String {
        let root = self.server.split(['/', '@']).next().unwrap_or_default();
        format!("{}:{root}", self.set.name())
    }

    /// Whether the row can be rendered as a connector action (it has a method and a path).
    pub fn has_http(&self) -> bool {
        !self.method.is_empty() && !self.path.is_empty()
    }
}

pub fn flag(s: &str) -> Option<bool> {
    match s {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// Reads one set; `dir` holds the TSV files.
pub fn read_set(dir: &Path, set: Set) -> Result<Vec<Row>, String> {
    let path = dir.join(set.file());
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or(format!("{}: no column `{name}`", path.display()))
    };
    let server = col("server")?;
    let name = col("tool_name")?;
    let method = col("http_method")?;
    let path_c = col("http_path")?;
    let description = col("description_first_sentence")?;
    let title = col("title").ok();
    let inputs = col("inputs").ok();
    let truth = col("read_only").ok();
    let hints: Option<[usize; 4]> = match set {
        Set::Mcp => Some([
            col("readOnlyHint")?,
            col("destructiveHint")?,
            col("idempotentHint")?,
            col("openWorldHint")?,
        ]),
        _ => None,
    };
    let mut rows = Vec::new();
    for (n, line) in lines.enumerate() {
        let c: Vec<&str> = line.split('\t').collect();
        if c.len() < header.len() {
            return Err(format!(
                "{}:{}: expected {} columns",
                path.display(),
                n + 2,
                header.len()
            ));
        }
        let get = |i: Option<usize>| i.map_or("", |i| c[i]);
        let hints = hints.map_or(Hints::default(), |[r, d, i, o]| Hints {
            title: None,
            read_only: flag(c[r]),
            destructive: flag(c[d]),
            idempotent: flag(c[i]),
            open_world: flag(c[o]),
        });
        // mcp-dev: `readOnlyHint` true is read-only; false, or `destructiveHint` true, is not.
        let truth = match set {
            Set::Mcp => match (hints.read_only, hints.destructive) {
                (Some(true), _) => Some(true),
                (Some(false), _) | (_, Some(true)) => Some(false),
                _ => None,
            },
            _ => flag(get(truth)),
        };
        rows.push(Row {
            set,
            server: c[server].into(),
            name: c[name].into(),
            title: get(title).into(),
            method: c[method].to_ascii_lowercase(),
            path: c[path_c].into(),
            description: c[description].into(),
            inputs: get(inputs)
                .split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
            truth,
            hints,
        });
    }
    Ok(rows)
}

/// Every set of `dir`, in [`Set::ALL`] order.
pub fn read_all(dir: &Path) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for set in Set::ALL {
        rows.extend(read_set(dir, set)?);
    }
    Ok(rows)
}

/// A file-system-safe name for a server (`repo/app` -> `repo-app`).
pub fn slug(server: &str) -> String {
    server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// `application-cancelDeployment` -> `application_cancel_deployment` (the library's
/// OpenAPI id rule); an id that would not start with a letter gets a `t_` prefix, as catalog
/// ids must.
pub fn snake(name: &str) -> String {
    let out = catalog_effects::source::openapi::read::snake(name);
    if out.starts_with(|c: char| c.is_ascii_lowercase()) {
        out
    } else {
        format!("t_{out}")
    }
}

/// The rows grouped by server, each group in file order: one connector, one tool list.
pub fn by_server(rows: &[Row], set: Set) -> BTreeMap<&str, Vec<&Row>> {
    let mut map: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.set == set) {
        map.entry(r.server.as_str()).or_default().push(r);
    }
    map
}

/// The rows as an MCP `tools/list` result: name, title, description, input names, and the
/// declared annotations (mcp-dev only).
pub fn tools_json(rows: &[&Row]) -> String {
    let tools: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let mut ann = serde_json::Map::new();
            for (k, v) in [
                ("readOnlyHint", r.hints.read_only),
                ("destructiveHint", r.hints.destructive),
                ("idempotentHint", r.hints.idempotent),
                ("openWorldHint", r.hints.open_world),
            ] {
                if let Some(b) = v {
                    ann.insert(k.into(), b.into());
                }
            }
            let props: serde_json::Map<String, serde_json::Value> = r
                .inputs
                .iter()
                .map(|i| (i.clone(), serde_json::json!({})))
                .collect();
            let mut tool = serde_json::json!({
                "name": r.name, "description": r.description, "annotations": ann,
                "inputSchema": {"type": "object", "properties": props},
            });
            if !r.title.is_empty() {
                tool["title"] = r.title.clone().into();
            }
            tool
        })
        .collect();
    serde_json::json!({ "tools": tools }).to_string()
}

/// A JSON string is a valid YAML double-quoted scalar.
fn q(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// The rows (those with a method and path) as a shape-B connector file named `key`: one
/// request step each, the title as label, the input names as inputs.
pub fn connector_yaml(key: &str, title: &str, rows: &[&Row]) -> String {
    let named: Vec<Row> = rows
        .iter()
        .map(|r| Row {
            name: snake(&r.name),
            ..(*r).clone()
        })
        .collect();
    connector_yaml_raw(key, title, &named.iter().collect::<Vec<_>>())
}

/// [`connector_yaml`] with each row's name taken as its action id as it is.
pub fn connector_yaml_raw(key: &str, title: &str, rows: &[&Row]) -> String {
    let mut y = format!(
        "StackOne: 1.0.0\ninfo:\n  key: {key}\n  title: {}\nbaseUrl: https://api.example.com\nactions:\n",
        q(title)
    );
    for r in rows {
        action_yaml(&mut y, r, "  ");
    }
    y
}

/// The rows as a shape-A partial file: a top-level sequence of actions.
pub fn partial_yaml(rows: &[&Row]) -> String {
    let mut y = String::new();
    for r in rows {
        action_yaml(&mut y, r, "");
    }
    y
}

/// One action item at `indent`, its name as its id.
fn action_yaml(y: &mut String, r: &Row, indent: &str) {
    let _ = writeln!(y, "{indent}- actionId: {}", r.name);
    if !r.title.is_empty() {
        let _ = writeln!(y, "{indent}  label: {}", q(&r.title));
    }
    let _ = writeln!(y, "{indent}  description: {}", q(&r.description));
    if !r.inputs.is_empty() {
        let _ = writeln!(y, "{indent}  inputs:");
        for i in &r.inputs {
            let _ = writeln!(y, "{indent}    - name: {}", q(i));
        }
    }
    let _ = write!(
        y,
        "{indent}  steps:\n{indent}    - stepId: call\n{indent}      stepFunction:\n{indent}        functionName: request\n{indent}        parameters:\n{indent}          url: {}\n{indent}          method: {}\n",
        q(&r.path),
        r.method
    );
}

/// `backfill DIR` at every level through `run`, its patch and CSV report written into
/// `work` under `name`: the report, and a function that finds a column of it by name.
pub fn backfill_report(
    run: &dyn Fn(&[&str]) -> Result<String, String>,
    dir: &Path,
    work: &Path,
    name: &str,
) -> Result<(csv::Reader<std::fs::File>, Columns), String> {
    let report = work.join(format!("{name}.csv"));
    let (c, r, p) = (
        dir.to_string_lossy().into_owned(),
        report.to_string_lossy().into_owned(),
        work.join(format!("{name}.patch"))
            .to_string_lossy()
            .into_owned(),
    );
    run(&[
        "backfill",
        &c,
        "--report",
        &r,
        "--patch",
        &p,
        "--min-confidence",
        "low",
        "--quiet",
    ])?;
    let mut csv = csv::Reader::from_path(&report).map_err(|e| format!("backfill report: {e}"))?;
    let header = csv.headers().map_err(|e| e.to_string())?.clone();
    Ok((csv, Columns(header)))
}

/// The folder a report's `file` column names (each server is written into one).
pub fn folder_of(file: &str) -> String {
    Path::new(file)
        .parent()
        .and_then(Path::file_name)
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A CSV report's header.
pub struct Columns(csv::StringRecord);

impl Columns {
    /// The index of column `n`.
    pub fn get(&self, n: &str) -> Result<usize, String> {
        self.0
            .iter()
            .position(|h| h == n)
            .ok_or(format!("backfill report: no column `{n}`"))
    }
}

/// What one route concluded for one row.
#[derive(Debug, Clone)]
pub struct Outcome<'a> {
    pub row: &'a Row,
    pub route: Route,
    pub inference: Inference,
}

/// Both routes through the library: every server of every set as a connector file parsed
/// and classified as `backfill` does, and as a tool list classified as `audit` does.
pub fn classify_all<'a>(rows: &'a [Row], set: &RuleSet) -> Result<Vec<Outcome<'a>>, String> {
    let mut out = Vec::new();
    for s in Set::ALL {
        for (server, list) in by_server(rows, s) {
            out.extend(classify_server(server, &list, set)?);
        }
    }
    Ok(out)
}

/// One server's rows on both routes: its backfill rows, then its audit rows.
fn classify_server<'a>(
    server: &str,
    list: &[&'a Row],
    set: &RuleSet,
) -> Result<Vec<Outcome<'a>>, String> {
    let mut out = Vec::new();
    let http: Vec<&Row> = list.iter().copied().filter(|r| r.has_http()).collect();
    if !http.is_empty() {
        let text = connector_yaml(&snake(&slug(server)), server, &http);
        let parsed = parse_file(&text).map_err(|e| format!("{server}: {e}"))?;
        if parsed.actions.len() != http.len() {
            return Err(format!(
                "{server}: {} actions parsed of {}",
                parsed.actions.len(),
                http.len()
            ));
        }
        // As the pipeline reads a file: its names with their calls' methods.
        let group = Group::learn_calls(
            parsed.actions.iter().map(|a| {
                (
                    a.view.id.as_str(),
                    a.view.steps.last().and_then(|s| s.method.as_deref()),
                )
            }),
            &set.lexicon,
        );
        for (site, row) in parsed.actions.iter().zip(&http) {
            out.push(Outcome {
                row,
                route: Route::Backfill,
                inference: infer_in(&site.view, &group, set),
            });
        }
    }
    let tools = parse_tools(&tools_json(list), server).map_err(|e| e.to_string())?;
    let group = Group::learn(tools.iter().map(|t| t.id.as_str()), &set.lexicon);
    for (tool, row) in tools.iter().zip(list) {
        out.push(Outcome {
            row,
            route: Route::Audit,
            inference: infer_in(tool, &group, set),
        });
    }
    Ok(out)
}

/// The counts of `heuristics/measured.tsv`, from both routes over every labelled row.
pub fn measure(outcomes: &[Outcome<'_>]) -> Measured {
    let mut tally = Tally::default();
    for o in outcomes {
        add(&mut tally, o);
    }
    tally.finish()
}

/// One outcome into the counts: its decision (and the read it overruled), and the base
/// rate.
fn add(tally: &mut Tally, o: &Outcome<'_>) {
    let Some(truth) = o.row.truth else { return };
    tally.base(truth, &o.row.provider());
    if let Some(p) = o.inference.plain {
        tally.add_plain(p, truth, &o.row.provider());
    }
    // The plain reading is counted on every row, above; the engine's reading wherever it
    // made one, proposed or not.
    for d in o
        .inference
        .decision
        .iter()
        .chain(o.inference.overruled.as_deref())
        .filter(|d| !matches!(d.basis, catalog_effects::classify::Basis::Plain(..)))
    {
        tally.add(d, truth, &o.row.provider());
    }
}

/// Every row classified again with the counts measured without its provider
/// (leave-one-provider-out): what the proposals are worth on APIs the counts have never
/// seen, which is what held-out sets measure. `outcomes` are [`classify_all`]'s, whose
/// order this keeps.
pub fn cross_validated<'a>(
    rows: &'a [Row],
    outcomes: &[Outcome<'a>],
    set: &RuleSet,
) -> Result<Vec<Outcome<'a>>, String> {
    held_out_by(rows, outcomes, set, |counts, provider| {
        counts.without(Some(provider))
    })
}

/// Every row classified again with the counts measured without its whole set: each naming
/// culture (OpenAPI documents, Google, Graph, Azure, MCP servers) judged only by the other
/// four, as an API of a kind the counts have never seen is. Harder than leaving one provider
/// out, and closer to what an unseen cloud's API meets.
pub fn set_held_out<'a>(
    rows: &'a [Row],
    outcomes: &[Outcome<'a>],
    set: &RuleSet,
) -> Result<Vec<Outcome<'a>>, String> {
    held_out_by(rows, outcomes, set, |counts, provider| {
        let culture = provider.split(':').next().unwrap_or_default();
        counts.without_all(|p| p.split(':').next() == Some(culture))
    })
}

/// The counts of every outcome by provider, from which [`cross_validated`] holds each
/// provider out: for a measurement that reads the counts again after classifying.
pub fn counts_by_provider(outcomes: &[Outcome<'_>]) -> ByProvider {
    let mut tally = Tally::default();
    for o in outcomes {
        add(&mut tally, o);
    }
    tally.by_provider()
}

/// Every server's rows classified again with the counts `without` gives for its provider.
fn held_out_by<'a>(
    rows: &'a [Row],
    outcomes: &[Outcome<'a>],
    set: &RuleSet,
    without: impl Fn(&ByProvider, &str) -> Measured,
) -> Result<Vec<Outcome<'a>>, String> {
    let mut tally = Tally::default();
    for o in outcomes {
        add(&mut tally, o);
    }
    let counts = tally.by_provider();
    let mut held_out = set.clone();
    let mut out = Vec::with_capacity(outcomes.len());
    for s in Set::ALL {
        for (server, list) in by_server(rows, s) {
            held_out.measured = without(&counts, &list[0].provider());
            out.extend(classify_server(server, &list, &held_out)?);
        }
    }
    Ok(out)
}

/// The audit route through the library as `audit` runs it, for one server: a check that
/// `classify_all` and the command agree.
pub fn audit_rows(list: &[&Row], set: &RuleSet) -> Vec<catalog_effects::report::audit::AuditRow> {
    let tools = parse_tools(&tools_json(list), "tools.json").expect("generated JSON parses");
    audit(&tools, set, DestructivePolicy::Delete, Confidence::Low)
}

// --- the figures ----------------------------------------------------------------------

/// What a rule (the engine at some confidence, or a peer) says about one row: `Some(true)`
/// read-only, `Some(false)` not, `None` nothing (unclassified).
pub type Claim = Option<bool>;

/// Coverage, unsafe and friction for one set, route and rule.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Figures {
    pub rows: usize,
    pub covered: usize,
    pub read_only: usize,
    pub not_read_only: usize,
    /// Not read-only, claimed read-only.
    pub unsafe_: usize,
    /// Read-only, not claimed read-only (unclassified included).
    pub friction: usize,
}

impl Figures {
    pub fn add(&mut self, truth: Option<bool>, claim: Claim) {
        self.rows += 1;
        self.covered += usize::from(claim.is_some());
        match truth {
            Some(true) => {
                self.read_only += 1;
                self.friction += usize::from(claim != Some(true));
            }
            Some(false) => {
                self.not_read_only += 1;
                self.unsafe_ += usize::from(claim == Some(true));
            }
            None => {}
        }
    }

    fn rate(n: usize, d: usize) -> f64 {
        if d == 0 { 0.0 } else { n as f64 / d as f64 }
    }

    pub fn coverage(&self) -> f64 {
        Self::rate(self.covered, self.rows)
    }
    pub fn unsafe_rate(&self) -> f64 {
        Self::rate(self.unsafe_, self.not_read_only)
    }
    pub fn friction_rate(&self) -> f64 {
        Self::rate(self.friction, self.read_only)
    }

    /// `coverage  unsafe  friction` as percentages with counts.
    pub fn cells(&self) -> [String; 3] {
        let pct = |n: usize, d: usize| format!("{n}/{d} {:.2}%", 100.0 * Self::rate(n, d));
        [
            pct(self.covered, self.rows),
            pct(self.unsafe_, self.not_read_only),
            pct(self.friction, self.read_only),
        ]
    }
}

/// The engine's claim at `min` confidence (lower proposals count as unclassified).
pub fn engine_claim(inf: &Inference, min: Confidence) -> Claim {
    let kept = inf.confidence.is_some_and(|c| c >= min) && !inf.effects.is_empty();
    kept.then(|| inf.effects.is_read_only())
}

/// Read verbs the peer rules know: the plain reading's.
const PEER_READ: &[&str] = catalog_effects::classify::plain::READ_WORDS;
/// Change verbs the verb-anywhere peer knows.
const PEER_CHANGE: &[&str] = &[
    "create", "add", "insert", "update", "set", "put", "patch", "delete", "remove", "send", "post",
    "upload", "write", "save", "run", "execute", "start", "stop", "cancel", "move", "merge",
    "replace", "edit", "modify", "enable", "disable", "deploy", "trigger", "publish", "archive",
    "approve", "assign", "close", "import", "invite", "reset", "restore", "submit", "upsert",
    "purge", "revoke", "drop",
];

fn words(name: &str) -> Vec<String> {
    catalog_effects::text::words::tokens(name)
}

/// The peer rules, computed on the same rows in the same run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Peer {
    /// GET is read-only, any other method is not; nothing without a method.
    MethodTable,
    /// The plain reading: PUT, PATCH or DELETE change; a leading read verb reads; GET reads;
    /// otherwise change.
    LeadingVerb,
    /// The first known verb anywhere in the name decides; else by method.
    VerbAnywhere,
}

impl Peer {
    pub const ALL: [Peer; 3] = [Peer::MethodTable, Peer::LeadingVerb, Peer::VerbAnywhere];

    pub fn name(self) -> &'static str {
        match self {
            Peer::MethodTable => "method table",
            Peer::LeadingVerb => "leading verb",
            Peer::VerbAnywhere => "verb anywhere",
        }
    }

    pub fn claim(self, row: &Row, route: Route) -> Claim {
        let method = match route {
            Route::Backfill => row.method.as_str(),
            Route::Audit => "",
        };
        let by_method = || match method {
            "" => None,
            m => Some(m == "get" || m == "head"),
        };
        let w = words(&row.name);
        match self {
            Peer::MethodTable => by_method(),
            // The library's plain reading, so that the peer and what every departure is
            // measured against are one rule: PUT, PATCH or DELETE change, a leading read verb
            // reads, GET reads, otherwise change.
            Peer::LeadingVerb => {
                use catalog_effects::classify::plain::Method;
                let m = match method {
                    "" => Method::None,
                    "get" | "head" => Method::Get,
                    "put" | "patch" => Method::Put,
                    "delete" => Method::Delete,
                    _ => Method::Post,
                };
                Some(
                    catalog_effects::classify::plain::reading(&row.name, m).claim
                        == catalog_effects::classify::Claim::Read,
                )
            }
            Peer::VerbAnywhere => {
                for x in &w {
                    if PEER_READ.contains(&x.as_str()) {
                        return Some(true);
                    }
                    if PEER_CHANGE.contains(&x.as_str()) {
                        return Some(false);
                    }
                }
                Some(by_method().unwrap_or(false))
            }
        }
    }
}

/// How often claims of one confidence level were right.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Calibration {
    pub read_right: usize,
    pub read: usize,
    pub change_right: usize,
    pub change: usize,
}

impl Calibration {
    pub fn add(&mut self, truth: Option<bool>, claim: Claim) {
        let (Some(t), Some(c)) = (truth, claim) else {
            return;
        };
        if c {
            self.read += 1;
            self.read_right += usize::from(t);
        } else {
            self.change += 1;
            self.change_right += usize::from(!t);
        }
    }

    pub fn read_precision(&self) -> Option<f64> {
        (self.read > 0).then(|| self.read_right as f64 / self.read as f64)
    }
}

/// The confidence levels the figures are given for: every proposal, what the default patch
/// applies (medium and high), high only.
pub const LEVELS: [(Confidence, &str); 3] = [
    (Confidence::Low, "every proposal"),
    (Confidence::Medium, "default patch (medium+)"),
    (Confidence::High, "high only"),
];

/// All figures of a run, by set and route.
#[derive(Debug, Default)]
pub struct Report {
    pub engine: BTreeMap<(Set, Route, Confidence), Figures>,
    pub peers: BTreeMap<(Set, Route, Peer), Figures>,
    /// By set, route and exact confidence level.
    pub calibration: BTreeMap<(Set, Route, Confidence), Calibration>,
}

impl Report {
    pub fn of(outcomes: &[Outcome<'_>]) -> Report {
        let mut r = Report::default();
        for o in outcomes {
            let (set, route, truth) = (o.row.set, o.route, o.row.truth);
            for (level, _) in LEVELS {
                r.engine
                    .entry((set, route, level))
                    .or_default()
                    .add(truth, engine_claim(&o.inference, level));
            }
            for p in Peer::ALL {
                r.peers
                    .entry((set, route, p))
                    .or_default()
                    .add(truth, p.claim(o.row, route));
            }
            if let Some(c) = o.inference.confidence {
                r.calibration
                    .entry((set, route, c))
                    .or_default()
                    .add(truth, engine_claim(&o.inference, Confidence::Low));
            }
        }
        r
    }

    /// The tables as text: per set and route, the engine at each level beside the peers;
    /// then the calibration table.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let row = |s: &mut String, name: &str, f: &Figures| {
            let [c, u, fr] = f.cells();
            let _ = writeln!(s, "  {name:32} {c:>18} {u:>18} {fr:>18}");
        };
        for set in Set::ALL {
            for route in Route::ALL {
                let Some(f) = self.engine.get(&(set, route, Confidence::Low)) else {
                    continue;
                };
                let _ = writeln!(
                    s,
                    "\n{} through {} ({} rows)",
                    set.name(),
                    route.name(),
                    f.rows
                );
                let _ = writeln!(
                    s,
                    "  {:32} {:>18} {:>18} {:>18}",
                    "", "coverage", "unsafe", "friction"
                );
                for (level, name) in LEVELS {
                    row(
                        &mut s,
                        &format!("engine, {name}"),
                        &self.engine[&(set, route, level)],
                    );
                }
                for p in Peer::ALL {
                    row(
                        &mut s,
                        &format!("peer: {}", p.name()),
                        &self.peers[&(set, route, p)],
                    );
                }
            }
        }
        let _ = writeln!(
            s,
            "\ncalibration: how often claims of each confidence level were right"
        );
        let _ = writeln!(
            s,
            "  {:38} {:>8} {:>22} {:>22}",
            "set, route", "level", "read-only claims", "not-read-only claims"
        );
        for ((set, route, level), c) in self.calibration.iter().rev() {
            let pct = |n: usize, d: usize| {
                if d == 0 {
                    "-".to_owned()
                } else {
                    format!("{n}/{d} {:.2}%", 100.0 * n as f64 / d as f64)
                }
            };
            let _ = writeln!(
                s,
                "  {:38} {:>8} {:>22} {:>22}",
                format!("{}, {}", set.name(), route.name()),
                level.name(),
                pct(c.read_right, c.read),
                pct(c.change_right, c.change)
            );
        }
        s
    }
}

/// The targets at the default patch level: (set, route, unsafe at most, friction at
/// most, coverage at least).
pub const TARGETS: [(Set, Route, f64, f64, f64); 5] = [
    (Set::Openapi, Route::Backfill, 0.003, 0.025, 0.97),
    (Set::Google, Route::Backfill, 0.009, 0.06, 0.96),
    (Set::Graph, Route::Backfill, 0.002, 0.05, 0.97),
    (Set::Azure, Route::Audit, 0.015, 0.04, 0.95),
    (Set::Mcp, Route::Audit, 0.008, 0.12, 0.95),
];
