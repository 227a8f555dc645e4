//! The effects vocabulary and the published rule that derives MCP hints from it.

use std::fmt;

/// One of the five effects, in the canonical order used in every output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Effect {
    Read,
    Search,
    Write,
    Delete,
    Execute,
}

impl Effect {
    pub const ALL: [Effect; 5] = [
        Effect::Read,
        Effect::Search,
        Effect::Write,
        Effect::Delete,
        Effect::Execute,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::Search => "search",
            Effect::Write => "write",
            Effect::Delete => "delete",
            Effect::Execute => "execute",
        }
    }

    pub fn parse(s: &str) -> Option<Effect> {
        Effect::ALL.into_iter().find(|e| e.name() == s)
    }

    /// Read and search change nothing; the other three do.
    pub fn is_read_only(self) -> bool {
        matches!(self, Effect::Read | Effect::Search)
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of effects; iteration and display follow the canonical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Effects(u8);

impl Effects {
    pub const EMPTY: Effects = Effects(0);

    pub fn single(e: Effect) -> Self {
        Effects(e.bit())
    }

    pub fn insert(&mut self, e: Effect) {
        self.0 |= e.bit();
    }

    pub fn contains(self, e: Effect) -> bool {
        self.0 & e.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Effect> {
        Effect::ALL.into_iter().filter(move |e| self.contains(*e))
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// `read|search|write`: the form used in the CSV report.
    pub fn joined(self, sep: &str) -> String {
        self.iter().map(Effect::name).collect::<Vec<_>>().join(sep)
    }

    /// True when every effect is read or search (and there is at least one).
    pub fn is_read_only(self) -> bool {
        !self.is_empty() && self.iter().all(Effect::is_read_only)
    }
}

impl FromIterator<Effect> for Effects {
    fn from_iter<I: IntoIterator<Item = Effect>>(iter: I) -> Self {
        let mut set = Effects::EMPTY;
        for e in iter {
            set.insert(e);
        }
        set
    }
}

/// The four MCP hints plus title. `None` means "not set".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hints {
    pub title: Option<String>,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
}

/// Which writes count as destructive (issue: many servers also mark overwrites destructive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DestructivePolicy {
    /// The published rule: destructive when any effect is delete.
    #[default]
    Delete,
    /// Also destructive when the write replaces or modifies existing data.
    Overwrite,
}

/// The published derivation rule, then the action's `annotations:` merged last, field by
/// field. `overwrites` says whether inference judged the write to replace existing data;
/// it only matters under [`DestructivePolicy::Overwrite`].
pub fn derive_hints(
    effects: Effects,
    title: Option<&str>,
    overrides: Option<&Hints>,
    policy: DestructivePolicy,
    overwrites: bool,
) -> Hints {
    let mut hints = Hints {
        title: title.map(str::to_owned),
        ..Hints::default()
    };
    if !effects.is_empty() {
        hints.read_only = Some(effects.is_read_only());
        let destructive = effects.contains(Effect::Delete)
            || (policy == DestructivePolicy::Overwrite
                && overwrites
                && effects.contains(Effect::Write));
        hints.destructive = Some(destructive);
        hints.open_world = Some(true);
    }
    if let Some(o) = overrides {
        if o.title.is_some() {
            hints.title.clone_from(&o.title);
        }
        hints.read_only = o.read_only.or(hints.read_only);
        hints.destructive = o.destructive.or(hints.destructive);
        hints.idempotent = o.idempotent.or(hints.idempotent);
        hints.open_world = o.open_world.or(hints.open_world);
    }
    hints
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_order_and_read_only() {
        let set: Effects = [Effect::Write, Effect::Read].into_iter().collect();
        assert_eq!(set.joined("|"), "read|write");
        assert!(!set.is_read_only());
        assert!(Effects::single(Effect::Search).is_read_only());
        assert!(!Effects::EMPTY.is_read_only());
    }

    #[test]
    fn override_wins_field_by_field() {
        let o = Hints {
            idempotent: Some(true),
            destructive: Some(true),
            ..Hints::default()
        };
        let h = derive_hints(
            Effects::single(Effect::Write),
            Some("Update"),
            Some(&o),
            DestructivePolicy::Delete,
            false,
        );
        assert_eq!(h.read_only, Some(false));
        assert_eq!(h.destructive, Some(true));
        assert_eq!(h.idempotent, Some(true));
        assert_eq!(h.open_world, Some(true));
        assert_eq!(h.title.as_deref(), Some("Update"));
    }

    #[test]
    fn no_effects_no_hints() {
        let h = derive_hints(Effects::EMPTY, None, None, DestructivePolicy::Delete, false);
        assert_eq!(h, Hints::default());
    }
}
