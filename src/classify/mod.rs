//! Classify: infer an action's effects from its signals and the rules, with a confidence
//! and the reasons, so every proposal can be explained.

pub mod rules;
pub mod signals;

use std::fmt;

use crate::effects::{Effect, Effects};
use crate::view::ActionView;
pub use rules::{Rule, RuleSet, Weight};
pub use signals::Signals;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Confidence {
    Low,
    Medium,
    High,
}

impl Confidence {
    pub fn name(self) -> &'static str {
        match self {
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }

    pub fn parse(s: &str) -> Option<Confidence> {
        [Confidence::Low, Confidence::Medium, Confidence::High]
            .into_iter()
            .find(|c| c.name() == s)
    }

    fn lower(self) -> Confidence {
        match self {
            Confidence::High => Confidence::Medium,
            _ => Confidence::Low,
        }
    }
}

impl fmt::Display for Confidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What inference concluded for one action, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inference {
    /// Empty when unclassified.
    pub effects: Effects,
    pub confidence: Option<Confidence>,
    /// Every rule that matched.
    pub fired: Vec<Fired>,
    /// The subset that decided the result.
    pub deciding: Vec<Fired>,
    /// The write replaces or modifies existing data (for the overwrite destructive policy).
    pub overwrites: bool,
    /// One sentence on which evidence won and why.
    pub reason: String,
}

impl Inference {
    /// Ids of the rules that decided, in rule order.
    pub fn deciding_ids<'a>(&self, rules: &'a RuleSet) -> Vec<&'a str> {
        self.deciding
            .iter()
            .map(|f| rules.rules[f.rule].id.as_str())
            .collect()
    }
}

/// A rule that matched, with the weight it carries for this action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fired {
    pub rule: usize,
    pub effect: Effect,
    /// The rule's weight, one lower when its verb is also a common noun.
    pub weight: u8,
}

pub fn strength(w: u8) -> &'static str {
    match w {
        3 => "strong",
        2 => "medium",
        1 => "weak",
        _ => "no",
    }
}

/// `parts` joined: one allocation, without `format!`'s machinery, once per action.
fn concat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        out.push_str(p);
    }
    out
}

// Not inlined: one call per action costs nothing, and profiles then show classification
// as one figure.
#[inline(never)]
pub fn infer(view: &ActionView, rules: &RuleSet) -> Inference {
    rules.with_fired(view, |fired| decide(fired, rules))
}

const CHANGES: [Effect; 3] = [Effect::Write, Effect::Delete, Effect::Execute];

fn decide(fired: &[Fired], rules: &RuleSet) -> Inference {
    let mut inf = weigh(fired, rules);
    inf.fired = fired.to_vec();
    inf
}

/// The fired rules that `want` picks, allocated once.
fn pick(fired: &[Fired], want: impl Fn(&Fired) -> bool) -> Vec<Fired> {
    let mut out = Vec::with_capacity(fired.iter().filter(|f| want(f)).count());
    out.extend(fired.iter().copied().filter(|f| want(f)));
    out
}

