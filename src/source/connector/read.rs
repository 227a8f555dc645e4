//! A connector file's tree read into its shape, its actions (normalized views) and the byte
//! positions an edit needs. Never re-serializes anything.

use saphyr_parser::ScalarStyle;

use crate::effects::{Effect, Effects, Hints};
use crate::error::Error;
use crate::model::site::{ActionSite, AnnotationsSite, EffectsSite, HintEntry, Insert, Shape};
use crate::view::{ActionView, Declared, Input, Step};
use crate::yaml::tree::{self, Kind, Node, NodeId, Tree, opener};
use crate::yaml::{is_null, node_error, parse_tree, plain_type};

/// Everything the later stages need from one file.
#[derive(Debug, Clone)]
pub struct ParsedFile {
    pub shape: Shape,
    /// `info.key` and `info.title` of a main or bundled file.
    pub info_key: Option<String>,
    pub info_title: Option<String>,
    pub actions: Vec<ActionSite>,
    /// Problems with single items (bad `actionId`, bad `annotations`, merge-only items);
    /// the rest of the file is still processed.
    pub problems: Vec<Error>,
    /// Items reported but not edited, which are not errors (a merge-only item).
    pub notes: Vec<Error>,
    /// Columns from a key to the `-` of its block list, as this file writes them.
    pub seq_offset: usize,
    /// (action, inheritor) pairs, as indices into the actions: the inheritor takes the
    /// action's mapping through a `<<` merge and has no `effects` of its own.
    pub inheritance: Vec<(usize, usize)>,
    /// The `$ref:` values of a shape C or D file, with their line and column: the files
    /// they name must exist, or their actions are silently not read.
    pub refs: Vec<(String, usize, usize)>,
    /// Items that list an action again through an alias (`- *a`): its id, and the item's
    /// line and column. The action is edited once, at its anchor, but a server would
    /// register its tool twice.
    pub repeats: Vec<(String, usize, usize)>,
}

/// Parses one connector file. A YAML error fails the whole file; problems with single
/// items are collected in [`ParsedFile::problems`].
pub fn parse_file(text: &str) -> Result<ParsedFile, Error> {
    let mut actions = Vec::new();
    let mut parsed = read_actions(&parse_tree(text)?, true, &mut |site, _| actions.push(site))?;
    parsed.actions = actions;
    Ok(parsed)
}

/// How a file lays out its actions, as [`read_actions`] hands them over.
#[derive(Debug, Clone, Copy)]
pub struct Layout<'a> {
    /// Columns from a key to the `-` of its block list (see [`ParsedFile::seq_offset`]).
    pub seq_offset: usize,
    /// Items that may be actions: enough to size what holds them once.
    pub items: usize,
    /// With `full`, the `actionId` of each top-level action, in order: the names an
    /// action's name is read among (a shared prefix, where the verb sits).
    pub names: &'a [&'a str],
    /// With `full`, beside each name, the method of its last step that has one, as
    /// written: how the API uses its methods is read from them.
    pub methods: &'a [Option<&'a str>],
}

impl ParsedFile {
    fn empty() -> ParsedFile {
        ParsedFile {
            shape: Shape::Other,
            info_key: None,
            info_title: None,
            actions: Vec::new(),
            problems: Vec::new(),
            notes: Vec::new(),
            seq_offset: 2,
            inheritance: Vec::new(),
            refs: Vec::new(),
            repeats: Vec::new(),
        }
    }
}

/// Reads the shape and the actions of a parsed file. `each` is handed every action as soon
/// as it is read, so a caller can classify it and keep only what it needs: the returned
/// file holds no actions of its own. Unless `full`, an action's view holds only what its
/// declarations and edits need (id, `effects`, `annotations`, line): not the text rules
/// read.
pub fn read_actions(
    tree: &Tree,
    full: bool,
    each: &mut dyn FnMut(ActionSite, Layout<'_>),
) -> Result<ParsedFile, Error> {
    let text = tree.text();
    let mut out = ParsedFile::empty();
    let Some((root, items)) = action_items(tree, &mut out) else {
        return Ok(out);
    };
    let ctx = Ctx { text, tree, full };
    ctx.check_located(&items)?;
    out.seq_offset = ctx.measure_seq_offset(&items).unwrap_or(2);
    let (names, methods) = if full {
        names_and_methods(tree, &items)
    } else {
        (Vec::new(), Vec::new())
    };
    let layout = Layout {
        seq_offset: out.seq_offset,
        items: items.len(),
        names: &names,
        methods: &methods,
    };
    // The mapping each site was read from, to find which actions merge which.
    let mut site_nodes: Vec<NodeId> = Vec::new();
    for &item in &items {
        match ctx.action(item, false, &mut out.problems) {
            Ok(Some(mut site)) => {
                if full {
                    site.view.connector_title.clone_from(&out.info_title);
                }
                each(site, layout);
                site_nodes.push(item);
            }
            Ok(None) => out.repeats.extend(repeat(tree, item)),
            // Only a merge-only item (its `actionId` comes through `<<`) is a note: an
            // item whose own `actionId` is a number, null or a mapping is an error.
            Err(e)
                if own_entry(tree, item, "actionId").is_none()
                    && tree.get(item, "actionId").is_some() =>
            {
                out.notes.push(e)
            }
            Err(e) => out.problems.push(e),
        }
    }
    if tree.is_map(root) {
        for nested in ctx.refresh_actions(root) {
            match ctx.action(nested, true, &mut out.problems) {
                Ok(Some(mut site)) => {
                    if full {
                        site.view.connector_title.clone_from(&out.info_title);
                    }
                    each(site, layout);
                }
                Ok(None) => {}
                Err(e) => out.problems.push(e),
            }
        }
    }
    out.inheritance = inheritance(tree, &site_nodes);
    Ok(out)
}

/// The `actionId` of each item `Ctx::action` takes as an action, with the method of its
/// last step: an alias item, a merge-only item or an id that is no string is none.
fn names_and_methods<'t>(tree: &'t Tree, items: &[NodeId]) -> (Vec<&'t str>, Vec<Option<&'t str>>) {
    items
        .iter()
        .filter(|&&i| tree.node(i).kind() != Kind::Alias)
        .filter_map(|&i| {
            let (_, v) = own_entry(tree, i, "actionId")?;
            Some((string_id(tree, v).ok()?, last_method(tree, i)))
        })
        .unzip()
}

