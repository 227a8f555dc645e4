//! `--html FILE`: one self-contained coverage page. No script, no fonts, no images, no
//! links: it must open from a CI artifact or a mail attachment with the network off, so the
//! charts are CSS widths and inline SVG.

use std::fmt::Write as _;

use crate::classify::RuleSet;
use crate::effects::Effect;
use crate::emit::history::HistoryRow;
use crate::emit::{Counts, Summary};
use crate::model::edit::Status;
use crate::outcome::{ActionResult, FileResult, Run};
use crate::view::Declared;

/// Escapes text for element content and quoted attribute values alike.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
:root { --fg: #1f2328; --muted: #59636e; --line: #d8dee4; --card: #f6f8fa; --track: #eceff2; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 28px 32px 56px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 34px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h2 .count { color: var(--muted); font-weight: 400; }
.meta { color: var(--muted); margin: 0 0 2px; }
.sub { color: var(--muted); margin: 0 0 20px; }
.cards { display: grid; grid-template-columns: minmax(0, 2fr) repeat(5, minmax(0, 1fr)); gap: 12px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
.card .n { font-size: 28px; font-weight: 650; font-variant-numeric: tabular-nums; line-height: 1.2; }
.card .l { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .05em; }
.card .d { color: var(--muted); font-size: 12px; margin-top: 2px; }
.card.main .n { font-size: 34px; }
.card.good { border-color: #2e7d32; background: #e8f5e9; }
.card.fair { border-color: #c98a00; background: #fff4d6; }
.card.poor { border-color: #c62828; background: #fdecea; }
.good .n, .num.good { color: #1b5e20; }
.fair .n, .num.fair { color: #8a5a00; }
.poor .n, .num.poor { color: #b71c1c; }
.card.warn .n { color: #b26a00; }
.card.bad .n { color: #c62828; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; color: var(--muted); font-size: 12px; margin: 0 0 10px; }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; vertical-align: -1px; }
.rows { display: grid; grid-template-columns: minmax(110px, max-content) minmax(200px, 1fr) 62px 86px;
  gap: 7px 14px; align-items: center; }
.rows .name { font-weight: 600; overflow-wrap: anywhere; }
.bar { display: flex; height: 16px; background: var(--track); border-radius: 4px; overflow: hidden; }
.bar span { display: block; height: 100%; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); }
.more { color: var(--muted); font-style: italic; white-space: nowrap; }
.mix { grid-template-columns: 90px minmax(200px, 1fr) 62px 86px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--card); font-weight: 600; white-space: nowrap; }
td { overflow-wrap: break-word; }
td.req { overflow-wrap: anywhere; }
td.loc { white-space: nowrap; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12px; }
.pill { display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 12px; font-weight: 600; color: #fff; }
.none { color: var(--muted); font-style: italic; }
svg { display: block; width: 100%; height: auto; }
svg text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; fill: #59636e; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
@media (max-width: 800px) { .cards { grid-template-columns: repeat(3, minmax(0, 1fr)); } }
"#;

/// Which coverage the page leads with, and names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// `backfill`: what the catalog will declare once the patch is applied.
    Projected,
    /// `check`: what the catalog declares now.
    Current,
}

/// What the page says about the run it shows.
#[derive(Debug, Clone)]
pub struct PageInfo {
    pub coverage: Coverage,
    /// UTC, `YYYY-MM-DD`.
    pub date: String,
    /// Short commit id of HEAD; empty outside a git work tree.
    pub commit: String,
    pub version: String,
    /// The catalog paths as given.
    pub catalogs: Vec<String>,
}

/// Coverage from this figure up reads as good, and from [`FAIR`] up as fair; below, poor.
/// An action without effects looks destructive to every client, so even 90% leaves one
/// tool in ten asking for approval it may not need.
pub const GOOD: f64 = 95.0;
pub const FAIR: f64 = 75.0;

/// The class (and colour) a coverage figure earns.
pub fn grade(percent: f64) -> &'static str {
    if percent >= GOOD {
        "good"
    } else if percent >= FAIR {
        "fair"
    } else {
        "poor"
    }
}

/// Rows of a table past this are left to the CSV report; cells are cut as below.
const MAX_ROWS: usize = 200;
const MAX_PATHS: usize = 3;
const MAX_CHARS: usize = 160;

/// A bar segment: which actions, its legend and its colour.
type Segment = (Status, &'static str, &'static str);

/// Projected: what the patch adds is covered, drawn in a lighter green than what the
/// catalog already declares.
const PROJECTED: [Segment; 5] = [
    (Status::Agrees, "declared", "#2e7d32"),
    (Status::Added, "in the patch", "#81c784"),
    (Status::Conflict, "declared, conflicts", "#f0a020"),
    (Status::Unclassified, "unclassified", "#b0b7bf"),
    (Status::Invalid, "invalid", "#d93025"),
];

/// Current: an action a backfill would cover is still missing today, and is not green.
const CURRENT: [Segment; 5] = [
    (Status::Agrees, "declared", "#2e7d32"),
    (Status::Conflict, "declared, conflicts", "#f0a020"),
    (Status::Added, "missing, a proposal is ready", "#f3cf7a"),
    (Status::Unclassified, "missing, unclassified", "#b0b7bf"),
    (Status::Invalid, "invalid", "#d93025"),
];

fn effect_color(e: Effect) -> &'static str {
    match e {
        Effect::Read => "#1f77d0",
        Effect::Search => "#17a2b8",
        Effect::Write => "#f08c00",
        Effect::Delete => "#d93025",
        Effect::Execute => "#8e44ad",
    }
}

fn count_of(c: &Counts, s: Status) -> usize {
    match s {
        Status::Added => c.added,
        Status::Agrees => c.agrees,
        Status::Conflict => c.conflict,
        Status::Unclassified => c.unclassified,
        Status::Invalid => c.invalid,
        Status::Skipped => c.skipped,
    }
}

fn share(n: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * n as f64 / of as f64
    }
}

/// Actions that are tools (nested refresh actions are not).
fn tools(c: &Counts) -> usize {
    c.actions - c.skipped
}

/// The share of tools that declare valid effects now, or once the patch is applied. Both
/// come from the statuses, so a `check` page can show what a backfill would reach and a
/// `backfill` page where the catalog stands today.
pub fn coverage(c: &Counts, which: Coverage) -> f64 {
    let declared = c.agrees + c.conflict;
    let covered = match which {
        Coverage::Current => declared,
        Coverage::Projected => declared + c.added,
    };
    if tools(c) == 0 {
        100.0
    } else {
        share(covered, tools(c))
    }
}

impl Coverage {
    fn other(self) -> Coverage {
        match self {
            Coverage::Projected => Coverage::Current,
            Coverage::Current => Coverage::Projected,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Coverage::Projected => "projected coverage",
            Coverage::Current => "current coverage",
        }
    }

    fn detail(self) -> &'static str {
        match self {
            Coverage::Projected => "once the patch is applied",
            Coverage::Current => "declared in the catalog today",
        }
    }

    fn segments(self) -> &'static [Segment; 5] {
        match self {
            Coverage::Projected => &PROJECTED,
            Coverage::Current => &CURRENT,
        }
    }
}

/// The page. Everything taken from the catalog or the history is escaped.
pub fn render(
    summary: &Summary,
    run: &Run,
    history: &[HistoryRow],
    info: &PageInfo,
    rules: &RuleSet,
) -> String {
    let mut h = String::new();
    let catalogs = info.catalogs.join(", ");
    let title = escape(&format!("Effects coverage: {catalogs}"));
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n<h1>{title}</h1>\n"
    );
    let mut meta = vec![info.date.clone()];
    if !info.commit.is_empty() {
        meta.push(format!("commit {}", info.commit));
    }
    meta.push(format!("catalog-effects {}", info.version));
    meta.push(match info.coverage {
        Coverage::Projected => "backfill: coverage projected for the patch".into(),
        Coverage::Current => "check: coverage as the catalog declares it".into(),
    });
    let _ = writeln!(h, "<p class=\"meta\">{}</p>", escape(&meta.join(" · ")));
    let t = &summary.total;
    let mut sub = format!(
        "{} files, {} connectors, {} actions",
        summary.files,
        summary.connectors.len(),
        t.actions
    );
    if t.skipped > 0 {
        let _ = write!(
            sub,
            ", of which {} are tools ({} nested refresh actions are not)",
            tools(t),
            t.skipped
        );
    }
    if summary.errors > 0 {
        let _ = write!(sub, "; {} errors", summary.errors);
    }
    let _ = writeln!(h, "<p class=\"sub\">{}</p>", escape(&sub));

    cards(&mut h, t, info.coverage, history);
    connectors(&mut h, summary, info.coverage);
    effects_mix(&mut h, run, info.coverage);
    if !history.is_empty() {
        let _ = writeln!(
            h,
            "<h2>Coverage over time <span class=\"count\">({}{})</span></h2>",
            match history.len() {
                1 => "1 run".to_owned(),
                n => format!("{n} runs"),
            },
            escape(&trend(history).map(|t| format!("; {t}")).unwrap_or_default())
        );
        h.push_str(&history_chart(history));
    }
    unclassified(&mut h, run, rules);
    conflicts(&mut h, run);
    errors(&mut h, run);
    let _ = write!(
        h,
        "<footer>Coverage: the share of tools (actions other than nested refresh actions) that \
         declare valid effects {}. Green from {GOOD:.0}%, amber from {FAIR:.0}%, red below. Generated by \
         catalog-effects {} on {}.</footer>\n</main>\n</body>\n</html>\n",
        match info.coverage {
            Coverage::Projected => "once the proposed patch is applied",
            Coverage::Current => "in the catalog as it is",
        },
        escape(&info.version),
        escape(&info.date)
    );
    h
}

/// The change between the last two runs of the history, in words.
fn trend(history: &[HistoryRow]) -> Option<String> {
    let [.., before, last] = history else {
        return None;
    };
    let delta = last.coverage_percent - before.coverage_percent;
    Some(if delta.abs() < 0.05 {
        format!("unchanged since {}", before.date)
    } else {
        let arrow = if delta > 0.0 { "▲" } else { "▼" };
        format!("{arrow} {:.1} points since {}", delta.abs(), before.date)
    })
}

fn cards(h: &mut String, t: &Counts, lead: Coverage, history: &[HistoryRow]) {
    let card = |class: &str, n: String, label: &str, detail: &str| {
        let detail = if detail.is_empty() {
            String::new()
        } else {
            format!("<div class=\"d\">{}</div>", escape(detail))
        };
        format!(
            "<div class=\"card {class}\"><div class=\"n\">{n}</div><div class=\"l\">{label}</div>{detail}</div>\n"
        )
    };
    let flag = |n: usize, class: &'static str| if n > 0 { class } else { "" };
    let main = coverage(t, lead);
    let other = coverage(t, lead.other());
    let mut detail = lead.detail().to_owned();
    if let Some(trend) = trend(history) {
        let _ = write!(detail, "; {trend}");
    }
    // A run that read no tool has no coverage to grade: a 100.0% card said all was well
    // beside a file that could not be parsed.
    let none = tools(t) == 0;
    let shown = |c: f64| {
        if none {
            "-".to_owned()
        } else {
            format!("{c:.1}%")
        }
    };
    let graded = |c: f64| if none { "" } else { grade(c) };
    h.push_str("<section class=\"cards\">\n");
    h.push_str(&card(
        &format!("main {}", graded(main)),
        shown(main),
        lead.name(),
        &detail,
    ));
    h.push_str(&card(
        graded(other),
        shown(other),
        lead.other().name(),
        lead.other().detail(),
    ));
    let added = match lead {
        Coverage::Projected => "in the patch",
        Coverage::Current => "missing, proposal ready",
    };
    h.push_str(&card("", t.added.to_string(), added, ""));
    h.push_str(&card(
        flag(t.unclassified, "warn"),
        t.unclassified.to_string(),
        "unclassified",
        "",
    ));
    h.push_str(&card(
        flag(t.conflict, "warn"),
        t.conflict.to_string(),
        "conflicts",
        "",
    ));
    h.push_str(&card(
        flag(t.invalid, "bad"),
        t.invalid.to_string(),
        "invalid",
        "",
    ));
    h.push_str("</section>\n");
}

fn legend(h: &mut String, items: &[(&str, &str)]) {
    h.push_str("<div class=\"legend\">");
    for (label, color) in items {
        let _ = write!(
            h,
            "<span><i style=\"background:{color}\"></i>{}</span>",
            escape(label)
        );
    }
    h.push_str("</div>\n");
}

fn connectors(h: &mut String, s: &Summary, lead: Coverage) {
    let _ = writeln!(
        h,
        "<h2>{} by connector <span class=\"count\">(lowest first)</span></h2>",
        match lead {
            Coverage::Projected => "Projected coverage",
            Coverage::Current => "Current coverage",
        }
    );
    if s.connectors.is_empty() {
        h.push_str("<p class=\"none\">No connector in this run.</p>\n");
        return;
    }
    let segments = lead.segments();
    let items: Vec<(&str, &str)> = segments.iter().map(|(_, l, c)| (*l, *c)).collect();
    legend(h, &items);
    // Lowest coverage first: the connectors that need work are the ones to see.
    let mut list: Vec<(&String, &Counts, f64)> = s
        .connectors
        .iter()
        .map(|(n, c)| (n, c, coverage(c, lead)))
        .collect();
    list.sort_by(|a, b| a.2.total_cmp(&b.2).then(a.0.cmp(b.0)));
    h.push_str("<div class=\"rows\">\n");
    for (name, c, cov) in list {
        let _ = write!(
            h,
            "<div class=\"name\">{}</div><div class=\"bar\">",
            escape(name)
        );
        for (status, label, color) in segments {
            let n = count_of(c, *status);
            if n > 0 {
                let _ = write!(
                    h,
                    "<span style=\"width:{:.3}%;background:{color}\" title=\"{label}: {n}\"></span>",
                    share(n, tools(c))
                );
            }
        }
        let covered = match lead {
            Coverage::Projected => c.agrees + c.conflict + c.added,
            Coverage::Current => c.agrees + c.conflict,
        };
        let _ = writeln!(
            h,
            "</div><div class=\"num {}\"><b>{cov:.1}%</b></div><div class=\"num muted\">{covered} / {}</div>",
            grade(cov),
            tools(c)
        );
    }
    h.push_str("</div>\n");
}

fn effects_mix(h: &mut String, run: &Run, lead: Coverage) {
    let mut counts = [0usize; 5];
    let mut with = 0usize;
    let mut without = 0usize;
    for (_, a) in run.actions() {
        if a.status == Status::Skipped {
            continue;
        }
        let counted = lead == Coverage::Projected || a.declared_source;
        if a.effects.is_empty() || !counted {
            without += 1;
            continue;
        }
        with += 1;
        for (i, e) in Effect::ALL.iter().enumerate() {
            if a.effects.contains(*e) {
                counts[i] += 1;
            }
        }
    }
    let _ = writeln!(
        h,
        "<h2>Effects mix <span class=\"count\">(of the {with} actions {})</span></h2>",
        match lead {
            Coverage::Projected => "with effects once the patch is applied",
            Coverage::Current => "that declare effects",
        }
    );
    h.push_str("<div class=\"rows mix\">\n");
    for (i, e) in Effect::ALL.iter().enumerate() {
        let n = counts[i];
        // Scaled to the total, as the share beside it: 40% is drawn at 40% of the track.
        let _ = writeln!(
            h,
            "<div class=\"name\">{}</div><div class=\"bar\"><span style=\"width:{:.3}%;background:{}\"></span></div>\
             <div class=\"num\"><b>{n}</b></div><div class=\"num muted\">{:.1}%</div>",
            e.name(),
            share(n, with),
            effect_color(*e),
            share(n, with)
        );
    }
    h.push_str("</div>\n");
    let _ = writeln!(
        h,
        "<p class=\"muted\">An action may have several effects, so the shares add up to more than 100%. {without} actions have none{}.</p>",
        match lead {
            Coverage::Projected => " even after the patch",
            Coverage::Current => " declared",
        }
    );
}

fn location(f: &FileResult, a: &ActionResult) -> String {
    escape(&format!("{}:{}", f.rel, a.line))
}

/// The path of an absolute step URL: the page carries no link or address to anywhere, and
/// the host is the same for every action of a connector anyway.
fn without_origin(url: &str) -> &str {
    match url.split_once("://") {
        Some((scheme, rest)) if !scheme.is_empty() && !scheme.contains(['/', '{', '$']) => {
            rest.find('/').map_or("/", |i| &rest[i..])
        }
        _ => url,
    }
}

/// At most `max` characters of `text`, escaped, and how many were cut.
fn cut_text(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return escape(text);
    }
    let kept: String = text.chars().take(max).collect();
    format!(
        "{}… <span class=\"more\">(+{} characters)</span>",
        escape(&kept),
        n - max
    )
}

/// The first `max` items, escaped and joined, and how many more there are.
fn cut_list(items: &[&str], max: usize, sep: &str) -> String {
    let shown: Vec<String> = items.iter().take(max).map(|i| escape(i)).collect();
    let mut s = shown.join(sep);
    if items.len() > max {
        let _ = write!(
            s,
            "{sep}<span class=\"more\">… +{} more</span>",
            items.len() - max
        );
    }
    s
}

fn table_head(h: &mut String, cols: &[&str]) {
    h.push_str("<table>\n<thead><tr>");
    for c in cols {
        let _ = write!(h, "<th>{c}</th>");
    }
    h.push_str("</tr></thead>\n<tbody>\n");
}

/// Closes a table, saying how many rows were left to the CSV report.
fn table_end(h: &mut String, total: usize) {
    h.push_str("</tbody>\n</table>\n");
    if total > MAX_ROWS {
        let _ = writeln!(
            h,
            "<p class=\"more\">… and {} more rows: the CSV report lists every action.</p>",
            total - MAX_ROWS
        );
    }
}

fn unclassified(h: &mut String, run: &Run, rules: &RuleSet) {
    let rows: Vec<_> = run
        .actions()
        .filter(|(_, a)| a.status == Status::Unclassified)
        .collect();
    let _ = writeln!(
        h,
        "<h2>Unclassified actions <span class=\"count\">({})</span></h2>",
        rows.len()
    );
    if rows.is_empty() {
        h.push_str(
            "<p class=\"none\">None: every action has effects or a confident proposal.</p>\n",
        );
        return;
    }
    table_head(
        h,
        &["Connector", "Action", "Request", "Low proposal", "Why"],
    );
    for (f, a) in rows.iter().take(MAX_ROWS) {
        // Methods are distinct and paths are per step, so they are shown side by side
        // rather than paired.
        let paths: Vec<&str> = a.paths.iter().map(|p| without_origin(p)).collect();
        let request = format!(
            "{} {}",
            escape(&a.methods.join("/")),
            cut_list(&paths, MAX_PATHS, ", ")
        );
        let inf = &a.inference;
        let proposal = if inf.effects.is_empty() {
            "<span class=\"none\">none</span>".to_owned()
        } else {
            escape(&format!(
                "{} ({})",
                inf.effects.joined(", "),
                inf.confidence.map_or("no confidence", |c| c.name())
            ))
        };
        let label = a
            .label
            .as_deref()
            .map(|l| format!("<div>{}</div>", cut_text(l, MAX_CHARS / 2)))
            .unwrap_or_default();
        let why = inf.reason(a.vote.as_deref(), rules);
        let rules = inf.deciding_ids(rules);
        let why = if rules.is_empty() {
            why
        } else {
            format!("{why} ({})", rules.join(", "))
        };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td><span class=\"mono\">{}</span>{label}<div class=\"mono muted\">{}</div></td><td class=\"mono req\">{request}</td><td>{proposal}</td><td>{}</td></tr>",
            escape(&a.connector),
            escape(&a.id),
            location(f, a),
            cut_text(&why, MAX_CHARS)
        );
    }
    table_end(h, rows.len());
}

