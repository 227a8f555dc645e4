//! Evidence: what an action's view says about its effect, read once per action: the verb of
//! each place a verb can be (name, RPC method or SOAP operation, label, path, description),
//! the objects and conjunctions around the name's verb, the HTTP methods, and the rules that
//! hold. Nothing here weighs anything; `decide.rs` does.

use std::cell::RefCell;

use super::index::Sym;
use super::known::RuleSet;
use super::lexicon::Lexicon;
use super::name::{Group, Position, PostSays, Verb, Words, sentence_verb_in};
use super::plain::{Agreement, Claim, Method};
use super::rules::{self, Facts};
use super::signals::PathSink;
use super::terms::{Field, ObjectHit};
use crate::text::words::each_token;
use crate::view::ActionView;

/// Everything read from one action.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Evidence {
    /// By [`Field`].
    pub verbs: [Option<Verb>; 5],
    pub method: Method,
    /// The call is RPC-style: every call is POST and the URL or SOAP operation names it (one
    /// path for every call, `/users.list`, SOAP, `/rpc`, `/graphql`).
    pub rpc_style: bool,
    /// A POST to a URL whose last literal segment names the operation: a verb
    /// (`/candidates/search`, `/jobs/{id}/cancel`), or the name's last words run together
    /// (`/users/{id}/getMemberGroups` of `users_get_member_groups`).
    pub named: bool,
    /// The name's verb was `post`, the HTTP method restated (`post_users`): no verb of its
    /// own, so it only speaks when nothing else does.
    pub method_word: Option<Verb>,
    pub object: Option<ObjectHit>,
    /// A plain verb after `and`/`or`/`then` in the name (`get_or_create`).
    pub conjoined: Option<Verb>,
    /// A plain verb of a change elsewhere in the name than its verb.
    pub name_change: Option<Verb>,
    /// The rules that hold, by index, in rule order.
    pub fired: Vec<usize>,
    /// The name's first words were skipped as the prefix its group shares.
    pub prefixed: bool,
    /// The read verb of the plain reading's list that the name opens with past that
    /// prefix: `Some(None)` when the lexicon does not know it.
    pub leads_with_read: Option<Option<Sym>>,
    /// A read verb anywhere in the name (`…_list_…`), whatever else it holds.
    pub name_reads: bool,
    /// That read verb is where the file's names put their verb (`send_as_list` in a file
    /// whose names end in their verb): the name's culture makes it the verb.
    pub read_at_style: bool,
    /// A POST of an API that sends its reads as POST too ([`PostSays::Nothing`]): the
    /// method says nothing, and what it would have arbitrated is left to a person.
    pub quiet_post: bool,
    /// How many steps only sign in before a later call (`/oauth/token`, words.yaml's
    /// `sign_in`): their methods and URLs are not the action's.
    pub sign_in_steps: usize,
    /// The action's last own call is a GET, after a POST of its own (a search POSTed, then
    /// each hit fetched; a report requested, then read), and none is stronger: what it does
    /// is the GET's, as its path is, and the POST before it prepares it.
    pub get_after_post: bool,
}

impl Evidence {
    /// How the HTTP method sits with `claim`.
    pub fn agreement(&self, claim: Claim) -> Agreement {
        let ev = self;
        match (claim, ev.method) {
            (_, Method::None) => Agreement::Neutral,
            // The labelled sets' records of a method that disagrees with a read are of one
            // call, the POST: none shows what a POST before a GET says of a read. It still
            // agrees with a change, which a POST is how an action makes.
            (Claim::Read, _) if ev.get_after_post => Agreement::Neutral,
            (_, Method::Post) if ev.rpc_style => Agreement::Neutral,
            // An RPC API that takes GET for every method takes it for changes too
            // (`/workflows.stepCompleted`): there GET says nothing against a change.
            (Claim::Change, Method::Get) if ev.rpc_style => Agreement::Neutral,
            (_, Method::Post) if ev.named => Agreement::Named,
            (Claim::Read, Method::Get) => Agreement::Agrees,
            (Claim::Read, _) | (Claim::Change, Method::Get) => Agreement::Disagrees,
            (Claim::Change, _) => Agreement::Agrees,
        }
    }

    pub fn verb(&self, s: Field) -> Option<Verb> {
        self.verbs[s as usize]
    }
}

