//! Where the verb sits: a name read as words, the naming style of the names beside it, and
//! the one word that is its verb.
//!
//! Names put their verb in different places: first in a verb-first name (`list_users`,
//! `getUser`), last in a noun-first one (`candidate_list`, `applications_get`), after the
//! resource in controller-style names (`Customer_GetAll`, `application-cancelDeployment`).
//! One name alone often cannot tell (`message_pins_list`: is `message` the verb?), but the
//! names of one file or one server follow one style, so the style is voted on by all of them
//! ([`Group`]) and each name is read in it. A word that is only a verb elsewhere in the name
//! is a noun unless nothing else is a verb (`rotate_read_key` rotates; `increase_retry_count`
//! increases).

use super::index::Sym;
use super::lexicon::{Lexicon, WordInfo};
use super::signals::{
    each_stem, each_token, first_sentence, lower, raw_words, sentence_end, sentence_head,
};

/// Where a word sits among a name's words (modifiers such as `batch` not counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Position {
    #[default]
    First,
    Middle,
    Last,
}

/// What the names around an action say about how to read its name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Group {
    /// A first word most names share and that is no verb (`browser_`, `atlas-`): a product
    /// or connector prefix, skipped.
    pub prefix: Option<Box<str>>,
    /// Where most names put a verb that is not also a noun.
    pub style: Position,
}

/// One word of a name, as the lexicon knows it.
#[derive(Debug, Clone, Copy, Default)]
struct Word {
    sym: Option<Sym>,
    info: WordInfo,
    start: u32,
    end: u32,
}

/// A name (or a sentence) split into lower-case words and looked up, in buffers that are
/// reused from action to action.
#[derive(Debug, Default)]
pub struct Words {
    text: String,
    words: Vec<Word>,
    tok: String,
}

/// The verb of a name or a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verb {
    /// The verb (a stem when the word was inflected: `completed` -> `complete`).
    pub sym: Sym,
    pub sense: u8,
    pub position: Position,
    /// The word is also a common noun.
    pub noun: bool,
    /// Found only through an inflection (`step_completed`).
    pub inflected: bool,
    /// Index of the word in the name.
    pub index: usize,
}

impl Words {
    /// Reads `name`'s words, skipping `prefix` when it opens a name of more than one word.
    pub fn read_name(&mut self, name: &str, lex: &Lexicon, prefix: Option<&str>) {
        self.text.clear();
        self.words.clear();
        let (text, words) = (&mut self.text, &mut self.words);
        each_token(name, &mut self.tok, |t| {
            let start = text.len() as u32;
            text.push_str(t);
            let (sym, info) = lex.lookup(t).unzip();
            words.push(Word {
                sym,
                info: info.unwrap_or_default(),
                start,
                end: text.len() as u32,
            });
        });
        if let Some(p) = prefix
            && self.words.len() > 1
            && self.get(0) == p
        {
            self.words.remove(0);
        }
    }