fn conflicts(h: &mut String, run: &Run) {
    let rows: Vec<_> = run
        .actions()
        .filter(|(_, a)| matches!(a.status, Status::Conflict | Status::Invalid))
        .collect();
    let _ = writeln!(
        h,
        "<h2>Conflicting and invalid declarations <span class=\"count\">({})</span></h2>",
        rows.len()
    );
    if rows.is_empty() {
        h.push_str("<p class=\"none\">None: every declaration is valid and agrees with the heuristics.</p>\n");
        return;
    }
    table_head(
        h,
        &[
            "Connector",
            "Action",
            "Status",
            "Declared",
            "Proposed",
            "Location",
        ],
    );
    for (f, a) in rows.iter().take(MAX_ROWS) {
        let (pill, color) = if a.status == Status::Invalid {
            ("invalid", "#d93025")
        } else {
            ("conflict", "#c77c00")
        };
        let declared = match &a.declared {
            Declared::Valid(e) => e.joined(", "),
            Declared::Invalid(why) => why.clone(),
            Declared::None => String::new(),
        };
        let proposed = if a.inference.effects.is_empty() {
            "none".to_owned()
        } else {
            a.inference.effects.joined(", ")
        };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"mono\">{}</td><td><span class=\"pill\" style=\"background:{color}\">{pill}</span></td>\
             <td>{}</td><td>{}</td><td class=\"mono loc\">{}</td></tr>",
            escape(&a.connector),
            escape(&a.id),
            cut_text(&declared, MAX_CHARS),
            escape(&proposed),
            location(f, a)
        );
    }
    table_end(h, rows.len());
}

