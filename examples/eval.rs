//! Measures inference against hand-labelled MCP tools, through the real commands.
//!
//! ```text
//! cargo build --release && cargo run --release --example eval -- \
//!     [--tsv ../shared/eval/mcp-dev.tsv] [--bin target/release/catalog-effects] [--keep DIR]
//! ```
//!
//! The TSV becomes one MCP `tools/list` JSON per server (name, title, description,
//! annotations) and, for the rows with an HTTP method and path, one connector catalog per
//! server. It then runs `BIN audit FILE --format json` (under both destructive policies) and
//! `BIN backfill DIR --report X.csv --patch Y.patch --min-confidence low --quiet` (both
//! policies too), reads what
//! they wrote, and prints per server and in total: coverage, unsafe rate, friction rate and
//! destructiveHint agreement; the read-only accuracy per confidence level; every miss.
//! When the binary or a subcommand is missing, it says so and calls the library instead,
//! which runs the same engine and heuristics.

mod labelled;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use catalog_effects::audit::{AuditRow, Summary, Verdict, audit};
use catalog_effects::classify::{Confidence, RuleSet, infer};
use catalog_effects::effects::{DestructivePolicy, Effect, Effects, Hints, derive_hints};
use catalog_effects::mcp::parse_tools;
use catalog_effects::parse::parse_file;
use labelled::{Row, flag, read_tsv, snake, tools_json};

/// A file-system-safe name for a server (`repo/app` -> `repo-app`).
fn slug(server: &str) -> String {
    server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

fn connector_yaml(server: &str, rows: &[&Row]) -> String {
    labelled::connector_yaml(&snake(&slug(server)), server, rows)
}

/// What one route said about one tool.
#[derive(Clone)]
struct Got {
    effects: Effects,
    confidence: Option<Confidence>,
    rules: Vec<String>,
    destructive_delete: Option<bool>,
    destructive_overwrite: Option<bool>,
}

/// Builds the audit row a labelled tool gets from an inference, so every route is scored by
/// the same [`Summary`].
fn scored(row: &Row, got: &Got, policy: DestructivePolicy) -> AuditRow {
    let destructive = match policy {
        DestructivePolicy::Delete => got.destructive_delete,
        DestructivePolicy::Overwrite => got.destructive_overwrite,
    };
    let read_only = (!got.effects.is_empty()).then(|| got.effects.is_read_only());
    AuditRow {
        tool_name: row.name.clone(),
        title: None,
        declared: row.hints.clone(),
        inferred_effects: got.effects,
        confidence: got.confidence,
        rules: got.rules.clone(),
        inferred: Hints {
            read_only,
            destructive,
            ..Hints::default()
        },
        verdict: Verdict::Agrees,
        reason: String::new(),
    }
}

fn run(bin: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(bin)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    // audit exits 1 when a tool is unsafe: that is a finding, not a failure.
    let ok = if args.first() == Some(&"audit") {
        matches!(out.status.code(), Some(0 | 1)) && !out.stdout.is_empty()
    } else {
        out.status.success()
    };
    if ok {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(format!(
            "`{} {}` failed ({}): {}",
            bin.display(),
            args.join(" "),
            out.status,
            err.lines().next().unwrap_or("")
        ))
    }
}

/// `BIN audit FILE --format json [--destructive-policy overwrite]`, read back.
fn audit_by_binary(bin: &Path, file: &Path) -> Result<BTreeMap<String, Got>, String> {
    let f = file.to_string_lossy();
    let parse = |policy: &str| -> Result<BTreeMap<String, Got>, String> {
        let mut args = vec!["audit", &f, "--format", "json", "--min-confidence", "low"];
        if policy == "overwrite" {
            args.extend(["--destructive-policy", "overwrite"]);
        }
        let out = run(bin, &args)?;
        let v: serde_json::Value =
            serde_json::from_str(&out).map_err(|e| format!("audit JSON: {e}"))?;
        let tools = v["tools"].as_array().ok_or("audit JSON: no `tools`")?;
        let mut map = BTreeMap::new();
        for t in tools {
            let name = t["tool_name"].as_str().unwrap_or_default().to_owned();
            let effects: Effects = t["inferred_effects"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|e| e.as_str().and_then(Effect::parse))
                .collect();
            let rules = t["rules"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|r| r.as_str().map(str::to_owned))
                .collect();
            let got = Got {
                effects,
                confidence: t["confidence"].as_str().and_then(Confidence::parse),
                rules,
                destructive_delete: t["inferred_destructive"].as_bool(),
                destructive_overwrite: t["inferred_destructive"].as_bool(),
            };
            map.insert(name, got);
        }
        Ok(map)
    };
    let mut delete = parse("delete")?;
    let overwrite = parse("overwrite")?;
    for (name, got) in &mut delete {
        got.destructive_overwrite = overwrite.get(name).and_then(|g| g.destructive_overwrite);
    }
    Ok(delete)
}

fn audit_by_library(file: &Path, rules: &RuleSet) -> Result<BTreeMap<String, Got>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let tools = parse_tools(&text, &file.to_string_lossy()).map_err(|e| e.to_string())?;
    let del = audit(&tools, rules, DestructivePolicy::Delete, Confidence::Low);
    let over = audit(&tools, rules, DestructivePolicy::Overwrite, Confidence::Low);
    Ok(del
        .into_iter()
        .zip(over)
        .map(|(d, o)| {
            let got = Got {
                effects: d.inferred_effects,
                confidence: d.confidence,
                rules: d.rules,
                destructive_delete: d.inferred.destructive,
                destructive_overwrite: o.inferred.destructive,
            };
            (d.tool_name, got)
        })
        .collect())
}