/// Buffers each thread reuses, so reading an action allocates nothing but its result.
#[derive(Default)]
struct Scratch {
    name: Words,
    text: Words,
    facts: Facts,
    cands: Vec<(usize, Position)>,
    path: LastPath,
    /// By step: a call that only signs in before a later call.
    sign_in: Vec<bool>,
    /// A lowered word and its stems, for prose.
    buf: String,
    form: String,
}

/// What the last URL of an action names.
#[derive(Default)]
struct LastPath {
    segments: usize,
    last: String,
    item: bool,
    custom: String,
    rpc: String,
    selector: String,
    rpc_word: bool,
}

impl PathSink for LastPath {
    fn segment(&mut self, lower: &str) {
        self.segments += 1;
        self.last.clear();
        self.last.push_str(lower);
        // With or without a file's extension: `/admin/api/2024-01/graphql.json`.
        let stem = lower.split_once('.').map_or(lower, |(stem, _)| stem);
        self.rpc_word |= matches!(stem, "rpc" | "jsonrpc" | "xmlrpc" | "graphql");
    }
    fn item(&mut self, item: bool) {
        self.item = item;
    }
    fn custom(&mut self, raw: &str) {
        self.custom.push_str(raw);
    }
    fn rpc(&mut self, raw: &str) {
        self.rpc.push_str(raw);
    }
    fn selector(&mut self, raw: &str) {
        if self.selector.is_empty() {
            self.selector.push_str(raw);
        }
    }
    fn dispatch(&mut self) {}
}

impl LastPath {
    fn clear(&mut self) {
        self.segments = 0;
        self.last.clear();
        self.item = false;
        self.custom.clear();
        self.rpc.clear();
        self.selector.clear();
        self.rpc_word = false;
    }
}

/// How many words of a description or label are read for its verb and objects.
const SENTENCE_WORDS: usize = 24;

/// Reads the evidence of `view`, a member of `group`: every place a verb can be, since a
/// label that says change overrules a read and prose that agrees is support.
pub fn gather(view: &ActionView, group: &Group, set: &RuleSet) -> Evidence {
    with_scratch(|s| gather_with(view, group, set, s))
}

fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    thread_local! {
        static SCRATCH: RefCell<Scratch> = RefCell::default();
    }
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        Err(_) => f(&mut Scratch::default()),
    })
}

fn gather_with(view: &ActionView, group: &Group, set: &RuleSet, s: &mut Scratch) -> Evidence {
    let lex = &set.lexicon;
    mark_sign_in(view, lex, s);
    let (method, get_after_post) = method_of(view, &s.sign_in);
    let mut ev = Evidence {
        method,
        get_after_post,
        sign_in_steps: s.sign_in.iter().filter(|&&x| x).count(),
        ..Evidence::default()
    };
    ev.prefixed = s.name.read_name(&view.id, lex, group.prefix.as_deref());
    ev.leads_with_read = (!s.name.is_empty() && super::plain::READ_WORDS.contains(&s.name.get(0)))
        .then(|| lex.sym(s.name.get(0)));
    s.path.clear();
    s.facts
        .fill(view, &s.sign_in, s.name.iter(), &set.matcher, &mut s.path);
    s.facts.scopes = rules::scope_grant(&view.scopes, lex);
    set.matcher.fire(&s.facts, &mut ev.fired);

    let soap = view
        .steps
        .iter()
        .rev()
        .find_map(|st| st.soap_operation.as_deref());
    ev.rpc_style = rpc_style(view, group, ev.method, &s.path, soap.is_some());
    // GET is safe where HTTP's methods are the API's; an RPC API may take it for anything.
    let safe_get = ev.method == Method::Get && !ev.rpc_style;
    let read = s.name.read_verb(lex);
    ev.name_reads = read.is_some();
    ev.read_at_style =
        read.is_some_and(|v| group.style == Position::Last && v.index + 1 == s.name.len());
    ev.quiet_post = group.post == PostSays::Nothing && ev.method == Method::Post;
    read_name(&mut ev, view, group, lex, s, safe_get);
    read_call(&mut ev, group, lex, s, soap);
    read_prose(&mut ev, view, lex, s);
    ev
}

/// The indexes of the action's calls that only sign in ([`mark_sign_in`]), for `explain`
/// to name them.
pub fn sign_in_calls(view: &ActionView, set: &RuleSet) -> Vec<usize> {
    with_scratch(|s| {
        mark_sign_in(view, &set.lexicon, s);
        let marked = s.sign_in.iter().enumerate().filter(|(_, m)| **m);
        let calls = marked.map(|(i, _)| i).collect();
        s.path.clear();
        calls
    })
}

