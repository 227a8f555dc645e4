//! What every check reads of one action: its text split into words once, the words of the
//! rules file that are no check's own (lead-ins, stopwords), the effects, and the hint
//! pieces written for this action (its verb, resource and provider).

use std::collections::BTreeSet;

use super::hint::{capitalized, effect_verbs, third_person};
use super::words::{Phrase, Token, normalize_name, skip_lead_in, tokens};
use crate::classify::{Group, Inference, RuleSet};
use crate::effects::Effects;
use crate::text::sentence::first_sentence;
use crate::view::{ActionView, Input};

/// The rules file's words every check shares, and the effect rules a claim is held against.
#[derive(Debug, Clone)]
pub struct Vocabulary {
    pub lead_ins: Vec<Phrase>,
    /// Stems that say nothing about the target or the change.
    pub stopwords: BTreeSet<String>,
    /// The effect rules the read-only claim check asks (`--heuristics` replaces them).
    pub effect_rules: RuleSet,
}

/// Text of one action, tokenized once for every check.
pub struct Reading<'a> {
    pub view: &'a ActionView,
    /// The names around the action (its file, or the server's tool list), read as backfill
    /// and audit read them, so lint holds a claim against the same decision.
    pub group: &'a Group,
    pub effects: Effects,
    /// The run's decision for the action, when it made one.
    pub decided: Option<&'a Inference>,
    pub vocabulary: &'a Vocabulary,
    pub description: &'a str,
    /// The first sentence of the description.
    pub first: &'a str,
    pub first_tokens: Vec<Token>,
    /// Index in `first_tokens` of the verb, after any lead-in.
    pub first_verb: usize,
    /// Description and details together.
    pub body: String,
    pub body_tokens: Vec<Token>,
    pub label: &'a str,
    pub label_tokens: Vec<Token>,
    pub id_tokens: Vec<Token>,
}

