//! The stages as the module tree: each top-level module of the library imports only
//! the modules below it in `STAGES`, read from the `crate::` paths of its source (test
//! modules and comments left out). An import that climbs fails here unless it is one of
//! `CLIMBS`, the ones left to undo, each with what it is; a climb that is undone must leave
//! that list too, so the list is always exactly what remains. Within a stage, no two files
//! import each other round, through any number of files, counting a parent's bare paths to
//! its child modules: none is accepted.

use std::collections::BTreeSet;
use std::path::Path;

/// Bottom first. A new module must be placed here.
const STAGES: &[&str] = &[
    "error", "effects", "text", "view", "model", "git", "yaml", "classify", "fix", "source",
    "outcome", "lint", "report", "emit", "run",
];

/// The imports that still climb, to be undone, each with what it is. None is left: an
/// import that climbs is a failure.
const CLIMBS: &[(&str, &str)] = &[];

/// A source file's code: comments and its test module left out.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t == "#[cfg(test)]"
            && lines.peek().is_some_and(|l| {
                let l = l.trim_start();
                let l = l.strip_prefix("pub(crate) ").unwrap_or(l);
                l.strip_prefix("pub ").unwrap_or(l).starts_with("mod ")
            })
        {
            break;
        }
        if !t.starts_with("//") {
            code.push_str(line);
            code.push('\n');
        }
    }
    code
}

/// The top-level modules a source file names through `crate::`.
fn imports(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code = code_of(text);
    let mut out = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let names: Vec<&str> = match rest.strip_prefix('{') {
            // `use crate::{a::b, c}`: the first name of each item at the group's top level.
            Some(group) => {
                let (mut depth, mut items, mut start) = (0, Vec::new(), 0);
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            items.push(&group[start..i]);
                            break;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            items.push(&group[start..i]);
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
                items
            }
            None => vec![rest],
        };
        for name in names {
            let name = name.trim_start();
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(name.len());
            if modules.contains(&name[..end]) {
                out.insert(name[..end].to_owned());
            }
        }
    }
    out
}

/// Every (importer, imported) pair between top-level modules whose imported one is not below.
fn climbs(files: &[(String, String)], modules: &BTreeSet<String>) -> BTreeSet<(String, String)> {
    let rank = |m: &str| STAGES.iter().position(|s| *s == m);
    let mut out = BTreeSet::new();
    for (module, text) in files {
        for to in imports(text, modules) {
            if &to != module && rank(&to) >= rank(module) {
                out.insert((module.clone(), to));
            }
        }
    }
    out
}

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_stage_imports_one_above_it_but_the_climbs_listed() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    sources(&src, &mut paths);
    let mut files = Vec::new();
    let mut modules = BTreeSet::new();
    for path in paths {
        let rel = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let top = rel
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_owned();
        // The binary sits above every stage; `lib.rs` only declares them.
        if matches!(top.as_str(), "main" | "lib" | "cli") {
            continue;
        }
        modules.insert(top.clone());
        files.push((top, std::fs::read_to_string(&path).unwrap()));
    }
    let unplaced: Vec<&String> = modules
        .iter()
        .filter(|m| !STAGES.contains(&m.as_str()))
        .collect();
    assert!(
        unplaced.is_empty(),
        "modules with no place in STAGES: {unplaced:?}"
    );
    let found = climbs(&files, &modules);
    let listed: BTreeSet<(String, String)> = CLIMBS
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let new: Vec<_> = found.difference(&listed).collect();
    let undone: Vec<_> = listed.difference(&found).collect();
    assert!(
        new.is_empty(),
        "imports that climb a stage (move the item down): {new:?}"
    );
    assert!(
        undone.is_empty(),
        "climbs undone: take them out of CLIMBS: {undone:?}"
    );
}

