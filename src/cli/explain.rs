//! `explain` and `explain-code`: answer "why did it say write?" and "what does this code
//! mean?".

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use catalog_effects::classify::catalog::Did;
use catalog_effects::classify::evidence::{self, Source};
use catalog_effects::classify::index::Sym;
use catalog_effects::classify::plain::Agreement;
use catalog_effects::classify::{Claim, RuleSet, confidence};
use catalog_effects::error::{Error, Result, did_you_mean};
use catalog_effects::fix::options::Options;
use catalog_effects::lint::LintRules;
use catalog_effects::outcome::Place;
use catalog_effects::outcome::{ActionResult, FileResult};
use catalog_effects::view::{ActionView, Declared};

use super::config::Config;
use super::engine::EngineArgs;
use super::out::{self, EXIT_ERROR, EXIT_OK};

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  catalog-effects explain catalogs/demo crmly_update_contact\n  catalog-effects explain catalogs/demo update_contact --min-confidence high",
    mut_arg("min_confidence", |a| a.help(
        "The confidence a proposal needs to be patched: it decides the status shown (added, conflict or unclassified) [default: medium]"
    )),
    mut_arg("destructive_policy", |a| a.help("Which effects make destructiveHint true in the hints shown [default: delete]")),
    // One action explained prints no progress and needs no threads to choose.
    mut_arg("jobs", |a| a.hide(true)),
    mut_arg("quiet", |a| a.hide(true))
)]
pub struct ExplainArgs {
    /// The catalog directory.
    pub catalog: PathBuf,
    /// An actionId, or a tool name `<connector>_<actionId>`.
    pub action: String,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  catalog-effects explain-code missing-effects   # a `check` code\n  catalog-effects explain-code vague-verb        # a `lint` code\n\nAn unknown code is an error (exit 2) that lists the known ones."
)]
pub struct ExplainCodeArgs {
    /// A finding code, e.g. `missing-effects` or `vague-verb`.
    pub code: String,
}

pub fn run(mut args: ExplainArgs, config: &Config) -> Result<u8> {
    args.engine.apply(config);
    let mut opts = args.engine.options()?;
    // The patch shown is the one `backfill` would write with the configuration's hints.
    opts.hint_formats = super::hint_formats(config.hints.as_deref().unwrap_or_default());
    opts.keep_views = true;
    let run =
        match super::walk_or_refuse("explain", std::slice::from_ref(&args.catalog), &args.engine) {
            Ok(w) => w.collect(&opts),
            Err(code) => return Ok(code),
        };
    let errors = super::report_errors(&run, args.engine.quiet);
    let matches: Vec<(&FileResult, &ActionResult)> = run
        .actions()
        .filter(|(_, a)| a.id == args.action || a.tool_name() == args.action)
        .collect();
    if matches.is_empty() {
        let names: Vec<String> = run
            .actions()
            .flat_map(|(_, a)| [a.tool_name(), a.id.clone()])
            .collect();
        let msg = format!(
            "no action `{}` in {}{}",
            args.action,
            args.catalog.display(),
            did_you_mean(&args.action, names.iter().map(String::as_str))
        );
        return Err(Error::new(if errors > 0 {
            format!("{msg} (some files could not be read)")
        } else {
            msg
        }));
    }
    let mut text = String::new();
    for (f, a) in matches {
        text.push_str(&explain_one(f, a, &opts));
        text.push('\n');
    }
    out::print(&catalog_effects::text::safe::lines(&text));
    // A file it could not read may hold another action of that name, or the main file that
    // names its connector.
    Ok(if errors > 0 { EXIT_ERROR } else { EXIT_OK })
}

/// The most of an action's hunk `explain` prints. A hunk is a few lines of the file, but
/// a line of a minified document is the document: its hunk would be the file twice.
const HUNK_LIMIT: usize = 8_000;

/// Bytes of the line shown either side of an edit when its hunk is too long to print.
const EXCERPT: usize = 120;

