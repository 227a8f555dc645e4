//! Helpers shared by the integration tests: fixture sandboxes, running the binary, snapshots,
//! git repositories, and the "the edit only inserts lines" check.
#![allow(dead_code)]
// A test may say on the terminal what it skipped and why.
#![allow(clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../fuzz/unified.rs"]
pub mod unified;
#[allow(unused_imports)]
pub use unified::apply_unified;

/// Every fixture scenario, one folder each under `tests/fixtures`.
pub const SCENARIOS: [&str; 21] = [
    "shape-a",
    "shape-b",
    "shape-c-d",
    "comments-and-commented-out-action",
    "trailing-comment-on-actionid",
    "block-scalars-looking-like-yaml",
    "flow-collections",
    "quoted-keys-and-templating",
    "crlf",
    "bom",
    "non-ascii-before-action",
    "tab-after-dash",
    "no-final-newline",
    "aliases",
    "flow-mapping-action",
    "existing-effects",
    "nested-refresh-action",
    "partial-without-main",
    "mixed-sequence-indent",
    "malformed",
    "demo",
];

pub const EFFECT_NAMES: [&str; 5] = ["read", "search", "write", "delete", "execute"];

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The source folder of a scenario; `demo` is the project's demo catalog.
pub fn fixture_dir(name: &str) -> PathBuf {
    if name == "demo" {
        manifest_dir().join("catalogs/demo")
    } else {
        manifest_dir().join("tests/fixtures").join(name)
    }
}

/// Copies a directory tree byte for byte.
pub fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let to = dst.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
}

