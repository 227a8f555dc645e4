//! `read-only-claim-contradicted`: a read-only claim (in the words, or `readOnlyHint: true`)
//! on a call its effects, its own words or its request say changes state.

use crate::classify::{Confidence, infer_in};
use crate::lint::context::Reading;
use crate::lint::contract::{Breach, Contract, LintCheck, NOT_FOLLOWED_BY, NOT_PRECEDED_BY, WORDS};
use crate::lint::words::{ends_at, phrase_at, span};
use crate::view::ActionView;

pub const CHECK: LintCheck = LintCheck {
    code: "read-only-claim-contradicted",
    required: &[WORDS],
    optional: &[NOT_PRECEDED_BY, NOT_FOLLOWED_BY],
    needs_effects: false,
    run: Some(read_only_claim),
};

/// A read-only claim (in the words, or `readOnlyHint: true`) contradicted by the effects,
/// or by what the rules read from the description's own words or from the method and path.
fn read_only_claim(ctx: &Reading, contract: &Contract) -> Option<Breach> {
    // A claim in words is the description contradicting itself; a bare readOnlyHint is
    // often a server's considered label for a borderline tool (hover, screenshot), so only
    // strong evidence contradicts it.
    let (quoted, needed) = match claim_words(ctx, contract) {
        Some(words) => (format!("\"{words}\""), Confidence::Medium),
        None if ctx.view.annotations.as_ref().and_then(|h| h.read_only) == Some(true) => {
            ("readOnlyHint: true".to_owned(), Confidence::High)
        }
        None => return None,
    };
    let found = |contradiction: String, fix: &str| Breach {
        message: format!("claims {quoted}, but {contradiction}"),
        hint: format!("remove the read-only claim and any readOnlyHint, or {fix}"),
    };
    if ctx.changes_state() {
        let effects = ctx.effects.joined(", ");
        return Some(found(
            format!("its effects are {effects}"),
            "correct the effects if the call really changes nothing",
        ));
    }
    let evidence = evidence_of_change(ctx, needed)?;
    Some(found(evidence, "make sure the call really changes nothing"))
}

/// Read-only words of the contract, not negated and not about something else.
fn claim_words<'a>(ctx: &'a Reading, contract: &Contract) -> Option<&'a str> {
    for (text, toks) in [
        (ctx.body.as_str(), &ctx.body_tokens),
        (ctx.label, &ctx.label_tokens),
    ] {
        for p in &contract.words {
            for i in 0..toks.len() {
                if !phrase_at(toks, p, i) {
                    continue;
                }
                let end = i + p.stems.len();
                let negated = contract.not_preceded_by.iter().any(|q| ends_at(toks, q, i));
                let other = contract
                    .not_followed_by
                    .iter()
                    .any(|q| phrase_at(toks, q, end));
                if !negated && !other {
                    return Some(span(text, toks, i, end));
                }
            }
        }
    }
    None
}

/// What says the call changes state, at `needed` confidence or more: the description's
/// own words (name, label and description, read by the effect rules), or its method and
/// path (its steps alone). The rules are asked, never second-guessed.
fn evidence_of_change(ctx: &Reading, needed: Confidence) -> Option<String> {
    // One decision: what backfill proposes for the whole action is what lint holds a
    // claim against, so the two never disagree on the same action. The parts only say
    // where the change shows.
    let rules = &ctx.vocabulary.effect_rules;
    let whole = match ctx.decided {
        Some(d) => std::borrow::Cow::Borrowed(d),
        None => std::borrow::Cow::Owned(infer_in(ctx.view, ctx.group, rules)),
    };
    // Evidence that agrees adds up: a change the name and the description both say
    // (`repo_cleanup`, "Permanently deletes ...") is sure enough to contradict a bare hint
    // at medium.
    let agreed = whole.confident(Confidence::Medium)
        && whole.decision.as_ref().is_some_and(|d| d.support > 0);
    if !(whole.confident(needed) || agreed)
        || whole.effects.is_empty()
        || whole.effects.is_read_only()
    {
        // A claim in words beside a change its own request names (POST
        // `.../recalculate`, "Read-only tool that recalculates ...") is the contradiction
        // the check exists for, however unsure the whole action's proposal is: the doubt
        // the claim itself casts is what held it low.
        return (needed == Confidence::Medium)
            .then(|| request_names_change(ctx))
            .flatten();
    }
    let said = format!(
        "{} ({} confidence)",
        whole.effects.joined(", "),
        whole.confidence.map_or("", |c| c.name())
    );
    let changes = |view: &ActionView| {
        let inf = infer_in(view, ctx.group, rules);
        !inf.effects.is_empty() && !inf.effects.is_read_only()
    };
    let words = ActionView {
        steps: Vec::new(),
        inputs: Vec::new(),
        annotations: None,
        ..ctx.view.clone()
    };
    if ctx.view.steps.is_empty() || changes(&words) {
        return Some(format!(
            "its own words (\"{}\") say {said}",
            if ctx.first.is_empty() {
                ctx.label
            } else {
                ctx.first
            }
        ));
    }
    Some(format!("its request ({}) says {said}", calls(ctx.view)))
}

/// The action's calls as written (`POST /invoices/{id}/recalculate`).
fn calls(view: &ActionView) -> String {
    let calls: Vec<String> = view
        .steps
        .iter()
        .map(|s| {
            format!(
                "{} {}",
                s.method.as_deref().unwrap_or("").to_ascii_uppercase(),
                s.url.as_deref().unwrap_or("")
            )
            .trim()
            .to_owned()
        })
        .collect();
    calls.join(", ")
}

/// What the action's requests alone say, when a verb of their URLs names a change (the
/// path's last segment, an RPC method): the name and the words around it left out.
fn request_names_change(ctx: &Reading) -> Option<String> {
    use crate::classify::terms::Field;
    let rules = &ctx.vocabulary.effect_rules;
    let requests = ActionView {
        id: String::new(),
        steps: ctx.view.steps.clone(),
        source: ctx.view.source,
        ..ActionView::default()
    };
    let inf = infer_in(&requests, ctx.group, rules);
    let d = inf.decision.as_ref()?;
    let (Field::Path | Field::Operation, verb) = d.verb? else {
        return None;
    };
    if inf.effects.is_empty() || inf.effects.is_read_only() {
        return None;
    }
    let word = rules.lexicon.word(verb.sym);
    Some(format!(
        "its request ({}) names a change: `{word}` ({})",
        calls(ctx.view),
        inf.effects.joined(", ")
    ))
}
