//! Hand-written hints beside effects: which keys of an action's `annotations:`
//! restate what its effects derive (redundant: noise that drifts once the effects change),
//! which differ from it (overrides: a person's decision, kept). The removals
//! `backfill --migrate-hints` plans are the connector source's (`source::connector`).

use super::edit::{Edit, EffectsFrom};
use crate::effects::{DestructivePolicy, Effects, Hints, derive_hints};

/// The bit of [`Edit::removes`] that stands for the `annotations` key itself.
pub const ANNOTATIONS: u8 = 1 << 7;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum HintKey {
    Title,
    ReadOnly,
    Destructive,
    Idempotent,
    OpenWorld,
}

impl HintKey {
    pub const ALL: [HintKey; 5] = [
        HintKey::Title,
        HintKey::ReadOnly,
        HintKey::Destructive,
        HintKey::Idempotent,
        HintKey::OpenWorld,
    ];

    pub fn name(self) -> &'static str {
        match self {
            HintKey::Title => "title",
            HintKey::ReadOnly => "readOnlyHint",
            HintKey::Destructive => "destructiveHint",
            HintKey::Idempotent => "idempotentHint",
            HintKey::OpenWorld => "openWorldHint",
        }
    }

    pub fn parse(s: &str) -> Option<HintKey> {
        HintKey::ALL.into_iter().find(|k| k.name() == s)
    }

    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }

    fn value(self, h: &Hints) -> Option<String> {
        let flag = |b: Option<bool>| b.map(|b| b.to_string());
        match self {
            HintKey::Title => h.title.clone(),
            HintKey::ReadOnly => flag(h.read_only),
            HintKey::Destructive => flag(h.destructive),
            HintKey::Idempotent => flag(h.idempotent),
            HintKey::OpenWorld => flag(h.open_world),
        }
    }

    fn clear(self, h: &mut Hints) {
        match self {
            HintKey::Title => h.title = None,
            HintKey::ReadOnly => h.read_only = None,
            HintKey::Destructive => h.destructive = None,
            HintKey::Idempotent => h.idempotent = None,
            HintKey::OpenWorld => h.open_world = None,
        }
    }
}

/// What a hand-written hint is, beside the effects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Equal to what the effects (or, for `title`, the label) derive.
    Redundant,
    /// Differs from what they derive: a decision, kept.
    Override,
    /// `idempotentHint`: never derived from effects, so always a decision.
    NeverDerived,
    /// The action has no effects to derive from: the hint is all a client gets.
    NoEffects,
}

/// One key of an action's `annotations:` and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HintNote {
    pub key: HintKey,
    /// As read: `true`, `false`, or the title.
    pub value: String,
    pub verdict: Verdict,
    /// What the effects or the label derive for the key, when anything.
    pub derived: Option<String>,
}

/// An action's hand-written hints judged against the effects it has once the patch is
/// applied ([`super::effects_after`]), and the removals planned for the redundant ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HintReview {
    pub effects: Effects,
    pub from: Option<EffectsFrom>,
    pub notes: Vec<HintNote>,
    /// The removals (`--migrate-hints`): they go into the patch all together with the
    /// action's other edits, or not at all.
    pub edits: Vec<Edit>,
    /// Why the redundant hints are not removed, when they are not.
    pub refused: Option<String>,
    /// The run migrates hints (the review guide lists what it did).
    pub migrate: bool,
}

impl HintReview {
    pub fn redundant(&self) -> impl Iterator<Item = &HintNote> {
        self.notes
            .iter()
            .filter(|n| n.verdict == Verdict::Redundant)
    }

    /// `readOnlyHint: true` on effects that change something: clients would run a write or
    /// a delete unattended.
    pub fn read_only_override(&self) -> bool {
        !self.effects.is_empty()
            && !self.effects.is_read_only()
            && self
                .notes
                .iter()
                .any(|n| n.key == HintKey::ReadOnly && n.value == "true")
    }

    /// The effects as a phrase: `[read] (declared)`.
    pub fn effects_phrase(&self) -> String {
        format!(
            "[{}] ({})",
            self.effects.joined(", "),
            self.from.map_or("none", EffectsFrom::name)
        )
    }

    /// Why a key is removed or kept, in a phrase.
    pub fn why(&self, n: &HintNote) -> String {
        let derived = n.derived.as_deref().unwrap_or("nothing");
        match (n.verdict, n.key) {
            (Verdict::Redundant, HintKey::Title) => "equal to the label".into(),
            (Verdict::Redundant, _) => format!("what {} derives", self.effects_phrase()),
            (Verdict::Override, HintKey::Title) => "differs from the label".into(),
            (Verdict::Override, _) if n.key == HintKey::ReadOnly && self.read_only_override() => {
                format!(
                    "makes {} look read-only, so clients would run it unattended; `check` reports it as an error, read-only-override",
                    self.effects_phrase()
                )
            }
            (Verdict::Override, _) => {
                format!("an override: {} derives {derived}", self.effects_phrase())
            }
            (Verdict::NeverDerived, _) => "never derived from effects".into(),
            (Verdict::NoEffects, _) => "no effects to derive it from".into(),
        }
    }

    /// What is left of `annotations` once the removals are applied: `None` when they take
    /// the whole mapping.
    pub fn remainder(&self, annotations: &Hints) -> Option<Hints> {
        let mut left = annotations.clone();
        let removes = self.edits.iter().fold(0, |m, e| m | e.removes);
        if removes & ANNOTATIONS != 0 {
            return None;
        }
        for k in HintKey::ALL.into_iter().filter(|k| removes & k.bit() != 0) {
            k.clear(&mut left);
        }
        Some(left)
    }

    /// The proposal the effects came from is not in the patch after all (held back, or its
    /// edit failed its check): nothing derives from it, so nothing is redundant by it.
    pub fn without_proposal(&mut self) {
        self.edits.clear();
        if self.from != Some(EffectsFrom::Proposed) {
            return;
        }
        self.effects = Effects::EMPTY;
        self.from = None;
        for n in &mut self.notes {
            if n.key != HintKey::Title && n.verdict != Verdict::NeverDerived {
                n.verdict = Verdict::NoEffects;
                n.derived = None;
            }
        }
    }
}

/// Judges an action's `annotations:` against the effects it has once the patch is applied;
/// `None` when it has no annotations.
pub fn review(
    annotations: Option<&Hints>,
    label: Option<&str>,
    after: Option<(Effects, EffectsFrom)>,
    policy: DestructivePolicy,
    overwrites: bool,
) -> Option<HintReview> {
    let annotations = annotations?;
    let (effects, from) = after.map_or((Effects::EMPTY, None), |(e, f)| (e, Some(f)));
    let derived = derive_hints(effects, label, None, policy, overwrites);
    let notes = HintKey::ALL
        .into_iter()
        .filter_map(|key| {
            let value = key.value(annotations)?;
            let derived = key.value(&derived);
            let verdict = match key {
                HintKey::Idempotent => Verdict::NeverDerived,
                // The title comes from the label, whatever the effects.
                HintKey::Title if derived.as_deref() == Some(value.as_str()) => Verdict::Redundant,
                HintKey::Title => Verdict::Override,
                _ if effects.is_empty() => Verdict::NoEffects,
                _ if derived.as_deref() == Some(value.as_str()) => Verdict::Redundant,
                _ => Verdict::Override,
            };
            Some(HintNote {
                key,
                value,
                verdict,
                derived,
            })
        })
        .collect();
    Some(HintReview {
        effects,
        from,
        notes,
        edits: Vec::new(),
        refused: None,
        migrate: false,
    })
}
