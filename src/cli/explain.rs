//! `explain` and `explain-code`: answer "why did it say write?" and "what does this code
//! mean?".

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use catalog_effects::classify::{Signals, strength};
use catalog_effects::diff;
use catalog_effects::error::{Error, Result, did_you_mean};
use catalog_effects::findings;
use catalog_effects::lint::LintRules;
use catalog_effects::pipeline::{self, ActionResult, FileResult};
use catalog_effects::view::{ActionView, Declared};

use super::config::Config;
use super::{EXIT_ERROR, EXIT_OK, EngineArgs, out};

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  catalog-effects explain catalogs/demo crmly_update_contact\n  catalog-effects explain catalogs/demo update_contact --min-confidence high",
    mut_arg("min_confidence", |a| a.help(
        "The confidence a proposal needs to be patched: it decides the status shown (added, conflict or unclassified) [default: medium]"
    )),
    mut_arg("destructive_policy", |a| a.help("Which effects make destructiveHint true in the hints shown [default: delete]"))
)]
pub struct ExplainArgs {
    /// The catalog directory.
    pub catalog: PathBuf,
    /// An actionId, or a tool name `<connector>_<actionId>`.
    pub action: String,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  catalog-effects explain-code missing-effects   # a `check` code\n  catalog-effects explain-code vague-verb        # a `lint` code\n\nAn unknown code is an error (exit 2) that lists the known ones."
)]
pub struct ExplainCodeArgs {
    /// A finding code, e.g. `missing-effects` or `vague-verb`.
    pub code: String,
}

pub fn run(mut args: ExplainArgs, config: &Config) -> Result<u8> {
    args.engine.apply(config);
    let mut opts = args.engine.options()?;
    opts.keep_views = true;
    let run = match super::walk_or_refuse(std::slice::from_ref(&args.catalog), &opts) {
        Ok(w) => w.collect(&opts),
        Err(code) => return Ok(code),
    };
    let errors = super::report_errors(&run, args.engine.quiet);
    let matches: Vec<(&FileResult, &ActionResult)> = run
        .actions()
        .filter(|(_, a)| a.id == args.action || a.tool_name() == args.action)
        .collect();
    if matches.is_empty() {
        let names: Vec<String> = run
            .actions()
            .flat_map(|(_, a)| [a.tool_name(), a.id.clone()])
            .collect();
        let msg = format!(
            "no action `{}` in {}{}",
            args.action,
            args.catalog.display(),
            did_you_mean(&args.action, names.iter().map(String::as_str))
        );
        return Err(Error::new(if errors > 0 {
            format!("{msg} (some files could not be read)")
        } else {
            msg
        }));
    }
    let mut text = String::new();
    for (f, a) in matches {
        text.push_str(&explain_one(f, a, &opts));
        text.push('\n');
    }
    out::print(&text);
    // A file it could not read may hold another action of that name, or the main file that
    // names its connector.
    Ok(if errors > 0 { EXIT_ERROR } else { EXIT_OK })
}