/// Marks the calls that only sign in: a POST whose URL ends in a `sign_in` word
/// (`/oauth/token`, `/login`) with another call after it, as a connector's multi-step action
/// fetches a token before the call that does the work. Its POST is how the action
/// authenticates, not what it does. Any other method there is the work: a DELETE of
/// `/users/{id}/tokens` revokes them, a PUT of `/settings/auth` changes how users sign in.
/// An action whose last call signs in is itself about signing in (`create_session`), and so
/// is one whose name or label speaks of it (`reset_auth`, `rotate_api_token`,
/// `invalidate_sessions`): nothing is marked. Its description is not read for this: "Requires
/// an access token" is said of actions that do something else.
fn mark_sign_in(view: &ActionView, lex: &Lexicon, s: &mut Scratch) {
    s.sign_in.clear();
    s.sign_in.resize(view.steps.len(), false);
    let Some(last_call) = view.steps.iter().rposition(|st| st.method.is_some()) else {
        return;
    };
    let mut about_signing_in = false;
    for text in std::iter::once(view.id.as_str()).chain(view.label.as_deref()) {
        each_token(text, &mut s.buf, |w| {
            about_signing_in |= lex.lookup(w).is_some_and(|(_, info)| info.sign_in);
        });
    }
    if about_signing_in {
        return;
    }
    // The path reader the action's last call is read with; `gather_with` clears it after.
    let mut signs_in = |st: &crate::view::Step| {
        st.method.as_deref() == Some("post")
            && st.url.as_deref().is_some_and(|url| {
                s.path.clear();
                super::signals::walk_path(url, &mut s.buf, &mut s.path);
                !s.path.last.is_empty()
                    && lex
                        .lookup(&s.path.last)
                        .is_some_and(|(_, info)| info.sign_in)
            })
    };
    if last_call == 0 || signs_in(&view.steps[last_call]) {
        return;
    }
    for (i, st) in view.steps[..last_call].iter().enumerate() {
        s.sign_in[i] = signs_in(st);
    }
}

/// The strongest HTTP method of the action's calls, but those that only sign in: DELETE,
/// then PUT or PATCH, then POST (or any other), then GET or HEAD; and whether its last such
/// call is a GET (or HEAD) after a POST, with nothing stronger among them
/// ([`Evidence::get_after_post`]).
fn method_of(view: &ActionView, sign_in: &[bool]) -> (Method, bool) {
    let (mut get, mut post, mut put, mut delete, mut other) = (false, false, false, false, false);
    let mut last_get = false;
    for m in rules::own_calls(view, sign_in).filter_map(|st| st.method.as_deref()) {
        last_get = matches!(m, "get" | "head");
        match m {
            "get" | "head" => get = true,
            "post" => post = true,
            "put" | "patch" => put = true,
            "delete" => delete = true,
            _ => other = true,
        }
    }
    let method = if delete {
        Method::Delete
    } else if put {
        Method::Put
    } else if post || other {
        Method::Post
    } else if get {
        Method::Get
    } else {
        Method::None
    };
    let get_after_post = post && last_get && !(put || delete || other);
    (method, get_after_post)
}

/// Whether the API is called RPC-style, so that its method says less than REST's: an RPC
/// segment or word in the path, a SOAP call, a POST of an API that posts its reads, a URL
/// that is only a host. A custom method (`/files/{id}:batchGet`) is one call of a REST API,
/// not an RPC API: there POST still says what it says elsewhere.
fn rpc_style(view: &ActionView, group: &Group, method: Method, p: &LastPath, soap: bool) -> bool {
    let soap_step = view.steps.iter().any(|st| {
        st.function
            .as_deref()
            .is_some_and(|f| f.starts_with("soap"))
    });
    !p.rpc.is_empty()
        || (group.post == PostSays::Nothing && method == Method::Post)
        || soap
        || soap_step
        || p.rpc_word
        || (view.urls().next().is_some() && p.segments == 0)
}