fn errors(h: &mut String, run: &Run) {
    let errs = run.all_errors();
    if errs.is_empty() {
        return;
    }
    let _ = writeln!(
        h,
        "<h2>Errors <span class=\"count\">({})</span></h2>\n<ul class=\"mono\">",
        errs.len()
    );
    for e in errs.iter().take(MAX_ROWS) {
        let _ = writeln!(h, "<li>{}</li>", cut_text(&e.to_string(), 2 * MAX_CHARS));
    }
    h.push_str("</ul>\n");
    if errs.len() > MAX_ROWS {
        let _ = writeln!(
            h,
            "<p class=\"more\">… and {} more errors: the run printed every one.</p>",
            errs.len() - MAX_ROWS
        );
    }
}

/// A line chart of coverage, runs evenly spaced in file order (dates may repeat or skip).
fn history_chart(rows: &[HistoryRow]) -> String {
    // The line takes the colour of where coverage stands now, as the card does.
    let ink = match rows.last().map_or("poor", |r| grade(r.coverage_percent)) {
        "good" => "#2e7d32",
        "fair" => "#c98a00",
        _ => "#c62828",
    };
    let (w, ht) = (1000.0_f64, 240.0_f64);
    let (left, right, top, bottom) = (48.0, 56.0, 14.0, 30.0);
    let (pw, ph) = (w - left - right, ht - top - bottom);
    let n = rows.len();
    let x = |i: usize| {
        if n <= 1 {
            left + pw / 2.0
        } else {
            left + pw * i as f64 / (n - 1) as f64
        }
    };
    let y = |v: f64| top + ph * (1.0 - v.clamp(0.0, 100.0) / 100.0);
    let mut s =
        format!("<svg viewBox=\"0 0 {w} {ht}\" role=\"img\" aria-label=\"Coverage over time\">\n");
    for v in [0.0, 25.0, 50.0, 75.0, 100.0] {
        let _ = writeln!(
            s,
            "<line x1=\"{left}\" x2=\"{:.1}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#e3e7eb\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{v}%</text>",
            w - right,
            left - 8.0,
            y(v) + 4.0,
            yy = y(v)
        );
    }
    let points: Vec<String> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| format!("{:.1},{:.1}", x(i), y(r.coverage_percent)))
        .collect();
    if n > 1 {
        let _ = writeln!(
            s,
            "<polygon points=\"{:.1},{:.1} {} {:.1},{:.1}\" fill=\"{ink}\" fill-opacity=\"0.08\"/>",
            x(0),
            y(0.0),
            points.join(" "),
            x(n - 1),
            y(0.0)
        );
        let _ = writeln!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{ink}\" stroke-width=\"2.5\" stroke-linejoin=\"round\"/>",
            points.join(" ")
        );
    }
    // Dots only while they stay apart; a long history reads better as a line.
    if n <= 90 {
        for (i, r) in rows.iter().enumerate() {
            let _ = writeln!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"{ink}\"><title>{} {}: {:.1}%</title></circle>",
                x(i),
                y(r.coverage_percent),
                escape(&r.date),
                escape(&r.commit),
                r.coverage_percent
            );
        }
    }
    if let Some(last) = rows.last() {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" style=\"fill:{ink};font-weight:600\">{:.1}%</text>",
            x(n - 1) + 8.0,
            y(last.coverage_percent) + 4.0,
            last.coverage_percent
        );
    }
    let mut labels = vec![(0, "start")];
    if n > 2 {
        labels.push((n / 2, "middle"));
    }
    if n > 1 {
        labels.push((n - 1, "end"));
    }
    for (i, anchor) in labels {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\">{}</text>",
            x(i),
            ht - 8.0,
            escape(&rows[i].date)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    use std::path::PathBuf;

    use crate::classify::RuleSet;
    use crate::fix::options::Options;
    use crate::run::run;

    fn info(coverage: Coverage, catalog: &str) -> PageInfo {
        PageInfo {
            coverage,
            date: "2026-04-03".into(),
            commit: "abc1234".into(),
            version: "9.9.9".into(),
            catalogs: vec![catalog.into()],
        }
    }

    fn page(catalog: &std::path::Path, history: &[HistoryRow], title: &str) -> (Summary, String) {
        let opts = Options::new(RuleSet::builtin().expect("built-in rules"));
        let r = run(&[catalog.to_path_buf()], &opts);
        let s = Summary::from_run(&r);
        let html = render(
            &s,
            &r,
            history,
            &info(Coverage::Projected, title),
            &opts.rules,
        );
        (s, html)
    }

    fn demo() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("catalogs/demo")
    }

    fn rows() -> Vec<HistoryRow> {
        ["2026-04-01", "2026-04-02", "2026-04-03"]
            .iter()
            .zip([41.5, 63.0, 88.2])
            .map(|(d, c)| HistoryRow {
                date: (*d).into(),
                commit: "abc1234".into(),
                actions: 10,
                with_effects: 5,
                added: 1,
                agrees: 4,
                conflict: 0,
                unclassified: 5,
                invalid: 0,
                coverage_percent: c,
            })
            .collect()
    }

    #[test]
    fn demo_page_names_every_connector_and_loads_nothing() {
        let (s, html) = page(&demo(), &rows(), "Demo & co");
        assert!(!s.connectors.is_empty());
        for name in s.connectors.keys() {
            assert!(
                html.contains(&format!("<div class=\"name\">{}</div>", escape(name))),
                "{name} missing"
            );
        }
        let lower = html.to_ascii_lowercase();
        for needle in [
            "http://", "https://", "//cdn", "<script", "<link", "<img", "@import", "url(", "src=",
            "href=",
        ] {
            assert!(!lower.contains(needle), "found {needle}");
        }
        assert!(html.contains("<title>Effects coverage: Demo &amp; co</title>"));
        assert!(html.contains("2026-04-03 · commit abc1234 · catalog-effects 9.9.9"));
        assert!(html.contains("<svg") && html.contains("Coverage over time"));
        assert!(html.trim_end().ends_with("</html>"));
    }

    #[test]
    fn render_is_deterministic_and_history_is_optional() {
        let (_, a) = page(&demo(), &[], "t");
        let (_, b) = page(&demo(), &[], "t");
        assert_eq!(a, b);
        assert!(!a.contains("Coverage over time"));
    }

    #[test]
    fn catalog_text_is_escaped() {
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = dir.path().join("evil");
        std::fs::create_dir_all(&folder).expect("folder");
        std::fs::write(
            folder.join("evil.connector.s1.yaml"),
            r#"StackOne: 1.0.0
info:
  title: Evil
  key: "<b>evil</b>&co"
  version: 1.0.0
baseUrl: https://api.evil.example
actions:
  - actionId: "<script>alert(1)</script>"
    label: "Frobnicate \"it\" <now>"
    description: Does something.
    effects: [raed]
    steps:
      - stepId: s
        stepFunction:
          functionName: request
          parameters:
            url: "https://api.evil.example/x?<y>"
            method: post
  - actionId: bad_one
    label: Bad
    description: Lists things.
    effects: reed
    steps:
      - stepId: s
        stepFunction:
          functionName: request
          parameters:
            url: /things
            method: get
"#,
        )
        .expect("write catalog");
        let (s, html) = page(dir.path(), &[], "<t>");
        assert!(s.connectors.contains_key("<b>evil</b>&co"), "{s:?}");
        assert!(!html.contains("<script>") && !html.contains("<b>evil"));
        assert!(html.contains("&lt;b&gt;evil&lt;/b&gt;&amp;co"));
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(html.contains("<title>Effects coverage: &lt;t&gt;</title>"));
        assert!(!html.contains("https://"));
        assert!(html.contains("evil/evil.connector.s1.yaml:"));
    }

    /// One multi-step action with 30 URLs is not a wall of text, and neither is a long
    /// label; the cut says how much was left out. (No methods and an opaque name: nothing
    /// for the rules to go on, so it stays unclassified.)
    #[test]
    fn long_cells_are_cut_with_a_count() {
        let dir = tempfile::tempdir().expect("temp dir");
        let steps: String = (0..30)
            .map(|i| {
                format!(
                    "      - stepId: s{i}\n        stepFunction:\n          functionName: request\n          parameters:\n            url: /v1/x{i}\n"
                )
            })
            .collect();
        let label = "L".repeat(100);
        std::fs::create_dir_all(dir.path().join("w")).expect("folder");
        std::fs::write(
            dir.path().join("w/w.connector.s1.yaml"),
            format!(
                "StackOne: 1.0.0\ninfo:\n  title: W\n  key: w\n  version: 1.0.0\nactions:\n  - actionId: widget_bridge\n    label: {label}\n    description: Widget bridge.\n    steps:\n{steps}"
            ),
        )
        .expect("write catalog");
        let (s, html) = page(dir.path(), &[], "w");
        assert_eq!(s.total.unclassified, 1, "{s:?}");
        assert!(
            html.contains("/v1/x0, /v1/x1, /v1/x2, <span class=\"more\">… +27 more</span>"),
            "{html}"
        );
        assert!(!html.contains("/v1/x3"), "{html}");
        assert!(
            html.contains("… <span class=\"more\">(+20 characters)</span>"),
            "{html}"
        );
    }

    #[test]
    fn grades_and_names_of_coverage() {
        assert_eq!(
            (grade(100.0), grade(95.0), grade(94.9)),
            ("good", "good", "fair")
        );
        assert_eq!(
            (grade(75.0), grade(74.9), grade(0.0)),
            ("fair", "poor", "poor")
        );
        let opts = Options::new(RuleSet::builtin().expect("built-in rules"));
        let r = run(&[demo()], &opts);
        let mut s = Summary::from_run(&r);
        s.as_declared();
        let html = render(&s, &r, &[], &info(Coverage::Current, "demo"), &opts.rules);
        let now = coverage(&s.total, Coverage::Current);
        assert!(now < FAIR, "the demo declares almost nothing: {now}");
        assert!(html.contains(&format!(
            "<div class=\"card main poor\"><div class=\"n\">{now:.1}%</div><div class=\"l\">current coverage</div>"
        )), "{html}");
        // The other figure is there too, named as the projection it is.
        let after = coverage(&s.total, Coverage::Projected);
        assert!(html.contains(&format!(
            "<div class=\"n\">{after:.1}%</div><div class=\"l\">projected coverage</div>"
        )));
        assert!(html.contains("missing, a proposal is ready"));
        assert!(!html.contains("in the patch"));
    }

    #[test]
    fn origin_is_dropped_from_urls_only() {
        assert_eq!(without_origin("https://a.example/v1/x"), "/v1/x");
        assert_eq!(without_origin("http://a.example"), "/");
        assert_eq!(without_origin("/v1/x"), "/v1/x");
        assert_eq!(without_origin("{{baseUrl}}/x"), "{{baseUrl}}/x");
    }

    #[test]
    fn chart_handles_one_and_many_rows() {
        let row = |d: &str, c: f64| HistoryRow {
            date: d.into(),
            commit: "<c>".into(),
            actions: 1,
            with_effects: 1,
            added: 0,
            agrees: 1,
            conflict: 0,
            unclassified: 0,
            invalid: 0,
            coverage_percent: c,
        };
        let one = history_chart(&[row("2026-01-01", 50.0)]);
        assert!(one.contains("<circle") && !one.contains("<polyline"));
        let many = history_chart(&[
            row("2026-01-01", 10.0),
            row("2026-01-02", 60.0),
            row("2026-01-03", 140.0),
        ]);
        assert!(many.contains("<polyline"));
        assert!(many.contains("&lt;c&gt;") && !many.contains("<c>"));
        assert!(many.contains("2026-01-03"));
    }
}
