//! The fast matching index: words to small numbers, so that looking a word of an action up
//! in the lexicon or a rule's word lists costs a hash of a few bytes and an integer compare.
//! Nothing here decides anything; `decide.rs` does.

/// A word's number in a [`WordMap`].
pub type Sym = u32;

/// Words to numbers, for lookups of short words: open addressing over a hash of a word's
/// first and last bytes, cheaper than a general map's hashing and probing on the few
/// bytes of a word.
#[derive(Debug, Clone, Default)]
pub struct WordMap {
    /// A power of two long, at most half full: a word's hash tag and its entry number plus
    /// one (0: empty).
    slots: Box<[(u32, u32)]>,
    /// By entry: the word's [`word_key`] and length, which are the word itself up to 16
    /// bytes, so most lookups compare no bytes.
    entries: Vec<(u64, u64, usize)>,
    keys: Vec<Box<str>>,
    values: Vec<Sym>,
    /// The shortest and longest key: other lengths need no lookup.
    pub shortest: usize,
    pub longest: usize,
}

/// The first and last (up to) 8 bytes of a word, read without a loop: up to 16 bytes, they
/// and the length are the whole word.
#[inline]
fn word_key(b: &[u8]) -> (u64, u64) {
    let n = b.len();
    let read = |at: usize, len: usize| {
        let mut v = [0u8; 8];
        v[..len].copy_from_slice(&b[at..at + len]);
        u64::from_le_bytes(v)
    };
    match n {
        8.. => (read(0, 8), read(n - 8, 8)),
        4..8 => (read(0, 4), read(n - 4, 4)),
        1..4 => (
            u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16,
            0,
        ),
        0 => (0, 0),
    }
}

#[inline]
fn key_hash((lo, hi): (u64, u64), n: usize) -> u64 {
    let m =
        u128::from(lo ^ 0x2d35_8dcc_aa6c_78a5) * u128::from(hi ^ 0x8bb8_4b93_962e_acc9 ^ n as u64);
    (m as u64) ^ (m >> 64) as u64
}

impl WordMap {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Every word with its number, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Sym)> {
        self.keys
            .iter()
            .map(|k| &**k)
            .zip(self.values.iter().copied())
    }

    #[inline]
    pub fn get(&self, w: &str) -> Option<Sym> {
        self.find(w).map(|e| self.values[e])
    }

    /// The entry of `w`.
    #[inline]
    fn find(&self, w: &str) -> Option<usize> {
        let n = w.len();
        if self.slots.is_empty() || n < self.shortest || n > self.longest {
            return None;
        }
        let key = word_key(w.as_bytes());
        let h = key_hash(key, n);
        let (tag, mask) = ((h >> 32) as u32, self.slots.len() - 1);
        let mut i = h as usize & mask;
        loop {
            let (t, e) = self.slots[i];
            if e == 0 {
                return None;
            }
            let e = e as usize - 1;
            if t == tag && self.entries[e] == (key.0, key.1, n) && (n <= 16 || *self.keys[e] == *w)
            {
                return Some(e);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `w` with `value` unless it is there already.
    pub fn insert(&mut self, w: &str, value: Sym) {
        if self.find(w).is_some() {
            return;
        }
        self.shortest = if self.keys.is_empty() {
            w.len()
        } else {
            self.shortest.min(w.len())
        };
        self.longest = self.longest.max(w.len());
        let (lo, hi) = word_key(w.as_bytes());
        self.entries.push((lo, hi, w.len()));
        self.keys.push(w.into());
        self.values.push(value);
        if self.keys.len() * 2 > self.slots.len() {
            let n = (self.keys.len() * 2).next_power_of_two().max(16);
            self.slots = vec![(0, 0); n].into();
            for e in 0..self.keys.len() {
                self.place(e);
            }
        } else {
            self.place(self.keys.len() - 1);
        }
    }

    fn place(&mut self, e: usize) {
        let (lo, hi, n) = self.entries[e];
        let h = key_hash((lo, hi), n);
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        while self.slots[i].1 != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = ((h >> 32) as u32, e as u32 + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_map_finds_its_words_and_no_others() {
        let words = [
            "a",
            "ab",
            "abc",
            "abcd",
            "abcde",
            "abcdefgh",
            "abcdefghi",
            "abcdefghijklmnop",
            "abcdefghijklmnopq",
            "abcdefghXjklmnopq",
            "bulk-delete",
            "save",
            "saves",
        ];
        let mut map = WordMap::default();
        assert_eq!(map.get(""), None, "an empty map has no slots to probe");
        assert_eq!(map.get("save"), None);
        for (i, w) in words.iter().enumerate() {
            map.insert(w, i as Sym);
        }
        map.insert("save", 99);
        for (i, w) in words.iter().enumerate() {
            assert_eq!(map.get(w), Some(i as Sym), "{w}");
        }
        for w in [
            "",
            "b",
            "ba",
            "abd",
            "abcdefghijklmnoq",
            "abcdefghYjklmnopq",
            "Save",
            "sav",
        ] {
            assert_eq!(map.get(w), None, "{w}");
        }
    }
}
