//! An author's explicit hint against the audit: every labelled tool declared read-only,
//! audited with what the rules inferred of it (leave-one-provider-out outcomes). A tool that
//! is read-only by its label and called `unsafe` is a false alarm: a person told the truth
//! and the run fails. A tool that changes something, declared read-only, and called
//! `unsafe` is a lie caught. `unconfirmed` is the note below the bar: it fails nothing.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use catalog_effects::classify::{Confidence, RuleSet};
use catalog_effects::effects::{DestructivePolicy, Hints};
use catalog_effects::report::audit::{Verdict, judge};
use catalog_effects::view::ActionView;

use super::{Outcome, Route, Set};

/// One set and route: how its truthful and its lying read-only claims fare.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Claims {
    /// Labelled read-only, declared so: the truthful claims.
    pub truthful: usize,
    /// Of those, called `unsafe`.
    pub false_alarms: usize,
    /// Labelled as changing something, declared read-only: the lies.
    pub lies: usize,
    /// Of those, called `unsafe`.
    pub caught: usize,
    /// Of those, left `unconfirmed` (a note).
    pub noted: usize,
}

impl Claims {
    pub fn false_alarm_rate(&self) -> f64 {
        self.false_alarms as f64 / self.truthful.max(1) as f64
    }

    pub fn caught_rate(&self) -> f64 {
        self.caught as f64 / self.lies.max(1) as f64
    }
}

/// Every labelled outcome of `held_out` (each provider classified with the counts measured
/// without it) declared `readOnlyHint: true` and judged at the audit's default level, by set
/// and route. The verdict reads the counts again (which record overrules), so each provider
/// is judged with the counts measured without it here too: `all` are the outcomes they are
/// measured from.
pub fn measure(
    held_out: &[Outcome<'_>],
    all: &[Outcome<'_>],
    rules: &RuleSet,
) -> BTreeMap<(Set, Route), Claims> {
    let counts = super::counts_by_provider(all);
    let mut by_provider: BTreeMap<String, Vec<&Outcome<'_>>> = BTreeMap::new();
    for o in held_out.iter().filter(|o| o.row.truth.is_some()) {
        by_provider.entry(o.row.provider()).or_default().push(o);
    }
    let mut by: BTreeMap<(Set, Route), Claims> = BTreeMap::new();
    let mut without = rules.clone();
    for (provider, outcomes) in by_provider {
        without.measured = counts.without(Some(&provider));
        for o in outcomes {
            let truth = o.row.truth == Some(true);
            let verdict = verdict(o, &without);
            let c = by.entry((o.row.set, o.route)).or_default();
            if truth {
                c.truthful += 1;
                c.false_alarms += usize::from(verdict == Verdict::Unsafe);
            } else {
                c.lies += 1;
                c.caught += usize::from(verdict == Verdict::Unsafe);
                c.noted += usize::from(verdict == Verdict::Unconfirmed);
            }
        }
    }
    by
}

/// The audit's verdict on the outcome's tool declared read-only.
pub fn verdict(o: &Outcome<'_>, rules: &RuleSet) -> Verdict {
    let view = ActionView {
        id: o.row.name.clone(),
        annotations: Some(Hints {
            read_only: Some(true),
            ..Hints::default()
        }),
        ..ActionView::default()
    };
    judge(
        &view,
        &o.inference,
        &[],
        rules,
        DestructivePolicy::Delete,
        Confidence::Medium,
    )
    .verdict
}

/// The table `examples/eval` prints.
pub fn render(by: &BTreeMap<(Set, Route), Claims>) -> String {
    let mut out = String::from(
        "  set, route                        false alarms (truthful read-only called unsafe)   lies caught (changes declared read-only called unsafe)   lies left unconfirmed\n",
    );
    for ((set, route), c) in by {
        let _ = writeln!(
            out,
            "  {:33} {:>5} of {:>5} ({:>5.2}%){:28} {:>5} of {:>5} ({:>5.1}%){:34} {:>5}",
            format!("{} {}", set.name(), route.name()),
            c.false_alarms,
            c.truthful,
            100.0 * c.false_alarm_rate(),
            "",
            c.caught,
            c.lies,
            100.0 * c.caught_rate(),
            "",
            c.noted,
        );
    }
    out
}