/// The verb of the name, where its culture puts it, and what sits beside it: an object, a
/// change after a conjunction, a change word where the name puts its verb.
fn read_name(
    ev: &mut Evidence,
    view: &ActionView,
    group: &Group,
    lex: &Lexicon,
    s: &mut Scratch,
    safe_get: bool,
) {
    let mut name = s.name.pick_verb(group.style, lex, &mut s.cands);
    // Over GET, which HTTP defines as safe, the name's change word yields: to a read verb
    // elsewhere in the name (`device_management_list_exchange_connectors`), or, when it is
    // only an inflection (`users_id_blocking`), to the rest of the evidence. A plain change
    // verb stands (`employees_export`, `sync_users`: GETs that start a job), and so does an
    // inflection where the URL names the operation and GET is only how an RPC API is called
    // (`/workflows.stepCompleted`). Over a POST that says nothing an inflection yields too,
    // since nothing backs it (`users_id_blocking`); a read it yields to is then weighed
    // against the plain reading's change and held where they disagree (`settle`).
    if (ev.method == Method::Get || ev.quiet_post)
        && let Some(v) = name
        && !lex.sense(v.sense).effect.is_read_only()
    {
        name = if ev.quiet_post {
            // Nothing backs a change word either, but a plain one is still the name's verb
            // (`create_user_list`): only an inflection yields.
            if v.inflected {
                s.name.read_verb(lex)
            } else {
                Some(v)
            }
        } else {
            s.name
                .read_verb(lex)
                .or(Some(v).filter(|v| !v.inflected || !safe_get))
        };
    }
    if let Some(v) = name {
        if lex.word(v.sym) == "post" && matches!(ev.method, Method::Post | Method::None) {
            ev.method_word = Some(v);
        } else {
            ev.verbs[Field::Name as usize] = Some(v);
        }
        ev.object = object_of(v, view, lex, s);
    }
    ev.conjoined = s
        .name
        .conjoined_verb()
        .filter(|v| !lex.sense(v.sense).effect.is_read_only());
    ev.name_change = name.and_then(|v| s.name.change_verb(lex, v.index, group.style, safe_get));
}

/// The object beside the name's verb `v` that changes its meaning, in the name, else in the
/// description for the objects that are described there.
fn object_of(v: Verb, view: &ActionView, lex: &Lexicon, s: &mut Scratch) -> Option<ObjectHit> {
    let objects = lex.objects_after(v.sym);
    let hit = s
        .name
        .object(objects, Some(v.index))
        .map(|(object, word)| ObjectHit { object, word });
    let described = objects & lex.described_objects();
    if hit.is_some() || described == 0 {
        return hit;
    }
    object_in_sentence(view.description.as_ref()?, described, lex, s)
}

/// The first of `objects` in `text`'s first sentence.
fn object_in_sentence(
    text: &str,
    objects: u32,
    lex: &Lexicon,
    s: &mut Scratch,
) -> Option<ObjectHit> {
    s.text.read_sentence(text, lex, SENTENCE_WORDS);
    s.text
        .object(objects, None)
        .map(|(object, word)| ObjectHit { object, word })
}

/// The operation a call names, and the last literal segment of its path: only the last
/// call counts, since earlier steps of a multi-step action usually read what it needs.
fn read_call(ev: &mut Evidence, group: &Group, lex: &Lexicon, s: &mut Scratch, soap: Option<&str>) {
    let p = &s.path;
    let operation = [
        p.custom.as_str(),
        p.rpc.as_str(),
        p.selector.as_str(),
        soap.unwrap_or(""),
    ]
    .into_iter()
    .find(|o| !o.is_empty());
    if let Some(op) = operation {
        s.text.read_name(op, lex, None);
        ev.verbs[Field::Operation as usize] = s
            .text
            .pick_verb(Position::First, lex, &mut s.cands)
            .filter(|v| !v.inflected);
    }
    // An RPC segment (`/candidate.search`) is the operation, already read: its path is not a
    // second, independent piece of evidence.
    if !p.item && p.custom.is_empty() && p.rpc.is_empty() && !p.last.is_empty() {
        s.text.read_name(&p.last, lex, None);
        // Only a POST's segment is read as an operation run together: a GET's
        // (`exchangeConnectors`) names what it reads.
        // Where the API posts its reads too, a POST's segment names what it reaches, as a
        // GET's does.
        let acts = ev.method == Method::Post && group.post != PostSays::Nothing;
        ev.verbs[Field::Path as usize] = path_verb(&s.text, lex, acts).or_else(|| {
            acts.then(|| run_together_verb(&s.name, &p.last, lex))
                .flatten()
        });
    }
    ev.named = ev.method == Method::Post && !ev.rpc_style && ev.verb(Field::Path).is_some();
}