/// `BIN backfill DIR --report X.csv ...` under both destructive policies, read back by
/// `folder/action_id` from the reports.
fn backfill_by_binary(
    bin: &Path,
    dir: &Path,
    work: &Path,
) -> Result<BTreeMap<String, Got>, String> {
    let mut delete = backfill_once(bin, dir, work, "delete")?;
    let overwrite = backfill_once(bin, dir, work, "overwrite")?;
    for (key, got) in &mut delete {
        got.destructive_overwrite = overwrite.get(key).and_then(|g| g.destructive_delete);
    }
    Ok(delete)
}

fn backfill_once(
    bin: &Path,
    dir: &Path,
    work: &Path,
    policy: &str,
) -> Result<BTreeMap<String, Got>, String> {
    let report = work.join(format!("backfill-{policy}.csv"));
    let patch = work.join(format!("backfill-{policy}.patch"));
    let (d, r, p) = (
        dir.to_string_lossy(),
        report.to_string_lossy(),
        patch.to_string_lossy(),
    );
    run(
        bin,
        &[
            "backfill",
            &d,
            "--report",
            &r,
            "--patch",
            &p,
            "--min-confidence",
            "low",
            "--destructive-policy",
            policy,
            "--quiet",
        ],
    )?;
    let mut reader =
        csv::Reader::from_path(&report).map_err(|e| format!("backfill report: {e}"))?;
    let header = reader.headers().map_err(|e| e.to_string())?.clone();
    let col = |names: &[&str]| header.iter().position(|h| names.contains(&h));
    let id =
        col(&["action_id", "actionId", "action"]).ok_or("backfill report: no action id column")?;
    let eff = col(&["proposed_effects", "inferred_effects", "effects"])
        .ok_or("backfill report: no effects column")?;
    let conf = col(&["confidence"]);
    let rules = col(&["rules", "deciding_rules"]);
    let file = col(&["file", "path"]);
    let destr = col(&["destructive", "inferred_destructive", "destructive_hint"]);
    let mut map = BTreeMap::new();
    for rec in reader.records() {
        let rec = rec.map_err(|e| e.to_string())?;
        let get = |i: Option<usize>| i.and_then(|i| rec.get(i)).unwrap_or("");
        let effects: Effects = get(Some(eff))
            .split(['|', ' ', ','])
            .filter_map(Effect::parse)
            .collect();
        let destructive = flag(get(destr))
            .or_else(|| (!effects.is_empty()).then(|| effects.contains(Effect::Delete)));
        // The folder names the server: action ids may repeat across servers.
        let folder = Path::new(get(file))
            .parent()
            .and_then(Path::file_name)
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        map.insert(
            format!("{folder}/{}", get(Some(id))),
            Got {
                effects,
                confidence: Confidence::parse(get(conf)),
                rules: get(rules)
                    .split('|')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
                destructive_delete: destructive,
                destructive_overwrite: None,
            },
        );
    }
    Ok(map)
}