/// An alias item (`- *a`) that lists an action again: its id, line and column. Edited once
/// at its anchor, the action would still be registered twice by a server.
fn repeat(tree: &Tree, item: NodeId) -> Option<(String, usize, usize)> {
    let target = tree.alias_target(item)?;
    let (_, v) = own_entry(tree, target, "actionId")?;
    let id = string_id(tree, v).ok()?;
    let at = tree.node(item).start();
    Some((id.to_owned(), tree.line(item), tree.column(at) + 1))
}

/// The (action, inheritor) pairs of [`ParsedFile::inheritance`]: an action with no
/// `effects` of its own takes those of the actions it merges through `<<`. `site_nodes` are
/// the mappings the actions were read from.
fn inheritance(tree: &Tree, site_nodes: &[NodeId]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (heir, &node) in site_nodes.iter().enumerate() {
        if own_entry(tree, node, "effects").is_some() {
            continue;
        }
        for source in merge_sources(tree, node) {
            // Items come in document order, so their nodes are sorted.
            if let Ok(i) = site_nodes.binary_search(&source) {
                out.push((i, heir));
            }
        }
    }
    out
}

/// The items of a file that may be actions, with its root; sets the file's shape and
/// `info`. Shape A/B only when items really are actions. A file found by its name that holds
/// no readable action list is a problem, named with its line: passed over silently, its
/// connector vanished from the counts while `check` passed (a misspelled
/// `actions:`, a number, a string, null, only items that are not actions, an LFS pointer).
fn action_items(tree: &Tree, file: &mut ParsedFile) -> Option<(NodeId, Vec<NodeId>)> {
    let no_list = |at: Option<NodeId>, why: String| match at {
        Some(node) => node_error(tree, node, format!("no action list: {why}")),
        None => Error::new(format!("no action list: {why}")).at(1, 1),
    };
    if tree
        .text()
        .trim_start_matches('\u{feff}')
        .starts_with("version https://git-lfs.github.com/spec/")
    {
        file.problems.push(no_list(
            None,
            "a Git LFS pointer, not the file's content: fetch it (`git lfs pull`) and run again"
                .into(),
        ));
        return None;
    }
    // A file of comments alone says nothing is there on purpose (every action commented
    // out); an empty one is refused where it is read.
    let &root = tree.roots.iter().find(|r| !is_null(tree, **r))?;
    let mut items: Vec<NodeId> = Vec::new();
    // Where the list should have been, when the file has none.
    let mut missing: Option<(Option<NodeId>, String)> = None;
    if let Some(seq) = tree.items(root) {
        file.shape = Shape::A;
        items.extend(seq);
    } else if tree.is_map(root) {
        missing = map_items(tree, root, file, &mut items);
    } else {
        let what = value_kind(tree, root);
        missing = Some((Some(root), format!("the file holds {what}")));
    }
    let any_action = items
        .iter()
        .any(|&i| own_entry(tree, i, "actionId").is_some());
    if !any_action && matches!(file.shape, Shape::A | Shape::B) {
        if !items.is_empty() {
            let at = match file.shape {
                Shape::B => tree.entry(root, "actions").map(|(k, _)| k),
                _ => Some(root),
            };
            missing = Some((
                at,
                format!(
                    "none of its {} is a mapping with an `actionId`",
                    crate::text::plural(items.len(), "item")
                ),
            ));
        }
        file.shape = Shape::Other;
        items.clear();
    }
    if let Some((at, why)) = missing {
        file.problems.push(no_list(at, why));
    }
    Some((root, items))
}

/// [`action_items`] of a file whose root is a mapping: its `info`, and its `actions:`
/// list (shape B) or mapping of `$ref`s (C), or its own `$ref`s (D). Where the list should
/// have been, when the file has none.
fn map_items(
    tree: &Tree,
    root: NodeId,
    file: &mut ParsedFile,
    items: &mut Vec<NodeId>,
) -> Option<(Option<NodeId>, String)> {
    if let Some(info) = tree.get(root, "info") {
        file.info_key = tree.get_str(info, "key").map(str::to_owned);
        file.info_title = tree.get_str(info, "title").map(str::to_owned);
    }
    match tree.entry(root, "actions") {
        Some((_, actions)) if tree.items(actions).is_some() => {
            file.shape = Shape::B;
            items.extend(tree.items(actions).into_iter().flatten());
        }
        Some((_, actions)) if tree.is_map(actions) => {
            file.shape = Shape::C;
            file.refs = refs_of(tree, actions);
        }
        Some((key, actions)) => {
            let what = value_kind(tree, actions);
            return Some((
                Some(key),
                format!("`actions:` is {what}, not a list of actions"),
            ));
        }
        None if tree.get(root, "$ref").is_some() => {
            file.shape = Shape::D;
            file.refs = refs_of(tree, root);
        }
        None => return no_actions_key(tree, root),
    }
    None
}