fn explain_one(f: &FileResult, a: &ActionResult, opts: &Options) -> String {
    let mut s = String::new();
    let by = catalog_effects::outcome::by_operation(f);
    let place = Place::of(f, a, catalog_effects::outcome::inserted_of(&by, a));
    match &place {
        // Every operation of a minified document is on line 1: its method and path name it.
        Some(p) if f.shares_lines() => {
            let _ = writeln!(s, "{} ({}, {})", a.tool_name(), f.shown, p.operation);
        }
        _ => {
            let _ = writeln!(s, "{} ({}:{})", a.tool_name(), f.shown, a.line);
        }
    }
    if let Some(p) = &place {
        let _ = writeln!(
            s,
            "  operation: {} (JSON pointer {})",
            p.operation, p.pointer
        );
    }
    if let Some(v) = &a.view {
        view_section(&mut s, v);
        evidence_section(&mut s, v, f, &opts.rules);
        hints_section(&mut s, v, f, a, opts);
    }
    departure_section(&mut s, a, &opts.rules);
    confidence_section(&mut s, a, &opts.rules);
    catalog_section(&mut s, a, opts);
    let inf = &a.inference;
    let _ = writeln!(s, "\ndecision: {}", inf.reason(&opts.rules));
    let _ = writeln!(
        s,
        "inferred: [{}], confidence {}{}",
        inf.effects.joined(", "),
        inf.confidence.map_or("none", |c| c.name()),
        if inf.overwrites {
            ", overwrites existing data"
        } else {
            ""
        }
    );
    let declared = match &a.declared {
        Declared::None => "none".to_owned(),
        Declared::Valid(e) => format!("[{}]", e.joined(", ")),
        Declared::Invalid(why) => format!("invalid: {why}"),
    };
    let _ = writeln!(s, "declared: {declared}");
    let _ = writeln!(
        s,
        "status: {} (--min-confidence {})",
        a.status.name(),
        opts.min_confidence.name()
    );
    let h = &a.hints;
    let b = |v: Option<bool>| v.map_or("unset".to_owned(), |v| v.to_string());
    let _ = writeln!(
        s,
        "hints: readOnlyHint {}, destructiveHint {}, idempotentHint {}, openWorldHint {}, title {:?}",
        b(h.read_only),
        b(h.destructive),
        b(h.idempotent),
        b(h.open_world),
        h.title.as_deref().unwrap_or("")
    );
    if let Some(p) = place.as_ref().filter(|p| !p.change.is_empty()) {
        let _ = writeln!(s, "change: {}", p.change.join("; "));
    }
    let _ = writeln!(s, "\npatch for this action:");
    let mut edits: Vec<catalog_effects::model::edit::Edit> = a.edits().cloned().collect();
    edits.sort_by_key(catalog_effects::model::edit::Edit::order);
    match (edits.is_empty(), catalog_effects::source::read_text(&f.abs)) {
        (false, Ok(text)) => {
            let mut patch = String::new();
            catalog_effects::fix::patch::render_patch(&f.patch_path, &text, &edits, &mut patch);
            if patch.len() <= HUNK_LIMIT {
                s.push_str(&patch);
            } else {
                excerpts(&mut s, &text, &edits, patch.len());
            }
        }
        (false, Err(e)) => {
            let _ = writeln!(s, "  (cannot re-read the file: {e})");
        }
        (true, _) => {
            let _ = writeln!(s, "  (no change)");
        }
    }
    s
}

/// Each edit on the part of its line around it, before and after, where the hunk would be
/// longer than [`HUNK_LIMIT`] (the lines it shows whole are that long).
fn excerpts(s: &mut String, text: &str, edits: &[catalog_effects::model::edit::Edit], hunk: usize) {
    let _ = writeln!(
        s,
        "  (its hunk is {hunk} bytes: the lines it shows whole are that long; each edit is shown on the {EXCERPT} bytes either side of it, `--overlay` writes the change as an Overlay action)"
    );
    let bytes = text.as_bytes();
    for e in edits {
        let line = 1 + memchr::memchr_iter(b'\n', &bytes[..e.start]).count();
        let from = floor(text, e.start.saturating_sub(EXCERPT));
        let to = ceil(text, (e.end + EXCERPT).min(text.len()));
        let (before, after) = (&text[from..e.start], &text[e.end..to]);
        let (open, close) = (
            if from > 0 { "…" } else { "" },
            if to < text.len() { "…" } else { "" },
        );
        let _ = writeln!(s, "  line {line}, byte {}:", e.start + 1);
        let _ = writeln!(
            s,
            "  -{open}{before}{}{after}{close}",
            &text[e.start..e.end]
        );
        let _ = writeln!(s, "  +{open}{before}{}{after}{close}", e.text);
    }
}

