//! Classify's English, in one place: the sentence a decision is given (the CSV's and the
//! findings' reason, the audit's), and the phrases `explain` and the review guide build on
//! (a record's evidence, a hold's why, the catalog's vote). What every output says of a
//! proposal is said here, so it cannot drift between them.

use super::known::RuleSet;
use super::plain::{self, Agreement, Claim};
use super::reading::{Basis, Decision, Held, Inference, Judgement};
use super::record::Key;
use super::terms::Confidence;
use super::vote::{Did, MethodClass, Vote, Word};

impl Inference {
    /// One sentence on what decided and how sure it is. Made when asked, from what the
    /// inference keeps anyway: held for every action of one large file, the sentences
    /// were a tenth of its plan.
    /// `vote`: what the catalog's declarations said of it, beside it.
    pub fn reason(&self, vote: Option<&Vote>, set: &RuleSet) -> String {
        match (&self.decision, &self.judgement) {
            (Some(d), Some(j)) => with_vote(decision(d, j, set), self, vote, set),
            _ => UNCLASSIFIED.to_owned(),
        }
    }
}

const UNCLASSIFIED: &str = "no verb in the name, operation, label, path or description, and no rule matched: left unclassified rather than guessed";

/// What decided and how sure it is, before any vote of the catalog.
fn decision(d: &Decision, j: &Judgement, set: &RuleSet) -> String {
    let lex = &set.lexicon;
    let what = match (d.basis, d.verb) {
        (Basis::Declared, _) => String::from("the hint declared in the catalog, a person's claim"),
        (Basis::Plain(line, _), _) => ["the plain reading (", line.name(), ")"].concat(),
        (Basis::Rule(i), _) => ["rule `", &set.rules[i].id, "`"].concat(),
        (Basis::Veto(v), Some((_, verb))) => [
            "the verb `",
            lex.word(verb.sym),
            "` reads, but a change in the ",
            v.name(),
            " overrules it",
        ]
        .concat(),
        (Basis::Verb(s), Some((_, verb))) => [
            "the verb `",
            lex.word(verb.sym),
            "` (",
            &lex.sense(verb.sense).id,
            ") of the ",
            s.name(),
        ]
        .concat(),
        _ => String::from("the evidence"),
    };
    let how = match d.agreement {
        plain::Agreement::Agrees => "; the HTTP method agrees",
        plain::Agreement::Neutral => "; no HTTP method to go by",
        plain::Agreement::Disagrees => "; the HTTP method disagrees",
        plain::Agreement::Named => "; a POST to a URL that names the operation",
    };
    if let Some(h) = j.held {
        return [&what, how, "; low: held for a person: ", h.why()].concat();
    }
    if d.basis == Basis::Declared {
        return [
            &what,
            how,
            "; high: taken at a person's word, unless strong evidence says change",
        ]
        .concat();
    }
    if matches!(d.basis, Basis::Plain(..)) {
        let level = j.confidence.name();
        return match (j.raised, j.confidence) {
            (true, _) => [&what, how, "; ", level, ": its record is poor, but holding it would win nothing (a change a person approves either way)"].concat(),
            (_, Confidence::Low) => [&what, how, "; low: held for a human"].concat(),
            _ => [&what, how, "; ", level].concat(),
        };
    }
    let sure = match (j.confidence, j.key, d.claim) {
        (Confidence::High, ..) => {
            "; high: such evidence held at least 98.5% of the time on the labelled sets"
        }
        (Confidence::Medium, ..) => "; medium",
        (Confidence::Low, Key::Support { .. }, _) => {
            "; low: seen in too few providers to speak for itself, and nothing that agrees makes up for it"
        }
        (Confidence::Low, _, Claim::Change) => {
            "; low: such evidence pointed to reads more often than the labelled operations do"
        }
        (Confidence::Low, ..) => {
            "; low: such evidence held less than 98% of the time on the labelled sets"
        }
    };
    [&what, how, sure].concat()
}

/// The decision's sentence, with what the catalog's vote did to it, if anything.
fn with_vote(engine: String, inf: &Inference, vote: Option<&Vote>, set: &RuleSet) -> String {
    let Some(v) = vote.filter(|v| v.did != Did::Nothing) else {
        return engine;
    };
    let level = inf.confidence.map_or("none", Confidence::name);
    let did = match v.did {
        Did::Raised => format!("so the confidence is {level}"),
        Did::Adopted => format!("so it is proposed [{}], {level}", inf.effects.joined(", ")),
        Did::Overruled => format!(
            "which overrules the read: proposed [{}], {level}",
            inf.effects.joined(", ")
        ),
        Did::Lowered => format!("which disagrees: the confidence goes down to {level}"),
        Did::Nothing => String::new(),
    };
    format!("{engine}; {}, {did}", v.sentence(set))
}