fn explain_one(f: &FileResult, a: &ActionResult, opts: &pipeline::Options) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{} ({}:{})", a.tool_name(), f.shown, a.line);
    if let Some(v) = &a.view {
        view_section(&mut s, v);
        let _ = writeln!(s, "\nsignals:");
        for line in Signals::of(v).describe() {
            let _ = writeln!(s, "  {line}");
        }
    }
    let _ = writeln!(s, "\nrules that fired:");
    if a.inference.fired.is_empty() {
        let _ = writeln!(s, "  (none)");
    }
    for fired in &a.inference.fired {
        let r = &opts.rules.rules[fired.rule];
        let mark = if a.inference.deciding.contains(fired) {
            "*"
        } else {
            " "
        };
        let weight = if fired.weight < r.weight as u8 {
            format!(
                "{} (lowered: the verb is also a noun)",
                strength(fired.weight)
            )
        } else {
            strength(fired.weight).to_owned()
        };
        let _ = writeln!(s, "  {mark} {} -> {} [{weight}]: {}", r.id, r.effect, r.why);
    }
    let inf = &a.inference;
    let _ = writeln!(s, "\ndecision: {}", inf.reason);
    let _ = writeln!(
        s,
        "inferred: [{}], confidence {}{}",
        inf.effects.joined(", "),
        inf.confidence.map_or("none", |c| c.name()),
        if inf.overwrites {
            ", overwrites existing data"
        } else {
            ""
        }
    );
    let declared = match &a.declared {
        Declared::None => "none".to_owned(),
        Declared::Valid(e) => format!("[{}]", e.joined(", ")),
        Declared::Invalid(why) => format!("invalid: {why}"),
    };
    let _ = writeln!(s, "declared: {declared}");
    let _ = writeln!(
        s,
        "status: {} (--min-confidence {})",
        a.status.name(),
        opts.min_confidence.name()
    );
    let h = &a.hints;
    let b = |v: Option<bool>| v.map_or("unset".to_owned(), |v| v.to_string());
    let _ = writeln!(
        s,
        "hints: readOnlyHint {}, destructiveHint {}, idempotentHint {}, openWorldHint {}, title {:?}",
        b(h.read_only),
        b(h.destructive),
        b(h.idempotent),
        b(h.open_world),
        h.title.as_deref().unwrap_or("")
    );
    let _ = writeln!(s, "\npatch for this action:");
    match (&a.edit, pipeline::read_text(&f.abs)) {
        (Some(edit), Ok(text)) => {
            let mut patch = String::new();
            diff::render_patch(&f.patch_path, &text, std::slice::from_ref(edit), &mut patch);
            s.push_str(&patch);
        }
        (Some(_), Err(e)) => {
            let _ = writeln!(s, "  (cannot re-read the file: {e})");
        }
        (None, _) => {
            let _ = writeln!(s, "  (no change)");
        }
    }
    s
}

fn view_section(s: &mut String, v: &ActionView) {
    let _ = writeln!(s, "  label: {}", v.label.as_deref().unwrap_or("-"));
    if let Some(d) = &v.description {
        let first = catalog_effects::classify::signals::first_sentence(d);
        let _ = writeln!(s, "  description: {first}");
    }
    if let Some(t) = &v.action_type {
        let _ = writeln!(s, "  actionType: {t}");
    }
    for (i, st) in v.steps.iter().enumerate() {
        let mut parts = Vec::new();
        if let Some(f) = &st.function {
            parts.push(f.clone());
        }
        if let Some(m) = &st.method {
            parts.push(m.to_ascii_uppercase());
        }
        if let Some(u) = &st.url {
            parts.push(u.clone());
        }
        if let Some(o) = &st.soap_operation {
            parts.push(format!("soapOperation {o}"));
        }
        let _ = writeln!(s, "  step {}: {}", i + 1, parts.join(" "));
    }
    if !v.inputs.is_empty() {
        let names: Vec<&str> = v.inputs.iter().map(|i| i.name.as_str()).collect();
        let _ = writeln!(s, "  inputs: {}", names.join(", "));
    }
}

pub fn run_code(args: ExplainCodeArgs) -> Result<u8> {
    if let Some(text) = findings::explain_check_code(&args.code) {
        out::print(&format!("{}: {text}\n", args.code));
        return Ok(EXIT_OK);
    }
    let lint = LintRules::builtin()?;
    if let Some(rule) = lint.explain(&args.code) {
        out::print(&format!(
            "{} ({}): {}\nsuggestion: {}\n",
            rule.code, rule.severity, rule.why, rule.suggestion
        ));
        return Ok(EXIT_OK);
    }
    let mut codes: Vec<&str> = findings::CHECK_CODES.iter().map(|c| c.0).collect();
    codes.extend(lint.codes());
    out::error(&format!(
        "unknown code `{}`{}; known codes: {}",
        args.code,
        did_you_mean(&args.code, codes.iter().copied()),
        codes.join(", ")
    ));
    Ok(EXIT_ERROR)
}
