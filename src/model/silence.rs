//! The one silence pass of `check` and `lint`: a file's `# catalog-effects: ignore[code]`
//! comments (an action's `actionId` line for that action, the file's leading comments for
//! all of its actions) hide the findings they name, and a silence that hides nothing is
//! reported. Each command reports only its own codes' silences and phrases them ([`Silencer`]);
//! which finding a silence hides, and whether a silence was used, is decided here once.

use std::collections::BTreeSet;

use super::finding::Finding;
use crate::text::{MALFORMED_SILENCE, malformed_silences, silences};

/// The silences of one action's `actionId` line comment.
#[derive(Debug, Clone, Default)]
pub struct ActionSilences {
    /// Where the action is, as its findings locate it: (line, column).
    pub at: (usize, usize),
    /// The action's index among those the command gave: what [`Unused::Action`] names.
    pub index: usize,
    /// The codes silenced, and each silence not written `ignore[code, ...]` as
    /// [`MALFORMED_SILENCE`] followed by what is wrong with it.
    pub codes: BTreeSet<String>,
}

impl ActionSilences {
    /// The silences of `comment`, for the action at `at`; none when it silences nothing
    /// and holds no malformed silence.
    pub fn read(at: (usize, usize), index: usize, comment: Option<&str>) -> Option<Self> {
        let mut codes = silences(comment);
        codes.extend(
            malformed_silences(comment)
                .into_iter()
                .map(|why| format!("{MALFORMED_SILENCE}{why}")),
        );
        (!codes.is_empty()).then_some(ActionSilences { at, index, codes })
    }
}

/// Where a silence that hid nothing is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unused {
    /// On the `actionId` line of the action of this index.
    Action(usize),
    /// In the file's leading comment on this line.
    File(usize),
}

/// What one command makes of the silences: which findings they may hide, and what it says
/// of a silence of `code` (one of its own, or one no command knows) that hid nothing.
pub trait Silencer {
    /// Where `finding` is, as (line, column), when a silence may hide it.
    fn place(&self, finding: &Finding) -> Option<(usize, usize)>;
    /// The `unused-silence` finding for the silence of `code` at `at`, `used` when it hid a
    /// finding; none when the command leaves that code to another or it is not due.
    fn unused(&self, code: &str, used: bool, at: Unused) -> Option<Finding>;
}

/// Marks the findings the silences hide (`silenced`), an action's own comment before the
/// file's, then adds what `by` says of each silence.
pub fn silence(
    actions: &[ActionSilences],
    file: &[(usize, String)],
    findings: &mut Vec<Finding>,
    by: &impl Silencer,
) {
    if actions.is_empty() && file.is_empty() {
        return;
    }
    let mut used_action: BTreeSet<(usize, String)> = BTreeSet::new();
    let mut used_file: BTreeSet<String> = BTreeSet::new();
    for finding in findings.iter_mut() {
        let Some(at) = by.place(finding) else {
            continue;
        };
        let code = finding.code.as_str();
        let own = actions
            .iter()
            .find(|a| a.at == at && a.codes.contains(code));
        if let Some(a) = own {
            used_action.insert((a.index, code.to_owned()));
            finding.silenced = true;
        } else if file.iter().any(|(_, c)| c == code) {
            used_file.insert(code.to_owned());
            finding.silenced = true;
        }
    }
    let mut found = Vec::new();
    for a in actions {
        for code in &a.codes {
            let used = used_action.contains(&(a.index, code.clone()));
            found.extend(by.unused(code, used, Unused::Action(a.index)));
        }
    }
    for (line, code) in file {
        found.extend(by.unused(code, used_file.contains(code), Unused::File(*line)));
    }
    findings.extend(found);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reports every silence with whether it was used, so the pass's decisions show.
    struct All;

    impl Silencer for All {
        fn place(&self, f: &Finding) -> Option<(usize, usize)> {
            Some((f.line?, f.column?))
        }

        fn unused(&self, code: &str, used: bool, at: Unused) -> Option<Finding> {
            Some(Finding {
                code: "unused-silence".into(),
                message: format!("{code} {used} {at:?}"),
                ..Finding::default()
            })
        }
    }

    #[test]
    fn an_actions_own_silence_hides_its_finding_before_the_files() {
        let at = |line, code: &str| Finding {
            line: Some(line),
            column: Some(3),
            code: code.into(),
            ..Finding::default()
        };
        let mut found = vec![at(5, "a"), at(5, "b"), at(9, "a")];
        let actions: Vec<ActionSilences> =
            ActionSilences::read((5, 3), 0, Some(" catalog-effects: ignore[a, c]"))
                .into_iter()
                .collect();
        let file = [(1, "a".to_owned()), (2, "d".to_owned())];
        silence(&actions, &file, &mut found, &All);
        let hidden: Vec<bool> = found[..3].iter().map(|f| f.silenced).collect();
        assert_eq!(hidden, [true, false, true]);
        let said: Vec<&str> = found[3..].iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            said,
            [
                "a true Action(0)",
                "c false Action(0)",
                "a true File(1)",
                "d false File(2)"
            ]
        );
    }
}