/// The check itself: a planted upward import, in each way a path is written, is found; a
/// downward one, a comment and a test module are not.
#[test]
fn a_planted_upward_import_is_found() {
    let modules: BTreeSet<String> = ["yaml", "emit", "error", "source"].map(String::from).into();
    let found = |text: &str| climbs(&[("yaml".to_owned(), text.to_owned())], &modules);
    let up: BTreeSet<(String, String)> = [("yaml".to_owned(), "emit".to_owned())].into();
    assert_eq!(found("use crate::emit::plural;\n"), up);
    assert_eq!(found("use crate::{error::Error, emit::{a, b}};\n"), up);
    assert_eq!(found("fn f() { crate::emit::plural(1, \"x\"); }\n"), up);
    assert!(found("use crate::error::Error;\n").is_empty());
    assert!(found("/// see [`x`](crate::emit::x)\n").is_empty());
    assert!(found("#[cfg(test)]\nmod tests {\n    use crate::emit::x;\n}\n").is_empty());
    assert!(found("use crate::{error::{Error, Result}};\n").is_empty());
}

/// Every path a piece of code names from `crate::`, `super::`, `self::` or one of `children`
/// (the file's own child modules, which a parent names bare: `departure::settle` in
/// `classify/mod.rs`), each use tree spread into its paths (`super::a::{b, c::D}` is
/// `super::a::b` and `super::a::c::D`).
fn paths(code: &str, children: &[String]) -> Vec<Vec<String>> {
    fn tree(s: &str, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
        let mut path = prefix.to_vec();
        let mut i = 0;
        let b = s.as_bytes();
        loop {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < b.len() && b[i] == b'{' {
                i += 1;
                loop {
                    i += tree(&s[i..], &path, out);
                    while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b',') {
                        i += 1;
                    }
                    if i >= b.len() || b[i] == b'}' {
                        return i + 1;
                    }
                }
            }
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if start == i {
                out.push(path);
                return i;
            }
            path.push(s[start..i].to_owned());
            if s[i..].starts_with("::") {
                i += 2;
            } else {
                out.push(path);
                return i;
            }
        }
    }
    let mut out = Vec::new();
    let b = code.as_bytes();
    let roots = ["crate", "super", "self"]
        .map(String::from)
        .into_iter()
        .chain(children.iter().cloned())
        .map(|name| name + "::");
    for root in roots {
        for (at, _) in code.match_indices(&root) {
            let word_start = at == 0 || !(b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_');
            let after_colons = at >= 2 && &code[at - 2..at] == "::";
            if word_start && !after_colons {
                tree(&code[at..], &[], &mut out);
            }
        }
    }
    out
}

/// The file a path names from the file `from` (module path `from`), if another file.
fn target(from: &[String], path: &[String], files: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let (mut base, mut rest) = (Vec::new(), path);
    match path.first().map(String::as_str) {
        Some("crate") => rest = &path[1..],
        Some("self") => (base, rest) = (from.to_vec(), &path[1..]),
        _ => {
            base = from.to_vec();
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
        }
    }
    base.extend(rest.iter().cloned());
    (1..=base.len())
        .rev()
        .map(|n| base[..n].to_vec())
        .find(|m| files.contains(m))
        .filter(|m| m != from)
}