/// Why a mapping with no `actions:` key has no action list: a key that is `actions`
/// misspelled, or nothing a connector file holds; `None` for a main file (its `info`
/// alone).
fn no_actions_key(tree: &Tree, root: NodeId) -> Option<(Option<NodeId>, String)> {
    // An OpenAPI document has an `info` too, so it passed for a main file: its operations
    // left the run while the check passed. Its name decides how it is read, so the name is
    // what must change. Its key holds a version (`3.0.3`, `"2.0"`): a connector key of that
    // name holding something else is left to be what it is.
    if let Some((key, _)) = ["openapi", "swagger"]
        .into_iter()
        .filter_map(|k| tree.entry(root, k))
        .find(|&(_, v)| {
            tree.scalar(v)
                .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        })
    {
        let what = tree.scalar(key).unwrap_or("openapi");
        return Some((
            Some(key),
            format!(
                "an OpenAPI document (top-level `{what}`), not a connector file: its operations are not read under a connector's name; rename it to end in `.yaml`, `.yml` or `.json` (not `.s1.yaml` or `.s1.partial.yaml`)"
            ),
        ));
    }
    // A connector file is block YAML; one whose root is a JSON object with an `info` and no
    // actions is some other JSON document under a connector's name, not a main file.
    if tree.node(root).flow() && tree.get(root, "info").is_some() {
        return Some((
            Some(root),
            "a JSON document with no `actions:` or `$ref`, not a connector file: connector files are block YAML; rename it if it is not a connector's, or write it as YAML with its `actions:`".into(),
        ));
    }
    let near = tree
        .own_entries(root)
        .into_iter()
        .flatten()
        .find(|&(k, _)| {
            tree.scalar(k).is_some_and(|k| {
                k.to_ascii_lowercase().starts_with('a')
                    && crate::error::closest(k, ["actions"]).is_some()
            })
        });
    if let Some((key, _)) = near {
        let name = tree.scalar(key).unwrap_or_default();
        Some((
            Some(key),
            format!("`{name}` is not `actions` (did you mean `actions`?)"),
        ))
    } else if tree.get(root, "info").is_none() {
        Some((
            Some(root),
            "a mapping with no `actions:`, `info` or `$ref`".into(),
        ))
    } else {
        None
    }
}

/// What a value that should have been a list is, for the message that says so.
fn value_kind(tree: &Tree, id: NodeId) -> String {
    if is_null(tree, id) {
        return "null".into();
    }
    if tree.is_map(id) {
        return "a mapping".into();
    }
    let short = |v: &str| match v.char_indices().nth(40) {
        Some((at, _)) => format!("{}...", &v[..at]),
        None => v.to_owned(),
    };
    match tree.scalar_text(id) {
        Some((v, ScalarStyle::Plain)) => match plain_type(v) {
            Some(t) => format!("{t} (`{}`)", short(v)),
            None => format!("a string (`{}`)", short(v)),
        },
        Some((v, _)) => format!("a string (`{}`)", short(v)),
        None => "not a list".into(),
    }
}

/// The `$ref:` values among the own entries of `map`, with their line and column.
fn refs_of(tree: &Tree, map: NodeId) -> Vec<(String, usize, usize)> {
    tree.own_entries(map)
        .into_iter()
        .flatten()
        .filter(|&(k, _)| tree.scalar(k) == Some("$ref"))
        .filter_map(|(_, v)| {
            let name = tree.scalar(v)?;
            let at = tree.node(v).start();
            Some((name.to_owned(), tree.line(v), tree.column(at) + 1))
        })
        .collect()
}

/// `info.key` of a main file, without looking at its actions: read before the run so that
/// partials know their connector.
pub fn info_key(text: &str) -> Option<String> {
    let tree = tree::parse(text).ok()?;
    tree_key(&tree).map(str::to_owned)
}

/// [`info_key`] of a file already parsed.
pub fn tree_key<'t>(tree: &'t tree::Tree<'_>) -> Option<&'t str> {
    let root = *tree.roots.iter().find(|r| !is_null(tree, **r))?;
    let info = tree.get(root, "info")?;
    tree.get_str(info, "key")
}

/// The mappings a mapping merges through its own `<<` key (one alias or a list of them).
fn merge_sources(tree: &Tree, map: NodeId) -> Vec<NodeId> {
    let Some((_, merge)) = own_entry(tree, map, "<<") else {
        return Vec::new();
    };
    let targets: Vec<NodeId> = match tree.items(merge) {
        Some(items) => items.collect(),
        None => vec![merge],
    };
    targets.into_iter().map(|t| tree.resolve(t)).collect()
}

/// An `actionId` value that is a string, or what it is instead ("a number", "a mapping").
fn string_id<'t>(tree: &'t Tree, value: NodeId) -> Result<&'t str, &'static str> {
    let resolved = tree.resolve(value);
    Err(
        match (tree.node(resolved).kind(), tree.scalar_text(resolved)) {
            (_, Some((v, ScalarStyle::Plain))) => match plain_type(v) {
                None => return Ok(v),
                Some(t) => t,
            },
            (_, Some((v, _))) if !v.is_empty() => return Ok(v),
            (Kind::Scalar, _) => "an empty string",
            (Kind::Seq, _) => "a sequence",
            (Kind::Map, _) => "a mapping",
            (Kind::Alias, _) => "an alias",
        },
    )
}

