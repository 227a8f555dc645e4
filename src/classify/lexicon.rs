//! The lexicon (`heuristics/words.yaml`): the words that carry an action's meaning and what
//! each implies. Loaded and checked here, looked up through the word index; how a verb is
//! found in a name is `name.rs`, how evidence combines is `decide.rs`.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::example::{Examples, is_kebab, replace_by_id};
use super::index::{Sym, WordMap};
use crate::effects::Effect;
use crate::error::{Error, Result};

/// A sense: the words that imply one effect.
#[derive(Debug, Clone)]
pub struct Sense {
    pub id: String,
    pub effect: Effect,
    /// A write that replaces or modifies existing data.
    pub overwrite: bool,
    /// Derives a result from what it is given (calculate, compare): a name that opens with
    /// such a verb may carry its real verb later (`compare_and_merge`).
    pub derives: bool,
    pub why: String,
    pub words: Vec<String>,
    pub examples: Examples,
    pub file: String,
}

/// A word that changes what the verb does when it appears in the name (`get_session_token`).
#[derive(Debug, Clone)]
pub struct Object {
    pub id: String,
    pub implies: Effect,
    pub why: String,
    /// The verbs it must follow; `None`: any verb whose sense is read-only.
    pub after: Option<Vec<String>>,
    pub words: Vec<String>,
    /// Also found in the description's first sentence.
    pub description: bool,
    pub examples: Examples,
    pub file: String,
}

/// What the lexicon says of one word.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WordInfo {
    /// Index into [`Lexicon::senses`].
    pub sense: Option<u8>,
    /// A noun about as often as a verb.
    pub noun: bool,
    pub modifier: bool,
    pub preposition: bool,
    pub conjunction: bool,
    pub lead_in: bool,
    /// A noun that names a read only as the last word of a name (`users_info`).
    pub last_only: bool,
    /// A read that is also the state a change leaves (`mark_read`).
    pub state: bool,
    /// A word of an OAuth scope's name that says it reads (`read` in `channels:read`).
    pub scope_read: bool,
    /// A word of a scope's name that says it writes or grants more (`manage`, `full`).
    pub scope_write: bool,
    /// The last segment of a URL that signs in (`/oauth/token`, `/login`).
    pub sign_in: bool,
    /// A particle that makes one verb with the word before it (`in` of `check_in`).
    pub particle: bool,
    /// A bit per object (index into [`Lexicon::objects`]) that names this word.
    pub objects: u32,
    /// A bit per object whose `after` lists this word.
    pub after: u32,
}

impl WordInfo {
    pub fn is_verb(&self) -> bool {
        self.sense.is_some()
    }

    /// A verb that is not also a common noun.
    pub fn is_plain_verb(&self) -> bool {
        self.sense.is_some() && !self.noun
    }
}

/// Every word of every lexicon file, indexed.
#[derive(Debug, Clone, Default)]
pub struct Lexicon {
    pub senses: Vec<Sense>,
    pub objects: Vec<Object>,
    index: WordMap,
    info: Vec<WordInfo>,
    words: Vec<Box<str>>,
    /// Objects that follow any read verb, and objects looked for in descriptions.
    after_any_read: u32,
    described: u32,
}

/// The lexicon part of a heuristics file, as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a sense (a mapping with `id`, `effect`, `words`, ...)"
)]
pub struct RawSense {
    pub id: String,
    pub effect: String,
    #[serde(default)]
    pub overwrite: bool,
    #[serde(default)]
    pub derives: bool,
    pub why: String,
    pub words: Vec<String>,
    pub examples: Examples,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an object (a mapping with `id`, `implies`, `words`, ...)"
)]
pub struct RawObject {
    pub id: String,
    pub implies: String,
    pub why: String,
    #[serde(default)]
    pub after: Option<Vec<String>>,
    pub words: Vec<String>,
    #[serde(default)]
    pub description: bool,
    pub examples: Examples,
}

/// The word lists of one file, with the file's name for messages.
#[derive(Debug, Clone, Default)]
pub struct Part {
    pub file: String,
    pub senses: Vec<RawSense>,
    pub noun_too: Vec<String>,
    pub modifiers: Vec<String>,
    pub prepositions: Vec<String>,
    pub conjunctions: Vec<String>,
    pub lead_ins: Vec<String>,
    pub last_only: Vec<String>,
    pub states: Vec<String>,
    pub scope_read: Vec<String>,
    pub scope_write: Vec<String>,
    pub sign_in: Vec<String>,
    pub particles: Vec<String>,
    pub objects: Vec<RawObject>,
}

const MAX_OBJECTS: usize = 32;

