//! Classify: propose an action's effects, with a confidence and the reasons, so every
//! proposal can be explained. The plain reading, then the departures, then the confidence:
//!
//! 1. [`plain`]: what the name and method plainly say (PUT, PATCH or DELETE change; a name
//!    that opens with a read verb reads; GET reads; otherwise a change), read past the
//!    prefix the group's names share. Every proposal starts there.
//! 2. The engine's own reading: [`evidence`] gathers what the action says (the verb of its
//!    name where its naming culture puts it, [`name`]; of the operation, label, path and
//!    description; what sits beside the verb; the HTTP methods; the rules of
//!    `heuristics/effects.yaml` that hold, [`rules`]; what words mean, [`lexicon`]), and
//!    [`decide`] reads one claim from it in a fixed order.
//! 3. [`departure`]: the readers that settle the two (`departure::settle`), each a named
//!    departure of `heuristics/departures.yaml` with its record against the plain reading:
//!    a hold where a POST says nothing, the engine's reading where its record is sure
//!    enough, else the plain reading, never the opposite claim of a reading too weak.
//! 4. [`confidence`]: how sure, from how often each piece of evidence held on the labelled
//!    sets, in rows and in providers (`heuristics/measured.tsv`).
//!
//! [`catalog`] weighs the catalog's own declarations; [`index`] holds the word-to-number
//! maps that make the lookups fast, and [`signals`] the tokenizer; nothing there decides.
//!
//! This file is the face, and the only file that calls the stages: [`classify`] (and
//! [`infer_in`] for a server's tools) for the run, [`explain`] for a reviewer. Below the
//! stages sit the vocabulary they hand each other ([`reading`], [`vote`]), what classify
//! knows ([`known`], [`record`]) and the words it is told in ([`terms`], [`plain`]); the
//! English is [`say`]'s. docs/architecture.md draws the floors.

// Bottom to top; each floor imports only the floors below it (tests/layering.rs). Tools,
// which know nothing of effects:
mod example;
mod index;
pub mod signals;

// The words a reading is told in, and the plain reading, which every later stage speaks in:
pub mod plain;
pub mod terms;

// What classify knows: the lexicon, the rules, the records; loaded, running nothing:
mod known;
mod lexicon;
pub mod name;
pub mod record;
pub mod rules;

// The vocabulary of a reading, which the stages hand each other:
pub mod reading;
pub mod vote;

// The stages (evidence, decide, confidence, departure, then the catalog's vote):
pub mod catalog;
pub mod confidence;
mod decide;
pub mod departure;
mod evidence;

// What the face hands a reviewer, and the English of every decision:
pub mod explanation;
mod say;

use std::path::Path;

use crate::error::{Error, Result};
use crate::view::ActionView;
pub use evidence::Evidence;
pub use example::Examples;
pub use explanation::Explanation;
pub use known::{BUILTIN, RuleSet};
pub use lexicon::Lexicon;
pub use name::Group;
pub use plain::Claim;
pub use reading::{Basis, Decision, Held, Inference, Judgement};
pub use record::Measured;
pub use rules::{Rule, Weight};
pub use terms::{Confidence, Ref};
pub use vote::Vote;

impl RuleSet {
    /// Built-in heuristics plus every `*.yaml` file in `dir`: a rule, sense or object with a
    /// built-in id replaces it, others are added, a word listed in a user sense moves there.
    pub fn with_user_dir(dir: &Path) -> Result<RuleSet> {
        let user = rules::user_files(dir)?;
        let set = RuleSet::load(
            BUILTIN
                .iter()
                .map(|(f, t)| (f.to_string(), t.to_string()))
                .chain(user),
        )?;
        // A user's examples are their tests, and nothing else runs them: an entry that does
        // not do what its examples say would decide proposals nobody meant, so it is refused
        // before anything is read. Built-in examples are `cargo test`'s; a user's words may
        // legitimately change what they show.
        let failures = set.check_examples_of(&|file| BUILTIN.iter().all(|(b, _)| *b != file));
        if !failures.is_empty() {
            return Err(Error::new(format!(
                "invalid heuristics: {} example(s) do not hold:\n  {}",
                failures.len(),
                failures.join("\n  ")
            )));
        }
        Ok(set)
    }

    /// Runs the examples of every rule, sense, object and departure; one message per
    /// example that does not behave.
    pub fn check_examples(&self) -> Vec<String> {
        let mut failures = self.check_examples_of(&|_| true);
        failures.extend(check_departure_examples(self));
        failures
    }

    /// The same, for the entries of the files `accepts` takes.
    fn check_examples_of(&self, accepts: &dyn Fn(&str) -> bool) -> Vec<String> {
        let mut failures = Vec::new();
        let mut check =
            |file: &str,
             what: &str,
             id: &str,
             ex: &example::Examples,
             holds: &dyn Fn(&Evidence, Option<&Decision>) -> bool| {
                if !accepts(file) {
                    return;
                }
                let wrong = ex.misbehaving(|want, e| {
                    let ev = evidence::gather(&e.view(), &Group::single(), self);
                    let d = decide::decide(&ev, self);
                    holds(&ev, d.as_ref()) == want
                });
                for (want, _, e) in wrong {
                    let how = if want {
                        "should match"
                    } else {
                        "should not match"
                    };
                    failures.push(format!("{file}: {what} `{id}`: example {how}: {e}"));
                }
            };
        for (i, r) in self.rules.iter().enumerate() {
            check(&r.file, "rule", &r.id, &r.examples, &|ev, _| {
                ev.fired.contains(&i)
            });
        }
        for (i, s) in self.lexicon.senses.iter().enumerate() {
            let i = i as u8;
            check(&s.file, "sense", &s.id, &s.examples, &|_, d| {
                d.and_then(|d| d.verb).is_some_and(|(_, v)| v.sense == i)
            });
        }
        for (i, o) in self.lexicon.objects.iter().enumerate() {
            check(&o.file, "object", &o.id, &o.examples, &|ev, _| {
                ev.object.is_some_and(|h| h.object == i)
            });
        }
        failures
    }
}