/// Every file under `dir`, relative and `/`-separated, with its bytes, sorted.
pub fn read_tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                if entry.file_name() != ".git" {
                    walk(root, &path, out);
                }
            } else {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy();
                out.push((rel.replace('\\', "/"), std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A fixture copied into a fresh temporary directory: `<tmp>/<sub>/catalog`, reports go to
/// `<tmp>/out` (outside the catalog).
pub struct Sandbox {
    pub dir: tempfile::TempDir,
    pub catalog: PathBuf,
    pub out: PathBuf,
}

impl Sandbox {
    pub fn new(fixture: &str) -> Sandbox {
        Sandbox::nested(fixture, "")
    }

    /// The catalog at `<tmp>/<sub>/catalog` (`sub` may be empty or hold several levels).
    pub fn nested(fixture: &str, sub: &str) -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let catalog = dir.path().join(sub).join("catalog");
        copy_dir(&fixture_dir(fixture), &catalog);
        let out = dir.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        Sandbox { dir, catalog, out }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Runs `backfill` on the catalog with the patch and report under `out`.
    pub fn backfill(&self, extra: &[&str]) -> Output {
        run_backfill(&[&self.catalog], &self.out, self.root(), extra)
    }

    /// Makes the sandbox root a git repository holding the catalog in one commit.
    pub fn git_init(&self) {
        git_init(self.root());
    }

    pub fn file(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.catalog.join(rel)).unwrap()
    }
}

pub const GOOD: &str = "info:
  key: good
  title: Good
actions:
  - actionId: list_goods
    label: List Goods
    steps:
      - stepId: s
        stepFunction:
          functionName: request
          parameters:
            url: /goods
            method: get
";

/// A temporary directory with `catalog/good/good.connector.s1.yaml` and an `out` folder.
pub struct Case {
    pub dir: tempfile::TempDir,
    pub catalog: PathBuf,
    pub out: PathBuf,
}

impl Case {
    pub fn new() -> Case {
        let dir = tempfile::tempdir().unwrap();
        let catalog = dir.path().join("catalog");
        std::fs::create_dir_all(catalog.join("good")).unwrap();
        std::fs::write(catalog.join("good/good.connector.s1.yaml"), GOOD).unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        Case { dir, catalog, out }
    }

    /// Adds `bad/<name>` with `bytes`.
    pub fn with(self, name: &str, bytes: impl AsRef<[u8]>) -> Case {
        let path = self.catalog.join("bad").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
        self
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn backfill(&self, extra: &[&str]) -> Output {
        run_backfill(&[&self.catalog], &self.out, self.root(), extra)
    }
}

/// The good file was processed: its row in the CSV, its hunk in the patch.
pub fn assert_good_processed(out: &Output) {
    assert!(
        out.csv.lines().any(
            |l| l.starts_with("good,good/good.connector.s1.yaml,5,list_goods,")
                && l.contains(",added,")
        ),
        "no row for the good file:\n{}\nstderr:\n{}",
        out.csv,
        out.stderr
    );
    assert!(
        out.patch.contains(
            "--- a/good/good.connector.s1.yaml\n+++ b/good/good.connector.s1.yaml\n@@ -3,6 +3,8 @@\n   title: Good\n actions:\n   - actionId: list_goods\n+    effects:\n+      - read\n"
        ),
        "no hunk for the good file:\n{}",
        out.patch
    );
}

/// The names in `dir`, sorted: what a run left there, temporary files included.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// How to run the binary without the power to read everything: directly when not root; as
/// `nobody` through `setpriv` when root (root bypasses file permissions); `None` when
/// neither works (the caller skips).
pub fn unprivileged() -> Option<(Vec<String>, Option<u32>)> {
    use std::os::unix::fs::MetadataExt;
    let probe = tempfile::NamedTempFile::new().unwrap();
    let uid = probe.as_file().metadata().unwrap().uid();
    if uid != 0 {
        return Some((Vec::new(), None));
    }
    let prefix: Vec<String> = [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
    ]
    .map(String::from)
    .to_vec();
    let works = Command::new(&prefix[0])
        .args(&prefix[1..])
        .arg("true")
        .status()
        .is_ok_and(|s| s.success());
    works.then_some((prefix, Some(65534)))
}

pub fn run_as(prefix: &[String], case: &Case, extra: &[&str]) -> Output {
    let patch = case.out.join("effects.patch");
    let report = case.out.join("coverage.csv");
    let mut cmd = if prefix.is_empty() {
        Command::new(bin())
    } else {
        let mut c = Command::new(&prefix[0]);
        c.args(&prefix[1..]).arg(bin());
        c
    };
    let o = cmd
        .arg("backfill")
        .arg(&case.catalog)
        .arg("--patch")
        .arg(&patch)
        .arg("--report")
        .arg(&report)
        .args(extra)
        .current_dir(case.root())
        .output()
        .unwrap();
    Output {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        patch: std::fs::read_to_string(&patch).unwrap_or_default(),
        csv: std::fs::read_to_string(&report).unwrap_or_default(),
    }
}

/// Opens the case to another user: the tree readable, `out` and `writable` dirs theirs.
pub fn open_to(case: &Case, uid: Option<u32>, writable: &[&Path]) {
    use std::os::unix::fs::PermissionsExt;
    let Some(uid) = uid else { return };
    std::fs::set_permissions(case.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::chown(&case.out, Some(uid), Some(uid)).unwrap();
    for p in writable {
        std::os::unix::fs::chown(p, Some(uid), Some(uid)).unwrap();
        for e in std::fs::read_dir(p).unwrap() {
            std::os::unix::fs::chown(e.unwrap().path(), Some(uid), Some(uid)).unwrap();
        }
    }
}

/// The good connector was written with its effects.
pub fn assert_good_written(catalog: &Path) {
    assert!(
        std::fs::read_to_string(catalog.join("good/good.connector.s1.yaml"))
            .unwrap()
            .contains("effects:")
    );
}

/// What one run of the binary produced.
#[derive(Debug, Clone)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub patch: String,
    pub csv: String,
}

impl Output {
    /// CSV rows (header excluded), split on commas (test fixtures hold no quoted commas in
    /// the columns read here: connector, file, line, action_id, status).
    pub fn rows(&self) -> Vec<Vec<String>> {
        self.csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(str::to_owned).collect())
            .collect()
    }

    /// `(action_id, status)` of every row.
    pub fn statuses(&self) -> Vec<(String, String)> {
        let header: Vec<&str> = self.csv.lines().next().unwrap_or("").split(',').collect();
        let status = header.iter().position(|h| *h == "status").unwrap();
        self.rows()
            .into_iter()
            .map(|r| (r[3].clone(), r[status].clone()))
            .collect()
    }

    pub fn status_of(&self, id: &str) -> String {
        self.statuses()
            .into_iter()
            .find(|(a, _)| a == id)
            .unwrap_or_else(|| panic!("no row for {id} in\n{}", self.csv))
            .1
    }

    pub fn added(&self) -> usize {
        self.statuses().iter().filter(|(_, s)| s == "added").count()
    }
}

/// The outcome of one run of the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary with `args` from `cwd`.
pub fn run_in(cwd: &Path, args: &[&str]) -> Run {
    let o = Command::new(bin())
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run catalog-effects");
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8(o.stdout).unwrap(),
        stderr: String::from_utf8(o.stderr).unwrap(),
    }
}

/// A connector main file (shape A) with key `key`.
pub fn main_file(key: &str) -> String {
    format!(
        "StackOne: 1.0.0\ninfo:\n  title: {key} title\n  key: {key}\n  version: 1.0.0\n  description: Made-up system for tests.\nbaseUrl: https://api.{key}.example/v1\nauthentication:\n  - custom:\n      type: custom\n      label: API Key\n"
    )
}

/// One action of a partial file; `extra` lines (already indented by two) go after `label`.
pub fn action(
    id: &str,
    label: &str,
    description: &str,
    method: &str,
    url: &str,
    extra: &str,
) -> String {
    format!(
        "- actionId: {id}\n  label: {label}\n{extra}  description: {description}\n  steps:\n    - stepId: call\n      stepFunction:\n        functionName: request\n        parameters:\n          url: {url}\n          method: {method}\n\n"
    )
}

/// A catalog `<root>/<name>` of one connector `acme` (key `acme`): its main file and one
/// partial holding `actions`.
pub fn acme_catalog(root: &Path, name: &str, actions: &[String]) -> PathBuf {
    let catalog = root.join(name);
    write_file(&catalog, "acme/acme.connector.s1.yaml", &main_file("acme"));
    write_file(
        &catalog,
        "acme/acme.users.s1.partial.yaml",
        &actions.concat(),
    );
    catalog
}

/// Writes `text` to `dir/rel`, creating folders.
/// Appends `text` to the file at `path`.
pub fn append(path: &Path, text: &str) {
    let mut now = std::fs::read_to_string(path).unwrap();
    now.push_str(text);
    std::fs::write(path, now).unwrap();
}

pub fn write_file(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_catalog-effects")
}

/// Runs `catalog-effects backfill <catalogs> --patch out/effects.patch --report
/// out/coverage.csv <extra>` from `cwd`.
pub fn run_backfill(catalogs: &[&Path], out: &Path, cwd: &Path, extra: &[&str]) -> Output {
    let patch = out.join("effects.patch");
    let report = out.join("coverage.csv");
    let _ = std::fs::remove_file(&patch);
    let _ = std::fs::remove_file(&report);
    let o = Command::new(bin())
        .arg("backfill")
        .args(catalogs)
        .arg("--patch")
        .arg(&patch)
        .arg("--report")
        .arg(&report)
        .args(extra)
        .current_dir(cwd)
        .output()
        .expect("run catalog-effects");
    // The summary names the files it wrote, as given: under a fresh temporary folder.
    let out_dir = out.to_string_lossy().into_owned();
    Output {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8(o.stdout)
            .unwrap()
            .replace(&out_dir, "<OUT>"),
        stderr: String::from_utf8(o.stderr).unwrap(),
        patch: std::fs::read_to_string(&patch).unwrap_or_default(),
        csv: std::fs::read_to_string(&report).unwrap_or_default(),
    }
}

/// Compares `actual` with `tests/snapshots/<name>`; `UPDATE_SNAPSHOTS=1` (re)writes it.
pub fn snapshot(name: &str, actual: &str) {
    let path = manifest_dir().join("tests/snapshots").join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing snapshot {}: run with UPDATE_SNAPSHOTS=1",
            path.display()
        )
    });
    if expected != actual {
        let first = expected
            .split_inclusive('\n')
            .zip(actual.split_inclusive('\n'))
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "snapshot {} differs (first at line {}; UPDATE_SNAPSHOTS=1 to accept)\n--- expected\n{expected:?}\n--- actual\n{actual:?}",
            path.display(),
            first + 1
        );
    }
}

