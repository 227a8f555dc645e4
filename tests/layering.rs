//! The stages as the module tree (issue 32): each top-level module of the library imports only
//! the modules below it in `STAGES`, read from the `crate::` paths of its source (test
//! modules and comments left out). An import that climbs fails here unless it is one of
//! `CLIMBS`, the ones left to undo, each with what it is; a climb that is undone must leave
//! that list too, so the list is always exactly what remains.

use std::collections::BTreeSet;
use std::path::Path;

/// Bottom first. A new module must be placed here.
const STAGES: &[&str] = &[
    "error", "effects", "text", "view", "model", "git", "yaml", "classify", "fix", "source",
    "outcome", "lint", "report", "emit", "run",
];

/// The imports that still climb, to be undone, each with what it is. None is left: an
/// import that climbs is a failure (issue 32 undid the last three).
const CLIMBS: &[(&str, &str)] = &[];

/// The top-level modules a source file names through `crate::`.
fn imports(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|l| l.trim_start().starts_with("mod "))
        {
            break;
        }
        if !t.starts_with("//") {
            code.push_str(line);
            code.push('\n');
        }
    }
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
