//! Measures inference against the labelled sets of `heuristics/labelled`, through the real
//! commands, beside three peer rules computed in the same run.
//!
//! ```text
//! cargo build --release
//! cargo run --release --example eval                 # every set, both routes, the tables
//! cargo run --release --example eval -- --misses     # ... and every miss at the default level
//! cargo run --release --example eval -- --measure    # regenerate heuristics/measured.tsv
//! options: --dump FILE (every row, held out, as TSV)  --dump-sets FILE (the same, each set held out)  --dir heuristics/labelled  --bin target/release/catalog-effects  --keep DIR  --library
//! ```
//!
//! Each labelled row becomes a connector action (method, path, title as label, description,
//! inputs) in one connector per server, run through `BIN backfill DIR --report X.csv
//! --min-confidence low`, and an MCP tool (name, title, description, input names) in one
//! `tools/list` file per server, run through `BIN audit FILE --format json --min-confidence
//! low`. The outputs are read back and scored per set, route and confidence level: every
//! proposal, what the default patch applies (medium and high), high only. The library is
//! run on the same rows too, and any difference between the two is reported (there should be
//! none). `--measure` writes the counts the confidence levels are read from; it uses the
//! library, which the commands share. openapi-scopes-dev and graph-dev are also written as
//! OpenAPI documents (`labelled/openapi_shape.rs`), backfilled and scored beside the
//! connectors: the two shapes must agree.

// A program run by hand: it prints what it measures, and the size rule is the library's.
#![allow(clippy::print_stderr, clippy::print_stdout, clippy::too_many_lines)]

mod labelled;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use catalog_effects::classify::{Confidence, Inference, RuleSet};
use catalog_effects::effects::{Effect, Effects};
use labelled::{Outcome, Report, Route, Row, Set, TARGETS, by_server, openapi_shape, slug, snake};

fn main() {
    if let Err(e) = real_main() {
        eprintln!("eval: {e}");
        std::process::exit(2);
    }
}

struct Args {
    dir: PathBuf,
    bin: PathBuf,
    keep: Option<PathBuf>,
    measure: bool,
    misses: bool,
    dump: Option<PathBuf>,
    dump_sets: Option<PathBuf>,
    library: bool,
}

fn args() -> Result<Args, String> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut a = Args {
        dir: manifest.join("heuristics/labelled"),
        bin: manifest.join("target/release/catalog-effects"),
        keep: None,
        measure: false,
        misses: false,
        dump: None,
        dump_sets: None,
        library: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--dir" => a.dir = value()?.into(),
            "--bin" => a.bin = value()?.into(),
            "--keep" => a.keep = Some(value()?.into()),
            "--measure" => a.measure = true,
            "--misses" => a.misses = true,
            "--dump" => a.dump = Some(value()?.into()),
            "--dump-sets" => a.dump_sets = Some(value()?.into()),
            "--library" => a.library = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(a)
}