/// An entry of the mapping itself, not inherited through `<<`.
fn own_entry(tree: &Tree, map: NodeId, key: &str) -> Option<(NodeId, NodeId)> {
    tree.own_entries(map)?
        .find(|&(k, _)| tree.scalar(k) == Some(key))
}

struct Ctx<'a, 't> {
    text: &'a str,
    tree: &'a Tree<'t>,
    /// Read the text rules read (labels, descriptions, steps, inputs), not only what
    /// declarations and edits need.
    full: bool,
}

impl Ctx<'_, '_> {
    /// 0-based column of a byte offset (see [`tree::Lines::column`]).
    fn column(&self, byte: usize) -> usize {
        self.tree.column(byte)
    }

    fn error(&self, node: NodeId, message: String) -> Error {
        node_error(self.tree, node, message)
    }

    /// How far this file indents a block list under its key: `key:\n- a` is 0,
    /// `key:\n  - a` is 2. Measured inside actions, since that is where the new `effects`
    /// list goes.
    fn measure_seq_offset(&self, actions: &[NodeId]) -> Option<usize> {
        actions.iter().find_map(|&a| self.action_seq_offset(a))
    }

    /// The offset one action uses for its own block lists (files mix both styles).
    fn action_seq_offset(&self, action: NodeId) -> Option<usize> {
        self.tree.own_entries(action)?.find_map(|(k, v)| {
            let value = self.tree.node(v);
            if value.kind() != Kind::Seq || value.flow() {
                return None;
            }
            let key_col = self.column(self.tree.node(k).start());
            self.column(self.dash_before(self.tree.items(v)?.next()?)?)
                .checked_sub(key_col)
        })
    }

