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
use super::signals::{first_sentence, sentence_end, sentence_head};
use crate::text::words::{each_stem, each_token, lower, raw_words};

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
    /// The first words most names share (`browser_`, `atlas-`, `device_management_`): a
    /// product, service or connector prefix, skipped. Its words are joined by `_`.
    pub prefix: Option<Box<str>>,
    /// Where most names put a verb that is not also a noun.
    pub style: Position,
    /// What a POST of the API can be shown to say, from how the API uses its methods.
    pub post: PostSays,
}

/// What a POST of an API can be shown to say, as its [`Group`] measures how the API uses
/// its methods.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(
    rename_all = "kebab-case",
    expecting = "`change`, `nothing` or `unmeasured`"
)]
pub enum PostSays {
    /// The API separates reads from changes by method: a POST is evidence of a change.
    #[default]
    Change,
    /// The API sends its reads as POST too: most of its actions whose names open with a read
    /// verb are POSTs (JSON-RPC, JSON-protocol and GraphQL APIs, an SDK's RPC layer), or every
    /// call is. There POST is how a call is made, read or not, and says nothing.
    Nothing,
    /// The API makes one call with an HTTP method: nothing shows what its POST says.
    Unmeasured,
}

/// One word of a name, as the lexicon knows it.
#[derive(Debug, Clone, Copy, Default)]
struct Word {
    sym: Option<Sym>,
    info: WordInfo,
    start: u32,
    end: u32,
    /// A word of the prefix the names share, met again: the resource the API is named
    /// for, not its verb (its sense is cleared; this keeps its stems from being tried).
    resource: bool,
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
    /// Reads `name`'s words, skipping `prefix` (words joined by `_`) when it opens a name
    /// that has more words than it; whether it did.
    pub fn read_name(&mut self, name: &str, lex: &Lexicon, prefix: Option<&str>) -> bool {
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
                resource: false,
            });
        });
        let mut skipped = false;
        if let Some(p) = prefix {
            let n = p.split('_').count();
            if self.words.len() > n && p.split('_').enumerate().all(|(i, w)| self.get(i) == w) {
                self.words.drain(..n);
                skipped = true;
            }
            self.mark_resource(p);
        }
        self.join_particles(lex);
        self.opening_inflection(lex);
        skipped
    }

    /// Reads a word and the particle after it as the one verb the lexicon knows them as
    /// run together (`check_in` as `checkin`): a phrasal verb means other than its verb
    /// (`check` reads; `checkin` changes). Run together, such a pair names a thing as often
    /// (`list_check_in_responses`, `sign_up_flow`), so it is read as a noun too.
    fn join_particles(&mut self, lex: &Lexicon) {
        let mut i = 1;
        while i < self.words.len() {
            if self.words[i].info.particle {
                let (start, end) = (self.words[i - 1].start, self.words[i].end);
                if let Some((sym, info)) = lex
                    .lookup(&self.text[start as usize..end as usize])
                    .filter(|(_, info)| info.is_verb())
                {
                    self.words[i - 1] = Word {
                        sym: Some(sym),
                        info: WordInfo { noun: true, ..info },
                        start,
                        end,
                        resource: false,
                    };
                    self.words.remove(i);
                    continue;
                }
            }
            i += 1;
        }
    }

    /// Marks the words that repeat a word of the names' shared prefix, singular or plural,
    /// unless a plain verb (`grant` in `oauth2_permission_grants_…_list_…_grant`): no verb
    /// there for any reader of the name, nor a stem of one (`grants`).
    fn mark_resource(&mut self, prefix: &str) {
        let (text, words) = (&self.text, &mut self.words);
        for w in words.iter_mut().filter(|w| !w.info.is_plain_verb()) {
            let word = &text[w.start as usize..w.end as usize];
            w.resource = prefix.split('_').any(|p| {
                p == word || p.strip_suffix('s') == Some(word) || word.strip_suffix('s') == Some(p)
            });
            if w.resource {
                w.info.sense = None;
            }
        }
    }

    /// A name that opens with a plain verb's third-person or gerund form
    /// (`gets_dns_record_set`, `creating_backup`, display names made into ids) opens with
    /// that verb. Only a plain verb (`messages_send` opens with a noun) and only there: a
    /// later `completed` or `updates` qualifies a noun more often than it acts.
    fn opening_inflection(&mut self, lex: &Lexicon) {
        let Some(first) = self.words.first() else {
            return;
        };
        if first.info.is_verb() {
            return;
        }
        let word = &self.text[first.start as usize..first.end as usize];
        if word.len() < 4 || word.ends_with("ss") {
            return;
        }
        // (stem, what follows it): looked up in place, or built in the reused buffer only
        // when a letter is added (`copies` -> `copy`, `creating` -> `create`). Runs for every
        // name that does not open with a verb.
        let forms: [(&str, &str); 2] = if let Some(w) = word.strip_suffix("ies") {
            [(w, "y"), ("", "")]
        } else if let Some(w) = word.strip_suffix("es") {
            [(w, ""), (w, "e")]
        } else if let Some(w) = word.strip_suffix('s') {
            [(w, ""), ("", "")]
        } else if let Some(w) = word.strip_suffix("ing") {
            [(w, ""), (w, "e")]
        } else {
            return;
        };
        let tok = &mut self.tok;
        let found = forms
            .into_iter()
            .filter(|(stem, _)| !stem.is_empty())
            .find_map(|(stem, tail)| {
                let form = if tail.is_empty() {
                    stem
                } else {
                    tok.clear();
                    tok.push_str(stem);
                    tok.push_str(tail);
                    tok.as_str()
                };
                lex.lookup(form).filter(|(_, info)| info.is_plain_verb())
            });
        if let Some((sym, info)) = found {
            let w = &mut self.words[0];
            w.sym = Some(sym);
            w.info = info;
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
                resource: false,
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
        out.retain(|&(i, p)| {
            (!words[i].info.last_only || p == Position::Last || n == 1) && !words[i].resource
        });
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

    /// A plain verb of a change where the name's grammar makes it the verb over the one at
    /// `skip`: before it, as a verb takes its object after it (`mark_chat_read_for_user`,
    /// `messages_mark_read`), or as the name's last word (`…_jobs_redirect`). In a file whose
    /// names put their verb last, only the last word (`send_as_get` gets). After the verb and
    /// before the end, a change word qualifies the object (`get_create_issue_meta`,
    /// `get_pay_runs`): counted in any position, change words overruled 63 reads of the dev
    /// sets, 61 of them right, nearly all such middle words. `get`: the call is a GET.
    pub fn change_verb(
        &self,
        lex: &Lexicon,
        skip: usize,
        style: Position,
        get: bool,
    ) -> Option<Verb> {
        let n = self.words.len();
        let last = n.checked_sub(1)?;
        // A read that is also a state (`read`) is the state a change before it leaves, in any
        // style (`update_space_read_state`), after a change word that is as often a noun too
        // (`messages_mark_read`), but for the resource a verb-last name opens with
        // (`log_profile_read`).
        let state = self.words.get(skip).is_some_and(|w| w.info.state);
        // A read taken past the first word only because no plainer verb was there, a word as
        // often a noun (`…_tables_columns_filter_clear`), is no more the verb than a change
        // word as often a noun that ends the name, where path-made names put the operation.
        // Not after a preposition, where the last word is what the read is by
        // (`users_lookup_by_email`), nor over GET, which HTTP defines as safe
        // (`…_async_task`).
        let weak = !get
            && skip > 0
            && self.words.get(skip).is_some_and(|w| w.info.noun)
            && !self.words[skip..].iter().any(|w| w.info.preposition);
        let before = if style == Position::Last && !state {
            0
        } else {
            skip
        };
        (0..before).chain([last]).find_map(|i| {
            let info = self.words[i].info;
            (i != skip
                && !info.modifier
                && (info.is_plain_verb()
                    || (state && i < skip && info.is_verb() && (i > 0 || style != Position::Last))
                    || (weak && i == last && info.is_verb()))
                && !lex.sense(info.sense?).effect.is_read_only())
            .then(|| self.verb_at((i, Position::Middle)))
        })
    }

    /// The first verb of the name that reads or searches (`list` too, a noun as often).
    pub fn read_verb(&self, lex: &Lexicon) -> Option<Verb> {
        (0..self.words.len()).find_map(|i| {
            let info = self.info(i);
            (!info.modifier && info.is_verb() && lex.sense(info.sense?).effect.is_read_only())
                .then(|| self.verb_at((i, Position::First)))
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
    sentence_verb_in(text, lex, &mut String::new(), &mut String::new())
}

/// [`sentence_verb`] with buffers the caller reuses: it runs twice for every action.
pub(crate) fn sentence_verb_in(
    text: &str,
    lex: &Lexicon,
    buf: &mut String,
    form: &mut String,
) -> Option<Verb> {
    let head = sentence_head(text);
    let mut words = raw_words(head).peekable();
    for index in 0..SENTENCE_LEAD {
        let raw = words.next()?;
        let w = lower(raw, buf);
        // A modifier qualifies the verb after it ("Force unlocks", "Bulk delete").
        if w.ends_with("ly") || lex.lookup(w).is_some_and(|(_, i)| i.lead_in || i.modifier) {
            continue;
        }
        // "Read-only tool that recalculates ..." claims, it does not act: the verb is later.
        if w == "read" && words.peek().is_some_and(|n| n.eq_ignore_ascii_case("only")) {
            words.next();
            continue;
        }
        let at = raw.as_ptr() as usize - head.as_ptr() as usize;
        if sentence_end(head) < at {
            return None;
        }
        let exact = lex.sym(w);
        let mut found = None;
        each_stem(w, form, |f| {
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

/// The share of an API's read-named actions sent as POST from which its method says
/// nothing: above every REST API of the labelled sets (the most, 4 of 10 in Graph's search
/// area, are search endpoints; then Supabase's MCP tools 2 of 12, Square 16 of 97), below
/// an API that posts every call.
pub const POSTED_READS: f64 = 0.5;
/// How many read-named actions (or calls, where every call is a POST) must be seen before
/// the share says anything. Two, measured: with three, the labelled sets rendered
/// with every method POST flipped 13 more reads of two-action APIs (a Graph area's `list_`
/// and `get_`) into changes, and as written the sets moved by two rows of one Google API,
/// both held instead of proposed.
pub const POSTED_READS_SEEN: usize = 2;

/// The most words a prefix is read to (a service and a resource or two), unless every name
/// opens with more.
const PREFIX_WORDS: usize = 4;

/// How many words a sentence's verb may follow (lead-ins and adverbs).
const SENTENCE_LEAD: usize = 12;

/// FNV-1a: the first words of a file's names, compared without keeping them.
fn fnv(w: &str) -> u64 {
    w.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// The longest run of `key`'s leading words that opens one of `names` with a word after it,
/// unless the key opens with a verb (a connector named `sync` is read as the verb it is).
fn key_prefix(names: &[&str], key: &str, words: &mut Words, lex: &Lexicon) -> Vec<String> {
    words.read_name(key, lex, None);
    let key: Vec<String> = words.iter().map(str::to_owned).collect();
    if key
        .first()
        .is_none_or(|w| lex.lookup(w).is_some_and(|(_, i)| i.is_verb()))
    {
        return Vec::new();
    }
    let mut best = 0;
    for name in names {
        words.read_name(name, lex, None);
        let shared = key
            .iter()
            .zip(words.iter())
            .take_while(|(k, w)| k.as_str() == *w)
            .count();
        if shared < words.len() {
            best = best.max(shared);
        }
    }
    key[..best].to_vec()
}

impl Group {
    /// The group of names read alone (no prefix, verb first).
    pub fn single() -> Group {
        Group::default()
    }

    /// The prefix and style `names` share. A prefix: the longest run of first words that at
    /// least three names and 60% of them open with, each word no verb, or both of two names
    /// with a verb after it, or (a service named by a verb, `print_`, `compute_`) shared by
    /// 90% of at least five names. A style: where at least three names, read without the
    /// prefix, put their first plain verb more often than anywhere else (ties go to verb
    /// first, the common style).
    pub fn learn<'a>(names: impl IntoIterator<Item = &'a str>, lex: &Lexicon) -> Group {
        Group::learn_calls(names.into_iter().map(|n| (n, None::<&str>)), lex)
    }

    /// [`Group::learn`] for names with the HTTP methods of their calls (`None`: unknown), from
    /// which how the API uses its methods is read too: an API whose read-named actions are
    /// POSTs [`PostSays::Nothing`] from [`POSTED_READS`] of them and at least
    /// [`POSTED_READS_SEEN`].
    pub fn learn_calls<'a, M: AsRef<str>>(
        calls: impl IntoIterator<Item = (&'a str, Option<M>)>,
        lex: &Lexicon,
    ) -> Group {
        Group::learn_connector(calls, None, lex)
    }

    /// [`Group::learn_calls`] for a connector whose key (`info.key`) is known. Where the names
    /// share no prefix of their own, the key's leading words that open a name are skipped as
    /// one: the tool a client sees is `<key>_<actionId>`, so an id that repeats the key
    /// (`cowin_get_certificate_pdf` of `cowin_gov`) says it twice, and a connector of one or
    /// two actions has too few names to vote a prefix (the labelled sets rendered with the key
    /// as a prefix flipped such an action).
    pub fn learn_connector<'a, M: AsRef<str>>(
        calls: impl IntoIterator<Item = (&'a str, Option<M>)>,
        key: Option<&str>,
        lex: &Lexicon,
    ) -> Group {
        let mut words = Words::default();
        let (names, methods): (Vec<&str>, Vec<Option<M>>) = calls.into_iter().unzip();
        let mut spelled = shared_prefix(&names, lex, &mut words);
        if spelled.is_empty()
            && let Some(key) = key
        {
            spelled = key_prefix(&names, key, &mut words, lex);
        }
        let prefix = (!spelled.is_empty()).then(|| Box::<str>::from(spelled.join("_")));
        let style = voted_style(&names, prefix.as_deref(), lex, &mut words);
        let post = if posts_reads(&names, &methods, prefix.as_deref(), style, lex, &mut words) {
            PostSays::Nothing
        } else if methods.iter().flatten().count() == 1 {
            PostSays::Unmeasured
        } else {
            PostSays::Change
        };
        Group {
            prefix,
            style,
            post,
        }
    }
}

/// The longest run of first words that at least three names and 60% of them open with,
/// each word no verb, or (a service named by a verb, `print_`, `compute_`) shared by 90% of
/// at least five names whose rest holds a verb of its own. Two names share a word as a
/// prefix where a verb follows it in both (`ebay_get_product`, `ebay_search`): measured on
/// the labelled sets, nothing moved as written, and with every name given its
/// connector's key three tools of two-tool servers no longer flipped to held.
fn shared_prefix(names: &[&str], lex: &Lexicon, words: &mut Words) -> Vec<String> {
    // Each name's words, hashed: the prefix is found without keeping them.
    let hashed: Vec<Vec<u64>> = names
        .iter()
        .map(|name| {
            words.read_name(name, lex, None);
            words.iter().map(fnv).collect()
        })
        .collect();
    let mut prefix: Vec<u64> = Vec::new();
    let mut spelled: Vec<String> = Vec::new();
    loop {
        let k = prefix.len();
        let mut next: std::collections::HashMap<u64, (usize, usize)> = Default::default();
        for (i, h) in hashed.iter().enumerate() {
            if h.len() > k + 1 && h[..k] == prefix[..] {
                next.entry(h[k]).or_insert((0, i)).0 += 1;
            }
        }
        // The most shared word; ties go to the first name's, so the order of a map decides
        // nothing.
        let Some((&h, &(count, at))) = next
            .iter()
            .max_by_key(|(_, (count, at))| (*count, std::cmp::Reverse(*at)))
        else {
            break;
        };
        // Past a service and a resource or two, only words every name opens with: a key an
        // export put before every tool's name (`git_hub_s_official_open_api_spec_…`), whose
        // `open` would otherwise be read as each name's verb.
        if k >= PREFIX_WORDS && !(names.len() >= 3 && count == names.len()) {
            break;
        }
        words.read_name(names[at], lex, None);
        let word = words.get(k).to_owned();
        // A read verb the names share is their verb, whatever follows it: a partial that
        // holds a connector's `get_*` actions is no service named `get`.
        if super::plain::READ_WORDS.contains(&word.as_str()) {
            break;
        }
        let opening = |hs: &&Vec<u64>| hs.len() > k + 1 && hs[..k] == prefix[..] && hs[k] == h;
        // The prefix were the word taken, as `read_name` skips it.
        let p = spelled
            .iter()
            .chain([&word])
            .cloned()
            .collect::<Vec<_>>()
            .join("_");
        let shared = if lex.lookup(&word).is_some_and(|(_, i)| i.is_verb()) {
            // A verb every name opens with (`list_a`, `list_b`) is their verb, not a
            // service: the rest of each name must hold a verb of its own.
            let verbed = hashed
                .iter()
                .zip(names)
                .filter(|(hs, _)| opening(hs))
                .filter(|(_, name)| {
                    words.read_name(name, lex, Some(&p));
                    (0..words.len()).any(|i| words.info(i).is_verb())
                })
                .count();
            names.len() >= 5 && count * 10 >= names.len() * 9 && verbed * 10 >= count * 6
        } else if names.len() == 2 && count == 2 {
            names.iter().all(|name| {
                words.read_name(name, lex, Some(&p));
                !words.is_empty() && words.info(0).is_verb()
            })
        } else {
            names.len() >= 3 && count * 10 >= names.len() * 6
        };
        if !shared {
            break;
        }
        prefix.push(h);
        spelled.push(word);
    }
    spelled
}

/// Where at least three names, read without the prefix, put their first plain verb more
/// often than anywhere else (ties go to verb first, the common style).
fn voted_style(names: &[&str], prefix: Option<&str>, lex: &Lexicon, words: &mut Words) -> Position {
    let mut cands = Vec::new();
    let mut votes = [0usize; 3];
    for name in names {
        words.read_name(name, lex, prefix);
        words.candidates(Position::First, &mut cands);
        if let Some(c) = cands.iter().find(|c| words.info(c.0).is_plain_verb()) {
            votes[c.1 as usize] += 1;
        }
    }
    let (mut style, mut top) = (Position::First, votes[0]);
    for p in [Position::Middle, Position::Last] {
        if votes[p as usize] > top {
            (style, top) = (p, votes[p as usize]);
        }
    }
    if top < 3 { Position::First } else { style }
}

/// Whether the API sends its reads as POST ([`PostSays::Nothing`]): from [`POSTED_READS`]
/// of its read-named actions (the verb where the style puts it reads) and at least
/// [`POSTED_READS_SEEN`], or every call a POST. An API that sends every call as POST says
/// nothing by it either, whatever its names (`/gethomedata`, `/devicelist`: none opens with
/// a read verb to count).
fn posts_reads<M: AsRef<str>>(
    names: &[&str],
    methods: &[Option<M>],
    prefix: Option<&str>,
    style: Position,
    lex: &Lexicon,
    words: &mut Words,
) -> bool {
    let mut cands = Vec::new();
    let (mut read_named, mut posted) = (0usize, 0usize);
    for (name, method) in names.iter().zip(methods) {
        let Some(m) = method else { continue };
        words.read_name(name, lex, prefix);
        let reads = words
            .pick_verb(style, lex, &mut cands)
            .is_some_and(|v| !v.inflected && lex.sense(v.sense).effect.is_read_only());
        if reads {
            read_named += 1;
            posted += usize::from(m.as_ref().eq_ignore_ascii_case("post"));
        }
    }
    let calls = methods.iter().flatten().count();
    let every_call_posted = calls >= POSTED_READS_SEEN
        && methods
            .iter()
            .flatten()
            .all(|m| m.as_ref().eq_ignore_ascii_case("post"));
    every_call_posted
        || (read_named >= POSTED_READS_SEEN && posted as f64 >= POSTED_READS * read_named as f64)
}