fn backfill_by_library(dir: &Path, rules: &RuleSet) -> Result<BTreeMap<String, Got>, String> {
    let mut map = BTreeMap::new();
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
        let folder = entry.map_err(|e| e.to_string())?.path();
        for file in std::fs::read_dir(&folder).map_err(|e| e.to_string())? {
            let file = file.map_err(|e| e.to_string())?.path();
            let text = std::fs::read_to_string(&file).map_err(|e| e.to_string())?;
            let parsed = parse_file(&text).map_err(|e| e.in_file(&file).to_string())?;
            for site in parsed.actions.iter().filter(|s| !s.nested) {
                let inf = infer(&site.view, rules);
                let hints =
                    |p| derive_hints(inf.effects, None, None, p, inf.overwrites).destructive;
                let name = folder.file_name().unwrap_or_default().to_string_lossy();
                map.insert(
                    format!("{name}/{}", site.view.id),
                    Got {
                        effects: inf.effects,
                        confidence: inf.confidence,
                        rules: inf
                            .deciding_ids(rules)
                            .into_iter()
                            .map(str::to_owned)
                            .collect(),
                        destructive_delete: hints(DestructivePolicy::Delete),
                        destructive_overwrite: hints(DestructivePolicy::Overwrite),
                    },
                );
            }
        }
    }
    Ok(map)
}

fn pct(n: usize, d: usize) -> String {
    if d == 0 {
        "-".into()
    } else {
        format!("{n}/{d} {:.2}%", 100.0 * n as f64 / d as f64)
    }
}

fn summary_line(name: &str, s: &Summary, over: &Summary) -> String {
    format!(
        "{name:42} {:>5} {:>15} {:>14} {:>15} {:>14} {:>14}",
        s.tools,
        pct(s.classified, s.tools),
        pct(s.unsafe_inferences, s.not_read_only),
        pct(s.friction, s.read_only),
        pct(s.destructive_agree, s.destructive_compared),
        pct(over.destructive_agree, over.destructive_compared),
    )
}

fn header() -> String {
    format!(
        "{:42} {:>5} {:>15} {:>14} {:>15} {:>14} {:>14}",
        "server", "tools", "coverage", "unsafe", "friction", "destr(delete)", "destr(overwr)"
    )
}

struct Scored<'a> {
    row: &'a Row,
    got: Got,
}