/// The char boundary at or before `at`.
fn floor(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The char boundary at or after `at`.
fn ceil(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// What the rest of the catalog declares for the same verb, and what that did.
fn catalog_section(s: &mut String, a: &ActionResult, opts: &Options) {
    if !matches!(a.declared, Declared::None) {
        return;
    }
    if !opts.catalog_evidence {
        return;
    }
    let Some(v) = &a.inference.catalog else {
        return;
    };
    let set = &opts.rules;
    let _ = writeln!(s, "\ncatalog evidence: {}", v.sentence(set));
    let claim = match v.claim {
        Claim::Read => "read-only",
        Claim::Change => "a change",
    };
    // Declarations that echo the engine count toward the share, never the level.
    let echoes = v.side.rows - v.taught.rows;
    let taught = if echoes == 0 {
        String::new()
    } else {
        format!(
            " ({echoes} of them just what the engine proposes itself, which counts toward the share, not the level)"
        )
    };
    let _ = writeln!(
        s,
        "  the verb {}: {} of its {} declarations say {claim}, in {} connector{}{taught}; on their own they are {}",
        v.key.describe(set),
        v.side.rows,
        v.of,
        v.side.connectors,
        if v.side.connectors == 1 { "" } else { "s" },
        v.level.map_or_else(
            || "no evidence (too few, or they disagree: heuristics/catalog.tsv)".to_owned(),
            |l| format!("worth {l}")
        )
    );
    let before = format!(
        "[{}] {}",
        v.before.joined(", "),
        v.before_confidence.map_or("none", |c| c.name())
    );
    let did = match v.did {
        Did::Nothing => {
            format!("it changes nothing: the engine proposed {before}")
        }
        Did::Raised => {
            format!("it agrees with the engine's {before}, and raises its confidence")
        }
        Did::Adopted => {
            format!("it agrees with the engine's claim ({before}), and its effects are taken")
        }
        Did::Overruled => format!(
            "it says change where the engine read ({before}): the change is proposed, at most medium"
        ),
        Did::Lowered => format!(
            "it disagrees with the engine's {before} and cannot overrule it (a read is never proposed against evidence of change, nor from declarations that disagree): the confidence goes down"
        ),
    };
    let _ = writeln!(s, "  {did}");
}

/// What was read from the action, as `decide.rs` weighs it.
// Long because it writes every kind of evidence's English itself; it goes once one module
// renders the explanation for every output.
#[allow(clippy::too_many_lines)]
fn evidence_section(s: &mut String, v: &ActionView, f: &FileResult, set: &RuleSet) {
    let lex = &set.lexicon;
    let ev = evidence::gather(v, &f.group, set);
    let _ = writeln!(s, "\nevidence:");
    if let Some(p) = &f.group.prefix {
        let _ = writeln!(s, "  the file's names share the prefix `{p}`: skipped");
    }
    let _ = writeln!(
        s,
        "  the file's names put their verb {} (names without a plain verb are read that way)",
        match f.group.style {
            catalog_effects::classify::name::Position::First => "first",
            catalog_effects::classify::name::Position::Middle => "after the resource",
            catalog_effects::classify::name::Position::Last => "last",
        }
    );
    for src in Source::ALL {
        if let Some(verb) = ev.verb(src) {
            let sense = lex.sense(verb.sense);
            let prose = matches!(src, Source::Label | Source::Description);
            let _ = writeln!(
                s,
                "  verb of the {}: `{}` ({}: {}){}{}; {}",
                src.name(),
                lex.word(verb.sym),
                sense.id,
                sense.effect,
                if verb.inflected { ", inflected" } else { "" },
                if verb.noun {
                    ", also a common noun"
                } else {
                    ""
                },
                word_record(set, verb.sym, prose, sense.effect.is_read_only()),
            );
        }
    }
    if let Some(w) = ev.method_word {
        let _ = writeln!(
            s,
            "  the name opens with `{}`, the HTTP method restated: no verb of its own",
            lex.word(w.sym)
        );
    }
    if let Some(o) = ev.object {
        let obj = &lex.objects[o.object];
        let _ = writeln!(
            s,
            "  object `{}` ({}: implies {}): {}",
            lex.word(o.word),
            obj.id,
            obj.implies,
            obj.why
        );
    }
    if let Some(c) = ev.conjoined {
        let _ = writeln!(s, "  a change after a conjunction: `{}`", lex.word(c.sym));
    }
    if let Some(c) = ev.name_change {
        let _ = writeln!(
            s,
            "  a change verb where a name puts its verb (first or last word): `{}`",
            lex.word(c.sym)
        );
    }
    if ev.named {
        let _ = writeln!(
            s,
            "  the URL's last segment names the operation: a POST says nothing on its own there"
        );
    }
    let _ = writeln!(
        s,
        "  HTTP: {}{}",
        ev.method.name(),
        if ev.rpc_style {
            " (RPC-style: the URL or SOAP call names the operation)"
        } else {
            ""
        }
    );
    if ev.get_after_post {
        let _ = writeln!(
            s,
            "  its last call is a GET after a POST of its own: the POST prepares it, and says nothing against a read (every labelled record of a method is of one call)"
        );
    }
    if ev.sign_in_steps > 0 {
        let calls: Vec<String> = catalog_effects::classify::evidence::sign_in_calls(v, set)
            .into_iter()
            .map(|i| {
                let st = &v.steps[i];
                format!(
                    "{} {}",
                    st.method.as_deref().unwrap_or("").to_uppercase(),
                    st.url.as_deref().unwrap_or("")
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "  left out: {} (a POST that only signs in before a later call: its URL ends in a `sign_in` word of heuristics/words.yaml): how the action authenticates, not what it does",
            catalog_effects::text::safe::line(&calls.join(", "))
        );
    }
    if !v.scopes.is_empty() {
        use catalog_effects::classify::rules::{ScopeGrant, scope_grant};
        let said = match scope_grant(&v.scopes, lex) {
            Some(ScopeGrant::ReadOnly) => "a way to call it needs only scopes that read",
            Some(ScopeGrant::Write) => {
                "every way to call it needs a scope that writes, which alone is no change: real documents ask one of reads too (heuristics/effects.yaml)"
            }
            None => {
                "no way to call it needs only scopes that read, nor does every way need one that writes: they say nothing"
            }
        };
        let _ = writeln!(s, "  scopes: {said}");
    }
    if ev.fired.is_empty() {
        let _ = writeln!(s, "  rules that hold: none");
    }
    for &i in &ev.fired {
        let r = &set.rules[i];
        let _ = writeln!(
            s,
            "  rule {} -> {} [{}]: {}",
            r.id,
            r.effect,
            r.weight.name(),
            r.why
        );
    }
}

/// The hints the action declares, and what they are to the decision: in a connector file a
/// person's claim, which is evidence; in an OpenAPI document what an MCP generator reads,
/// which the engine never weighs, and which `--hints` itself writes from the effects
/// (after its own patch was applied, `explain` called those "a person's claim").
fn hints_section(s: &mut String, v: &ActionView, f: &FileResult, a: &ActionResult, opts: &Options) {
    let Some(h) = &v.annotations else {
        return;
    };
    let openapi = {
        use catalog_effects::source::kind::Source;
        catalog_effects::source::of_file(&f.rel).name()
            == catalog_effects::source::openapi::OpenApi.name()
    };
    let derived = a.declared.valid().map(|e| {
        catalog_effects::effects::derive_hints(e, None, None, opts.policy, a.inference.overwrites)
    });
    for (key, value, from_effects) in [
        (
            "readOnlyHint",
            h.read_only,
            derived.as_ref().and_then(|d| d.read_only),
        ),
        (
            "destructiveHint",
            h.destructive,
            derived.as_ref().and_then(|d| d.destructive),
        ),
    ] {
        let Some(b) = value else { continue };
        let line = match (openapi, from_effects) {
            (false, _) => format!(
                "declared in the catalog: {key}: {b} (a person's claim: it decides unless strong evidence says change)"
            ),
            (true, Some(d)) if d == b => format!(
                "in a generator's map: {key}: {b} (what its declared effects derive, as `--hints` writes it: what the generator reads, never evidence)"
            ),
            (true, Some(_)) => format!(
                "in a generator's map: {key}: {b} (not what its declared effects derive: an override the generator reads, never evidence; `check` reports a read-only one on a change)"
            ),
            (true, None) => format!(
                "in a generator's map: {key}: {b} (what the generator reads, never evidence: declare the effects and `check` compares them)"
            ),
        };
        let _ = writeln!(s, "  {line}");
    }
}

/// How often a verb's sense held wherever the word was a verb, whatever the method:
/// "read-only in N of M labelled operations, P of Q providers". A read word has no record of
/// every position (its own is its position's): its two are summed.
fn word_record(set: &RuleSet, word: Sym, prose: bool, read_only: bool) -> String {
    let mut c = confidence::Count::default();
    // A provider seen under two methods or positions counts twice here: an upper bound, said
    // so.
    let mut add = |n: confidence::Count| {
        c.held += n.held;
        c.of += n.of;
        c.providers += n.providers;
        c.providers_held += n.providers_held;
    };
    for agreement in Agreement::ALL {
        let key = |first| confidence::Key::Word {
            prose,
            word,
            first,
            agreement,
        };
        let every = set.measured.get(&key(None));
        if every.of > 0 {
            add(every);
        } else {
            add(set.measured.get(&key(Some(true))));
            add(set.measured.get(&key(Some(false))));
        }
    }
    let what = if read_only {
        "read-only"
    } else {
        "not read-only"
    };
    match c.of {
        0 => "never seen in the labelled operations".to_owned(),
        n => format!(
            "{what} in {} of {n} labelled operations (in {} of at most {} providers)",
            c.held, c.providers_held, c.providers
        ),
    }
}

/// The measured counts behind the confidence: the evidence's own records, most specific
/// first, the records it is pooled into, and what agreeing evidence is worth.
/// What the name and method plainly say, and the departure that moved the proposal off
/// it, with the departure's record against the plain reading.
fn departure_section(s: &mut String, a: &ActionResult, set: &RuleSet) {
    use catalog_effects::classify::departure;
    let inf = &a.inference;
    let Some(plain) = inf.plain else { return };
    let claim = match plain.claim {
        Claim::Read => "read-only",
        Claim::Change => "a change",
    };
    let _ = writeln!(s, "\nplain reading: {claim} ({})", plain.line.name());
    let Some(d) = departure::considered(inf) else {
        let _ = writeln!(s, "departure: none; the engine reads it the same way");
        return;
    };
    let id = d.id(set);
    let stood = departure::of(inf, catalog_effects::classify::Confidence::Medium) == Some(d);
    let how = if !departure::kept(d, set) {
        "not made: its record against the plain reading does not pay for it"
    } else if stood {
        "it stands"
    } else {
        "too weak to stand on its record: the plain reading is proposed"
    };
    let _ = writeln!(s, "departure: {id}, {how}");
    let records = set
        .departures
        .records
        .get(&id)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    if records.is_empty() {
        let _ = writeln!(s, "  no record on the labelled sets (it never fired there)");
        return;
    }
    let (f, w, l, r) = records.iter().fold((0, 0, 0, 0), |t, x| {
        (t.0 + x.fires, t.1 + x.wins, t.2 + x.losses, t.3 + x.right)
    });
    let _ = writeln!(
        s,
        "  its record against the plain reading, leave-one-provider-out: fired {f} times, {w} wins, {l} losses, right {r} of {f} (heuristics/departures.tsv)"
    );
    for x in records {
        let _ = writeln!(
            s,
            "    {}, {} ({}): fired {}, {} wins, {} losses",
            x.set, x.route, x.toward, x.fires, x.wins, x.losses
        );
    }
}

fn confidence_section(s: &mut String, a: &ActionResult, set: &RuleSet) {
    let (Some(d), Some(j)) = (&a.inference.decision, &a.inference.judgement) else {
        return;
    };
    let held = match d.claim {
        Claim::Read => "read-only",
        Claim::Change => "not read-only",
    };
    if d.basis == catalog_effects::classify::decide::Basis::Declared {
        let _ = writeln!(
            s,
            "\nconfidence {}: a hint declared in the catalog, taken at a person's word (no strong evidence says change)",
            j.confidence
        );
        return;
    }
    let _ = writeln!(
        s,
        "\nconfidence {} from the labelled operations of heuristics/labelled (* set it; a record speaks for itself from {} providers):",
        j.confidence,
        confidence::PROVIDERS
    );
    if let Some(r) = &a.inference.overruled {
        let _ = writeln!(
            s,
            "  the reading it was weighed against was {}: {}",
            set.measured.judge(&confidence::chain(r)).confidence,
            r.deciding
                .iter()
                .map(|&x| set.ref_id(x))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    // Where the plain reading's record set the level of the engine's agreeing reading, it is
    // listed with the engine's own.
    let mut keys: Vec<confidence::Key> = confidence::chain(d).into_iter().collect();
    if !keys.contains(&j.key) {
        keys.insert(0, j.key);
    }
    for key in keys {
        let c = set.measured.get(&key);
        let mark = if key == j.key { "*" } else { " " };
        let stats = if c.of == 0 {
            "never seen".to_owned()
        } else {
            let (p, lo, hi) = c.bounds();
            format!(
                "{held} in {} of {} labelled operations, {} of {} providers ({:.1}%; {:.1}-{:.1}% with 95% confidence)",
                c.held,
                c.of,
                c.providers_held,
                c.providers,
                100.0 * p,
                100.0 * lo,
                100.0 * hi
            )
        };
        let _ = writeln!(s, "  {mark} {}: {stats}", key.describe(set));
    }
}

fn view_section(s: &mut String, v: &ActionView) {
    let _ = writeln!(s, "  label: {}", v.label.as_deref().unwrap_or("-"));
    if let Some(d) = &v.description {
        let first = catalog_effects::classify::signals::first_sentence(d);
        let _ = writeln!(s, "  description: {first}");
    }
    if let Some(t) = &v.action_type {
        let _ = writeln!(s, "  actionType: {t}");
    }
    for (i, st) in v.steps.iter().enumerate() {
        let mut parts = Vec::new();
        if let Some(f) = &st.function {
            parts.push(f.clone());
        }
        if let Some(m) = &st.method {
            parts.push(m.to_ascii_uppercase());
        }
        if let Some(u) = &st.url {
            parts.push(u.clone());
        }
        if let Some(o) = &st.soap_operation {
            parts.push(format!("soapOperation {o}"));
        }
        let _ = writeln!(s, "  step {}: {}", i + 1, parts.join(" "));
    }
    if !v.inputs.is_empty() {
        let names: Vec<&str> = v.inputs.iter().map(|i| i.name.as_str()).collect();
        let _ = writeln!(s, "  inputs: {}", names.join(", "));
    }
    if !v.scopes.is_empty() {
        let ways: Vec<String> = v.scopes.iter().map(|w| w.join(" + ")).collect();
        let _ = writeln!(s, "  scopes: {}", ways.join(" or "));
    }
}

pub fn run_code(args: ExplainCodeArgs) -> Result<u8> {
    if let Some(text) = catalog_effects::model::codes::explain_check_code(&args.code) {
        out::print(&format!("{}: {text}\n", args.code));
        return Ok(EXIT_OK);
    }
    let lint = LintRules::builtin()?;
    if let Some(rule) = lint.explain(&args.code) {
        out::print(&format!(
            "{} ({}): {}\nsuggestion: {}\n",
            rule.code, rule.severity, rule.why, rule.suggestion
        ));
        return Ok(EXIT_OK);
    }
    let mut codes: Vec<&str> = catalog_effects::model::codes::CHECK_CODES
        .iter()
        .map(|c| c.0)
        .collect();
    // `unused-silence` is a code of both commands: listed once.
    for c in lint.codes() {
        if !codes.contains(&c) {
            codes.push(c);
        }
    }
    out::error(&format!(
        "unknown code `{}`{}; known codes: {}",
        args.code,
        did_you_mean(&args.code, codes.iter().copied()),
        codes.join(", ")
    ));
    Ok(EXIT_ERROR)
}