/// The inference for a catalog action (the hints it declares are evidence, as in
/// [`infer_declared_in`]), with what the rest of the catalog declares, and beside it the
/// catalog's vote where one was cast: the function every command uses for catalog actions.
/// `votes` is `None` with `--no-catalog-evidence`.
pub fn classify(
    view: &ActionView,
    group: &Group,
    set: &RuleSet,
    votes: Option<&catalog::Votes>,
) -> (Inference, Option<Box<Vote>>) {
    let inf = infer_declared_in(view, group, set);
    match votes {
        Some(v) if !v.is_empty() => v.apply(view, inf),
        _ => (inf, None),
    }
}

/// Why the run proposed `inf` for `view` of `group`, with the catalog's `vote` beside it:
/// read again, only when asked, so the run's cost does not carry it.
pub fn explain(
    view: &ActionView,
    group: &Group,
    set: &RuleSet,
    inf: &Inference,
    vote: Option<&Vote>,
) -> Explanation {
    let (_, ev, reader) = infer_gathered(view, group, set);
    explanation::build(view, set, inf, vote, ev, reader)
}

/// The inference for an action read alone (no other names to learn the naming style from).
pub fn infer(view: &ActionView, set: &RuleSet) -> Inference {
    infer_in(view, &Group::single(), set)
}

/// The inference for an action of `group` (the actions of its file, or the tools of its
/// server).
// Not inlined: one call per action costs nothing, and profiles then show classification
// as one figure.
#[inline(never)]
pub fn infer_in(view: &ActionView, group: &Group, set: &RuleSet) -> Inference {
    infer_gathered(view, group, set).0
}

/// [`infer_in`], and the evidence it read (its rules moved into the inference), for what
/// weighs a person's hint against it, and the departure reader that settled it (`None`:
/// nothing to settle).
fn infer_gathered(
    view: &ActionView,
    group: &Group,
    set: &RuleSet,
) -> (Inference, Evidence, Option<&'static str>) {
    let mut ev = evidence::gather(view, group, set);
    // The plain reading of the name as written, which every departure is counted against;
    // and of the name past its group's prefix, which the proposal starts from (a service
    // or connector prefix says nothing of the call: `crmly_list_leads` lists).
    let mut plain = plain::reading(&view.id, ev.method);
    plain.agreement = ev.agreement(plain.claim);
    if plain.line == plain::Line::LeadingRead {
        plain.word = plain::leading_read(&view.id).and_then(|w| set.lexicon.sym(w));
    }
    let mut base = plain::given(ev.leads_with_read.is_some(), ev.method);
    base.agreement = ev.agreement(base.claim);
    if base.line == plain::Line::LeadingRead {
        base.word = ev.leads_with_read.flatten();
    }
    let engine = decide::decide(&ev, set);
    // Nothing read and no call: the plain reading's last line rests on nothing, and no
    // effect could be proposed without a guess (`static_values`, a tool named by a noun).
    if engine.is_none() && ev.method == plain::Method::None {
        let fired = std::mem::take(&mut ev.fired);
        let inference = Inference {
            fired,
            plain: Some(plain),
            prefixed: ev.prefixed,
            ..Inference::default()
        };
        return (inference, ev, None);
    }
    let settled = departure::settle(base, engine, &ev, group.post, set);
    let reader = settled.reader;
    let (d, judgement, other) = (settled.decision, settled.judgement, settled.other);
    let fired = std::mem::take(&mut ev.fired);
    let inference = Inference {
        effects: d.effects,
        confidence: Some(judgement.confidence),
        overwrites: d.overwrites,
        fired,
        decision: Some(d),
        judgement: Some(judgement),
        overruled: other.map(Box::new),
        plain: Some(plain),
        prefixed: ev.prefixed,
    };
    (inference, ev, Some(reader))
}

