//! Proposals that do not depend on how a catalog is written: every
//! labelled set rendered again under transformations that keep each action what it is
//! (split across files, reordered, another case style, the connector's key as a prefix,
//! every method POST, every call a POST to one path), run through the real pipeline (`backfill`'s) and through `audit`'s
//! classification, and compared row by row with the set as written, at the default patch
//! level: read-only, change, or held.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use catalog_effects::classify::{Confidence, Group, Inference, RuleSet, infer_in};
use catalog_effects::fix::options::Options;
use catalog_effects::run::run;
use catalog_effects::source::mcp::parse_tools;

use super::{Route, Row, Set, by_server, engine_claim, slug, snake, tools_json};

/// One way of writing the same actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Transform {
    /// Each server as one connector file, its names as written: what the others are
    /// compared with.
    AsWritten,
    /// A main file and one partial per leading word of the names (`get_*`, `list_*`).
    ByLeadingWord,
    /// A main file and one partial per resource (the path's first literal segment).
    ByResource,
    /// The actions in the reverse order.
    Reversed,
    Camel,
    Kebab,
    Pascal,
    /// Every name given its connector's key as a prefix (`crmly_list_leads`), a key of one
    /// word as real connector keys are (`bamboohr`, `gong_crm`): the server's first word.
    Prefixed,
    /// Every HTTP method POST, as RPC, JSON-protocol and GraphQL APIs send them.
    AllPost,
    /// Every call a POST to one path, as JSON-RPC, JSON-protocol and GraphQL APIs make them:
    /// neither the method nor the path tells one operation from another.
    OneEndpoint,
}

impl Transform {
    pub const ALL: [Transform; 10] = [
        Transform::AsWritten,
        Transform::ByLeadingWord,
        Transform::ByResource,
        Transform::Reversed,
        Transform::Camel,
        Transform::Kebab,
        Transform::Pascal,
        Transform::Prefixed,
        Transform::AllPost,
        Transform::OneEndpoint,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Transform::AsWritten => "as written",
            Transform::ByLeadingWord => "partials by leading word",
            Transform::ByResource => "partials by resource",
            Transform::Reversed => "reordered",
            Transform::Camel => "camelCase",
            Transform::Kebab => "kebab-case",
            Transform::Pascal => "PascalCase",
            Transform::Prefixed => "connector key as prefix",
            Transform::AllPost => "every method POST",
            Transform::OneEndpoint => "all POST to one path",
        }
    }

    /// Whether the transformation applies to tool lists (names only) too.
    fn audit(self) -> bool {
        !matches!(
            self,
            Transform::ByLeadingWord
                | Transform::ByResource
                | Transform::AllPost
                | Transform::OneEndpoint
        )
    }

    /// The name as this transformation writes it.
    fn name_of(self, name: &str, key: &str) -> String {
        let words = catalog_effects::text::words::tokens(name);
        let cap = |w: &String| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        };
        match self {
            Transform::Camel => words
                .iter()
                .enumerate()
                .map(|(i, w)| if i == 0 { w.clone() } else { cap(w) })
                .collect(),
            Transform::Kebab => words.join("-"),
            Transform::Pascal => words.iter().map(cap).collect(),
            Transform::Prefixed => {
                let short = key.split('_').find(|w| !w.is_empty()).unwrap_or(key);
                format!("{short}_{}", snake(name))
            }
            _ => snake(name),
        }
    }
}

/// A row's class at the default patch level: read-only, change, or held.
pub type Class = Option<bool>;

/// The flips of one transformation on one set and route.
#[derive(Debug, Clone, Default)]
pub struct Flips {
    pub rows: usize,
    pub flipped: usize,
    /// A few of them: name, class as written, class transformed.
    pub examples: Vec<(String, Class, Class)>,
}

/// Every transformation's flips, by set and route.
#[derive(Debug, Default)]
pub struct Table {
    pub flips: BTreeMap<(Transform, Set, Route), Flips>,
}

fn class_name(c: Class) -> &'static str {
    match c {
        Some(true) => "read-only",
        Some(false) => "change",
        None => "held",
    }
}

impl Table {
    pub fn render(&self) -> String {
        let mut s = String::new();
        for ((t, set, route), f) in &self.flips {
            if *t == Transform::AsWritten {
                continue;
            }
            let _ = write!(
                s,
                "  {:26} {:34} {:>5} of {:>5} flip",
                t.name(),
                format!("{}, {}", set.name(), route.name()),
                f.flipped,
                f.rows
            );
            for (name, a, b) in f.examples.iter().take(3) {
                let _ = write!(s, "; {name}: {} -> {}", class_name(*a), class_name(*b));
            }
            s.push('\n');
        }
        s
    }

    /// All flips of every transformation but the base, summed.
    pub fn total(&self) -> usize {
        self.flips.values().map(|f| f.flipped).sum()
    }
}

/// The resource a row acts on: its path's first literal segment that is no version.
fn resource(row: &Row) -> String {
    row.path
        .split(['/', '.', ':'])
        .filter(|s| !s.is_empty() && !s.starts_with('{') && !s.contains('$'))
        .find(|s| !(s.starts_with('v') && s[1..].chars().all(|c| c.is_ascii_digit())))
        .map(|s| slug(s).replace('-', "_"))
        .unwrap_or_else(|| "root".into())
}

/// A row's name's first word.
fn leading_word(row: &Row) -> String {
    catalog_effects::text::words::tokens(&row.name)
        .first()
        .cloned()
        .unwrap_or_default()
}