fn real_main() -> Result<(), String> {
    let a = args()?;
    let rows = labelled::read_all(&a.dir)?;
    let rules = RuleSet::builtin().map_err(|e| e.to_string())?;
    let lib = labelled::classify_all(&rows, &rules)?;
    if a.measure {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("heuristics/measured.tsv");
        let tsv = labelled::measure(&lib).to_tsv(&rules.lexicon, &rules.rules);
        std::fs::write(&path, &tsv).map_err(|e| format!("{}: {e}", path.display()))?;
        println!(
            "wrote {} ({} keys)",
            path.display(),
            tsv.lines().filter(|l| !l.starts_with('#')).count()
        );
        // The departures' records are read from the counts in force (the binary's): run
        // `--measure` again after a rebuild when the counts above changed.
        let held_out = labelled::cross_validated(&rows, &lib, &rules)?;
        let table = labelled::departures::Table::of(&held_out, &rules);
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("heuristics/departures.tsv");
        let tsv = labelled::departures::records_tsv(&table);
        std::fs::write(&path, &tsv).map_err(|e| format!("{}: {e}", path.display()))?;
        println!(
            "wrote {} ({} records)",
            path.display(),
            tsv.lines().filter(|l| !l.starts_with('#')).count()
        );
        return Ok(());
    }
    for set in Set::ALL {
        let n = rows.iter().filter(|r| r.set == set).count();
        let labelled = rows
            .iter()
            .filter(|r| r.set == set && r.truth.is_some())
            .count();
        println!(
            "{}: {n} rows, {labelled} labelled, from {}",
            set.name(),
            a.dir.join(set.file()).display()
        );
    }
    let outcomes = if a.library {
        println!("through the library (--library)");
        lib.clone()
    } else {
        let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
        let work = a.keep.clone().unwrap_or_else(|| tmp.path().to_owned());
        let bin = by_binary(&a.bin, &rows, &work)?;
        let differ = bin
            .iter()
            .zip(&lib)
            .filter(|(b, l)| {
                b.inference.effects != l.inference.effects
                    || b.inference.confidence != l.inference.confidence
            })
            .count();
        println!(
            "through {} (backfill and audit); the library gives the same result for {} of {} rows",
            a.bin.display(),
            bin.len() - differ,
            bin.len()
        );
        if differ > 0 {
            println!(
                "NOTE: the binary and the library differ (is the binary older than the heuristics? `cargo build --release`):"
            );
            for (b, l) in bin.iter().zip(&lib).filter(|(b, l)| {
                b.inference.effects != l.inference.effects
                    || b.inference.confidence != l.inference.confidence
            }) {
                println!(
                    "  {} {} {} {}: binary [{}] {:?}, library [{}] {:?}",
                    b.row.set.name(),
                    b.route.name(),
                    b.row.server,
                    b.row.name,
                    b.inference.effects.joined("|"),
                    b.inference.confidence,
                    l.inference.effects.joined("|"),
                    l.inference.confidence
                );
            }
        }
        bin
    };
    let report = Report::of(&outcomes);
    print!("{}", report.render());
    // What the targets read: each provider scored with counts measured without it, which is
    // what an API the tool has never seen gets.
    let held_out = labelled::cross_validated(&rows, &lib, &rules)?;
    let lopo = Report::of(&held_out);
    println!(
        "\nleave-one-provider-out: each provider's confidence read from counts measured without it"
    );
    print!("{}", lopo.render());
    println!(
        "\nthe engine against the plain reading, leave-one-provider-out, default patch level (the last column: high only):"
    );
    let departures = labelled::departures::Table::of(&held_out, &rules);
    print!("{}", departures.render());
    println!(
        "\nan author's read-only claim audited, leave-one-provider-out, default level (every labelled tool declared readOnlyHint: true):"
    );
    print!(
        "{}",
        labelled::declared::render(&labelled::declared::measure(&held_out, &lib, &rules))
    );
    println!("\nissue 31's targets, leave-one-provider-out, default patch level:");
    print!(
        "{}",
        labelled::departures::render_targets(&departures, &lopo)
    );
    println!(
        "issue 31's targets not met: the wrong rows, and the same evidence in the other providers, by label:"
    );
    print!(
        "{}",
        labelled::contested::render_issue31(&held_out, &lib, &rules, &departures, &lopo)
    );
    {
        let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
        let flips = labelled::transform::measure(
            &rows,
            &rules,
            &a.keep
                .clone()
                .map(|k| k.join("transforms"))
                .unwrap_or_else(|| tmp.path().to_owned()),
        )?;
        println!(
            "\nthe same actions written otherwise: rows whose proposal (read-only, change or held, at the default patch level) flips ({} in all; every method POST and all POST to one path: reads that become changes):",
            flips.total()
        );
        print!("{}", flips.render());
    }
    let shapes = &openapi_shape::SETS;
    let documents = if a.library {
        openapi_shape::classify_all(&rows, shapes, &rules)?
    } else {
        let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
        let work = a.keep.clone().unwrap_or_else(|| tmp.path().to_owned());
        openapi_shape::by_binary(&rows, shapes, &work, &|args| run(&a.bin, args))?
    };
    println!("\nthe same rows as OpenAPI documents, backfill (connector | document):");
    let connector = openapi_shape::connector_rows(&outcomes, shapes);
    print!(
        "{}",
        openapi_shape::side_by_side(&connector, &documents, 20)
    );
    let held = openapi_shape::cross_validated(&rows, &lib, shapes, &rules)?;
    println!("as OpenAPI documents, leave-one-provider-out (connector | document):");
    let connector = openapi_shape::connector_rows(&held_out, shapes);
    print!("{}", openapi_shape::side_by_side(&connector, &held, 20));
    println!("\ntargets at the default patch level, leave-one-provider-out:");
    for (set, route, max_unsafe, max_friction, min_coverage) in TARGETS {
        let f = &lopo.engine[&(set, route, Confidence::Medium)];
        let ok = |b: bool| if b { "met" } else { "NOT MET" };
        println!(
            "  {} through {}: unsafe {:.2}% (at most {:.1}%: {}), friction {:.2}% (at most {:.1}%: {}), coverage {:.1}% (at least {:.0}%: {})",
            set.name(),
            route.name(),
            100.0 * f.unsafe_rate(),
            100.0 * max_unsafe,
            ok(f.unsafe_rate() <= max_unsafe),
            100.0 * f.friction_rate(),
            100.0 * max_friction,
            ok(f.friction_rate() <= max_friction),
            100.0 * f.coverage(),
            100.0 * min_coverage,
            ok(f.coverage() >= min_coverage),
        );
    }
    let by_set = labelled::set_held_out(&rows, &lib, &rules)?;
    let sets = Report::of(&by_set);
    println!(
        "\nleave-one-set-out, default patch level: each set judged by the counts of the other four (a naming culture never seen)"
    );
    for (set, route, ..) in TARGETS {
        let [c, u, f] = sets.engine[&(set, route, Confidence::Medium)].cells();
        let [_, lu, lf] = lopo.engine[&(set, route, Confidence::Medium)].cells();
        println!(
            "  {:34} coverage {c:>18}  unsafe {u:>16}  friction {f:>18}   (provider out: unsafe {lu}, friction {lf})",
            format!("{} through {}", set.name(), route.name())
        );
    }
    println!(
        "\nwhose misses: for each figure not met, the same evidence in the other providers, by label:"
    );
    print!("{}", labelled::contested::render(&held_out, &lib, &rules));
    if let Some(path) = &a.dump_sets {
        std::fs::write(path, dump(&by_set, &rules))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    // The catalog's own declarations, half of every provider's rows declared.
    print!("{}", labelled::half::measure(&rows, &rules, &lib)?.render());
    if let Some(path) = &a.dump {
        std::fs::write(path, dump(&held_out, &rules))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if a.misses {
        print_misses(&held_out, &rules);
    }
    Ok(())
}

/// Every row the default patch level gets wrong, leave-one-provider-out, and what decided it.
fn print_misses(outcomes: &[Outcome<'_>], rules: &RuleSet) {
    println!(
        "\nmisses at the default patch level (set, route, kind, server, tool, proposal, confidence, what decided):"
    );
    for o in outcomes {
        let claim = labelled::engine_claim(&o.inference, Confidence::Medium);
        let kind = match (o.row.truth, claim) {
            (Some(false), Some(true)) => "UNSAFE",
            (Some(true), Some(false)) => "FRICTION",
            (Some(true), None) => "UNCLASSIFIED",
            _ => continue,
        };
        let inf = &o.inference;
        println!(
            "  {:18} {:8} {:12} {:28} {:44} {:14} {:6} {}",
            o.row.set.name(),
            o.route.name(),
            kind,
            truncate(&o.row.server, 28),
            truncate(&o.row.name, 44),
            if inf.effects.is_empty() {
                "-".to_owned()
            } else {
                inf.effects.joined("|")
            },
            inf.confidence.map_or("-", Confidence::name),
            // A decision always names what decided; an inference read back from the
            // tool's CSV or JSON keeps none, and nothing is printed for it.
            inf.deciding_ids(rules).join(",")
        );
    }
}

/// Every row, leave-one-provider-out, as TSV: what it is, its label, what was proposed and
/// what decided, for analysis outside this program.
fn dump(outcomes: &[Outcome<'_>], rules: &RuleSet) -> String {
    let mut out = String::from(
        "set\troute\tserver\tname\tmethod\tpath\ttitle\tdescription\tread_only\teffects\tconfidence\tdeciding\tjudged_by\tcount\n",
    );
    let clean = |s: &str| s.replace(['\t', '\n'], " ");
    for o in outcomes {
        let inf = &o.inference;
        out.push_str(
            &[
                o.row.set.name(),
                o.route.name(),
                &clean(&o.row.server),
                &clean(&o.row.name),
                &o.row.method,
                &clean(&o.row.path),
                &clean(&o.row.title),
                &clean(&o.row.description),
                o.row.truth.map_or("", |t| if t { "true" } else { "false" }),
                &inf.effects.joined("|"),
                inf.confidence.map_or("-", Confidence::name),
                &inf.deciding_ids(rules).join(","),
                &inf.judgement
                    .map_or(String::new(), |j| j.key.text(&rules.lexicon, &rules.rules)),
                &inf.judgement.map_or(String::new(), |j| {
                    format!("{}/{}", j.count.held, j.count.of)
                }),
            ]
            .join("\t"),
        );
        out.push('\n');
    }
    out
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        s.chars().take(n - 1).chain(['…']).collect()
    }
}

fn run(bin: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(bin).args(args).output().map_err(|e| {
        format!(
            "cannot run {} (build it with `cargo build --release`, or pass --library): {e}",
            bin.display()
        )
    })?;
    // audit exits 1 when a tool is unsafe, backfill and check 1 for findings: both finished.
    if matches!(out.status.code(), Some(0 | 1)) && !(args[0] == "audit" && out.stdout.is_empty()) {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "`{} {}` failed ({}): {}",
            bin.display(),
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ))
    }
}

fn effects_of(list: impl Iterator<Item = String>) -> Effects {
    list.filter_map(|e| Effect::parse(&e)).collect()
}

/// Both routes through the binary, in the order of `classify_all`.
fn by_binary<'a>(bin: &Path, rows: &'a [Row], work: &Path) -> Result<Vec<Outcome<'a>>, String> {
    let catalog = work.join("catalog");
    let tools = work.join("tools");
    for d in [&catalog, &tools] {
        std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
    }
    let folder = |set: Set, server: &str| format!("{}-{}", slug(set.name()), slug(server));
    for set in Set::ALL {
        for (server, list) in by_server(rows, set) {
            let http: Vec<&Row> = list.iter().copied().filter(|r| r.has_http()).collect();
            if !http.is_empty() {
                let dir = catalog.join(folder(set, server));
                std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
                let key = snake(&slug(server));
                let yaml = labelled::connector_yaml(&key, server, &http);
                std::fs::write(dir.join(format!("{key}.connector.s1.yaml")), yaml)
                    .map_err(|e| e.to_string())?;
            }
        }
    }
    let (mut csv, columns) =
        labelled::backfill_report(&|args| run(bin, args), &catalog, work, "backfill")?;
    let col = |n: &str| columns.get(n);
    let (file_c, id_c, eff_c, conf_c) = (
        col("file")?,
        col("action_id")?,
        col("inferred_effects")?,
        col("confidence")?,
    );
    // In file order: an id that occurs twice in one file (graph-dev has three) is read back
    // occurrence by occurrence.
    let mut backfill: BTreeMap<(String, String), std::collections::VecDeque<Inference>> =
        BTreeMap::new();
    for rec in csv.records() {
        let rec = rec.map_err(|e| e.to_string())?;
        let folder = labelled::folder_of(&rec[file_c]);
        backfill
            .entry((folder, rec[id_c].to_owned()))
            .or_default()
            .push_back(Inference {
                effects: effects_of(rec[eff_c].split('|').map(str::to_owned)),
                confidence: Confidence::parse(&rec[conf_c]),
                ..Inference::default()
            });
    }
    let mut out = Vec::new();
    for set in Set::ALL {
        for (server, list) in by_server(rows, set) {
            for row in list.iter().filter(|r| r.has_http()) {
                let key = (folder(set, server), snake(&row.name));
                let inference = backfill
                    .get_mut(&key)
                    .and_then(std::collections::VecDeque::pop_front)
                    .ok_or(format!(
                        "backfill report has no row for {} {}",
                        server, row.name
                    ))?;
                out.push(Outcome {
                    row,
                    route: Route::Backfill,
                    inference,
                });
            }
            let file = tools.join(format!("{}.tools.json", folder(set, server)));
            std::fs::write(&file, labelled::tools_json(&list)).map_err(|e| e.to_string())?;
            let f = file.to_string_lossy().into_owned();
            let json = run(
                bin,
                &["audit", &f, "--format", "json", "--min-confidence", "low"],
            )?;
            let v: serde_json::Value =
                serde_json::from_str(&json).map_err(|e| format!("audit JSON: {e}"))?;
            let tools = v["tools"].as_array().ok_or("audit JSON: no `tools`")?;
            if tools.len() != list.len() {
                return Err(format!(
                    "audit of {server}: {} tools of {}",
                    tools.len(),
                    list.len()
                ));
            }
            for (t, row) in tools.iter().zip(&list) {
                let effects = effects_of(
                    t["inferred_effects"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|e| e.as_str().map(str::to_owned)),
                );
                out.push(Outcome {
                    row,
                    route: Route::Audit,
                    inference: Inference {
                        effects,
                        confidence: t["confidence"].as_str().and_then(Confidence::parse),
                        ..Inference::default()
                    },
                });
            }
        }
    }
    // `classify_all` lists each server's backfill rows before its audit rows; so does this.
    Ok(out)
}
