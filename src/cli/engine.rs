//! The options every catalog command shares (`EngineArgs`, read into the pipeline's
//! options) and the catalogs a command walks, refused before anything runs when one cannot
//! be read.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use catalog_effects::classify::{Confidence, RuleSet};
use catalog_effects::effects::DestructivePolicy;
use catalog_effects::error::{Error, Result};
use catalog_effects::fix::options::{Options, Progress};
use catalog_effects::run::Walked;

use super::args;
use super::config::{ConfidenceArg, Config, HintsArg, PolicyArg};
use super::out::{self, EXIT_ERROR};

/// The formats asked for, without repeats, in the order given.
pub fn hint_formats(asked: &[HintsArg]) -> Vec<catalog_effects::model::openapi::HintFormat> {
    use catalog_effects::model::openapi::HintFormat;
    let mut out = Vec::new();
    for a in asked {
        let f = match a {
            HintsArg::Speakeasy => HintFormat::Speakeasy,
            HintsArg::Zuplo => HintFormat::Zuplo,
            HintsArg::Zilla => HintFormat::Zilla,
            HintsArg::Mcp => HintFormat::Mcp,
        };
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// Options every catalog command shares.
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Directory of extra rule files (`*.yaml`); a rule with a built-in id replaces it.
    #[arg(long, value_name = "DIR")]
    pub heuristics: Option<PathBuf>,
    /// The confidence a proposal needs to count [default: medium].
    #[arg(long, value_enum)]
    pub min_confidence: Option<ConfidenceArg>,
    /// Which effects make destructiveHint true [default: delete].
    #[arg(long, value_enum)]
    pub destructive_policy: Option<PolicyArg>,
    /// Worker threads (default, and at most: one per core). Output is identical for any
    /// value.
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Print only the totals line and errors.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Judge each catalog action that declares no effects also by what the rest of the
    /// catalog declares for the same verb, where that is more than the engine would have
    /// proposed itself (the default; overrides `catalog-evidence = false`).
    #[arg(long)]
    pub catalog_evidence: bool,
    /// Judge each catalog action from its own evidence only.
    #[arg(long, conflicts_with = "catalog_evidence")]
    pub no_catalog_evidence: bool,
    /// Leave out this path below the catalogs (repeatable; relative to the current folder):
    /// a file or folder, or a glob (`*` and `?` within a name, `**` any folders). Added to
    /// `exclude` of catalog-effects.toml, whose paths are relative to its folder.
    #[arg(long, value_name = "PATH")]
    pub exclude: Vec<PathBuf>,
    /// The configuration's `exclude`, resolved against its folder.
    #[arg(skip)]
    pub config_exclude: Vec<PathBuf>,
}

impl EngineArgs {
    /// Fills what the command line left out from the configuration file.
    pub fn apply(&mut self, c: &Config) {
        if self.heuristics.is_none() {
            self.heuristics.clone_from(&c.heuristics);
        }
        self.min_confidence = self.min_confidence.or(c.min_confidence);
        self.destructive_policy = self.destructive_policy.or(c.destructive_policy);
        // On unless the command line or the configuration turns it off; the command line
        // wins.
        self.no_catalog_evidence |= c.catalog_evidence == Some(false) && !self.catalog_evidence;
        // Added to, not overridden: what the repository leaves out stays out, and a catalog
        // named inside it is read anyway.
        self.config_exclude = c.exclude.clone().unwrap_or_default();
    }

    /// What the walk leaves out: the configuration's `exclude` (already relative to the
    /// current folder), then `--exclude`.
    pub fn exclusions(&self) -> catalog_effects::run::walk::Exclude {
        let here = PathBuf::new();
        catalog_effects::run::walk::Exclude::new(
            self.config_exclude
                .iter()
                .chain(&self.exclude)
                .map(|p| (here.as_path(), p.as_path())),
        )
    }

    pub fn rules(&self) -> Result<RuleSet> {
        match &self.heuristics {
            Some(dir) => {
                args::heuristics_dir(dir)?;
                RuleSet::with_user_dir(dir)
            }
            None => RuleSet::builtin(),
        }
    }

    pub fn confidence(&self) -> Confidence {
        match self.min_confidence.unwrap_or(ConfidenceArg::Medium) {
            ConfidenceArg::High => Confidence::High,
            ConfidenceArg::Medium => Confidence::Medium,
            ConfidenceArg::Low => Confidence::Low,
        }
    }

    pub fn policy(&self) -> DestructivePolicy {
        match self.destructive_policy.unwrap_or(PolicyArg::Delete) {
            PolicyArg::Delete => DestructivePolicy::Delete,
            PolicyArg::Overwrite => DestructivePolicy::Overwrite,
        }
    }

    /// Sets up the thread pool and builds the pipeline options, with a progress bar on
    /// stderr only when it is a terminal.
    pub fn options(&self) -> Result<Options> {
        if let Some(n) = args::jobs(self.jobs)? {
            // Only the first build takes effect; a second call in one process is harmless.
            let _ = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build_global();
        }
        let mut opts = Options::new(self.rules()?);
        opts.min_confidence = self.confidence();
        opts.policy = self.policy();
        opts.catalog_evidence = !self.no_catalog_evidence;
        if !self.quiet && out::stderr_is_terminal() {
            let bar = ProgressBar::hidden();
            bar.set_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            let (start_bar, tick_bar) = (bar.clone(), bar);
            opts.progress = Some(Progress {
                start: Arc::new(move |n| {
                    start_bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                    start_bar.set_length(n as u64);
                }),
                tick: Arc::new(move || {
                    tick_bar.inc(1);
                    if tick_bar.position() == tick_bar.length().unwrap_or(0) {
                        tick_bar.finish_and_clear();
                    }
                }),
            });
        }
        Ok(opts)
    }
}

/// The catalogs to run on: those given, else the configuration's, else the current folder;
/// each walked once.
pub fn catalogs(given: &[PathBuf], config: &Config) -> Vec<PathBuf> {
    match (given, &config.catalogs) {
        ([], Some(c)) if !c.is_empty() => args::catalogs(c),
        _ => args::catalogs(given),
    }
}

/// Walks the catalogs for `command`, leaving out what `engine` excludes, or refuses to run
/// (each reason printed, exit 2) when one does not exist, is not a folder or holds nothing
/// to read: a check of nothing must not pass, and nothing is written yet, so every previous
/// output stays as it was.
pub fn walk_or_refuse(
    command: &str,
    catalogs: &[PathBuf],
    engine: &EngineArgs,
) -> std::result::Result<Walked, u8> {
    let refused: Vec<Error> = catalogs
        .iter()
        .filter_map(|c| catalog_effects::git::refused(c))
        .collect();
    if !refused.is_empty() {
        for e in &refused {
            out::error(&e.to_string());
        }
        return Err(EXIT_ERROR);
    }
    let walked = Walked::excluding(catalogs, &engine.exclusions());
    let unusable = walked.unusable(command);
    if unusable.is_empty() {
        return Ok(walked);
    }
    for e in &unusable {
        out::error(&e.to_string());
    }
    Err(EXIT_ERROR)
}