    /// The `-` that introduces a block list item. The list's own start is not it: an
    /// anchor (`inputs: &paging`) or an indentless list starts elsewhere.
    fn dash_before(&self, item: NodeId) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let mut i = self.tree.node(item).start();
        // Back over the gap between `-` and the item: spaces, tabs, and for an item that
        // starts on the next line, the line break and that line's indentation.
        while i > 0 && matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b'\r') {
            i -= 1;
        }
        (i > 0 && bytes[i - 1] == b'-').then(|| i - 1)
    }

    /// Every edit is placed from the parser's positions of `actionId`. Check they point at
    /// it in the text: saphyr-parser's positions drift after a `%` directive line holding
    /// non-ASCII characters (fuzzer crash d8ab7a41: `%é` put `effects` one line and one
    /// column off, breaking the file). A drift refuses the whole file, never guesses.
    fn check_located(&self, items: &[NodeId]) -> Result<(), Error> {
        let (tree, text) = (self.tree, self.text);
        let Some(&bad) = items.iter().find(|&&i| !self.action_id_located(i)) else {
            return Ok(());
        };
        // A key that reads `actionId` only once its escapes are decoded (it was
        // blamed on a `%` directive).
        let escaped = own_entry(tree, bad, "actionId")
            .map(|(key, _)| {
                let n = tree.node(key);
                &text[n.start()..n.end().min(text.len())]
            })
            .filter(|written| written.contains('\\'));
        Err(match escaped {
            Some(written) => node_error(
                tree,
                bad,
                format!(
                    "the key `actionId` is written with escapes ({written}): write it plainly as `actionId`; file not edited"
                ),
            ),
            None => node_error(
                tree,
                bad,
                "the YAML parser's positions do not match the text here (a `%` directive with non-ASCII characters?): file not edited".into(),
            ),
        })
    }

    /// True unless `item` has its own `actionId` whose key or plain value is not where the
    /// parser says it is. Spans are compared by their ends: an anchor or a tag (`&a x`,
    /// `!!str x`) starts the span before the text. An alias key (`*id: x`) has no text of
    /// its own to compare, and a plain value folded over lines ends with its last line.
    fn action_id_located(&self, item: NodeId) -> bool {
        let Some((key, value)) = own_entry(self.tree, item, "actionId") else {
            return true;
        };
        let span = |id: NodeId| {
            let n = self.tree.node(id);
            self.text.get(n.start()..n.end()).unwrap_or("")
        };
        let k = span(key);
        let at_key = self.tree.node(key).kind() == Kind::Alias
            || ["actionId", "actionId\"", "actionId'"]
                .iter()
                .any(|form| k.ends_with(form));
        let value_ok = match self.tree.scalar_text(value) {
            Some((v, ScalarStyle::Plain)) => {
                span(value).ends_with(v.rsplit(' ').next().unwrap_or(v))
            }
            _ => true,
        };
        at_key && value_ok
    }

    fn refresh_actions(&self, root: NodeId) -> Vec<NodeId> {
        let tree = self.tree;
        let Some(auth) = tree.get(root, "authentication").and_then(|a| tree.items(a)) else {
            return Vec::new();
        };
        auth.filter_map(|entry| tree.entries(entry))
            .flat_map(|entries| entries.map(|(_, v)| v))
            .filter_map(|kind| tree.get(kind, "refreshAuthentication"))
            .filter_map(|refresh| tree.get(refresh, "action"))
            .filter(|&action| tree.is_map(action))
            .collect()
    }

    /// One item of an actions list. `Ok(None)` for items that are not edited here: an
    /// alias to an action anchored elsewhere is edited at its anchor.
    /// Problems that do not stop the action from being reported (a bad `annotations:`) go
    /// to `problems`.
    fn action(
        &self,
        item: NodeId,
        nested: bool,
        problems: &mut Vec<Error>,
    ) -> Result<Option<ActionSite>, Error> {
        let tree = self.tree;
        let Some((key, value)) = self.action_entry(item)? else {
            return Ok(None);
        };
        let id = self.action_id(value)?;
        let key_node = tree.node(key);
        let value_node = tree.node(value);
        let map = tree.node(item);
        let insert = self.insert(map, key_node, value_node);
        let [
            label,
            description,
            details,
            action_type,
            steps,
            inputs,
            effects,
            annotations,
            scopes,
        ] = tree.fields(
            item,
            [
                "label",
                "description",
                "details",
                "actionType",
                "steps",
                "inputs",
                "effects",
                "annotations",
                "requiredScopes",
            ],
        );
        let (declared, effects) = self.declared(item, effects);
        let site_annotations = self.annotations_site(item, annotations);
        let annotations = self.annotations(annotations).unwrap_or_else(|e| {
            problems.push(e);
            None
        });
        let string = |v: Option<NodeId>| {
            v.filter(|_| self.full)
                .and_then(|v| tree.scalar(v))
                .map(str::to_owned)
        };
        let view = ActionView {
            id,
            // Read, when the action has annotations, even where only declarations are: a
            // `title` hint is judged against it.
            label: label
                .filter(|_| self.full || annotations.is_some())
                .and_then(|v| tree.scalar(v))
                .map(str::to_owned),
            description: string(description),
            details: string(details),
            action_type: string(action_type),
            steps: self.steps(steps.filter(|_| self.full)),
            inputs: self.inputs(inputs.filter(|_| self.full)),
            required: self.required(inputs.filter(|_| self.full)),
            scopes: self.scopes(scopes, problems),
            declared,
            annotations,
            line: tree.line(key),
            id_comment: self
                .full
                .then(|| self.trailing_comment(value_node.end()))
                .flatten(),
            ..ActionView::default()
        };
        Ok(Some(ActionSite {
            view,
            column: self.column(key_node.start()) + 1,
            map_start: map.start(),
            nested,
            insert,
            effects,
            seq_offset: self.action_seq_offset(item),
            annotations: site_annotations.map(Box::new),
        }))
    }

    /// The `actionId` entry of an item that is an action written here; `None` for an alias
    /// to an action anchored elsewhere, which is edited at its anchor. An error for an item
    /// that is no action, or takes its `actionId` only through a merge.
    fn action_entry(&self, item: NodeId) -> Result<Option<(NodeId, NodeId)>, Error> {
        let tree = self.tree;
        if tree.node(item).kind() == Kind::Alias {
            return Ok(None);
        }
        if !tree.is_map(item) {
            return Err(self.error(item, "action item is not a mapping".into()));
        }
        match own_entry(tree, item, "actionId") {
            Some(entry) => Ok(Some(entry)),
            None if tree.get(item, "actionId").is_some() => Err(self.error(
                item,
                "action gets its actionId only through a `<<` merge: reported, not edited".into(),
            )),
            None => Err(self.error(item, "action item has no actionId".into())),
        }
    }

    /// Where the action's new keys go: after the `actionId` value in a flow mapping, on the
    /// line after it in a block mapping.
    fn insert(&self, map: &Node, key: &Node, value: &Node) -> Insert {
        if map.flow() {
            Insert::Flow { at: value.end() }
        } else if map.in_flow() {
            // `[actionId: x]`: a single-pair mapping, whose one pair is all it can hold.
            Insert::Unsafe(
                "it is a single-pair mapping inside a flow sequence (`[actionId: ...]`), which cannot take a second key",
            )
        } else {
            Insert::Block {
                at: self.tree.lines.line_end(value.end()),
                indent: self.key_indent(key.start()),
            }
        }
    }

    /// The `requiredScopes` an action lists: the one way to call it, all of them needed.
    /// An item that is no string is named in `problems`, and the list says nothing: the
    /// strings left are not the whole requirement, and read alone they could make a write
    /// look read-only. Checked whether or not the scopes are read, so a plan that reads
    /// only declarations finds the same problems.
    fn scopes(&self, scopes: Option<NodeId>, problems: &mut Vec<Error>) -> Vec<Vec<String>> {
        let tree = self.tree;
        let Some(items) = scopes.and_then(|v| tree.items(v)) else {
            return Vec::new();
        };
        let mut needed = Vec::new();
        for i in items {
            match tree.scalar(i) {
                Some(s) => needed.push(s.to_owned()),
                None => {
                    problems.push(self.error(
                        i,
                        "requiredScopes item is not a string: write each scope as a plain string; until then the action's scopes are not read".into(),
                    ));
                    return Vec::new();
                }
            }
        }
        if needed.is_empty() || !self.full {
            Vec::new()
        } else {
            vec![needed]
        }
    }

    /// Where the action's `annotations:` mapping is written, when it is one; `None` when
    /// it has none or it is not a mapping (a problem reported already).
    fn annotations_site(&self, item: NodeId, value: Option<NodeId>) -> Option<AnnotationsSite> {
        let tree = self.tree;
        let value = value?;
        tree.entries(value)?;
        let unsafe_why = |why| AnnotationsSite {
            key_start: 0,
            end: 0,
            flow: false,
            anchored: false,
            entries: Vec::new(),
            unsafe_why: Some(why),
            action_flow: false,
            prev_end: 0,
            next_start: None,
        };
        let action = tree.node(item);
        if action.aliased() {
            return Some(unsafe_why(
                "the action is anchored (`&name`) and used elsewhere through an alias, whose annotations would change too",
            ));
        }
        let own: Vec<(NodeId, NodeId)> = tree.own_entries(item)?.collect();
        let Some(at) = own
            .iter()
            .position(|&(k, _)| tree.scalar(k) == Some("annotations"))
        else {
            return Some(unsafe_why(
                "its annotations come through a `<<` merge, which other actions may share",
            ));
        };
        let (key, map) = own[at];
        let m = tree.node(map);
        if let Some(why) = self.shared_annotations(key, map) {
            return Some(unsafe_why(why));
        }
        let line_of = |at: usize| self.tree.lines.line(at);
        let entries: Vec<HintEntry> = tree
            .own_entries(map)?
            .map(|(k, v)| {
                let (kn, vn) = (tree.node(k), tree.node(v));
                let simple = kn.kind() == Kind::Scalar
                    && vn.kind() == Kind::Scalar
                    && !(kn.anchored() || kn.tagged() || vn.anchored() || vn.tagged())
                    && !matches!(vn.style(), ScalarStyle::Literal | ScalarStyle::Folded)
                    && line_of(kn.start()) == line_of(vn.end().max(vn.start() + 1) - 1);
                HintEntry {
                    key: tree.scalar(k).unwrap_or_default().to_owned(),
                    key_start: kn.start(),
                    value_end: vn.end(),
                    simple,
                }
            })
            .collect();
        // A flow mapping's end can lie past its `}`, after a comment on its line: its
        // `}` is found after the last value instead. Anything else in between (a comment)
        // leaves the parser's end, and the removal finds the comment and refuses.
        let end = if m.flow() {
            let bytes = self.text.as_bytes();
            let mut at = entries.last().map_or(m.start(), |e| e.value_end);
            while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'\r' | b'\n' | b',') {
                at += 1;
            }
            if bytes.get(at) == Some(&b'}') {
                at + 1
            } else {
                m.end()
            }
        } else {
            entries.last().map_or(m.start(), |e| e.value_end)
        };
        let prev_end = at
            .checked_sub(1)
            .map_or(action.start(), |p| tree.node(own[p].1).end());
        Some(AnnotationsSite {
            key_start: tree.node(key).start(),
            end,
            flow: m.flow(),
            anchored: m.anchored(),
            entries,
            unsafe_why: None,
            action_flow: action.flow(),
            prev_end,
            next_start: own.get(at + 1).map(|&(k, _)| tree.node(k).start()),
        })
    }

    /// Why an action's `annotations:` mapping may not be edited in place, if it may not:
    /// it is written elsewhere, or used elsewhere, or marked so that an edit would be.
    fn shared_annotations(&self, key: NodeId, map: NodeId) -> Option<&'static str> {
        let tree = self.tree;
        let m = tree.node(map);
        if m.kind() == Kind::Alias {
            Some("its annotations are an alias (`*name`) of a mapping written elsewhere")
        } else if m.aliased() {
            Some(
                "its annotations are anchored (`&name`) and used elsewhere through an alias, which would change too",
            )
        } else if m.tagged() || tree.node(key).anchored() || tree.node(key).tagged() {
            Some("its `annotations` key or mapping carries a tag or an anchor")
        } else if tree
            .own_entries(map)
            .into_iter()
            .flatten()
            .any(|(k, _)| tree.scalar(k) == Some("<<"))
        {
            Some(
                "its annotations merge (`<<`) a mapping written elsewhere, which other actions may share",
            )
        } else {
            None
        }
    }

    fn action_id(&self, value: NodeId) -> Result<String, Error> {
        string_id(self.tree, value)
            .map(str::to_owned)
            .map_err(|found| self.error(value, format!("actionId must be a string, found {found}")))
    }

    /// The column new keys of a block mapping take: that of the `actionId` key, or of the
    /// `?` that introduces it as an explicit key (`? actionId\n: x`), whose content sits two
    /// columns further right than the mapping's keys.
    fn key_indent(&self, key_start: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = key_start;
        while i > 0 && matches!(bytes[i - 1], b' ' | b'\t') {
            i -= 1;
        }
        let at = if i > 0 && bytes[i - 1] == b'?' && i < key_start {
            i - 1
        } else {
            key_start
        };
        self.column(at)
    }

    /// The comment after a value on its own line, without `#`. Only the bytes up to the
    /// `#` are looked at, so a long line is not scanned once per action on it.
    fn trailing_comment(&self, value_end: usize) -> Option<String> {
        let bytes = self.text.as_bytes();
        let mut i = value_end;
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
        if bytes.get(i) != Some(&b'#') {
            return None;
        }
        let end = self.tree.lines.line_end(i);
        Some(self.text[i + 1..end].trim().to_owned())
    }

    fn steps(&self, steps: Option<NodeId>) -> Vec<Step> {
        let tree = self.tree;
        let Some(items) = steps.and_then(|s| tree.items(s)) else {
            return Vec::new();
        };
        let string = |v: Option<NodeId>| v.and_then(|v| tree.scalar(v)).map(str::to_owned);
        // Sized to the items: collected from an iterator of unknown length, the list of
        // one step would hold four (a quarter of one large file's plan).
        let mut out = Vec::with_capacity(items.clone().count());
        out.extend(items.map(|step| {
            let func = tree.get(step, "stepFunction");
            let [name, params] = func.map_or([None; 2], |f| {
                tree.fields(f, ["functionName", "parameters"])
            });
            let [method, url, soap] = params.map_or([None; 3], |p| {
                tree.fields(p, ["method", "url", "soapOperation"])
            });
            Step {
                function: string(name),
                method: string(method).map(|m| m.to_ascii_lowercase()),
                url: string(url),
                soap_operation: string(soap),
            }
        }));
        out
    }

    fn inputs(&self, inputs: Option<NodeId>) -> Vec<Input> {
        let tree = self.tree;
        let Some(items) = inputs.and_then(|s| tree.items(s)) else {
            return Vec::new();
        };
        let string = |v: Option<NodeId>| v.and_then(|v| tree.scalar(v)).map(str::to_owned);
        items
            .filter_map(|input| {
                let [name, enum_, values, ty, description] =
                    tree.fields(input, ["name", "enum", "values", "type", "description"]);
                let name = string(name)?;
                let values = enum_.or(values);
                let enum_values = values
                    .and_then(|v| tree.items(v))
                    .map(|vs| {
                        vs.filter_map(|v| {
                            tree.scalar(v)
                                .or_else(|| tree.get_str(v, "id"))
                                .or_else(|| tree.get_str(v, "value"))
                                .map(str::to_owned)
                        })
                        .collect()
                    })
                    .unwrap_or_default();
                Some(Input {
                    name,
                    ty: string(ty),
                    enum_values,
                    description: string(description),
                })
            })
            .collect()
    }

    /// The names of the inputs marked `required: true` (`True` and `TRUE` are the same
    /// boolean in YAML 1.2's core schema).
    fn required(&self, inputs: Option<NodeId>) -> Vec<String> {
        let tree = self.tree;
        let Some(items) = inputs.and_then(|s| tree.items(s)) else {
            return Vec::new();
        };
        items
            .filter_map(|input| {
                let [name, required] = tree.fields(input, ["name", "required"]);
                required
                    .and_then(|r| tree.scalar(r))
                    .is_some_and(|r| matches!(r, "true" | "True" | "TRUE"))
                    .then(|| tree.scalar(name?).map(str::to_owned))
                    .flatten()
            })
            .collect()
    }

    /// The action's `effects` value, `value` as found among its fields.
    fn declared(&self, action: NodeId, value: Option<NodeId>) -> (Declared, Option<EffectsSite>) {
        let tree = self.tree;
        let Some(value) = value else {
            return (Declared::None, None);
        };
        let own = own_entry(tree, action, "effects").is_some();
        let Some(items) = tree.items(value) else {
            let what = match tree.scalar(value) {
                Some(v) => format!("a scalar `{v}`, not a list"),
                None => "a mapping, not a list".to_owned(),
            };
            return (Declared::Invalid(format!("effects is {what}")), None);
        };
        let mut set = Effects::EMPTY;
        let mut unknown = Vec::new();
        for item in items.clone() {
            match tree.scalar(item).and_then(Effect::parse) {
                Some(e) => set.insert(e),
                None => unknown.push(tree.scalar(item).unwrap_or("(not a scalar)").to_owned()),
            }
        }
        let node = tree.node(value);
        let item_aliased = items.clone().any(|i| tree.node(i).aliased());
        // What a rewrite replaces: the list itself, past its anchor or tag (they stay), and
        // for a block list from its first `-`, wherever the parser starts it (an anchor on
        // the line before, or the first item of an indentless list).
        let (start, end) = if node.flow() {
            let open = opener(self.text, node.start()).map_or(node.start(), |(at, _)| at);
            (open, node.end())
        } else {
            let first = items.clone().next();
            let start = first
                .and_then(|i| self.dash_before(i))
                .unwrap_or(node.start());
            (
                start,
                items.last().map_or(node.end(), |l| tree.node(l).end()),
            )
        };
        let unsafe_rewrite = if node.kind() == Kind::Alias {
            Some("its effects are an alias (`*name`) of a list declared elsewhere")
        } else if node.aliased() {
            Some(
                "its effects list is anchored (`&name`) and used elsewhere through an alias, which would change too",
            )
        } else if item_aliased {
            // The rewrite replaces the items, their anchors too: an alias elsewhere would
            // name an anchor that is gone, and the edited file would not parse.
            Some(
                "an item of its effects list is anchored (`&name`) and used elsewhere through an alias, which would lose it",
            )
        } else {
            None
        };
        let site = Some(EffectsSite {
            start,
            end,
            flow: node.flow(),
            item_indent: self.column(start),
            own,
            unsafe_rewrite,
        });
        let declared = if !unknown.is_empty() {
            Declared::Invalid(format!("unknown effect(s): {}", unknown.join(", ")))
        } else if set.is_empty() {
            Declared::Invalid("effects is an empty list".to_owned())
        } else {
            Declared::Valid(set)
        };
        (declared, site)
    }

    fn annotations(&self, value: Option<NodeId>) -> Result<Option<Hints>, Error> {
        let tree = self.tree;
        let Some(value) = value else {
            return Ok(None);
        };
        if tree.entries(value).is_none() {
            return Err(self.error(value, "annotations must be a mapping".into()));
        }
        let mut hints = Hints::default();
        for (k, v) in merged_entries(tree, value) {
            let key = tree.scalar(k).unwrap_or("");
            // A quoted `"true"` is a string, as `yes` is: a hint must be a YAML boolean, or
            // a client reading the file as YAML sees no hint where this reads one.
            let flag = || match tree.scalar_text(tree.resolve(v)) {
                Some(("true", ScalarStyle::Plain)) => Ok(Some(true)),
                Some(("false", ScalarStyle::Plain)) => Ok(Some(false)),
                _ => Err(self.error(v, format!("annotations.{key} must be true or false"))),
            };
            match key {
                "title" => hints.title = tree.scalar(v).map(str::to_owned),
                "readOnlyHint" => hints.read_only = flag()?,
                "destructiveHint" => hints.destructive = flag()?,
                "idempotentHint" => hints.idempotent = flag()?,
                "openWorldHint" => hints.open_world = flag()?,
                other => {
                    return Err(self.error(k, format!("annotations has an unknown key `{other}` (known: title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint)")));
                }
            }
        }
        Ok(Some(hints))
    }
}

