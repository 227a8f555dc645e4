//! The edits `backfill --migrate-hints` makes in a connector file to take out the hints an
//! action's effects derive anyway (judged in [`crate::model::hints`]).
//!
//! A removal takes whole lines in a block mapping (comment lines between them stay: a
//! comment is never removed unless it trails a removed key) and an entry with its separator
//! in a flow mapping; an `annotations:` left empty goes too. What cannot be removed that way
//! is refused with why, and the action is left alone.

use crate::effects::Effects;
use crate::error::Error;
use crate::fix::options::Options;
use crate::fix::plan::Planned;
use crate::model::edit::Edit;
use crate::model::hints::{ANNOTATIONS, HintKey, HintReview};
use crate::model::site::AnnotationsSite;
use crate::text::lines::{line_end, line_start};

/// With `--migrate-hints`, plans the removal of the hints `p`'s review found redundant; a
/// removal that cannot be made in place is said why in `notes`, and the action's `effects`
/// edit goes on.
pub(super) fn plan_migration(p: &mut Planned, text: &str, opts: &Options, notes: &mut Vec<Error>) {
    let Some(site) = p.site.annotations.as_deref().filter(|_| opts.migrate_hints) else {
        return;
    };
    let Some(review) = p.hints.as_deref_mut() else {
        return;
    };
    let insert_at = p
        .edit
        .as_ref()
        .filter(|e| e.start == e.end)
        .map(|e| e.start);
    match plan_removals(text, site, review, p.site.map_start, insert_at) {
        Ok(edits) => review.edits = edits,
        Err(why) => {
            review.refused = Some(why.to_owned());
            notes.push(
                Error::new(format!(
                    "`{}`: redundant hints not removed: {why}; remove them by hand",
                    p.site.view.id
                ))
                .at(p.site.view.line, p.site.column),
            );
        }
    }
}

/// The edits that remove the redundant keys of `review` from the mapping `site` describes,
/// and the mapping itself when nothing else is left in it; or why they cannot be made in
/// place. `map` is the action's mapping; `insert_at`, where its `effects` is inserted, if
/// it is.
pub fn plan_removals(
    text: &str,
    site: &AnnotationsSite,
    review: &HintReview,
    map: usize,
    insert_at: Option<usize>,
) -> Result<Vec<Edit>, &'static str> {
    if review.redundant().next().is_none() {
        return Ok(Vec::new());
    }
    if let Some(why) = site.unsafe_why {
        return Err(why);
    }
    let removal = Removal {
        bytes: text.as_bytes(),
        site,
        review,
    };
    let mut ranges = if site.entries.iter().all(|e| removal.redundant(&e.key)) {
        removal.whole()?
    } else {
        removal.entries()?
    };
    ranges.sort_unstable();
    let mut merged: Vec<(usize, usize, u8)> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(m) if r.0 <= m.1 => {
                m.1 = m.1.max(r.1);
                m.2 |= r.2;
            }
            _ => merged.push(r),
        }
    }
    // A file without a final newline keeps that state: removing its last lines takes the
    // line break before them instead of leaving the line before terminated. Not when the
    // action's `effects` goes in right there. Judged on the merged ranges: the last hint's
    // line alone would take the break of the line above it, itself removed.
    let bytes = text.as_bytes();
    if let Some(last) = merged.last_mut()
        && last.1 == text.len()
        && !text.ends_with('\n')
        && last.0 == line_start(bytes, last.0)
        && last.0 > 0
    {
        let back = if last.0 >= 2 && bytes[last.0 - 2] == b'\r' {
            2
        } else {
            1
        };
        if insert_at.is_none_or(|at| at < last.0 - back || at > last.0) {
            last.0 -= back;
        }
    }
    Ok(merged
        .into_iter()
        .map(|(start, end, removes)| Edit {
            start,
            end,
            text: String::new(),
            effects: Effects::EMPTY,
            map,
            old: text[start..end].to_owned(),
            removes,
        })
        .collect())
}

const COMMENT: &str = "a comment sits among the hints to remove";
const NOT_SIMPLE: &str =
    "a hint to remove is written over several lines, or with an anchor, a tag or an alias";
const NOT_FIRST: &str = "a hint to remove shares its line with another key";

