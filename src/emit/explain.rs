//! What `explain` prints of one action: the view read, the evidence, the plain reading and
//! the departure (with the reader that settled it), the records behind the confidence, the
//! catalog's vote, the decision, the hints and the action's patch. The explanation is
//! classify's ([`classify::explain`]); this is where it is put in words.

use std::fmt::Write as _;

use crate::classify::departure::Departure;
use crate::classify::explanation::{Explanation, Verdict};
use crate::classify::name::Position;
use crate::classify::record::{Count, PROVIDERS};
use crate::classify::rules::ScopeGrant;
use crate::classify::vote::{Did, Vote};
use crate::classify::{self, Claim, Evidence, RuleSet};
use crate::fix::options::Options;
use crate::outcome::{ActionResult, FileResult, Place};
use crate::text::safe;
use crate::view::{ActionView, Declared};

/// The most of an action's hunk `explain` prints. A hunk is a few lines of the file, but
/// a line of a minified document is the document: its hunk would be the file twice.
const HUNK_LIMIT: usize = 8_000;

/// Bytes of the line shown either side of an edit when its hunk is too long to print.
const EXCERPT: usize = 120;

/// What `explain` prints of action `a` of file `f`, the run made with `opts`.
pub fn action(f: &FileResult, a: &ActionResult, opts: &Options) -> String {
    let mut s = String::new();
    let by = crate::outcome::by_operation(f);
    let place = Place::locate(f, a, crate::outcome::inserted_of(&by, a));
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
    let set = &opts.rules;
    // The run keeps its views for `explain`; without one there is nothing to read again.
    if let Some(v) = &a.view {
        let e = classify::explain(v, &f.group, set, &a.inference, a.vote.as_deref());
        view_section(&mut s, v);
        evidence_section(&mut s, v, f, &e, set);
        hints_section(&mut s, v, f, a, opts);
        departure_section(&mut s, &e);
        confidence_section(&mut s, a, &e, set);
        catalog_section(&mut s, a, &e, opts);
    }
    let inf = &a.inference;
    let _ = writeln!(
        s,
        "\ndecision: {}",
        inf.reason(a.vote.as_deref(), &opts.rules)
    );
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
    patch_section(&mut s, f, a);
    s
}

/// The action's own hunks of the patch, read against the file as it is now.
fn patch_section(s: &mut String, f: &FileResult, a: &ActionResult) {
    let _ = writeln!(s, "\npatch for this action:");
    let mut edits: Vec<crate::model::edit::Edit> = a.edits().cloned().collect();
    edits.sort_by_key(crate::model::edit::Edit::order);
    match (edits.is_empty(), crate::source::read_text(&f.abs)) {
        (false, Ok(text)) => {
            let mut patch = String::new();
            crate::fix::patch::render_patch(&f.patch_path, &text, &edits, &mut patch);
            if patch.len() <= HUNK_LIMIT {
                s.push_str(&patch);
            } else {
                excerpts(s, &text, &edits, patch.len());
            }
        }
        (false, Err(e)) => {
            let _ = writeln!(s, "  (cannot re-read the file: {e})");
        }
        (true, _) => {
            let _ = writeln!(s, "  (no change)");
        }
    }
}

