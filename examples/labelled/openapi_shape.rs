//! The labelled rows as OpenAPI documents, the second shape `backfill` reads: one document
//! per server, one operation per row (`operationId` the connector's action id, the title as
//! `summary`, the description, the inputs as parameters). The same rows as connectors and as
//! documents must be judged alike, or one source reads the evidence differently from the
//! other; `examples/eval.rs` scores both through the binary, `tests/eval_shapes.rs` through
//! the library.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use catalog_effects::classify::{Confidence, Group, Inference, RuleSet, infer_in};
use catalog_effects::effects::{Effect, Effects};

use super::{Outcome, Route, Row, Set, by_server, q, slug, snake};

/// The sets the shapes are compared on: those whose rows are all HTTP operations.
pub const SETS: [Set; 2] = [Set::Openapi, Set::Graph];

/// The rows (those with a method and path) as an OpenAPI 3.0 document titled `title`. An
/// input named in the path template goes `in: path`, any other `in: query`: where a
/// parameter goes is not evidence either shape reads, and a name must stay an input.
pub fn document_yaml(title: &str, rows: &[&Row]) -> String {
    let mut paths: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows.iter().copied().filter(|r| r.has_http()) {
        paths.entry(r.path.as_str()).or_default().push(r);
    }
    let mut y = format!(
        "openapi: 3.0.3\ninfo:\n  title: {}\n  version: \"1\"\npaths:\n",
        q(title)
    );
    for (path, ops) in paths {
        let _ = writeln!(y, "  {}:", q(path));
        for r in ops {
            let _ = writeln!(y, "    {}:", r.method);
            let _ = writeln!(y, "      operationId: {}", q(&snake(&r.name)));
            if !r.title.is_empty() {
                let _ = writeln!(y, "      summary: {}", q(&r.title));
            }
            if !r.description.is_empty() {
                let _ = writeln!(y, "      description: {}", q(&r.description));
            }
            if !r.inputs.is_empty() {
                y.push_str("      parameters:\n");
                for i in &r.inputs {
                    let place = if r.path.contains(&format!("{{{i}}}")) {
                        "path\n          required: true"
                    } else {
                        "query"
                    };
                    let _ = writeln!(y, "        - name: {}\n          in: {place}", q(i));
                }
            }
            let _ = writeln!(
                y,
                "      responses:\n        \"200\":\n          description: OK"
            );
        }
    }
    y
}

/// One server's rows as a document, classified as `backfill` classifies a document's
/// operations (its ids as the group), each matched back to its row by path and method.
pub fn classify_server<'a>(
    server: &str,
    list: &[&'a Row],
    set: &RuleSet,
) -> Result<Vec<Outcome<'a>>, String> {
    let http: Vec<&Row> = list.iter().copied().filter(|r| r.has_http()).collect();
    if http.is_empty() {
        return Ok(Vec::new());
    }
    let text = document_yaml(server, &http);
    let tree = catalog_effects::yaml::parse_tree(&text).map_err(|e| format!("{server}: {e}"))?;
    let doc = catalog_effects::source::openapi::read::read(&tree)
        .map_err(|e| format!("{server}: {e}"))?;
    if let Some(p) = doc.problems.first() {
        return Err(format!("{server}: {p}"));
    }
    // As the OpenAPI source reads a document: its ids with their calls' methods.
    let group = Group::learn_calls(
        doc.operations.iter().map(|o| {
            (
                o.view.id.as_str(),
                o.view.steps.last().and_then(|s| s.method.as_deref()),
            )
        }),
        &set.lexicon,
    );
    let mut by_op: BTreeMap<(&str, &str), Inference> = doc
        .operations
        .iter()
        .map(|o| {
            (
                (o.path.as_str(), o.method.as_str()),
                infer_in(&o.view, &group, set),
            )
        })
        .collect();
    http.iter()
        .map(|row| {
            let inference = by_op
                .remove(&(row.path.as_str(), row.method.as_str()))
                .ok_or(format!(
                    "{server}: no operation {} {}",
                    row.method, row.path
                ))?;
            Ok(Outcome {
                row,
                route: Route::Backfill,
                inference,
            })
        })
        .collect()
}

/// Every server of `sets` as a document, through the library, in [`by_server`] order.
pub fn classify_all<'a>(
    rows: &'a [Row],
    sets: &[Set],
    rules: &RuleSet,
) -> Result<Vec<Outcome<'a>>, String> {
    let mut out = Vec::new();
    for &s in sets {
        for (server, list) in by_server(rows, s) {
            out.extend(classify_server(server, &list, rules)?);
        }
    }
    Ok(out)
}

/// The connector shape's backfill outcomes of `sets`, in the order of [`classify_all`]
/// (from `classify_all` or `by_binary` of the parent module, whose order both keep).
pub fn connector_rows<'a, 'o>(outcomes: &'o [Outcome<'a>], sets: &[Set]) -> Vec<&'o Outcome<'a>> {
    outcomes
        .iter()
        .filter(|o| o.route == Route::Backfill && sets.contains(&o.row.set))
        .collect()
}

/// The rows where the two shapes' outcomes differ in effects or confidence, as
/// (connector, document) pairs; both lists in [`classify_all`] order.
pub fn differences<'o, 'a>(
    connector: &[&'o Outcome<'a>],
    document: &'o [Outcome<'a>],
) -> Vec<(&'o Outcome<'a>, &'o Outcome<'a>)> {
    connector
        .iter()
        .copied()
        .zip(document)
        .filter(|(c, d)| {
            c.inference.effects != d.inference.effects
                || c.inference.confidence != d.inference.confidence
        })
        .collect()
}