impl<'a> Reading<'a> {
    pub fn new(
        view: &'a ActionView,
        group: &'a Group,
        effects: Effects,
        vocabulary: &'a Vocabulary,
    ) -> Reading<'a> {
        // An OpenAPI operation's summary is the text a tool made from it shows where it has
        // no description: the operation is described, in one line.
        let description = view
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .or_else(|| {
                (view.source == crate::view::SourceKind::OpenApi)
                    .then_some(view.label.as_deref())
                    .flatten()
                    .map(str::trim)
            })
            .unwrap_or("");
        let first = first_sentence(description);
        let first_tokens = tokens(first);
        let first_verb = skip_lead_in(&first_tokens, &vocabulary.lead_ins);
        let body = match view.details.as_deref() {
            Some(d) => format!("{description}\n{d}"),
            None => description.to_owned(),
        };
        let body_tokens = tokens(&body);
        let label = view.label.as_deref().unwrap_or("").trim();
        Reading {
            view,
            group,
            effects,
            decided: None,
            vocabulary,
            description,
            first,
            first_tokens,
            first_verb,
            body,
            body_tokens,
            label,
            label_tokens: tokens(label),
            id_tokens: tokens(&view.id),
        }
    }

    pub fn changes_state(&self) -> bool {
        self.effects.iter().any(|e| !e.is_read_only())
    }

    /// The provider, when known (a catalog connector's title).
    pub fn target(&self) -> Option<&str> {
        self.view
            .connector_title
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
    }

    /// The first input named in `names` (normalized) that is of the given kind.
    pub fn input(&self, names: &BTreeSet<String>, kind: fn(&Input) -> bool) -> Option<String> {
        self.view
            .inputs
            .iter()
            .find(|i| names.contains(&normalize_name(&i.name)) && kind(i))
            .map(|i| i.name.clone())
    }

    /// The name's verb and what it acts on: the verb is the word the description or the
    /// label opens with, else the name's first word; the rest, without batch words, is the
    /// resource ("bulk_delete_contacts" -> delete, contacts; "candidate_create" -> create,
    /// candidate). A one-word name is taken for a verb with no resource.
    pub fn name_parts(&self) -> (Option<&str>, Option<String>) {
        let label_verb = skip_lead_in(&self.label_tokens, &self.vocabulary.lead_ins);
        let opens: Vec<&str> = [
            self.first_tokens.get(self.first_verb),
            self.label_tokens.get(label_verb),
        ]
        .into_iter()
        .flatten()
        .map(|t| t.stem.as_str())
        .collect();
        // The name past the prefix its group shares (a server's `API-`, a product's
        // `browser_`): a service names no resource (`API-delete-a-block` deletes a block).
        let skip = self.group.prefix.as_deref().map_or(0, |p| {
            let words: Vec<&str> = p.split('_').collect();
            let opens = self.id_tokens.len() > words.len()
                && words.iter().zip(&self.id_tokens).all(|(w, t)| *w == t.word);
            if opens { words.len() } else { 0 }
        });
        let toks = &self.id_tokens[skip..];
        if let Some(resource) = self.made_name_resource() {
            return (None, resource);
        }
        let lex = &self.vocabulary.effect_rules.lexicon;
        let is_verb = |t: &Token| {
            lex.lookup(&t.word)
                .or_else(|| lex.lookup(&t.stem))
                .is_some_and(|(_, info)| info.is_verb())
        };
        // The word the text opens with, else the name's first verb (`sandbox_terminate`
        // over "Shuts down a sandbox": its first word taken for the verb made "the
        // terminate"), else none; a name of one word is its verb.
        let verb = toks
            .iter()
            .position(|t| opens.contains(&t.stem.as_str()))
            .or_else(|| toks.iter().position(is_verb))
            .or((toks.len() == 1).then_some(0));
        const BATCH: [&str; 6] = ["all", "bulk", "batch", "many", "multiple", "mass"];
        // Articles join words in a name made from a sentence; they name nothing.
        const ARTICLES: [&str; 3] = ["a", "an", "the"];
        let rest: Vec<&str> = toks
            .iter()
            .enumerate()
            .filter(|(i, t)| {
                Some(*i) != verb
                    && !BATCH.contains(&t.word.as_str())
                    && !ARTICLES.contains(&t.word.as_str())
            })
            .map(|(_, t)| t.word.as_str())
            .collect();
        let resource = (!rest.is_empty()).then(|| rest.join(" "));
        (verb.map(|i| toks[i].word.as_str()), resource)
    }

    /// A name made of the method and the path (an operation without an `operationId`:
    /// `post_api_contents_path_checkpoints_checkpoint_id`) has no verb, and its resource is
    /// the path's last literal segment, not its parameters and prefixes: that resource, when
    /// the name is so made.
    fn made_name_resource(&self) -> Option<Option<String>> {
        let [step] = self.view.steps.as_slice() else {
            return None;
        };
        let (method, url) = (step.method.as_deref()?, step.url.as_deref()?);
        let made: Vec<String> = tokens(&format!("{method} {url}"))
            .into_iter()
            .map(|t| t.word)
            .collect();
        if made.is_empty() || !made.iter().eq(self.id_tokens.iter().map(|t| &t.word)) {
            return None;
        }
        let last = url
            .split('/')
            .rev()
            .find(|seg| !seg.is_empty() && !seg.contains(['{', '}', '$', ':']))
            .map(|seg| tokens(seg).into_iter().map(|t| t.word).collect::<Vec<_>>());
        Some(last.filter(|w| !w.is_empty()).map(|w| w.join(" ")))
    }

    /// What the action acts on, or a blank to fill in.
    pub fn resource(&self) -> String {
        self.name_parts().1.unwrap_or_else(|| "<what>".into())
    }

    /// A first sentence for this action: its name's verb, its resource and its provider
    /// ("Removes the user in Acme."), blanks where the name does not say.
    pub fn example(&self) -> String {
        let (verb, resource) = self.name_parts();
        let verb = verb.unwrap_or_else(|| effect_verbs(self.effects)[0]);
        let place = self.target().unwrap_or("<which system>");
        let resource = resource.map_or_else(|| "<what>".into(), |r| format!("the {r}"));
        format!(
            "{} {resource} in {place}.",
            capitalized(&third_person(verb))
        )
    }

    /// Where the verb is read from: the description's first sentence, or the label when
    /// there is no description (a vague title over a precise description hides nothing).
    pub fn verb_source(&self) -> (&str, &[Token], usize) {
        if self.description.is_empty() {
            let verb = skip_lead_in(&self.label_tokens, &self.vocabulary.lead_ins);
            (self.label, &self.label_tokens, verb)
        } else {
            (self.first, &self.first_tokens, self.first_verb)
        }
    }
}

/// An input a caller can fill with any text: no enum, and a string type or none.
pub fn is_free_string(i: &Input) -> bool {
    i.enum_values.is_empty()
        && i.ty
            .as_deref()
            .is_none_or(|t| t.eq_ignore_ascii_case("string"))
}

pub fn is_boolean(i: &Input) -> bool {
    i.ty.as_deref()
        .is_some_and(|t| t.eq_ignore_ascii_case("boolean") || t.eq_ignore_ascii_case("bool"))
}
