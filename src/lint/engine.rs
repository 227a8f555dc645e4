//! Running the checks: on one action (a tool of a list, an example), or on a catalog file's
//! actions, with the file's silences applied by the one silence pass.

use std::collections::BTreeSet;

use super::checks::unused_silence::{LintSilences, Linted};
use super::context::Reading;
use super::filter::CodeFilter;
use super::rules::LintRules;
use crate::classify::Group;
use crate::effects::Effects;
use crate::model::finding::Finding;
use crate::model::silence::{ActionSilences, silence};
use crate::outcome::FileResult;
use crate::view::ActionView;

/// Lint one action. `effects` are its final effects (declared or inferred); empty means
/// unknown, and the checks that depend on effects are skipped. The silences of its
/// `actionId` comment are honoured. Findings are sorted, and not located.
pub fn lint(
    view: &ActionView,
    effects: Effects,
    rules: &LintRules,
    filter: &CodeFilter,
) -> Vec<Finding> {
    lint_in(view, &Group::single(), effects, rules, filter)
}

/// [`lint`] for an action of `group` (its file's names, or its server's tools).
pub fn lint_in(
    view: &ActionView,
    group: &Group,
    effects: Effects,
    rules: &LintRules,
    filter: &CodeFilter,
) -> Vec<Finding> {
    let ctx = Reading::new(view, group, effects, &rules.vocabulary);
    let (found, ran) = check_action(&ctx, rules, filter);
    let silences: Vec<ActionSilences> = ActionSilences::read((0, 0), 0, view.id_comment.as_deref())
        .into_iter()
        .collect();
    let linted = [Linted {
        ran,
        quiet: silences.iter().any(|s| s.codes.contains("unused-silence")),
        ..Linted::default()
    }];
    silenced(
        found,
        &silences,
        &[],
        rules,
        filter,
        &linted,
        Finding::default(),
    )
}

/// The findings of a catalog file's actions, located, the silences of the file and of
/// each action honoured. Each action is held against the decision the run made for it
/// (with the hints it declares and the catalog's votes), so `lint` and `backfill` never
/// disagree on one action.
pub fn lint_file(f: &FileResult, rules: &LintRules, filter: &CodeFilter) -> Vec<Finding> {
    let mut found = Vec::new();
    let mut silences = Vec::new();
    let mut linted = Vec::new();
    for a in f.actions.iter().filter(|a| !a.nested) {
        let Some(view) = &a.view else { continue };
        let mut view = (**view).clone();
        view.connector_title = f.info_title.clone().or_else(|| Some(a.connector.clone()));
        let mut ctx = Reading::new(&view, &f.group, a.effects, &rules.vocabulary);
        ctx.decided = Some(&a.inference);
        let (of_action, ran) = check_action(&ctx, rules, filter);
        let at = Finding {
            file: Some(f.shown.clone()),
            line: Some(a.line),
            column: Some(a.column),
            tool: Some(a.tool_name()),
            ci_file: Some(f.ci_path().to_owned()),
            ..Finding::default()
        };
        found.extend(of_action.into_iter().map(|l| Finding {
            code: l.code,
            level: l.level,
            message: l.message,
            ..at.clone()
        }));
        let read = ActionSilences::read((a.line, a.column), linted.len(), a.comment.as_deref());
        let quiet = read
            .as_ref()
            .is_some_and(|s| s.codes.contains("unused-silence"));
        silences.extend(read);
        linted.push(Linted { at, ran, quiet });
    }
    let at = Finding {
        file: Some(f.shown.clone()),
        ci_file: Some(f.ci_path().to_owned()),
        ..Finding::default()
    };
    silenced(found, &silences, &f.silences, rules, filter, &linted, at)
}

/// `found` with what the silences hide left out, and the silences that hid nothing
/// reported; sorted.
fn silenced(
    mut found: Vec<Finding>,
    actions: &[ActionSilences],
    file: &[(usize, String)],
    rules: &LintRules,
    filter: &CodeFilter,
    linted: &[Linted],
    at: Finding,
) -> Vec<Finding> {
    let allows = |code: &str| filter.allows(code);
    let by = LintSilences {
        codes: rules.codes().collect(),
        contract: rules
            .explain("unused-silence")
            .filter(|c| filter.allows(&c.code)),
        allows: &allows,
        actions: linted,
        file: at,
    };
    silence(actions, file, &mut found, &by);
    found.retain(|f| !f.silenced);
    found.sort();
    found
}

/// One action's findings, neither located nor silenced, and the codes whose check ran.
fn check_action(
    ctx: &Reading,
    rules: &LintRules,
    filter: &CodeFilter,
) -> (Vec<Finding>, BTreeSet<&'static str>) {
    let mut found = Vec::new();
    let mut ran = BTreeSet::new();
    for contract in rules.rules() {
        let Some(run) = contract.check.run else {
            continue;
        };
        if !filter.allows(&contract.code) || contract.check.needs_effects && ctx.effects.is_empty()
        {
            continue;
        }
        ran.insert(contract.check.code);
        found.extend(run(ctx, contract).map(|f| contract.finding(f)));
    }
    (found, ran)
}