/// Sets one flag of a word.
type Flag = fn(&mut WordInfo);

fn is_word(w: &str) -> bool {
    !w.is_empty()
        && w.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

impl Lexicon {
    /// The lexicon of `parts` in order: a sense or object with the id of an earlier one
    /// replaces it, a word listed in a later sense moves there, lists add up.
    pub fn from_parts(parts: &[Part]) -> Result<Lexicon> {
        let mut senses: Vec<Sense> = Vec::new();
        let mut objects: Vec<Object> = Vec::new();
        // Word -> sense id; later files win.
        let mut sense_of: BTreeMap<String, String> = BTreeMap::new();
        let mut flags: BTreeMap<String, WordInfo> = BTreeMap::new();
        for part in parts {
            one_sense_per_word(part)?;
            merge_senses(part, &mut senses, &mut sense_of)?;
            merge_objects(part, &mut objects)?;
            merge_flags(part, &mut flags)?;
        }
        if objects.len() > MAX_OBJECTS {
            return Err(Error::new(format!(
                "at most {MAX_OBJECTS} objects are supported, found {}",
                objects.len()
            )));
        }
        let mut lex = Lexicon {
            senses,
            objects,
            ..Lexicon::default()
        };
        lex.index_words(&sense_of, flags);
        Ok(lex)
    }

    /// Gives every word its entry: its sense, its flags and the objects it names or
    /// follows, once the parts are merged.
    fn index_words(
        &mut self,
        sense_of: &BTreeMap<String, String>,
        flags: BTreeMap<String, WordInfo>,
    ) {
        // A moved word leaves its earlier sense.
        for sense in &mut self.senses {
            let id = sense.id.clone();
            sense.words.retain(|w| sense_of.get(w) == Some(&id));
        }
        let senses: Vec<Vec<String>> = self.senses.iter().map(|s| s.words.clone()).collect();
        for (i, words) in senses.iter().enumerate() {
            for w in words {
                self.entry(w).sense = Some(i as u8);
            }
        }
        for (w, f) in flags {
            let e = self.entry(&w);
            let sense = e.sense;
            *e = WordInfo { sense, ..f };
        }
        for (i, o) in self.objects.clone().iter().enumerate() {
            for w in &o.words {
                self.entry(w).objects |= 1 << i;
            }
            for w in o.after.iter().flatten() {
                self.entry(w).after |= 1 << i;
            }
            if o.after.is_none() {
                self.after_any_read |= 1 << i;
            }
            if o.description {
                self.described |= 1 << i;
            }
        }
    }

    fn entry(&mut self, w: &str) -> &mut WordInfo {
        let i = match self.index.get(w) {
            Some(s) => s as usize,
            None => {
                let s = self.info.len();
                self.index.insert(w, s as Sym);
                self.info.push(WordInfo::default());
                self.words.push(w.into());
                s
            }
        };
        &mut self.info[i]
    }

    /// The word's number and what the lexicon says of it; `None` for a word it does not know.
    #[inline]
    pub fn lookup(&self, w: &str) -> Option<(Sym, WordInfo)> {
        let s = self.index.get(w)?;
        Some((s, self.info[s as usize]))
    }

    pub fn info(&self, s: Sym) -> WordInfo {
        self.info[s as usize]
    }

    pub fn word(&self, s: Sym) -> &str {
        &self.words[s as usize]
    }

    /// The number of a known word.
    pub fn sym(&self, w: &str) -> Option<Sym> {
        self.index.get(w)
    }

    pub fn sense(&self, i: u8) -> &Sense {
        &self.senses[i as usize]
    }

    /// The objects (as a bit per object) that `verb` can take.
    pub fn objects_after(&self, verb: Sym) -> u32 {
        let info = self.info(verb);
        let read_only = info
            .sense
            .is_some_and(|s| self.sense(s).effect.is_read_only());
        info.after | if read_only { self.after_any_read } else { 0 }
    }

    /// The objects (as a bit per object) that are also looked for in descriptions.
    pub fn described_objects(&self) -> u32 {
        self.described
    }
}

/// An error of one sense or object of `part`, named in its file.
fn entry_error(part: &Part, what: &str, id: &str, msg: String) -> Error {
    Error::new(format!("{what} `{id}`: {msg}")).in_file(&part.file)
}

/// Refuses a file that lists a word in two of its senses: which one it meant is unknown,
/// where a later file's sense taking a word over is a choice.
fn one_sense_per_word(part: &Part) -> Result<()> {
    let mut in_file: BTreeMap<&str, &str> = BTreeMap::new();
    for raw in &part.senses {
        for w in &raw.words {
            if let Some(other) = in_file.insert(w, &raw.id)
                && other != raw.id
            {
                return Err(entry_error(
                    part,
                    "sense",
                    &raw.id,
                    format!("the word `{w}` is in sense `{other}` too: a word has one sense"),
                ));
            }
        }
    }
    Ok(())
}

/// Checks the senses of `part` and adds them to `senses`, each replacing one of its id;
/// each word's sense is the last one to list it.
fn merge_senses(
    part: &Part,
    senses: &mut Vec<Sense>,
    sense_of: &mut BTreeMap<String, String>,
) -> Result<()> {
    for raw in &part.senses {
        let err = |msg| entry_error(part, "sense", &raw.id, msg);
        let effect =
            Effect::parse(&raw.effect).ok_or_else(|| err(unknown_effect("effect", &raw.effect)))?;
        check_entry(&raw.id, &raw.why, &raw.words, &raw.examples).map_err(err)?;
        for w in &raw.words {
            sense_of.insert(w.clone(), raw.id.clone());
        }
        let sense = Sense {
            id: raw.id.clone(),
            effect,
            overwrite: raw.overwrite,
            derives: raw.derives,
            why: raw.why.clone(),
            words: raw.words.clone(),
            examples: raw.examples.clone(),
            file: part.file.clone(),
        };
        replace_by_id(senses, sense, |s| &s.id);
    }
    Ok(())
}

/// Checks the objects of `part` and adds them to `objects`, each replacing one of its id.
fn merge_objects(part: &Part, objects: &mut Vec<Object>) -> Result<()> {
    for raw in &part.objects {
        let err = |msg| entry_error(part, "object", &raw.id, msg);
        let implies = Effect::parse(&raw.implies)
            .ok_or_else(|| err(unknown_effect("implies", &raw.implies)))?;
        check_entry(&raw.id, &raw.why, &raw.words, &raw.examples).map_err(err)?;
        if let Some(bad) = raw.after.iter().flatten().find(|w| !is_word(w)) {
            return Err(err(format!(
                "field `after`: `{bad}` is not a lower-case word"
            )));
        }
        let object = Object {
            id: raw.id.clone(),
            implies,
            why: raw.why.clone(),
            after: raw.after.clone(),
            words: raw.words.clone(),
            description: raw.description,
            examples: raw.examples.clone(),
            file: part.file.clone(),
        };
        replace_by_id(objects, object, |o| &o.id);
    }
    Ok(())
}

/// Sets the flags the word lists of `part` give their words (`noun_too`, `modifiers`...):
/// the lists of every file add up.
fn merge_flags(part: &Part, flags: &mut BTreeMap<String, WordInfo>) -> Result<()> {
    let lists: [(&[String], &str, Flag); 11] = [
        (&part.last_only, "last_only", |i| i.last_only = true),
        (&part.states, "states", |i| i.state = true),
        (&part.noun_too, "noun_too", |i| i.noun = true),
        (&part.modifiers, "modifiers", |i| i.modifier = true),
        (&part.prepositions, "prepositions", |i| i.preposition = true),
        (&part.conjunctions, "conjunctions", |i| i.conjunction = true),
        (&part.lead_ins, "lead_ins", |i| i.lead_in = true),
        (&part.scope_read, "scope_read", |i| i.scope_read = true),
        (&part.scope_write, "scope_write", |i| i.scope_write = true),
        (&part.sign_in, "sign_in", |i| i.sign_in = true),
        (&part.particles, "particles", |i| i.particle = true),
    ];
    for (list, name, set) in lists {
        if let Some(bad) = list.iter().find(|w| !is_word(w)) {
            return Err(
                Error::new(format!("field `{name}`: `{bad}` is not a lower-case word"))
                    .in_file(&part.file),
            );
        }
        for w in list {
            set(flags.entry(w.clone()).or_default());
        }
    }
    Ok(())
}

fn unknown_effect(field: &str, s: &str) -> String {
    format!(
        "field `{field}`: unknown effect `{s}` (expected read, search, write, delete or execute)"
    )
}

fn check_entry(id: &str, why: &str, words: &[String], examples: &Examples) -> Result<(), String> {
    if !is_kebab(id) {
        return Err("field `id` must be kebab-case".into());
    }
    if why.trim().is_empty() {
        return Err("field `why` is empty".into());
    }
    if let Some(bad) = words.iter().find(|w| !is_word(w)) {
        return Err(format!(
            "field `words`: `{bad}` is not a lower-case word (names are split into words before they are looked up)"
        ));
    }
    if examples.matches.is_empty() || examples.no_match.is_empty() {
        return Err(
            "field `examples`: needs at least one `match` and one `no_match` example".into(),
        );
    }
    Ok(())
}