/// The `actionId` of each action of a connector file's text and the method of its last call,
/// read line by line without parsing: what the names of a connector split into files are
/// read from before the run (a second parse of every partial cost `check` 60% more). A
/// key's line is `actionId: x` or `- actionId: x` (the format puts `actionId` first in its
/// item), a method's `method: get`; comments are skipped. Flow-style items are not seen, and
/// a block scalar's text that looks like such a line is: the names only vote on a prefix,
/// a style and how the API uses its methods, and a file read alone uses its own exact names.
pub fn scan_calls(text: &str) -> Vec<(&str, Option<&str>)> {
    let b = text.as_bytes();
    // Where each key opens its line (after spaces and an item's `- `), with its value.
    let keyed = |key: &'static [u8]| {
        memchr::memmem::find_iter(b, key).filter_map(move |at| {
            let start = memchr::memrchr(b'\n', &b[..at]).map_or(0, |p| p + 1);
            let lead = &b[start..at];
            let lead = lead.strip_suffix(b"- ").unwrap_or(lead);
            if !lead.iter().all(|&c| c == b' ') || b.get(at + key.len()) != Some(&b':') {
                return None;
            }
            let end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |p| at + p);
            let v = &text[at + key.len() + 1..end];
            let v = v.split(" #").next().unwrap_or(v).trim();
            let v = v.trim_matches(|c| c == '"' || c == '\'');
            (!v.is_empty()).then_some((at, v))
        })
    };
    let mut out: Vec<(&str, Option<&str>)> = Vec::new();
    let mut methods = keyed(b"method").peekable();
    let ids: Vec<(usize, &str)> = keyed(b"actionId").collect();
    for (k, &(at, id)) in ids.iter().enumerate() {
        let next = ids.get(k + 1).map_or(usize::MAX, |n| n.0);
        let mut method = None;
        while let Some(&(m, v)) = methods.peek() {
            if m >= next {
                break;
            }
            if m > at {
                method = Some(v);
            }
            methods.next();
        }
        out.push((id, method));
    }
    out
}