    /// Reads the first sentence of `text` (at most its first `limit` words).
    pub fn read_sentence(&mut self, text: &str, lex: &Lexicon, limit: usize) {
        self.text.clear();
        self.words.clear();
        for w in raw_words(first_sentence(text)).take(limit) {
            let w = lower(w, &mut self.tok);
            let start = self.text.len() as u32;
            self.text.push_str(w);
            let (sym, info) = lex.lookup(w).unzip();
            self.words.push(Word {
                sym,
                info: info.unwrap_or_default(),
                start,
                end: self.text.len() as u32,
            });
        }
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn get(&self, i: usize) -> &str {
        let w = &self.words[i];
        &self.text[w.start as usize..w.end as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.words.len()).map(|i| self.get(i))
    }

    fn info(&self, i: usize) -> WordInfo {
        self.words[i].info
    }

    /// The words that could be the verb, with where each sits: modifiers are skipped and,
    /// unless the style puts the verb last, nothing after the first preposition counts
    /// (`find_by_email`, `export_reviews_as_csv`).
    fn candidates(&self, style: Position, out: &mut Vec<(usize, Position)>) {
        out.clear();
        for i in 0..self.words.len() {
            let info = self.info(i);
            if info.modifier {
                continue;
            }
            if info.preposition && !out.is_empty() && style != Position::Last {
                break;
            }
            out.push((i, Position::Middle));
        }
        let n = out.len();
        for (k, c) in out.iter_mut().enumerate() {
            c.1 = match k {
                0 => Position::First,
                k if k + 1 == n => Position::Last,
                _ => Position::Middle,
            };
        }
        // `users_info` reads, but in `smime_info_set_default` the info is what is set.
        let words = &self.words;
        out.retain(|&(i, p)| !words[i].info.last_only || p == Position::Last || n == 1);
    }

    fn verb_at(&self, (i, position): (usize, Position)) -> Verb {
        let w = self.words[i];
        Verb {
            sym: w.sym.unwrap_or_default(),
            sense: w.info.sense.unwrap_or_default(),
            position,
            noun: w.info.noun,
            inflected: false,
            index: i,
        }
    }

    /// The verb of a name read in `style`, as the module documentation says: a plain verb
    /// where the style puts it; else a plain verb anywhere (unless a verb-first name opens
    /// with a verb that takes an action as its object: `check_delete_permission`,
    /// `test_send_email`); else a noun-or-verb where the style puts it, or anywhere; else an
    /// inflected verb (`step_completed`: the inflection says it is used as a verb).
    pub fn pick_verb(
        &self,
        style: Position,
        lex: &Lexicon,
        cands: &mut Vec<(usize, Position)>,
    ) -> Option<Verb> {
        self.candidates(style, cands);
        let ps = &cands[..];
        let first = *ps.first()?;
        let single = ps.len() == 1;
        let at_style = |c: &&(usize, Position)| single || c.1 == style;
        let plain = |c: &&(usize, Position)| self.info(c.0).is_plain_verb();
        let verb = |c: &&(usize, Position)| self.info(c.0).is_verb();
        if let Some(&c) = ps.iter().filter(at_style).find(plain) {
            return Some(self.verb_at(c));
        }
        let opens_with_derivation = self
            .info(first.0)
            .sense
            .is_some_and(|s| lex.sense(s).derives);
        if !(style == Position::First && opens_with_derivation) {
            let mut plains = ps.iter().filter(plain);
            let c = if style == Position::Last {
                plains.next_back()
            } else {
                plains.next()
            };
            if let Some(&c) = c {
                return Some(self.verb_at(c));
            }
        }
        if let Some(&c) = ps.iter().filter(at_style).find(verb) {
            return Some(self.verb_at(c));
        }
        if let Some(&c) = ps.iter().find(verb) {
            return Some(self.verb_at(c));
        }
        let mut form = String::new();
        for &(i, position) in ps.iter().rev() {
            let mut found = None;
            let word = self.get(i);
            each_stem(word, &mut form, |f| {
                found = (f != word)
                    .then(|| lex.lookup(f))
                    .flatten()
                    .filter(|(_, info)| info.is_verb());
                found.is_some()
            });
            if let Some((sym, info)) = found {
                return Some(Verb {
                    sym,
                    sense: info.sense.unwrap_or_default(),
                    position,
                    noun: true,
                    inflected: true,
                    index: i,
                });
            }
        }
        None
    }

    /// The first word other than the verb's that names one of `objects` (a bit each):
    /// (object index, the word).
    pub fn object(&self, objects: u32, skip: Option<usize>) -> Option<(usize, Sym)> {
        if objects == 0 {
            return None;
        }
        self.words.iter().enumerate().find_map(|(i, w)| {
            let hit = w.info.objects & objects;
            (Some(i) != skip && hit != 0)
                .then(|| (hit.trailing_zeros() as usize, w.sym.unwrap_or_default()))
        })
    }

    /// A plain verb of a change anywhere in the name but at `skip` (`mark` in
    /// `mark_chat_read_for_user`, `reset` in `access_reviews_reset_decisions`): a read
    /// proposed for such a name would rest on one word while another says change.
    pub fn change_verb(&self, lex: &Lexicon, skip: usize) -> Option<Verb> {
        (0..self.words.len()).find_map(|i| {
            let info = self.info(i);
            (i != skip
                && !info.modifier
                && info.is_plain_verb()
                && !lex.sense(info.sense?).effect.is_read_only())
            .then(|| self.verb_at((i, Position::Middle)))
        })
    }

    /// A plain verb right after a conjunction (`get_or_create`, `find_and_delete`).
    pub fn conjoined_verb(&self) -> Option<Verb> {
        (1..self.words.len()).find_map(|i| {
            (self.info(i - 1).conjunction && self.info(i).is_plain_verb())
                .then(|| self.verb_at((i, Position::Middle)))
        })
    }
}

/// The verb a sentence (a label, a description) opens with: its first word that is not a
/// lead-in ("This tool will", "Use this to") or an adverb ("Permanently deletes"), in any
/// inflection; nothing when that word is not a verb, or lies past the first sentence, since
/// later words describe the result, not the action.
pub fn sentence_verb(text: &str, lex: &Lexicon) -> Option<Verb> {
    let head = sentence_head(text);
    let (mut buf, mut form) = (String::new(), String::new());
    let mut words = raw_words(head);
    for index in 0..SENTENCE_LEAD {
        let raw = words.next()?;
        let w = lower(raw, &mut buf);
        if w.ends_with("ly") || lex.lookup(w).is_some_and(|(_, i)| i.lead_in) {
            continue;
        }
        let at = raw.as_ptr() as usize - head.as_ptr() as usize;
        if sentence_end(head) < at {
            return None;
        }
        let exact = lex.sym(w);
        let mut found = None;
        each_stem(w, &mut form, |f| {
            found = lex
                .lookup(f)
                .filter(|(_, info)| info.is_verb() && f.len() > 1);
            found.is_some()
        });
        return found.map(|(sym, info)| Verb {
            sym,
            sense: info.sense.unwrap_or_default(),
            position: Position::First,
            noun: info.noun,
            inflected: exact != Some(sym),
            index,
        });
    }
    None
}

/// How many words a sentence's verb may follow (lead-ins and adverbs).
const SENTENCE_LEAD: usize = 12;

/// FNV-1a: the first words of a file's names, compared without keeping them.
fn fnv(w: &str) -> u64 {
    w.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

impl Group {
    /// The group of names read alone (no prefix, verb first).
    pub fn single() -> Group {
        Group::default()
    }

    /// The prefix and style `names` share: a prefix when at least three names and 60% of
    /// them open with the same word that is no verb; a style when at least three names put
    /// their first plain verb in one place more often than in any other (ties go to verb
    /// first, the common style).
    pub fn of<'a>(names: impl IntoIterator<Item = &'a str>, lex: &Lexicon) -> Group {
        let (mut words, mut cands) = (Words::default(), Vec::new());
        // By name: its first word (hashed) when that could be a prefix, and where its first
        // plain verb sits with and without that word. One reading per name.
        let mut rows: Vec<(Option<u64>, Option<Position>, Option<Position>)> = Vec::new();
        // One name per first word, to spell the prefix: a map, as a file may hold
        // thousands of names.
        let mut example: std::collections::HashMap<u64, &str> = Default::default();
        for name in names {
            words.read_name(name, lex, None);
            let vote = |w: &Words, cands: &mut Vec<(usize, Position)>| {
                w.candidates(Position::First, cands);
                cands
                    .iter()
                    .find(|c| w.info(c.0).is_plain_verb())
                    .map(|c| c.1)
            };
            let full = vote(&words, &mut cands);
            let first = (words.len() > 1 && !words.info(0).is_verb()).then(|| fnv(words.get(0)));
            let stripped = first.and_then(|h| {
                example.entry(h).or_insert(name);
                words.words.remove(0);
                vote(&words, &mut cands)
            });
            rows.push((first, full, stripped));
        }
        let mut firsts: Vec<u64> = rows.iter().filter_map(|r| r.0).collect();
        firsts.sort_unstable();
        let (mut best, mut count) = (None, 0);
        for run in firsts.chunk_by(|a, b| a == b) {
            if run.len() > count {
                (best, count) = (Some(run[0]), run.len());
            }
        }
        let best = best.filter(|_| rows.len() >= 3 && count * 10 >= rows.len() * 6);
        let prefix = best.and_then(|h| {
            let name = example.get(&h)?;
            words.read_name(name, lex, None);
            Some(Box::<str>::from(words.get(0)))
        });
        let mut votes = [0usize; 3];
        for (first, full, stripped) in rows {
            let v = if first.is_some() && first == best {
                stripped
            } else {
                full
            };
            if let Some(p) = v {
                votes[p as usize] += 1;
            }
        }
        let (mut style, mut top) = (Position::First, votes[0]);
        for p in [Position::Middle, Position::Last] {
            if votes[p as usize] > top {
                (style, top) = (p, votes[p as usize]);
            }
        }
        if top < 3 {
            style = Position::First;
        }
        Group { prefix, style }
    }
}