/// Everything of the inference but `fired`, which the caller copies in. Read-only is only
/// concluded when the evidence for it is stronger than any evidence of a change, and a
/// medium or strong sign of change is never outvoted into a confident read: a write run
/// unattended costs more than a read approved by hand.
fn weigh(fired: &[Fired], rules: &RuleSet) -> Inference {
    // By effect: the strongest weight, and how many rules fired for it.
    let (mut best, mut count) = ([0u8; 5], [0usize; 5]);
    for f in fired {
        let e = f.effect as usize;
        best[e] = best[e].max(f.weight);
        count[e] += 1;
    }
    let s = |e: Effect| best[e as usize];
    let (read, search) = (s(Effect::Read), s(Effect::Search));
    let ro = read.max(search);
    let mu = CHANGES.map(s).into_iter().max().unwrap_or(0);
    let mut inf = Inference::default();
    if ro == 0 && mu == 0 {
        inf.reason = "no rule matched: left unclassified rather than guessed".into();
        return inf;
    }
    if mu >= ro {
        let effects: Effects = CHANGES.into_iter().filter(|&e| s(e) == mu).collect();
        inf.effects = effects;
        inf.deciding = pick(fired, |f| effects.contains(f.effect) && f.weight == mu);
        inf.overwrites = effects.contains(Effect::Write)
            && fired
                .iter()
                .any(|f| f.effect == Effect::Write && rules.rules[f.rule].overwrite);
        // High needs corroboration: a strong verb alone is wrong too often on its own (a
        // demo tool named `trigger_*`, `convert_time`), while a second rule agreeing (the
        // HTTP method, the description's verb) made high right over 99% of the time on the
        // labelled tools. Reads already ask for the same.
        let support: usize = effects.iter().map(|e| count[e as usize]).sum();
        let base = match mu {
            3 if support >= 2 => Confidence::High,
            3 | 2 => Confidence::Medium,
            _ => Confidence::Low,
        };
        inf.confidence = Some(match ro {
            0 => base,
            r if r < mu => base.lower(),
            _ => Confidence::Low,
        });
        inf.reason = if ro == 0 {
            concat(&[strength(mu), " evidence of a change and none of a read"])
        } else {
            concat(&[
                strength(mu),
                " evidence of a change against ",
                strength(ro),
                " evidence of a read: a change is never outvoted by a read of equal weight",
            ])
        };
        return inf;
    }
    let effect = if search > 0 && search >= read {
        Effect::Search
    } else {
        Effect::Read
    };
    let support = count[Effect::Read as usize] + count[Effect::Search as usize];
    let confidence = match (ro, mu) {
        (3, 0) if support >= 2 => Some(Confidence::High),
        (3, 0) | (3, 1) => Some(Confidence::Medium),
        (2, 0) if support >= 2 => Some(Confidence::Medium),
        (_, 0) | (_, 1) | (3, 2) => Some(Confidence::Low),
        _ => None,
    };
    let Some(confidence) = confidence else {
        inf.reason = concat(&[
            strength(ro),
            " evidence of a read against ",
            strength(mu),
            " evidence of a change: too close to call",
        ]);
        return inf;
    };
    inf.effects = Effects::single(effect);
    inf.deciding = pick(fired, |f| f.effect.is_read_only() && f.weight == ro);
    inf.confidence = Some(confidence);
    inf.reason = if mu == 0 {
        let many;
        let support = match support {
            n @ 0..10 => &"0123456789"[n..=n],
            n => {
                many = n.to_string();
                &many
            }
        };
        concat(&[
            strength(ro),
            " evidence of a read from ",
            support,
            " rule(s) and none of a change",
        ])
    } else {
        concat(&[
            strength(ro),
            " evidence of a read outweighs ",
            strength(mu),
            " evidence of a change; confidence lowered",
        ])
    };
    inf
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::Step;

    fn infer_one(id: &str, description: &str, method: Option<&str>, path: &str) -> Inference {
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
        infer(&view, &RuleSet::builtin().unwrap())
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
        let inf = infer(&view, &RuleSet::builtin().unwrap());
        assert!(!inf.effects.is_read_only(), "{inf:?}");
    }

    #[test]
    fn post_reads_and_get_side_effects() {
        let inf = infer_one("candidate_list", "", Some("post"), "/candidate.list");
        assert_eq!(inf.effects.joined("|"), "read");
        let inf = infer_one("employees_export", "", Some("get"), "/employees/export");
        assert!(!inf.effects.is_read_only(), "{inf:?}");
    }

    #[test]
    fn a_change_is_high_only_when_corroborated() {
        let inf = infer_one("create_user", "", None, "");
        assert_eq!(inf.confidence, Some(Confidence::Medium), "{inf:?}");
        let inf = infer_one("create_user", "", Some("post"), "/users");
        assert_eq!(inf.confidence, Some(Confidence::High), "{inf:?}");
        let inf = infer_one("create_user", "Creates a user.", None, "");
        assert_eq!(inf.confidence, Some(Confidence::High), "{inf:?}");
    }

    #[test]
    fn nothing_known_stays_unclassified() {
        let inf = infer_one("widget_config", "Widget configuration.", None, "");
        assert!(inf.effects.is_empty());
        assert!(inf.confidence.is_none());
        assert!(!inf.reason.is_empty());
    }

    #[test]
    fn a_noun_verb_yields_to_a_real_verb() {
        let inf = infer_one("workers_builds_get_build", "", None, "");
        assert_eq!(inf.effects.joined("|"), "read");
    }
}