/// The files one server's rows (those with a method and a path) are written to under `t`.
fn files(t: Transform, key: &str, server: &str, rows: &[&Row]) -> Vec<(String, String)> {
    let mut list: Vec<&Row> = rows.to_vec();
    if t == Transform::Reversed {
        list.reverse();
    }
    let action = |r: &Row| {
        let mut r = r.clone();
        r.name = t.name_of(&r.name, key);
        if matches!(t, Transform::AllPost | Transform::OneEndpoint) {
            r.method = "post".into();
        }
        if t == Transform::OneEndpoint {
            r.path = "/api".into();
        }
        r
    };
    let owned: Vec<Row> = list.iter().map(|r| action(r)).collect();
    let refs: Vec<&Row> = owned.iter().collect();
    let main = format!("{key}.connector.s1.yaml");
    let split: Option<fn(&Row) -> String> = match t {
        Transform::ByLeadingWord => Some(leading_word),
        Transform::ByResource => Some(resource),
        _ => None,
    };
    let Some(split) = split else {
        return vec![(main, super::connector_yaml_raw(key, server, &refs))];
    };
    let mut parts: BTreeMap<String, Vec<&Row>> = BTreeMap::new();
    for r in &refs {
        parts.entry(split(r)).or_default().push(r);
    }
    let mut out = Vec::new();
    let mut first = true;
    for (part, rows) in parts {
        if first {
            out.push((main.clone(), super::connector_yaml_raw(key, server, &rows)));
            first = false;
        } else {
            let name = format!("{key}.{}.s1.partial.yaml", slug(&part).replace('-', "_"));
            out.push((name, super::partial_yaml(&rows)));
        }
    }
    out
}

/// Every row's class under every transformation, compared with the set as written.
pub fn measure(rows: &[Row], rules: &RuleSet, work: &Path) -> Result<Table, String> {
    let mut classes: BTreeMap<(Transform, Route), BTreeMap<*const Row, Class>> = BTreeMap::new();
    for t in Transform::ALL {
        let dir = work.join(format!("{t:?}"));
        let mut ids: BTreeMap<(String, String), Vec<&Row>> = BTreeMap::new();
        for set in Set::ALL {
            for (server, list) in by_server(rows, set) {
                let http: Vec<&Row> = list.iter().copied().filter(|r| r.has_http()).collect();
                let key = snake(&slug(server));
                let folder = format!("{}-{}", slug(set.name()), slug(server));
                if !http.is_empty() {
                    let d = dir.join(&folder);
                    std::fs::create_dir_all(&d).map_err(|e| e.to_string())?;
                    for (name, text) in files(t, &key, server, &http) {
                        std::fs::write(d.join(name), text).map_err(|e| e.to_string())?;
                    }
                    // In the order the files hold them: an id that occurs twice in a folder
                    // (graph-dev has three) is read back occurrence by occurrence.
                    let order: Vec<&&Row> = if t == Transform::Reversed {
                        http.iter().rev().collect()
                    } else {
                        http.iter().collect()
                    };
                    for r in order {
                        ids.entry((folder.clone(), t.name_of(&r.name, &key)))
                            .or_default()
                            .push(r);
                    }
                }
                if t.audit() {
                    let mut tools: Vec<Row> = list.iter().map(|r| (*r).clone()).collect();
                    if t == Transform::Reversed {
                        tools.reverse();
                    }
                    let original: Vec<&Row> = if t == Transform::Reversed {
                        list.iter().rev().copied().collect()
                    } else {
                        list.clone()
                    };
                    for r in &mut tools {
                        r.name = t.name_of(&r.name, &key);
                    }
                    let refs: Vec<&Row> = tools.iter().collect();
                    let parsed =
                        parse_tools(&tools_json(&refs), server).map_err(|e| e.to_string())?;
                    let group = Group::learn(parsed.iter().map(|t| t.id.as_str()), &rules.lexicon);
                    let by = classes.entry((t, Route::Audit)).or_default();
                    for (tool, row) in parsed.iter().zip(original) {
                        let inf = infer_in(tool, &group, rules);
                        by.insert(row as *const Row, engine_claim(&inf, Confidence::Medium));
                    }
                }
            }
        }
        let mut opts = Options::new(rules.clone());
        opts.min_confidence = Confidence::Low;
        opts.render_patch = false;
        opts.check_edits = false;
        let result = run(std::slice::from_ref(&dir), &opts);
        let by = classes.entry((t, Route::Backfill)).or_default();
        for f in &result.files {
            let folder = f.folder.rsplit('/').next().unwrap_or(&f.folder).to_owned();
            for a in &f.actions {
                let Some(list) = ids.get_mut(&(folder.clone(), a.id.clone())) else {
                    continue;
                };
                if list.is_empty() {
                    continue;
                }
                let row = list.remove(0);
                by.insert(row as *const Row, class(&a.inference));
            }
        }
    }
    let mut table = Table::default();
    for ((t, route), by) in &classes {
        let Some(base) = classes.get(&(Transform::AsWritten, *route)) else {
            continue;
        };
        for r in rows {
            let (Some(a), Some(b)) = (base.get(&(r as *const Row)), by.get(&(r as *const Row)))
            else {
                continue;
            };
            let f = table.flips.entry((*t, r.set, *route)).or_default();
            f.rows += 1;
            // Every method POST removes the method's say: a read may be held for a human
            // then, never proposed as a change.
            let flipped = if matches!(t, Transform::AllPost | Transform::OneEndpoint) {
                *a == Some(true) && *b == Some(false)
            } else {
                a != b
            };
            if flipped {
                f.flipped += 1;
                if f.examples.len() < 3 {
                    f.examples.push((r.name.clone(), *a, *b));
                }
            }
        }
    }
    Ok(table)
}

fn class(inf: &Inference) -> Class {
    engine_claim(inf, Confidence::Medium)
}