impl Key {
    /// The piece of evidence in words, for `explain`.
    pub fn describe(&self, set: &RuleSet) -> String {
        let lex = &set.lexicon;
        let (how, at) = (how_phrase, at_phrase);
        match *self {
            Key::Word {
                prose,
                word,
                first,
                agreement,
            } => format!(
                "verb `{}` in a {}{}, {}",
                lex.word(word),
                if prose {
                    "label or description"
                } else {
                    "name, URL or SOAP operation"
                },
                at(first),
                how(agreement)
            ),
            Key::Context {
                claim,
                sense: Some(s),
                place,
                first,
                agreement,
            } => format!(
                "any `{}` verb{}{}, {} ({} claims)",
                lex.sense(s).id,
                place.map_or(String::new(), |p| format!(" read from the {}", p.name())),
                at(first),
                how(agreement),
                claim.name()
            ),
            Key::Context {
                claim, agreement, ..
            } => format!("any {} claim {}", claim.name(), how(agreement)),
            Key::Object {
                object,
                word,
                overruled,
            } => format!(
                "{} `{}` beside the verb{}",
                if word.is_some() {
                    "object"
                } else {
                    "any object of"
                },
                word.map_or(lex.objects[object].id.as_str(), |w| lex.word(w)),
                if overruled { ", overruling it" } else { "" }
            ),
            Key::Rule {
                rule, agreement, ..
            } => format!("rule `{}` {}", set.rules[rule].id, how(agreement)),
            Key::Veto {
                veto, agreement, ..
            } => format!(
                "a read verb overruled by a change in the {} {}",
                veto.name(),
                how(agreement)
            ),
            Key::Base => "any labelled operation (change claims)".to_owned(),
            Key::Plain {
                claim,
                line,
                word,
                agreement,
            } => format!(
                "the plain reading's {} ({}{}), {}",
                claim.name(),
                line.name(),
                word.map_or(String::new(), |w| format!(": `{}`", lex.word(w))),
                how(agreement)
            ),
            Key::Declared => "a hint declared in the catalog, a person's claim".to_owned(),
            Key::Support {
                claim,
                agreement,
                others,
            } => format!(
                "any {} claim {} and {} other piece{} of evidence that agree{}",
                claim.name(),
                how(agreement),
                match others {
                    0 => "no",
                    1 => "one",
                    _ => "two or more",
                },
                if others == 1 { "" } else { "s" },
                if others == 1 { "s" } else { "" },
            ),
        }
    }
}

/// How the method stood beside a piece of evidence, in words.
fn how_phrase(a: Agreement) -> &'static str {
    match a {
        Agreement::Agrees => "with a method that agrees",
        Agreement::Neutral => {
            "with no method that says anything (no HTTP call, or an RPC-style API's POST, or GET for a change, or a GET after a POST of the action's own)"
        }
        Agreement::Disagrees => "with a method that disagrees",
        Agreement::Named => "over a POST whose URL ends in the operation's name",
    }
}

/// Where a verb stood in its text, in words; nothing when its record is every position's.
fn at_phrase(first: Option<bool>) -> &'static str {
    match first {
        Some(true) => " as the first word",
        Some(false) => " after the first word",
        None => "",
    }
}

impl Held {
    /// Why, in a phrase.
    pub fn why(self) -> &'static str {
        match self {
            Held::SilentPost => {
                "the API sends its reads as POST, so the POST says nothing and no verb says what the call does"
            }
            Held::QuietConflict => {
                "the API sends its reads as POST, so the POST says nothing, and the name holds a read verb beside what says change"
            }
            Held::BaseRate => {
                "the API sends its reads as POST, so the POST says nothing, and the word that says change was a change no more often than any operation is"
            }
            Held::UnsureRead => {
                "no method says which, and the read the name says is surely likelier than the change the plain reading falls back to, but too weak to patch"
            }
            Held::LoneCall => {
                "the API makes no other call, so nothing shows that its POST means a change, and nothing else surely says what the call does"
            }
        }
    }
}

impl MethodClass {
    pub fn describe(self) -> &'static str {
        match self {
            MethodClass::Get => "over GET",
            MethodClass::Other => "over POST, PUT, PATCH or DELETE",
            MethodClass::Neutral => "with no method that says anything",
            MethodClass::Named => "over a POST whose URL ends in the operation's name",
        }
    }
}

impl Word {
    /// `` `sync` as the first word of a name, over GET ``.
    pub fn describe(&self, set: &RuleSet) -> String {
        format!(
            "`{}`{} {} of a {}, {}",
            set.lexicon.word(self.word),
            self.object.map_or(String::new(), |o| format!(
                " (beside an object of `{}`)",
                set.lexicon.objects[o].id
            )),
            if self.first {
                "as the first word"
            } else {
                "after the first word"
            },
            if self.prose {
                "label or description"
            } else {
                "name, URL or SOAP operation"
            },
            self.method.describe()
        )
    }
}

impl Vote {
    /// "in this catalog, `sync` is declared [execute] on 12 of 12 actions in 5 connectors".
    pub fn sentence(&self, set: &RuleSet) -> String {
        let connectors = format!(
            "{} connector{}",
            self.effects_connectors,
            if self.effects_connectors == 1 {
                ""
            } else {
                "s"
            }
        );
        let how = match self.effects_proposed {
            0 => "declared ".to_owned(),
            n if n == self.effects_rows => "proposed by this run ".to_owned(),
            n => format!("declared (or proposed by this run: {n}) "),
        };
        format!(
            "in this catalog, `{}` ({}) is {how}[{}] on {} of {} actions in {connectors}",
            set.lexicon.word(self.key.word),
            self.key.method.describe(),
            self.effects.joined(", "),
            self.effects_rows,
            self.of,
        )
    }
}