/// The label's and the description's verbs: prose is read too when the name or operation
/// has a verb, since a label or description that agrees is support.
fn read_prose(ev: &mut Evidence, view: &ActionView, lex: &Lexicon, s: &mut Scratch) {
    if let Some(label) = &view.label {
        // A title that opens with a gerund names an activity or a thing ("Following by User
        // ID", "Networking Information List"), as a past participle qualifies one.
        ev.verbs[Field::Label as usize] = sentence_verb_in(label, lex, &mut s.buf, &mut s.form)
            .filter(|v| {
                !(v.inflected
                    && crate::text::words::raw_words(label)
                        .nth(v.index)
                        .is_some_and(|w| ends_with(w, "ing", 5)))
            });
        // Where the label's verb is the action's (the name has none), so is its object:
        // "Get access token" mints one as `get_access_token` does.
        if ev.object.is_none()
            && ev.verb(Field::Name).is_none()
            && let Some(v) = ev.verb(Field::Label)
        {
            ev.object = object_in_sentence(label, lex.objects_after(v.sym), lex, s);
        }
    }
    if let Some(d) = &view.description {
        ev.verbs[Field::Description as usize] = sentence_verb_in(d, lex, &mut s.buf, &mut s.form);
    }
    // A change word read from a plural past the name's first word (`browser_console_messages`,
    // `team_integration_logs`) more likely names things than acts: it yields to a label or
    // description that opens with a verb.
    if let Some(v) = ev.verb(Field::Name)
        && v.inflected
        && v.noun
        && v.index > 0
        && s.name.get(v.index).ends_with('s')
        && !lex.sense(v.sense).effect.is_read_only()
        && (ev.verb(Field::Label).is_some() || ev.verb(Field::Description).is_some())
    {
        ev.verbs[Field::Name as usize] = None;
        ev.object = None;
    }
}

/// `word` ends with `suffix` in any case and is at least `min` bytes long.
fn ends_with(word: &str, suffix: &str, min: usize) -> bool {
    let w = word.as_bytes();
    w.len() >= min.max(suffix.len())
        && w[w.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// The verb of a path segment that runs the name's last words together (`getmembergroups`
/// of `users_get_member_groups`, `resettosystemdefault`): the first of those words when it
/// is a verb, else their first plain verb. A generator made both from one operation id, so
/// the segment names the operation.
fn run_together_verb(name: &Words, segment: &str, lex: &super::lexicon::Lexicon) -> Option<Verb> {
    // Compared byte by byte, letters and digits only, without building either string: one
    // call per POST of the catalog.
    let alnum = || segment.bytes().filter(u8::is_ascii_alphanumeric);
    let len = alnum().count();
    let n = name.len();
    let (mut k, mut joined) = (0, 0);
    while joined < len && k < n.min(6) {
        k += 1;
        joined += name.get(n - k).len();
    }
    if len == 0 || joined != len || !(n - k..n).flat_map(|i| name.get(i).bytes()).eq(alnum()) {
        return None;
    }
    // An operation's name opens with its verb (`markChatReadForUser`), even one that is also
    // a noun; past its first word, only a plain verb is one.
    (n - k..n).find_map(|i| {
        let (sym, info) = lex.lookup(name.get(i))?;
        let opens = i == n - k;
        let sense = info.sense.filter(|_| opens || info.is_plain_verb())?;
        Some(Verb {
            sym,
            sense,
            position: Position::First,
            noun: false,
            inflected: false,
            index: i,
        })
    })
}

/// The verb a path's last segment is (`archive`, `batch-retrieve`, `_search`): its last word,
/// when that is a plain verb or a search, or any verb after a POST, which acts on what the
/// path names (`POST /tickets/{id}/archive`, `/articles/{id}/comment`).
fn path_verb(words: &Words, lex: &super::lexicon::Lexicon, post: bool) -> Option<Verb> {
    let i = words.len().checked_sub(1)?;
    let (sym, info) = lex.lookup(words.get(i))?;
    let sense = info.sense?;
    let search = lex.sense(sense).effect == crate::effects::Effect::Search;
    (post || info.is_plain_verb() || search).then_some(Verb {
        sym,
        sense,
        position: Position::Last,
        noun: info.noun,
        inflected: false,
        index: i,
    })
}