/// Runs `git` in `dir` with a fixed identity and no user or system configuration.
pub fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "core.autocrlf=false",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("run git")
}

/// Like [`git`], panicking with its stderr unless it succeeds.
pub fn git_ok(dir: &Path, args: &[&str]) -> String {
    let o = git(dir, args);
    assert!(
        o.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The raw bytes of `rev:path`.
pub fn blob(repo: &Path, rev: &str, path: &str) -> Vec<u8> {
    let o = git(repo, &["cat-file", "blob", &format!("{rev}:{path}")]);
    assert!(o.status.success(), "{rev}:{path}");
    o.stdout
}

/// What each route made of one catalog (`repo/catalog` in a fresh repository): the runs,
/// and the catalog's files after `git apply` of the patch, after `--write`, and in the
/// `--branch` commit.
pub struct Routes {
    pub patch: Output,
    pub write: Output,
    pub branch: Output,
    pub applied: Vec<(String, Vec<u8>)>,
    pub written: Vec<(String, Vec<u8>)>,
    pub committed: Vec<(String, Vec<u8>)>,
}

impl Routes {
    /// Runs `backfill` with `extra` on `files` through all three routes.
    pub fn run(files: &[(&str, &str)], extra: &[&str]) -> Routes {
        let fresh = || {
            let dir = tempfile::tempdir().unwrap();
            let repo = dir.path().join("repo");
            for (rel, text) in files {
                write_file(&repo.join("catalog"), rel, text);
            }
            git_init(&repo);
            std::fs::create_dir_all(dir.path().join("out")).unwrap();
            (dir, repo)
        };
        let with = |route: &[&str]| -> Vec<String> {
            route.iter().chain(extra).map(|s| s.to_string()).collect()
        };
        let run = |dir: &tempfile::TempDir, repo: &Path, args: Vec<String>| {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            run_backfill(
                &[&repo.join("catalog")],
                &dir.path().join("out"),
                dir.path(),
                &args,
            )
        };
        let (d1, r1) = fresh();
        let patch = run(&d1, &r1, with(&[]));
        if !patch.patch.is_empty() {
            let p = d1.path().join("out/effects.patch");
            git_apply(&r1, &p, false).unwrap_or_else(|e| {
                panic!(
                    "git apply: {e}
{}",
                    patch.patch
                )
            });
        }
        let applied = read_tree(&r1.join("catalog"));
        let (d2, r2) = fresh();
        let write = run(&d2, &r2, with(&["--write"]));
        let written = read_tree(&r2.join("catalog"));
        let (d3, r3) = fresh();
        let branch = run(&d3, &r3, with(&["--branch", "effects"]));
        let made = git(
            &r3,
            &["rev-parse", "--verify", "--quiet", "refs/heads/effects"],
        )
        .status
        .success();
        let rev = if made { "effects" } else { "HEAD" };
        let committed = read_tree(&r3.join("catalog"))
            .into_iter()
            .map(|(rel, _)| {
                let bytes = blob(&r3, rev, &format!("catalog/{rel}"));
                (rel, bytes)
            })
            .collect();
        Routes {
            patch,
            write,
            branch,
            applied,
            written,
            committed,
        }
    }

    /// All three routes made the same files; returns them.
    pub fn agree(&self) -> &[(String, Vec<u8>)] {
        assert_eq!(
            self.applied, self.written,
            "--write differs from the patch\n{}",
            self.write.stderr
        );
        assert_eq!(
            self.applied, self.committed,
            "--branch differs from the patch\n{}",
            self.branch.stderr
        );
        &self.applied
    }
}

/// `--branch` must commit what applying the patch and `git add` would: the same tree.
pub fn branch_equals_git_add(dir: &tempfile::TempDir, repo: &Path, git_config: &[&str]) {
    let out = run_backfill(
        &[&repo.join("catalog")],
        &dir.path().join("out"),
        repo,
        &["--branch", "effects"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Each committed file is HEAD's plus inserted `effects` only, as git stores both.
    let changed = git_ok(repo, &["diff", "--name-only", "HEAD", "effects"]);
    assert!(!changed.is_empty(), "the branch changes nothing");
    for path in changed.lines() {
        let (old, new) = (blob(repo, "HEAD", path), blob(repo, "effects", path));
        let (old, new) = (
            String::from_utf8(old).unwrap(),
            String::from_utf8(new).unwrap(),
        );
        check_only_inserted(&old, &new).unwrap_or_else(|e| panic!("{path}: {e}\n{new}"));
    }
    git_apply(repo, &dir.path().join("out/effects.patch"), false).unwrap();
    let mut add = git_config.to_vec();
    add.extend(["add", "-A"]);
    git_ok(repo, &add);
    let mut write_tree = git_config.to_vec();
    write_tree.push("write-tree");
    let added = git_ok(repo, &write_tree);
    let branch = git_ok(repo, &["rev-parse", "effects^{tree}"]);
    assert_eq!(
        added.trim(),
        branch.trim(),
        "the branch's tree is what `git add` stores"
    );
}

/// `git init` in `dir` and one commit of everything in it.
pub fn git_init(dir: &Path) {
    git_ok(dir, &["init", "-q"]);
    git_ok(dir, &["add", "-A"]);
    git_ok(dir, &["commit", "-q", "-m", "fixture"]);
}

/// `git apply --check` of `patch` in `dir`.
pub fn git_apply(dir: &Path, patch: &Path, check: bool) -> Result<(), String> {
    let p = patch.to_str().unwrap();
    let args: Vec<&str> = if check {
        vec!["apply", "--check", p]
    } else {
        vec!["apply", p]
    };
    let o = git(dir, &args);
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

/// `patch -p1 --dry-run` in `dir`; `None` when the `patch` program is not installed.
pub fn patch_dry_run(dir: &Path, patch: &Path) -> Option<Result<(), String>> {
    let o = Command::new("patch")
        .args(["-p1", "--dry-run", "--batch", "--silent", "-i"])
        .arg(patch)
        .current_dir(dir)
        .output();
    match o {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => Some(Err(e.to_string())),
        Ok(o) if o.status.success() => Some(Ok(())),
        Ok(o) => Some(Err(format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ))),
    }
}

/// A line the backfill may insert: `<spaces>effects:` or `<spaces>- <effect>`, spaces only;
/// in an OpenAPI document, `<spaces>x-effects: [<effect>, ...]`.
pub fn is_inserted_line(line: &str) -> bool {
    let body = line.trim_end_matches(['\n', '\r']);
    let rest = body.trim_start_matches(' ');
    let openapi = rest
        .strip_prefix("x-effects: [")
        .and_then(|r| r.strip_suffix(']'))
        .is_some_and(|list| list.split(", ").all(|e| EFFECT_NAMES.contains(&e)));
    openapi
        || rest == "effects:"
        || rest
            .strip_prefix("- ")
            .is_some_and(|e| EFFECT_NAMES.contains(&e))
}

fn terminator(line: &str) -> &str {
    if line.ends_with("\r\n") {
        "\r\n"
    } else if line.ends_with('\n') {
        "\n"
    } else {
        ""
    }
}

/// Removes one `, effects: [a, b]` from `line`, if there is one.
fn without_flow_insert(line: &str) -> Option<String> {
    let at = line.find(", effects: [")?;
    let close = line[at..].find(']')? + at;
    let inner = &line[at + ", effects: [".len()..close];
    inner
        .split(", ")
        .all(|e| EFFECT_NAMES.contains(&e))
        .then(|| format!("{}{}", &line[..at], &line[close + 1..]))
}

/// Checks that `new` is `old` plus inserted lines only (each an `effects:` key or one of its
/// items, ending like the line before it) and `, effects: [..]` substrings in flow mappings.
/// A file without a final newline may gain a terminator on its last original line, the
/// one the new lines follow. Returns the number of inserted lines.
pub fn check_only_inserted(old: &str, new: &str) -> Result<usize, String> {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let (mut i, mut j, mut inserted) = (0, 0, 0);
    let mut prev_eol = old_lines
        .first()
        .map(|l| terminator(l))
        .filter(|t| !t.is_empty())
        .unwrap_or("\n");
    while j < new_lines.len() {
        let n = new_lines[j];
        if i < old_lines.len() {
            let o = old_lines[i];
            let last_unterminated = i + 1 == old_lines.len() && !o.ends_with('\n');
            let more = j + 1 < new_lines.len();
            let same = [Some(n.to_owned()), without_flow_insert(n)]
                .into_iter()
                .flatten()
                .any(|c| {
                    c == o || (last_unterminated && more && c.strip_suffix(prev_eol) == Some(o))
                });
            if same {
                if !terminator(o).is_empty() {
                    prev_eol = terminator(o);
                }
                i += 1;
                j += 1;
                continue;
            }
        }
        if !is_inserted_line(n) {
            return Err(format!(
                "new line {} {n:?} is neither original (old line {} {:?}) nor an inserted effects line",
                j + 1,
                i + 1,
                old_lines.get(i)
            ));
        }
        let t = terminator(n);
        let end_of_file = j + 1 == new_lines.len() && i == old_lines.len();
        if !(t == prev_eol || (t.is_empty() && end_of_file && !old.ends_with('\n'))) {
            return Err(format!(
                "inserted line {} {n:?} does not end like the line before it ({prev_eol:?})",
                j + 1
            ));
        }
        inserted += 1;
        j += 1;
    }
    if i != old_lines.len() {
        return Err(format!(
            "old line {} {:?} is missing from the new text",
            i + 1,
            old_lines[i]
        ));
    }
    if old.ends_with('\n') != new.ends_with('\n') && !new.is_empty() {
        return Err("the final-newline state changed".into());
    }
    Ok(inserted)
}

/// xorshift64*, seeded: the same cases (and delays) on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// True with probability `percent`%.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A JSON schema compiled from its text (draft-07 by default), read from disk: nothing is
/// fetched. `formats` turns on format assertions (`uri`, `date-time`, ...).
pub struct SchemaValidator {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

impl SchemaValidator {
    pub fn new(schema: &str, name: &str, formats: bool) -> SchemaValidator {
        let schema: serde_json::Value =
            serde_json::from_str(schema).expect("the stored schema is JSON");
        let url = format!("file:///{name}");
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        compiler.set_default_draft(boon::Draft::V7);
        if formats {
            compiler.enable_format_assertions();
        }
        compiler
            .add_resource(&url, schema)
            .expect("schema resource");
        let index = compiler
            .compile(&url, &mut schemas)
            .unwrap_or_else(|e| panic!("{name} compiles: {e}"));
        SchemaValidator { schemas, index }
    }

    pub fn validate(&self, doc: &serde_json::Value) -> Result<(), String> {
        self.schemas
            .validate(doc, self.index)
            .map_err(|e| format!("{e:#}"))
    }
}

/// A connector main file (shape A) with key `acme`.
pub const ACME_MAIN: &str = "StackOne: 1.0.0\ninfo:\n  title: Acme\n  key: acme\n  version: 1.0.0\nbaseUrl: https://api.acme.example/v1\n";

/// One action of a partial file, a plain HTTP call; `effects` a flow list (`read`) or none.
pub fn http_action(id: &str, method: &str, url: &str, effects: Option<&str>) -> String {
    let effects = effects.map_or(String::new(), |e| format!("  effects: [{e}]\n"));
    format!(
        "- actionId: {id}\n{effects}  label: {id}\n  steps:\n    - stepId: call\n      stepFunction:\n        functionName: request\n        parameters:\n          url: {url}\n          method: {method}\n\n"
    )
}

/// Runs `program` in `dir` as a user's shell would find it: the binary first on PATH, git
/// configured by the environment alone (a fixed identity), plus `env`.
pub fn run_on_path(dir: &Path, program: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    let bin_dir = Path::new(bin()).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .envs([
            ("GIT_AUTHOR_NAME", "t"),
            ("GIT_AUTHOR_EMAIL", "t@t"),
            ("GIT_COMMITTER_NAME", "t"),
            ("GIT_COMMITTER_EMAIL", "t@t"),
        ])
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// A test that needs a program this machine may lack (`pre-commit`, `chromium`) skips with
/// `why`, unless `CATALOG_EFFECTS_REQUIRE` names the program: `.ci/run` names each one it
/// found, so a CI run never passes on a skipped check.
pub fn skip_without(program: &str, why: &str) {
    let required = std::env::var("CATALOG_EFFECTS_REQUIRE")
        .is_ok_and(|v| v.split_whitespace().any(|p| p == program));
    assert!(
        !required,
        "{why}, and CATALOG_EFFECTS_REQUIRE names `{program}`"
    );
    eprintln!("skipped: {why}");
}

/// The interpreter with the MCP Python SDK 2.x that can also import `more` (a comma list,
/// or empty): `CATALOG_EFFECTS_MCP_PYTHON` (`.ci/run` installs the SDK in a virtual
/// environment of its own), else `python3`; `None`, the reason printed, when it cannot
/// (a failure when `CATALOG_EFFECTS_REQUIRE` names `mcp`).
pub fn sdk_python(more: &str) -> Option<String> {
    let python =
        std::env::var("CATALOG_EFFECTS_MCP_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let imports = if more.is_empty() {
        "import mcp.server.mcpserver".to_owned()
    } else {
        format!("import mcp.server.mcpserver, {more}")
    };
    let ok = Command::new(&python)
        .args(["-c", &imports])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip_without(
            "mcp",
            &format!(
                "`{python}` cannot `{imports}` (pip install 'mcp>=2,<3'; or set \
                 CATALOG_EFFECTS_MCP_PYTHON to an interpreter that can)"
            ),
        );
        return None;
    }
    Some(python)
}

/// A `node_modules` holding the official TypeScript SDK and zod (`CATALOG_EFFECTS_NODE_MODULES`,
/// which `.ci/run` installs), with `node` on PATH; `None`, the reason printed, without them
/// (a failure when `CATALOG_EFFECTS_REQUIRE` names `node`).
pub fn node_sdk() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("CATALOG_EFFECTS_NODE_MODULES").map(PathBuf::from) else {
        skip_without(
            "node",
            "CATALOG_EFFECTS_NODE_MODULES is unset (a node_modules with @modelcontextprotocol/sdk and zod)",
        );
        return None;
    };
    let has_node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_node {
        skip_without("node", "`node` is not on PATH");
        return None;
    }
    assert!(
        dir.join("@modelcontextprotocol/sdk").is_dir(),
        "CATALOG_EFFECTS_NODE_MODULES ({}) has no @modelcontextprotocol/sdk",
        dir.display()
    );
    Some(dir)
}