/// The groups of files that import each other round (each of two or more files).
fn circles(files: &[(Vec<String>, String)]) -> Vec<Vec<String>> {
    let names: BTreeSet<Vec<String>> = files.iter().map(|(m, _)| m.clone()).collect();
    let edges: Vec<(Vec<String>, BTreeSet<Vec<String>>)> = files
        .iter()
        .map(|(m, text)| {
            let children: Vec<String> = names
                .iter()
                .filter(|n| n.len() == m.len() + 1 && n.starts_with(m))
                .map(|n| n[m.len()].clone())
                .collect();
            let to = paths(&code_of(text), &children)
                .iter()
                .filter_map(|p| target(m, p, &names))
                .collect();
            (m.clone(), to)
        })
        .collect();
    let reach = |from: &Vec<String>| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(m) = todo.pop() {
            for (_, to) in edges.iter().filter(|(n, _)| *n == m) {
                for t in to {
                    if seen.insert(t.clone()) {
                        todo.push(t.clone());
                    }
                }
            }
        }
        seen
    };
    let reaches: Vec<(Vec<String>, BTreeSet<Vec<String>>)> =
        names.iter().map(|m| (m.clone(), reach(m))).collect();
    let mut out: BTreeSet<Vec<String>> = BTreeSet::new();
    for (m, r) in &reaches {
        let round: Vec<String> = reaches
            .iter()
            .filter(|(n, rn)| r.contains(n) && rn.contains(m))
            .map(|(n, _)| n.join("::"))
            .collect();
        if round.len() > 1 {
            out.insert(round);
        }
    }
    out.into_iter().collect()
}

#[test]
fn no_two_files_import_each_other_round() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    sources(&src, &mut paths);
    let files: Vec<(Vec<String>, String)> = paths
        .iter()
        .map(|path| {
            let rel = path.strip_prefix(&src).unwrap().with_extension("");
            let mut module: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            (module, std::fs::read_to_string(path).unwrap())
        })
        .collect();
    let sorted = |mut circle: Vec<String>| {
        circle.sort();
        circle
    };
    let found: BTreeSet<Vec<String>> = circles(&files).into_iter().map(sorted).collect();
    assert!(
        found.is_empty(),
        "files that import each other round (move the item they share down to a file of its \
         own): {found:?}"
    );
}

/// A parent names its child modules bare (`departure::settle`, `use departure::X`), so a
/// child that imports its parent back closes a circle; declaring the child (`mod`), a
/// comment, or a longer path that only ends in the child's name does not.
#[test]
fn a_planted_parent_child_circle_is_found() {
    let file = |m: &str, text: &str| {
        let module = m.split("::").map(String::from).collect::<Vec<_>>();
        (module, text.to_owned())
    };
    let child = file("classify::departure", "use super::RuleSet;\n");
    let pair = vec![vec![
        "classify".to_owned(),
        "classify::departure".to_owned(),
    ]];
    for parent in [
        "pub mod departure;\nfn f() { departure::settle(); }\n",
        "pub mod departure;\nuse departure::{Reader, settle};\n",
        "pub mod departure;\npub use departure::settle;\n",
    ] {
        let found = circles(&[file("classify", parent), child.clone()]);
        assert_eq!(found, pair, "{parent}");
    }
    for parent in [
        "pub mod departure;\n",
        "pub mod departure;\n// departure::settle();\n",
        "pub mod departure;\nfn f() { other::departure::settle(); my_departure::x(); }\n",
    ] {
        let found = circles(&[file("classify", parent), child.clone()]);
        assert!(found.is_empty(), "{parent}");
    }
}

/// The circle check itself: a planted circle through three files, written each way a path
/// can be, is found; a chain that does not close is not.
#[test]
fn a_planted_circle_is_found() {
    let file = |m: &str, text: &str| {
        let module = m.split("::").map(String::from).collect::<Vec<_>>();
        (module, text.to_owned())
    };
    let a = file("classify::a", "use super::{b::{self, X}, c};\n");
    let b = file("classify::b", "fn f() { crate::classify::c::g(); }\n");
    let c = file("classify", "pub mod a;\n");
    let closed = file("classify::c", "use super::a::Y;\n");
    let open = file("classify::c", "use crate::error::E;\n// use super::a::Y;\n");
    let round = |files: &[(Vec<String>, String)]| circles(files);
    assert_eq!(
        round(&[a.clone(), b.clone(), c.clone(), closed]),
        vec![vec![
            "classify::a".to_owned(),
            "classify::b".to_owned(),
            "classify::c".to_owned()
        ]]
    );
    assert!(round(&[a, b, c, open]).is_empty());
}