/// The redundant hints of one `annotations:` mapping, as byte ranges to remove, each
/// (start, end, what it removes).
struct Removal<'a> {
    bytes: &'a [u8],
    site: &'a AnnotationsSite,
    review: &'a HintReview,
}

impl Removal<'_> {
    fn redundant(&self, name: &str) -> bool {
        self.review
            .redundant()
            .any(|n| n.key.name() == name && HintKey::parse(name).is_some())
    }

    fn first_on_line(&self, at: usize) -> bool {
        self.bytes[line_start(self.bytes, at)..at]
            .iter()
            .all(|&b| b == b' ')
    }

    /// Whether a comment sits between the pieces of what is removed (not inside a value):
    /// it would go with them.
    fn comment_in(&self, from: usize, to: usize) -> bool {
        let bytes = self.bytes;
        let mut at = from;
        for e in &self.site.entries {
            if e.value_end <= at || e.key_start >= to {
                continue;
            }
            if bytes[at..e.key_start.max(at)].contains(&b'#') {
                return true;
            }
            at = e.value_end.max(at);
        }
        at < to && bytes[at..to].contains(&b'#')
    }

    fn whole_lines(&self, from: usize, to: usize) -> (usize, usize) {
        (
            line_start(self.bytes, from),
            line_end(self.bytes, to.max(from + 1) - 1),
        )
    }

    /// Every hint is redundant: the mapping goes whole, with its key.
    fn whole(&self) -> Result<Vec<(usize, usize, u8)>, &'static str> {
        let site = self.site;
        // Anchors are numbered in document order: one removed would renumber the others,
        // and the check would refuse the edit anyway.
        if site.anchored {
            return Err(
                "its annotations mapping carries an anchor (`&name`), which would go with it",
            );
        }
        let mut ranges = Vec::new();
        if site.action_flow {
            let (from, to) = match site.next_start {
                Some(next) => (site.key_start, next),
                None => (site.prev_end, site.end),
            };
            if self.comment_in(from, to) {
                return Err(COMMENT);
            }
            ranges.push((from, to, ANNOTATIONS));
        } else if !self.first_on_line(site.key_start) {
            return Err(NOT_FIRST);
        } else if site.flow {
            if self.comment_in(site.key_start, site.end) {
                return Err(COMMENT);
            }
            let (from, to) = self.whole_lines(site.key_start, site.end);
            ranges.push((from, to, ANNOTATIONS));
        } else {
            let (from, to) = self.whole_lines(site.key_start, site.key_start);
            ranges.push((from, to, ANNOTATIONS));
            for e in &site.entries {
                if !e.simple {
                    return Err(NOT_SIMPLE);
                }
                if !self.first_on_line(e.key_start) {
                    return Err(NOT_FIRST);
                }
                let (from, to) = self.whole_lines(e.key_start, e.value_end);
                ranges.push((from, to, bit(&e.key)));
            }
        }
        Ok(ranges)
    }

    /// Some hints are kept: each redundant entry goes alone.
    fn entries(&self) -> Result<Vec<(usize, usize, u8)>, &'static str> {
        let site = self.site;
        let mut ranges = Vec::new();
        for (i, e) in site.entries.iter().enumerate() {
            if !self.redundant(&e.key) {
                continue;
            }
            if !e.simple {
                return Err(NOT_SIMPLE);
            }
            let (from, to) = if site.flow {
                // Up to the next entry while a kept one follows; else from the end of the
                // entry before (a kept one precedes), taking the separator either way.
                let kept_after = site.entries[i + 1..]
                    .iter()
                    .any(|n| !self.redundant(&n.key));
                if kept_after {
                    (e.key_start, site.entries[i + 1].key_start)
                } else {
                    (site.entries[i - 1].value_end, e.value_end)
                }
            } else {
                if !self.first_on_line(e.key_start) {
                    return Err(NOT_FIRST);
                }
                self.whole_lines(e.key_start, e.value_end)
            };
            if site.flow && self.comment_in(from, to) {
                return Err(COMMENT);
            }
            ranges.push((from, to, bit(&e.key)));
        }
        Ok(ranges)
    }
}