/// Each edit on the part of its line around it, before and after, where the hunk would be
/// longer than [`HUNK_LIMIT`] (the lines it shows whole are that long).
fn excerpts(s: &mut String, text: &str, edits: &[crate::model::edit::Edit], hunk: usize) {
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
fn catalog_section(s: &mut String, a: &ActionResult, e: &Explanation, opts: &Options) {
    if !matches!(a.declared, Declared::None) {
        return;
    }
    if !opts.catalog_evidence {
        return;
    }
    let Some(v) = &e.vote else {
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
    let _ = writeln!(s, "  {}", vote_did(v));
}

/// What a vote did to the engine's proposal, in a sentence.
fn vote_did(v: &Vote) -> String {
    let before = format!(
        "[{}] {}",
        v.before.joined(", "),
        v.before_confidence.map_or("none", |c| c.name())
    );
    match v.did {
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
    }
}

/// What was read from the action, as `decide.rs` weighs it.
fn evidence_section(
    s: &mut String,
    v: &ActionView,
    f: &FileResult,
    e: &Explanation,
    set: &RuleSet,
) {
    let lex = &set.lexicon;
    let ev = &e.evidence;
    let _ = writeln!(s, "\nevidence:");
    if let Some(p) = &f.group.prefix {
        let _ = writeln!(s, "  the file's names share the prefix `{p}`: skipped");
    }
    let _ = writeln!(
        s,
        "  the file's names put their verb {} (names without a plain verb are read that way)",
        match f.group.style {
            Position::First => "first",
            Position::Middle => "after the resource",
            Position::Last => "last",
        }
    );
    for &(at, verb, count) in &e.verbs {
        let sense = lex.sense(verb.sense);
        let _ = writeln!(
            s,
            "  verb of the {}: `{}` ({}: {}){}{}; {}",
            at.name(),
            lex.word(verb.sym),
            sense.id,
            sense.effect,
            if verb.inflected { ", inflected" } else { "" },
            if verb.noun {
                ", also a common noun"
            } else {
                ""
            },
            word_record(count, sense.effect.is_read_only()),
        );
    }
    beside_the_verb(s, ev, set);
    calls(s, v, e);
    if let Some(grant) = e.scopes {
        let said = match grant {
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

/// What sits beside the name's verb: the method restated, an object, a conjunction, a
/// change verb elsewhere.
fn beside_the_verb(s: &mut String, ev: &Evidence, set: &RuleSet) {
    let lex = &set.lexicon;
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
}

/// What the action's calls say: the URL naming the operation, the method, a GET after a
/// POST, the steps that only sign in.
fn calls(s: &mut String, v: &ActionView, e: &Explanation) {
    let ev = &e.evidence;
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
    if !e.sign_in.is_empty() {
        let calls: Vec<String> = e
            .sign_in
            .iter()
            .map(|&i| {
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
            safe::line(&calls.join(", "))
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
        use crate::source::kind::Source;
        crate::source::of_file(&f.rel).name() == crate::source::openapi::OpenApi.name()
    };
    let derived = a
        .declared
        .valid()
        .map(|e| crate::effects::derive_hints(e, None, None, opts.policy, a.inference.overwrites));
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
/// "read-only in N of M labelled operations, P of Q providers".
fn word_record(c: Count, read_only: bool) -> String {
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

/// What the name and method plainly say, and the departure that moved the proposal off
/// it, with the departure's record against the plain reading.
fn departure_section(s: &mut String, e: &Explanation) {
    let Some(plain) = e.plain else { return };
    let claim = match plain.claim {
        Claim::Read => "read-only",
        Claim::Change => "a change",
    };
    let _ = writeln!(s, "\nplain reading: {claim} ({})", plain.line.name());
    // Which of `departure::settle`'s readers spoke: the departure's verdict below is read
    // from the proposal, this is what chose it.
    let settled = e.reader.map_or(String::new(), |r| {
        format!("\n  settled by: {r} (the first of departure::settle's readers that spoke)")
    });
    let Some(d) = &e.departure else {
        let _ = writeln!(
            s,
            "departure: none; the engine reads it the same way{settled}"
        );
        return;
    };
    let how = match d.verdict {
        Verdict::NotMade => "not made: its record against the plain reading does not pay for it",
        // A hold that stands proposes nothing: it leaves the action to a person.
        Verdict::Stands if matches!(d.departure, Departure::Hold(_)) => {
            "it stands: held for a person"
        }
        Verdict::Stands => "it stands",
        Verdict::TooWeak => "too weak to stand on its record: the plain reading is proposed",
    };
    let _ = writeln!(s, "departure: {}, {how}{settled}", d.id);
    if d.records.is_empty() {
        let _ = writeln!(s, "  no record on the labelled sets (it never fired there)");
        return;
    }
    let (f, w, l, r) = d.records.iter().fold((0, 0, 0, 0), |t, x| {
        (t.0 + x.fires, t.1 + x.wins, t.2 + x.losses, t.3 + x.right)
    });
    let _ = writeln!(
        s,
        "  its record against the plain reading, leave-one-provider-out: fired {f} times, {w} wins, {l} losses, right {r} of {f} (heuristics/departures.tsv)"
    );
    for x in &d.records {
        let _ = writeln!(
            s,
            "    {}, {} ({}): fired {}, {} wins, {} losses",
            x.set, x.route, x.toward, x.fires, x.wins, x.losses
        );
    }
}

/// The measured counts behind the confidence: the evidence's own records, most specific
/// first, the records it is pooled into, and what agreeing evidence is worth.
fn confidence_section(s: &mut String, a: &ActionResult, e: &Explanation, set: &RuleSet) {
    let (Some(d), Some(j)) = (&a.inference.decision, &a.inference.judgement) else {
        return;
    };
    let held = match d.claim {
        Claim::Read => "read-only",
        Claim::Change => "not read-only",
    };
    let Some(r) = &e.records else {
        let _ = writeln!(
            s,
            "\nconfidence {}: a hint declared in the catalog, taken at a person's word (no strong evidence says change)",
            j.confidence
        );
        return;
    };
    let _ = writeln!(
        s,
        "\nconfidence {} from the labelled operations of heuristics/labelled (* set it; a record speaks for itself from {} providers):",
        j.confidence, PROVIDERS
    );
    if let Some((level, deciding)) = &r.weighed {
        let ids: Vec<&str> = deciding.iter().map(|&x| set.ref_id(x)).collect();
        let _ = writeln!(
            s,
            "  the reading it was weighed against was {level}: {}",
            ids.join(", ")
        );
    }
    for &(key, c) in &r.chain {
        let mark = if key == r.set_by { "*" } else { " " };
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
        let first = crate::classify::signals::first_sentence(d);
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