/// The folder a server's document is written to.
pub fn folder(set: Set, server: &str) -> String {
    format!("{}-{}", slug(set.name()), slug(server))
}

/// Every server of `sets` as a document under `dir` (one folder each, as the connectors are),
/// `backfill` run once over `dir` by `run` with `--report`, and the CSV read back by folder,
/// method and path: in [`classify_all`] order.
pub fn by_binary<'a>(
    rows: &'a [Row],
    sets: &[Set],
    dir: &Path,
    run: &dyn Fn(&[&str]) -> Result<String, String>,
) -> Result<Vec<Outcome<'a>>, String> {
    let docs = dir.join("openapi");
    for &set in sets {
        for (server, list) in by_server(rows, set) {
            let d = docs.join(folder(set, server));
            std::fs::create_dir_all(&d).map_err(|e| e.to_string())?;
            std::fs::write(d.join("openapi.yaml"), document_yaml(server, &list))
                .map_err(|e| e.to_string())?;
        }
    }
    let (mut csv, columns) = super::backfill_report(run, &docs, dir, "openapi-backfill")?;
    let col = |n: &str| columns.get(n);
    let (file_c, method_c, path_c, eff_c, conf_c) = (
        col("file")?,
        col("methods")?,
        col("paths")?,
        col("inferred_effects")?,
        col("confidence")?,
    );
    // Keyed by method and path, not id: graph-dev repeats names within a server.
    let mut read: BTreeMap<(String, String, String), Inference> = BTreeMap::new();
    for rec in csv.records() {
        let rec = rec.map_err(|e| e.to_string())?;
        let folder = super::folder_of(&rec[file_c]);
        let effects: Effects = rec[eff_c].split('|').filter_map(Effect::parse).collect();
        read.insert(
            (
                folder,
                rec[method_c].to_ascii_lowercase(),
                rec[path_c].to_owned(),
            ),
            Inference {
                effects,
                confidence: Confidence::parse(&rec[conf_c]),
                ..Inference::default()
            },
        );
    }
    let mut out = Vec::new();
    for &set in sets {
        for (server, list) in by_server(rows, set) {
            for row in list.iter().filter(|r| r.has_http()) {
                let key = (folder(set, server), row.method.clone(), row.path.clone());
                let inference = read.remove(&key).ok_or(format!(
                    "backfill report has no row for {server} {} {}",
                    row.method, row.path
                ))?;
                out.push(Outcome {
                    row,
                    route: Route::Backfill,
                    inference,
                });
            }
        }
    }
    Ok(out)
}

/// [`classify_all`] with each provider's rows classified with the counts measured without
/// it, as [`super::cross_validated`] does for connectors; `lib` are the parent's
/// `classify_all` outcomes (both routes), which the counts are measured from.
pub fn cross_validated<'a>(
    rows: &'a [Row],
    lib: &[Outcome<'a>],
    sets: &[Set],
    rules: &RuleSet,
) -> Result<Vec<Outcome<'a>>, String> {
    let mut tally = catalog_effects::classify::confidence::Tally::default();
    for o in lib {
        super::add(&mut tally, o);
    }
    let counts = tally.by_provider();
    let mut held_out = rules.clone();
    let mut out = Vec::new();
    for &s in sets {
        for (server, list) in by_server(rows, s) {
            held_out.measured = counts.without(Some(&list[0].provider()));
            out.extend(classify_server(server, &list, &held_out)?);
        }
    }
    Ok(out)
}

/// The two shapes' figures side by side, per set and confidence level, and the rows where
/// they differ (at most `show` of them named).
pub fn side_by_side(connector: &[&Outcome<'_>], document: &[Outcome<'_>], show: usize) -> String {
    let owned: Vec<Outcome<'_>> = connector.iter().map(|o| (*o).clone()).collect();
    let (c, d) = (super::Report::of(&owned), super::Report::of(document));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "  {:20} {:26} {:>20} {:>20} {:>20}",
        "set", "level", "coverage", "unsafe", "friction"
    );
    for set in SETS {
        for (level, name) in super::LEVELS {
            let key = (set, Route::Backfill, level);
            let (Some(fc), Some(fd)) = (c.engine.get(&key), d.engine.get(&key)) else {
                continue;
            };
            let pair = |a: f64, b: f64| format!("{:.2}% | {:.2}%", 100.0 * a, 100.0 * b);
            let _ = writeln!(
                s,
                "  {:20} {:26} {:>20} {:>20} {:>20}",
                set.name(),
                name,
                pair(fc.coverage(), fd.coverage()),
                pair(fc.unsafe_rate(), fd.unsafe_rate()),
                pair(fc.friction_rate(), fd.friction_rate()),
            );
        }
    }
    let diff = differences(connector, document);
    let _ = writeln!(
        s,
        "  rows judged differently (effects or confidence): {} of {}",
        diff.len(),
        document.len()
    );
    for (c, d) in diff.iter().take(show) {
        let _ = writeln!(
            s,
            "    {} {} {} {} {}: connector [{}] {}, document [{}] {}",
            c.row.set.name(),
            c.row.server,
            c.row.name,
            c.row.method,
            c.row.path,
            c.inference.effects.joined("|"),
            c.inference.confidence.map_or("-", Confidence::name),
            d.inference.effects.joined("|"),
            d.inference.confidence.map_or("-", Confidence::name),
        );
    }
    s
}