/// Prints the per-server and total figures of one route, the calibration table and the
/// misses; returns the total.
fn report(title: &str, items: &[Scored<'_>], missing: &[&Row]) -> Summary {
    println!("\n== {title} ==\n");
    println!("{}", header());
    let mut by_server: BTreeMap<&str, (Summary, Summary)> = BTreeMap::new();
    for it in items {
        let e = by_server.entry(it.row.server.as_str()).or_default();
        e.0.add(&scored(it.row, &it.got, DestructivePolicy::Delete));
        e.1.add(&scored(it.row, &it.got, DestructivePolicy::Overwrite));
    }
    let (mut total, mut total_over) = (Summary::default(), Summary::default());
    for (server, (s, o)) in &by_server {
        println!("{}", summary_line(server, s, o));
        total.merge(s);
        total_over.merge(o);
    }
    println!("{}", summary_line("TOTAL", &total, &total_over));
    println!("\nread-only accuracy per confidence level:");
    for c in [Confidence::High, Confidence::Medium, Confidence::Low] {
        let cal = total.calibration(c);
        println!("  {:6} {}", c.name(), pct(cal.correct, cal.total));
    }
    let unclassified_known = items.iter().filter(|i| i.got.effects.is_empty()).count();
    println!("\nmisses (server, tool, truth, inferred, confidence, rules):");
    for it in items {
        let truth = scored(it.row, &it.got, DestructivePolicy::Delete).declared_read_only();
        let ro = it.got.effects.is_read_only();
        let kind = match truth {
            Some(false) if ro => "UNSAFE",
            Some(true) if !ro => "FRICTION",
            _ if it.got.effects.is_empty() => "UNCLASSIFIED",
            _ => continue,
        };
        let truth = match truth {
            Some(true) => "read-only",
            Some(false) => "not-read-only",
            None => "unknown",
        };
        println!(
            "  {kind:12} {:40} {:44} {:13} {:14} {:6} {}",
            it.row.server,
            it.row.name,
            truth,
            if it.got.effects.is_empty() {
                "-".into()
            } else {
                it.got.effects.joined("|")
            },
            it.got.confidence.map_or("-", Confidence::name),
            it.got.rules.join(",")
        );
    }
    println!("  ({unclassified_known} unclassified in all)");
    for r in missing {
        println!(
            "  NOT REPORTED {} {}: the command's output has no row for it",
            r.server, r.name
        );
    }
    total
}

fn main() {
    if let Err(e) = real_main() {
        eprintln!("eval: {e}");
        std::process::exit(2);
    }
}

fn real_main() -> Result<(), String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut tsv = manifest.join("../shared/eval/mcp-dev.tsv");
    let mut bin = manifest.join("target/release/catalog-effects");
    let mut keep: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--tsv" => tsv = value()?.into(),
            "--bin" => bin = value()?.into(),
            "--keep" => keep = Some(value()?.into()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let rows = read_tsv(&tsv)?;
    let rules = RuleSet::builtin().map_err(|e| e.to_string())?;
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let work = keep.unwrap_or_else(|| tmp.path().to_owned());
    let tools_dir = work.join("tools");
    let catalog_dir = work.join("catalog");
    for d in [&tools_dir, &catalog_dir] {
        std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
    }
    let mut servers: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in &rows {
        servers.entry(r.server.as_str()).or_default().push(r);
    }
    println!(
        "labelled tools: {} from {} ({} servers)",
        rows.len(),
        tsv.display(),
        servers.len()
    );

    // Route 1: MCP tool lists through `audit`.
    let mut fallback_noted = false;
    let mut tool_items = Vec::new();
    let mut missing = Vec::new();
    for (server, list) in &servers {
        let file = tools_dir.join(format!("{}.tools.json", slug(server)));
        std::fs::write(&file, tools_json(list)).map_err(|e| e.to_string())?;
        let got = match audit_by_binary(&bin, &file) {
            Ok(g) => g,
            Err(e) => {
                if !fallback_noted {
                    println!(
                        "NOTE: binary audit unavailable ({e}); measuring through the library (same engine and heuristics)"
                    );
                    fallback_noted = true;
                }
                audit_by_library(&file, &rules)?
            }
        };
        for r in list {
            match got.get(&r.name) {
                Some(g) => tool_items.push(Scored {
                    row: r,
                    got: g.clone(),
                }),
                None => missing.push(*r),
            }
        }
    }
    if !fallback_noted {
        println!("audit: {} audit FILE --format json", bin.display());
    }
    report("MCP tool lists (audit)", &tool_items, &missing);

    // Route 2: connector catalogs through `backfill`, for the rows with a method and path.
    for (server, list) in &servers {
        let with_http: Vec<&Row> = list
            .iter()
            .copied()
            .filter(|r| !r.method.is_empty() && !r.path.is_empty())
            .collect();
        if with_http.is_empty() {
            continue;
        }
        let folder = catalog_dir.join(slug(server));
        std::fs::create_dir_all(&folder).map_err(|e| e.to_string())?;
        let file = folder.join(format!("{}.connector.s1.yaml", snake(&slug(server))));
        std::fs::write(&file, connector_yaml(server, &with_http)).map_err(|e| e.to_string())?;
    }
    let got = match backfill_by_binary(&bin, &catalog_dir, &work) {
        Ok(g) => {
            println!(
                "\nbackfill: {} backfill {} --report ... --min-confidence low --destructive-policy delete|overwrite --quiet",
                bin.display(),
                catalog_dir.display()
            );
            g
        }
        Err(e) => {
            println!(
                "\nNOTE: binary backfill unavailable ({e}); measuring through the library (same engine and heuristics)"
            );
            backfill_by_library(&catalog_dir, &rules)?
        }
    };
    let mut cat_items = Vec::new();
    let mut cat_missing = Vec::new();
    for r in rows
        .iter()
        .filter(|r| !r.method.is_empty() && !r.path.is_empty())
    {
        match got.get(&format!("{}/{}", slug(&r.server), snake(&r.name))) {
            Some(g) => cat_items.push(Scored {
                row: r,
                got: g.clone(),
            }),
            None => cat_missing.push(r),
        }
    }
    report(
        "connector catalogs (backfill; rows with an HTTP method and path)",
        &cat_items,
        &cat_missing,
    );
    Ok(())
}