/// The HTTP method of the last step of action `item` that names one, as written.
fn last_method<'t>(tree: &'t Tree, item: NodeId) -> Option<&'t str> {
    let steps = tree.items(tree.get(item, "steps")?)?;
    steps
        .filter_map(|step| {
            let params = tree.get(tree.get(step, "stepFunction")?, "parameters")?;
            tree.scalar(tree.get(params, "method")?)
        })
        .last()
}

/// The entries of a mapping with its `<<` merges applied, as YAML merge keys specify: its
/// own keys first, then each merged mapping's (a list's in order) where no earlier one has
/// the key. Merged mappings are read with their own merges, to a bounded depth.
fn merged_entries(tree: &Tree, map: NodeId) -> Vec<(NodeId, NodeId)> {
    fn walk(tree: &Tree, map: NodeId, depth: usize, out: &mut Vec<(NodeId, NodeId)>) {
        let Some(entries) = tree.entries(map) else {
            return;
        };
        let entries: Vec<(NodeId, NodeId)> = entries.collect();
        let has = |out: &[(NodeId, NodeId)], k: NodeId| {
            let key = tree.scalar(k);
            out.iter()
                .any(|&(o, _)| key.is_some() && tree.scalar(o) == key)
        };
        for &(k, v) in &entries {
            if tree.scalar(k) != Some("<<") && !has(out, k) {
                out.push((k, v));
            }
        }
        if depth >= 16 {
            return;
        }
        for &(k, v) in &entries {
            if tree.scalar(k) != Some("<<") {
                continue;
            }
            match tree.items(v) {
                Some(items) => {
                    for source in items {
                        walk(tree, source, depth + 1, out);
                    }
                }
                None => walk(tree, v, depth + 1, out),
            }
        }
    }
    let mut out = Vec::new();
    walk(tree, map, 0, &mut out);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_connector_files_calls_are_scanned_without_parsing() {
        let text = "actions:\n  - actionId: list_users # the list\n    steps:\n      - stepFunction:\n          parameters:\n            method: get\n  # - actionId: commented_out\n  - actionId: 'sync_users'\n    steps:\n      - {stepId: a}\n      - stepFunction:\n          parameters: {url: /x}\n            \n          method: POST\n- actionId: bare\n  xmethod: put\n";
        assert_eq!(
            scan_calls(text),
            [
                ("list_users", Some("get")),
                ("sync_users", Some("POST")),
                ("bare", None)
            ]
        );
    }

    use super::*;

    /// Held for every action of a file while it is checked: a list of one step that kept
    /// room for four was a quarter of one large file's plan.
    #[test]
    fn an_actions_steps_take_no_more_room_than_they_need() {
        let step = "{stepId: s, stepFunction: {functionName: request, parameters: {url: /u, method: get}}}";
        let text = format!(
            "- actionId: one\n  steps: [{step}]\n- actionId: two\n  steps: [{step}, {step}]\n"
        );
        let parsed = parse_file(&text).unwrap();
        let caps: Vec<(usize, usize)> = parsed
            .actions
            .iter()
            .map(|a| (a.view.steps.len(), a.view.steps.capacity()))
            .collect();
        assert_eq!(caps, [(1, 1), (2, 2)]);
    }
}