/// The inference for a catalog action, where a hint a person declared
/// (`annotations: {readOnlyHint: true}` or `{destructiveHint: true}`) is evidence: a
/// read-only hint proposes a read with high confidence unless strong evidence says change
/// (which then stands, and `check` names both); a destructive hint proposes a delete where
/// nothing says change. An MCP server's own hints are not evidence: `audit` judges them.
pub fn infer_declared_in(view: &ActionView, group: &Group, set: &RuleSet) -> Inference {
    let (inf, ev, _) = infer_gathered(view, group, set);
    let Some(hints) = &view.annotations else {
        return inf;
    };
    let d = inf.decision.as_ref();
    let take = match (hints.read_only, hints.destructive) {
        // A hint that says both contradicts itself: it is no evidence.
        (Some(true), Some(true)) => false,
        // A read the evidence already proposes needs no hint to stand on.
        (Some(true), _) => {
            let changes = d.is_some_and(|d| decide::strong_change(d, set));
            let reads =
                d.is_some_and(|d| d.claim == Claim::Read) && inf.confident(Confidence::Medium);
            !changes && !reads
        }
        (_, Some(true)) => {
            d.is_none_or(|d| d.claim == Claim::Read) && inf.confidence != Some(Confidence::High)
        }
        _ => false,
    };
    if !take {
        return inf;
    }
    let read_only = hints.read_only == Some(true);
    // A search overruled by its POST is still the search the hint confirms.
    let decision = decide::declared(inf.overruled.as_deref().or(d), &ev, read_only);
    let judgement = Judgement {
        confidence: Confidence::High,
        key: record::Key::Declared,
        count: record::Count::default(),
        raised: false,
        held: None,
    };
    Inference {
        effects: decision.effects,
        confidence: Some(Confidence::High),
        overwrites: false,
        fired: inf.fired,
        decision: Some(decision),
        judgement: Some(judgement),
        overruled: None,
        plain: inf.plain,
        prefixed: inf.prefixed,
    }
}