/// What removing the hint `name` removes, as [`Edit::removes`] bits.
fn bit(name: &str) -> u8 {
    HintKey::parse(name).map_or(0, HintKey::bit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::RuleSet;
    use crate::effects::{DestructivePolicy, Hints};
    use crate::fix::apply::apply;
    use crate::model::edit::EffectsFrom;
    use crate::model::hints::{Verdict, review};
    use crate::run::plan;
    use crate::source::connector::verify;
    use crate::yaml::parse_tree;

    const TEXT: &str = "- actionId: list_users\n  label: List Users\n  annotations:\n    readOnlyHint: true\n    idempotentHint: true\n    destructiveHint: true\n  steps:\n    - stepId: s\n      stepFunction: {functionName: request, parameters: {url: /users, method: get}}\n";

    fn planned() -> Vec<Edit> {
        let mut opts = Options::new(RuleSet::builtin().unwrap());
        opts.migrate_hints = true;
        plan(TEXT, &opts).unwrap().edits
    }

    /// The digests of the original and of the edited text, as the check compares them.
    fn digests(edits: &[Edit]) -> Result<(verify::Digest, verify::Digest), String> {
        let old = verify::original(&parse_tree(TEXT).map_err(|e| e.message)?, edits)?;
        let new_text = apply(TEXT, edits);
        let new = verify::edited(&parse_tree(&new_text).map_err(|e| e.message)?, edits)?;
        Ok((old, new))
    }

    #[test]
    fn a_planned_removal_passes_the_check() {
        let edits = planned();
        assert_eq!(edits.len(), 2, "{edits:?}");
        assert_eq!(edits[1].old, "    readOnlyHint: true\n");
        assert_eq!(edits[1].removes, HintKey::ReadOnly.bit());
        let (old, new) = digests(&edits).unwrap();
        assert_eq!(old, new);
    }

    /// A removal that takes a key it was not planned for, or part of an entry, fails.
    #[test]
    fn a_removal_that_takes_more_than_planned_fails_the_check() {
        let mut edits = planned();
        let at = edits[1].end;
        let next = at + TEXT[at..].find('\n').unwrap() + 1;
        edits[1].end = next;
        edits[1].old = TEXT[edits[1].start..next].to_owned();
        let err = digests(&edits).unwrap_err();
        assert!(err.contains("takes more than the planned keys"), "{err}");
        // Said to remove `idempotentHint` too, it passes: the check reads what was planned.
        edits[1].removes |= HintKey::Idempotent.bit();
        let (old, new) = digests(&edits).unwrap();
        assert_eq!(old, new);
        // Half a line: the key goes, its value stays.
        let mut edits = planned();
        edits[1].end = edits[1].start + "    readOnlyHint:".len();
        edits[1].old = TEXT[edits[1].start..edits[1].end].to_owned();
        assert!(digests(&edits).map_or(true, |(o, n)| o != n));
    }

    #[test]
    fn redundant_overrides_and_never_derived_hints() {
        let hints = Hints {
            title: Some("List Users".into()),
            read_only: Some(true),
            destructive: Some(true),
            idempotent: Some(true),
            open_world: None,
        };
        let r = review(
            Some(&hints),
            Some("List Users"),
            Some((
                Effects::single(crate::effects::Effect::Read),
                EffectsFrom::Declared,
            )),
            DestructivePolicy::Delete,
            false,
        )
        .unwrap();
        let verdicts: Vec<(HintKey, Verdict)> =
            r.notes.iter().map(|n| (n.key, n.verdict)).collect();
        assert_eq!(
            verdicts,
            [
                (HintKey::Title, Verdict::Redundant),
                (HintKey::ReadOnly, Verdict::Redundant),
                (HintKey::Destructive, Verdict::Override),
                (HintKey::Idempotent, Verdict::NeverDerived),
            ]
        );
        assert!(!r.read_only_override());
        // Without effects nothing derives, but the title still comes from the label.
        let none = review(
            Some(&hints),
            Some("List Users"),
            None,
            DestructivePolicy::Delete,
            false,
        )
        .unwrap();
        assert_eq!(
            none.redundant().map(|n| n.key).collect::<Vec<_>>(),
            [HintKey::Title]
        );
        // readOnlyHint: true on a write is the override `check` fails on.
        let write = review(
            Some(&hints),
            None,
            Some((
                Effects::single(crate::effects::Effect::Write),
                EffectsFrom::Proposed,
            )),
            DestructivePolicy::Delete,
            false,
        )
        .unwrap();
        assert!(write.read_only_override());
    }
}