/// Runs the examples of every departure; one message per example that does not behave.
fn check_departure_examples(set: &RuleSet) -> Vec<String> {
    let mut failures = Vec::new();
    let group = |e: &record::Entry| Group {
        post: e.post,
        ..Group::single()
    };
    let read_as = |e: &record::Entry, ex: &example::Example| {
        let inf = infer_in(&ex.view(), &group(e), set);
        departure::considered(&inf).map(|d| departure::entry_id(d, set))
    };
    for e in &set.departures.entries {
        let wrong = e
            .examples
            .misbehaving(|want, ex| (read_as(e, ex).as_deref() == Some(e.id.as_str())) == want);
        for (want, _, ex) in wrong {
            let how = if want { "should be" } else { "should not be" };
            failures.push(format!(
                "heuristics/departures.yaml: `{}`: example {how} read as it: {ex} (read as {})",
                e.id,
                read_as(e, ex).as_deref().unwrap_or("the plain reading")
            ));
        }
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::Effects;
    use crate::view::Step;

    fn set() -> RuleSet {
        RuleSet::builtin().unwrap()
    }

    #[test]
    fn a_user_file_is_refused_when_its_examples_do_not_hold_and_used_when_they_do() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ours.yaml");
        let write = |path: &str| {
            let text = format!(
                "senses:\n- id: verb-ours\n  effect: read\n  why: Ours reads.\n  words: [sync]\n  examples:\n    match: [{{id: sync_ledger}}]\n    no_match: [{{id: create_user}}]\nrules:\n- id: our-quota\n  effect: read\n  weight: medium\n  why: A quota endpoint reads.\n  when: {{path_last: [quota]}}\n  examples:\n    match: [{{id: x, method: post, path: {path}}}]\n    no_match: [{{id: x, method: post, path: /a}}]\n"
            );
            std::fs::write(&file, text).unwrap();
        };
        write("/a/b");
        let err = RuleSet::with_user_dir(dir.path()).expect_err("refused");
        let msg = err.to_string();
        assert!(
            msg.contains("ours.yaml: rule `our-quota`: example should match: {id: x, method: post, path: /a/b}"),
            "{msg}"
        );
        assert!(msg.starts_with("invalid heuristics: 1 example(s)"), "{msg}");
        write("/a/quota");
        let set = RuleSet::with_user_dir(dir.path()).unwrap();
        let view = ActionView {
            id: "sync_ledger".into(),
            ..ActionView::default()
        };
        assert_eq!(infer(&view, &set).effects.joined("|"), "read");
    }

    /// The words of scope names are data: a user file's `scope_read` words make its scopes
    /// read-only, as the built-in ones do.
    #[test]
    fn a_user_file_adds_words_that_make_a_scope_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let view = ActionView {
            id: "mitarbeiter".into(),
            scopes: vec![vec!["mitarbeiter:lesen".into()]],
            ..ActionView::default()
        };
        let set0 = set();
        assert!(
            !infer(&view, &set0)
                .deciding_ids(&set0)
                .contains(&"scopes-read-only")
        );
        std::fs::write(dir.path().join("ours.yaml"), "scope_read: [lesen]\n").unwrap();
        let set = RuleSet::with_user_dir(dir.path()).unwrap();
        let inf = infer(&view, &set);
        assert_eq!(inf.effects.joined("|"), "read");
        assert_eq!(inf.deciding_ids(&set), ["scopes-read-only"]);
    }

    /// A rule read off the inputs that never decided a labelled operation does not overrule
    /// a read verb over GET, which HTTP defines as safe: a list's `export` parameter that
    /// "Saves the API response to a file" names a download format, not a write. Without the
    /// GET (an MCP tool that saves where it is told) the rule still speaks.
    #[test]
    fn an_unmeasured_input_rule_does_not_overrule_a_read_verb_over_get() {
        let set = set();
        let saves = crate::view::Input {
            name: "export".into(),
            description: Some("Saves the API response to a file.".into()),
            ..Default::default()
        };
        let over = |method: Option<&str>| {
            let view = ActionView {
                id: "list_items".into(),
                inputs: vec![saves.clone()],
                steps: method
                    .map(|m| Step {
                        function: Some("request".into()),
                        method: Some(m.into()),
                        url: Some("/items/{collection}".into()),
                        soap_operation: None,
                    })
                    .into_iter()
                    .collect(),
                ..ActionView::default()
            };
            let inf = infer(&view, &set);
            (inf.effects.joined("|"), inf.deciding_ids(&set))
        };
        let (effects, ids) = over(Some("get"));
        assert_eq!(effects, "read", "{ids:?}");
        assert!(!ids.contains(&"input-saves-output"), "{ids:?}");
        let (effects, ids) = over(None);
        assert_eq!(effects, "write");
        assert!(ids.contains(&"input-saves-output"), "{ids:?}");
    }

    /// A GraphQL endpoint is RPC-style, its POST no evidence of a change, whatever its
    /// file extension (`/graphql.json`), beside the REST calls of the same API.
    #[test]
    fn a_graphql_endpoint_is_rpc_style_with_or_without_an_extension() {
        let set = set();
        let rpc = |url: &str| {
            let view = ActionView {
                id: "list_products".into(),
                steps: vec![Step {
                    method: Some("post".into()),
                    url: Some(url.into()),
                    ..Step::default()
                }],
                ..ActionView::default()
            };
            evidence::gather(&view, &name::Group::single(), &set).rpc_style
        };
        assert!(rpc("/graphql"));
        assert!(rpc("/admin/api/2024-01/graphql.json"));
        assert!(!rpc("/admin/api/2024-01/products.json"));
    }

    /// A verb and its particle are the verb the lexicon knows them as run together: a hotel
    /// API's `Bookings_CheckIn` checks a guest in (`check` alone reads), and the same pair
    /// naming a thing leaves the name's verb where it was.
    #[test]
    fn a_verb_and_its_particle_are_read_as_one_verb() {
        use crate::effects::Effect::{Execute, Read, Write};
        let check_in = "/bookings/{id}/reservations/{n}/check_in";
        for (id, method, path, effect) in [
            ("check_in_reservation", "post", check_in, Write),
            ("CheckOutReservation", "post", check_in, Write),
            ("check_reservation", "post", "/reservations/check", Read),
            (
                "list_check_in_responses",
                "get",
                "/reports/check_in_responses",
                Read,
            ),
            (
                "devices_shut_down",
                "post",
                "/devices/{id}/shutDown",
                Execute,
            ),
        ] {
            let got = one(id, "", Some(method), path).effects;
            assert_eq!(got, Effects::single(effect), "{id}");
        }
    }

    /// Where the label's verb is the action's, so is the object beside it: "Get access
    /// token" over `POST /v0.5/sessions` mints a token as `get_access_token` would, and is
    /// no read (it was one at medium); "Test webhook." sends one.
    #[test]
    fn the_labels_object_counts_where_the_label_has_the_verb() {
        let labelled = |id: &str, label: &str, path: &str| {
            let view = ActionView {
                id: id.into(),
                label: Some(label.into()),
                steps: vec![Step {
                    method: Some("post".into()),
                    url: Some(path.into()),
                    ..Step::default()
                }],
                ..ActionView::default()
            };
            // An API that sends its reads as POST: the method says nothing.
            let group = name::Group {
                post: name::PostSays::Nothing,
                ..name::Group::single()
            };
            infer_in(&view, &group, &set())
        };
        let token = labelled("post_v0_5_sessions", "Get access token", "/v0.5/sessions");
        assert!(!token.effects.is_read_only(), "{token:?}");
        let test = labelled("webhook_test", "Test webhook.", "/behaviors/webhook/test");
        assert!(!test.effects.is_read_only(), "{test:?}");
    }

    fn one(id: &str, description: &str, method: Option<&str>, path: &str) -> Inference {
        let view = ActionView {
            id: id.into(),
            description: Some(description.into()),
            steps: method
                .map(|m| Step {
                    method: Some(m.into()),
                    url: Some(path.into()),
                    ..Step::default()
                })
                .into_iter()
                .collect(),
            ..ActionView::default()
        };
        infer(&view, &set())
    }

    #[test]
    fn builtin_heuristics_load_and_their_examples_hold() {
        let failures = set().check_examples();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn a_read_that_feeds_a_write_is_a_write() {
        let view = ActionView {
            id: "terminate_employee".into(),
            steps: vec![
                Step {
                    method: Some("get".into()),
                    url: Some("/employees/{id}".into()),
                    ..Step::default()
                },
                Step {
                    method: Some("post".into()),
                    url: Some("/terminations".into()),
                    ..Step::default()
                },
            ],
            ..ActionView::default()
        };
        assert!(!infer(&view, &set()).effects.is_read_only());
    }

    #[test]
    fn post_reads_and_get_side_effects() {
        let inf = one("candidate_list", "", Some("post"), "/candidate.list");
        assert_eq!(inf.effects.joined("|"), "read");
        // A GET whose name's verb is a change is a departure too weak to stand on its own
        // record: the GET reads, never high beside the doubt.
        let inf = one("employees_export", "", Some("get"), "/employees/export");
        assert_eq!(inf.effects.joined("|"), "read", "{inf:?}");
        assert_eq!(inf.confidence, Some(Confidence::Medium), "{inf:?}");
        assert_eq!(inf.overruled.as_ref().map(|e| e.claim), Some(Claim::Change));
    }

    #[test]
    fn put_patch_and_delete_are_never_read_only() {
        for m in ["put", "patch", "delete"] {
            let inf = one("get_settings", "Gets the settings.", Some(m), "/settings");
            assert!(!inf.effects.is_read_only(), "{m}: {inf:?}");
        }
    }

    #[test]
    fn nothing_known_stays_unclassified() {
        let inf = one("widget_config", "Widget configuration.", None, "");
        assert!(inf.effects.is_empty());
        assert!(inf.confidence.is_none());
        assert!(inf.decision.is_none());
        assert!(inf.reason(None, &set()).starts_with("no verb in the name"));
    }

    #[test]
    fn the_naming_style_of_the_file_says_where_the_verb_is() {
        let set = set();
        let names = [
            "message_pins_list",
            "spaces_get",
            "members_create",
            "spaces_delete",
        ];
        let group = Group::learn(names, &set.lexicon);
        assert_eq!(group.style, name::Position::Last);
        let view = ActionView {
            id: "message_pins_list".into(),
            ..ActionView::default()
        };
        assert_eq!(infer_in(&view, &group, &set).effects.joined("|"), "read");
        // Read alone, the name opens with a verb that is also a noun.
        assert_eq!(infer(&view, &set).effects.joined("|"), "write");
    }

    #[test]
    fn declared_scopes_are_read_and_speak() {
        let text = "- actionId: employee_compensation\n  requiredScopes: [compensation:read]\n  steps:\n    - stepId: s\n      stepFunction:\n        functionName: request\n        parameters: {url: /compensation, method: post}\n- actionId: list_pay_runs\n  requiredScopes:\n    - payroll:read\n    - payroll:write\n";
        let parsed = crate::source::connector::read::parse_file(text).unwrap();
        assert_eq!(parsed.actions[0].view.scopes, [["compensation:read"]]);
        let set = set();
        let inf = |i: usize| infer(&parsed.actions[i].view, &set);
        assert_eq!(inf(0).effects.joined("|"), "read");
        assert_eq!(inf(0).deciding_ids(&set), ["scopes-read-only"]);
        // A write scope is no evidence of a change: measured, it lost 223 times of 231.
        assert_eq!(inf(1).effects.joined("|"), "read");
        assert_eq!(inf(1).deciding_ids(&set), ["plain-reading"]);
    }

    #[test]
    fn a_read_verb_keeps_its_reading_whatever_its_object_over_post_or_get() {
        // `veto-object` (a minted object overrules the read over POST) lost every time it
        // fired, so it is kept off: the plain reading stands.
        let inf = one("get_session_token", "", Some("post"), "/session/token");
        assert_eq!(inf.effects.joined("|"), "read", "{inf:?}");
        let inf = one(
            "get_personal_access_token",
            "",
            Some("get"),
            "/profile/tokens/{id}",
        );
        assert_eq!(inf.effects.joined("|"), "read", "{inf:?}");
    }

    fn post(id: &str, path: &str) -> ActionView {
        ActionView {
            id: id.into(),
            steps: vec![Step {
                method: Some("post".into()),
                url: Some(path.into()),
                ..Step::default()
            }],
            ..ActionView::default()
        }
    }

    #[test]
    fn a_change_verb_where_the_name_puts_its_verb_overrules_a_read() {
        let set = set();
        let inf = infer(
            &post(
                "chats_mark_chat_read_for_user",
                "/chats/{id}/markChatReadForUser",
            ),
            &set,
        );
        assert!(!inf.effects.is_read_only(), "{inf:?}");
        // Between the verb and the end, a change word qualifies the object.
        let view = ActionView {
            steps: vec![Step {
                method: Some("get".into()),
                url: Some("/issue/createmeta".into()),
                ..Step::default()
            }],
            ..post("get_create_issue_meta", "")
        };
        assert_eq!(infer(&view, &set).effects.joined("|"), "read");
    }

    #[test]
    fn a_read_word_as_often_a_noun_yields_to_a_change_word_ending_a_path_made_name() {
        let tool = |id: &str, method: Option<&str>| one(id, "", method, "/items/{id}");
        // `filter` and `access` are nouns as often as verbs; the name's last word is the
        // operation (an MCP tool: no method to go by).
        for id in [
            "me_drive_items_workbook_tables_columns_filter_clear",
            "identity_access_policy_reset",
        ] {
            let inf = tool(id, None);
            assert!(!inf.effects.is_read_only(), "{id}: {inf:?}");
        }
        // A read verb that is only a verb, that opens the name, or that the last word is
        // after a preposition, stands: the engine reads it (read alone, with no names
        // beside it, a read past the first word is a departure too thin to patch).
        for id in [
            "users_get_email_reset",
            "list_archive_reset",
            "users_lookup_by_email",
        ] {
            let inf = tool(id, None);
            let reading = inf.reading().expect("a reading");
            assert_eq!(reading.claim, Claim::Read, "{id}: {inf:?}");
        }
        // Over GET, which HTTP defines as safe, the last word names a thing.
        let id = "workbook_tables_columns_filter_clear";
        assert!(!tool(id, None).effects.is_read_only());
        assert!(tool(id, Some("get")).effects.is_read_only());
    }

    #[test]
    fn over_an_rpc_apis_get_an_inflected_change_is_the_operation() {
        let get = |id: &str, url: &str| one(id, "", Some("get"), url);
        // The URL names the operation; GET is only how the API is called, and says nothing
        // against the change.
        let inf = get("workflows_step_completed", "/workflows.stepCompleted");
        assert!(!inf.effects.is_read_only(), "{inf:?}");
        let d = inf.decision.expect("a verb decides");
        assert_eq!(d.agreement, plain::Agreement::Neutral);
        // A REST GET reads what the inflection names.
        let inf = get("users_id_blocking", "/users/{id}/blocking");
        assert!(inf.effects.is_read_only(), "{inf:?}");
    }

    #[test]
    fn a_read_word_is_judged_by_its_positions_record_and_a_change_word_by_every_positions() {
        let set = set();
        let own = |id: &str| {
            let view = ActionView {
                id: id.into(),
                ..ActionView::default()
            };
            let d = infer(&view, &set).decision.expect("a verb decides");
            confidence::chain(&d)
                .own()
                .iter()
                .map(|k| k.text(&set.lexicon, &set.rules))
                .collect::<Vec<_>>()
        };
        // `read` after a change is a state (`mark_chat_read_for_user`): its record there
        // says nothing of `read` opening a name.
        assert_eq!(own("read_metrics"), ["word name read first neutral"]);
        assert_eq!(
            own("delete_metrics"),
            [
                "word name delete first neutral",
                "word name delete * neutral"
            ]
        );
    }

    #[test]
    fn a_post_whose_url_runs_the_names_last_words_together_names_its_operation() {
        let set = set();
        let view = post("users_get_member_groups", "/users/{id}/getMemberGroups");
        let ev = evidence::gather(&view, &Group::single(), &set);
        assert!(ev.named);
        let path = ev.verb(terms::Field::Path).expect("a path verb");
        assert_eq!(set.lexicon.word(path.sym), "get");
        let d = decide::decide(&ev, &set).unwrap();
        assert_eq!(d.agreement, plain::Agreement::Named);
    }

    #[test]
    fn over_get_a_read_verb_of_the_name_wins_over_a_change_word() {
        let set = set();
        let view = ActionView {
            steps: vec![Step {
                method: Some("get".into()),
                url: Some("/deviceManagement/exchangeConnectors".into()),
                ..Step::default()
            }],
            ..post("device_management_list_exchange_connectors", "")
        };
        let group = Group::learn(
            [
                "device_management_list_exchange_connectors",
                "device_management_wipe_device",
                "device_management_get_device",
            ],
            &set.lexicon,
        );
        assert_eq!(group.prefix.as_deref(), Some("device_management"));
        assert_eq!(infer_in(&view, &group, &set).effects.joined("|"), "read");
    }

    #[test]
    fn a_word_of_the_names_prefix_is_their_resource_wherever_it_recurs() {
        let set = set();
        let names = [
            "oauth2_permission_grants_oauth2_permission_grant_list_oauth2_permission_grant",
            "oauth2_permission_grants_oauth2_permission_grant_create_oauth2_permission_grant",
            "oauth2_permission_grants_oauth2_permission_grant_get_oauth2_permission_grant",
            "oauth2_permission_grants_oauth2_permission_grant_delete_oauth2_permission_grant",
            "oauth2_permission_grants_delta",
        ];
        let group = Group::learn(names, &set.lexicon);
        assert_eq!(
            group.prefix.as_deref(),
            Some("oauth2_permission_grants_oauth2")
        );
        let infer = |id: &str| infer_in(&named(id, None, None), &group, &set);
        // `grant`, as often a noun, is the resource here: `list` is the verb.
        assert_eq!(infer(names[0]).effects.joined("|"), "read");
        assert_eq!(infer(names[1]).effects.joined("|"), "write");
        // The name that leaves the prefix early has no verb past the resource: nothing read.
        assert!(infer(names[4]).effects.is_empty(), "{:?}", infer(names[4]));
        // Where the names' prefix does not name it, `grant` is a verb.
        let grant = Group::learn(["shares_permission_grant", "shares_list"], &set.lexicon);
        let inf = infer_in(&named("shares_permission_grant", None, None), &grant, &set);
        assert_eq!(inf.effects.joined("|"), "write");
    }

    /// Names only, as `audit` reads them: (id, label, description).
    fn named(id: &str, label: Option<&str>, description: Option<&str>) -> ActionView {
        ActionView {
            id: id.into(),
            label: label.map(Into::into),
            description: description.map(Into::into),
            ..ActionView::default()
        }
    }

    #[test]
    fn read_that_is_also_a_state_gives_way_to_a_change_before_it_or_in_the_description() {
        let set = set();
        let decided = |view: &ActionView, names: &[&str]| {
            let ev = evidence::gather(
                view,
                &Group::learn(names.iter().copied(), &set.lexicon),
                &set,
            );
            decide::decide(&ev, &set).unwrap()
        };
        // The change before it is the verb, even one as often a noun, in any style.
        for (id, names) in [
            ("messages_mark_read", &["messages_mark_read"][..]),
            (
                "chats_mark_chat_read_for_user",
                &["chats_mark_chat_read_for_user"][..],
            ),
            (
                "spaces_update_space_read_state",
                &["spaces_update_space_read_state"][..],
            ),
        ] {
            let d = decided(&named(id, None, None), names);
            assert_eq!(d.effects.joined("|"), "write", "{id}");
        }
        // Alone it reads; so does the resource a verb-last name opens with.
        let verb_last = [
            "log_profile_read",
            "log_profile_write",
            "log_profile_delete",
        ];
        for id in ["diagnostic_setting_read", "log_profile_read"] {
            let d = decided(&named(id, None, None), &verb_last);
            assert_eq!(d.effects.joined("|"), "read", "{id}");
        }
        // A description that opens with a change names the operation; a label may be a noun
        // phrase, and says nothing of it.
        let d = decided(
            &named("event_read", None, Some("Marks a single Event as read.")),
            &["event_read"],
        );
        assert_eq!(d.basis, Basis::Veto(terms::Veto::Prose));
        assert_eq!(d.effects.joined("|"), "write");
        let d = decided(
            &named(
                "log_profile_read",
                Some("Log profile read"),
                Some("Read log profiles"),
            ),
            &verb_last,
        );
        assert_eq!(d.effects.joined("|"), "read");
    }

    #[test]
    fn a_change_word_as_often_a_noun_after_a_read_verb_names_a_thing() {
        let set = set();
        let get = |id: &str, path: &str| ActionView {
            steps: vec![Step {
                method: Some("get".into()),
                url: Some(path.into()),
                ..Step::default()
            }],
            ..named(id, None, None)
        };
        for view in [
            get("get_trip_trip_id_stop", "/trip/{trip_id}/stop"),
            get(
                "sites_term_store_list_groups",
                "/sites/{id}/termStore/groups",
            ),
            get(
                "get_terminal_checkout",
                "/v2/terminals/checkouts/{checkout_id}",
            ),
            get(
                "baselines_device_boot_performance_metrics_list_metric_values",
                "/baselines/{id}/deviceBootPerformanceMetrics/metricValues",
            ),
        ] {
            let inf = infer(&view, &set);
            assert_eq!(inf.effects.joined("|"), "read", "{}", view.id);
        }
        // Where the style puts the verb, it still is one.
        let stop = post("instances_stop", "/instances/{id}/stop");
        assert_eq!(infer(&stop, &set).effects.joined("|"), "execute");
    }

    #[test]
    fn a_label_that_echoes_a_gets_object_or_opens_with_a_gerund_names_a_thing() {
        let set = set();
        let get = |id: &str, path: &str, label: &str| ActionView {
            steps: vec![Step {
                method: Some("get".into()),
                url: Some(path.into()),
                ..Step::default()
            }],
            ..named(id, Some(label), None)
        };
        for view in [
            get(
                "get_my_follows_brands_slug",
                "/my/follows/brands/{slug}",
                "Follow status for a brand",
            ),
            get("get_profile_logins", "/profile/logins", "Logins List"),
            get(
                "users_id_following",
                "/2/users/{id}/following",
                "Following by User ID",
            ),
        ] {
            let inf = infer(&view, &set);
            assert_eq!(inf.effects.joined("|"), "read", "{}", view.id);
        }
        // Nor does a label that acts on something the name does not hold: a label's
        // change verb is no departure the engine makes.
        let acts = get("get_brand", "/brands/{id}", "Follow a brand");
        assert_eq!(infer(&acts, &set).effects.joined("|"), "read");
    }

    #[test]
    fn a_sentence_verb_follows_its_adverbs_and_modifiers() {
        let set = set();
        let lex = &set.lexicon;
        let verb = |text| name::sentence_verb(text, lex).map(|v| lex.word(v.sym).to_owned());
        assert_eq!(
            verb("Force unlocks a Terraform workspace").as_deref(),
            Some("unlock")
        );
        assert_eq!(
            verb("Bulk delete the given users").as_deref(),
            Some("delete")
        );
        assert_eq!(
            verb("Permanently deletes a file").as_deref(),
            Some("delete")
        );
    }

    #[test]
    fn a_change_word_read_from_a_plural_yields_to_the_verb_of_a_label() {
        let set = set();
        let effects = |view: &ActionView| {
            let ev = evidence::gather(view, &Group::single(), &set);
            decide::decide(&ev, &set).map(|d| d.effects.joined("|"))
        };
        let bare = named("browser_console_messages", None, None);
        assert_eq!(effects(&bare).as_deref(), Some("write"));
        let labelled = named(
            "browser_console_messages",
            Some("Get console messages"),
            Some("Returns all console messages"),
        );
        assert_eq!(effects(&labelled).as_deref(), Some("read"));
        // A plural that opens a name is a verb in the third person (`messages_user`).
        let third = named("messages_user", Some("Get user"), None);
        assert_eq!(effects(&third).as_deref(), Some("write"));
    }

    #[test]
    fn a_read_verb_beside_a_post_is_never_proposed_as_the_change() {
        // Nothing measured: the read verb over POST stands alone; the plain reading (the
        // name opens with `fetch`) reads, and is held for a human where its record is too
        // poor to patch, never turned into the POST's change (proposed as the
        // change, such reads were right 56.5% of the time).
        let mut set = set();
        set.measured = Measured::default();
        let inf = infer(&post("fetch_boundaries", "/v4/boundaries/query2"), &set);
        assert_eq!(inf.effects.joined("|"), "read", "{inf:?}");
        assert!(inf.overruled.is_none(), "{inf:?}");
        // With the counts: a read verb over a POST that disagrees is right 10 times of 12
        // elsewhere, below the 95% a patched read must reach: held as the read it is.
        let inf = infer(
            &post("fetch_boundaries", "/v4/boundaries/query2"),
            &self::set(),
        );
        assert_eq!(inf.effects.joined("|"), "read", "{inf:?}");
        assert_eq!(inf.confidence, Some(Confidence::Low), "{inf:?}");
    }

    #[test]
    fn a_service_prefix_of_several_words_is_skipped_and_a_verb_named_one_needs_ninety_percent() {
        let set = set();
        let lex = &set.lexicon;
        let graph = [
            "identity_governance_access_reviews_list_definitions",
            "identity_governance_access_reviews_reset_decisions",
            "identity_governance_terms_of_use_create_agreements",
        ];
        assert_eq!(
            Group::learn(graph, lex).prefix.as_deref(),
            Some("identity_governance")
        );
        let print = [
            "print_printers_list_jobs",
            "print_jobs_redirect",
            "print_shares_get",
            "print_services_list",
            "print_printers_create",
        ];
        assert_eq!(Group::learn(print, lex).prefix.as_deref(), Some("print"));
        // Four of five open with `get`: a verb, not a service.
        let gets = ["get_user", "get_team", "get_file", "get_page", "list_files"];
        assert_eq!(Group::learn(gets, lex).prefix, None);
        // Two names: a shared word is a prefix only where a verb follows it in both.
        let two = ["ebay_get_product", "ebay_search"];
        assert_eq!(Group::learn(two, lex).prefix.as_deref(), Some("ebay"));
        let nouns = ["user_list", "user_profile"];
        assert_eq!(Group::learn(nouns, lex).prefix, None);
        assert_eq!(Group::learn(["ebay_search"], lex).prefix, None);
    }

    #[test]
    fn a_name_that_opens_with_a_third_person_or_gerund_form_opens_with_its_verb() {
        let set = set();
        let inf = infer(
            &ActionView {
                id: "gets_dns_record_set_of_type_soa".into(),
                ..ActionView::default()
            },
            &set,
        );
        assert_eq!(inf.effects.joined("|"), "read", "{inf:?}");
        let inf = infer(
            &ActionView {
                id: "creates_dns_zone".into(),
                ..ActionView::default()
            },
            &set,
        );
        assert_eq!(inf.effects.joined("|"), "write", "{inf:?}");
        assert_eq!(
            inf.decision
                .and_then(|d| d.verb)
                .map(|(_, v)| set.lexicon.word(v.sym).to_owned()),
            Some("create".to_owned())
        );
    }

    #[test]
    fn a_declared_read_only_hint_decides_unless_strong_evidence_says_change() {
        let set = set();
        let hinted = |id: &str, method: &str| ActionView {
            annotations: Some(crate::effects::Hints {
                read_only: Some(true),
                ..Default::default()
            }),
            ..ActionView {
                steps: vec![Step {
                    method: Some(method.into()),
                    url: Some("/v1/x".into()),
                    ..Step::default()
                }],
                ..post(id, "")
            }
        };
        let inf = infer_declared_in(&hinted("widget_config", "post"), &Group::single(), &set);
        assert_eq!(inf.effects.joined("|"), "read");
        assert_eq!(inf.confidence, Some(Confidence::High));
        assert_eq!(inf.deciding_ids(&set), ["declared-hint"]);
        // A search stays a search.
        let inf = infer_declared_in(&hinted("search_widgets", "post"), &Group::single(), &set);
        assert_eq!(inf.effects.joined("|"), "search");
        // DELETE, or a change verb of the name, stands against the hint.
        let inf = infer_declared_in(&hinted("widget_config", "delete"), &Group::single(), &set);
        assert_eq!(inf.effects.joined("|"), "delete");
        let inf = infer_declared_in(&hinted("create_widget", "post"), &Group::single(), &set);
        assert_eq!(inf.effects.joined("|"), "write");
        // An MCP server's own hints are what audit judges, never evidence.
        let inf = infer_in(&hinted("create_widget", "post"), &Group::single(), &set);
        assert_eq!(inf.effects.joined("|"), "write");
        let inf = infer_in(&hinted("widget_config", "post"), &Group::single(), &set);
        assert_ne!(inf.deciding_ids(&set), ["declared-hint"]);
    }

    /// No read at medium or high while a change verb is in the label, the
    /// operation or a POST's action segment, a person's hint included.
    #[test]
    fn no_read_stands_beside_a_change_in_the_label_the_operation_or_an_action_segment() {
        let set = set();
        let labelled = |label: &str| ActionView {
            id: "get_doc".into(),
            label: Some(label.into()),
            ..ActionView::default()
        };
        // A label's change verb does not overrule a read the name opens with: as a
        // departure from the plain reading it lost 8 to 0 on openapi-scopes-dev.
        for label in ["Deletes the document", "Creates a page"] {
            let inf = infer(&labelled(label), &set);
            assert_eq!(inf.effects.joined("|"), "read", "{label}: {inf:?}");
        }
        // A label that names a thing opens with a noun or a participle.
        for label in ["Invoices List", "Managed Databases List All", "Comments"] {
            let inf = infer(&labelled(label), &set);
            assert_eq!(inf.effects.joined("|"), "read", "{label}: {inf:?}");
        }
        let inf = infer(&post("get_ticket", "/api/tickets.archive"), &set);
        assert!(!inf.effects.is_read_only(), "{inf:?}");
        let hinted = ActionView {
            label: Some("Archive Ticket History".into()),
            annotations: Some(crate::effects::Hints {
                read_only: Some(true),
                ..Default::default()
            }),
            ..post("ticket_history", "/tickets/{id}/archive")
        };
        let inf = infer_declared_in(&hinted, &Group::single(), &set);
        assert!(!inf.effects.is_read_only(), "{inf:?}");
    }
}
