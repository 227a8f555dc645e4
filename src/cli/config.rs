//! `catalog-effects.toml`: the options a repository passes on every run, written once at its
//! root, so the nightly job, the pull-request check and the pre-commit hook agree.

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use serde::Deserialize;

use catalog_effects::error::{Error, Result};
use catalog_effects::model::finding::Level;

pub const FILE_NAME: &str = "catalog-effects.toml";

/// What `--help` says about the file; docs/reference.md's "Configuration" section says the same.
pub const HELP: &str = "Configuration: catalog-effects.toml, found from the current folder upward \
(or --config FILE). Keys (flags override them; paths are relative to the file's folder):
  catalogs = [\"connectors\"]        catalog folders (every catalog command)
  heuristics = \"heuristics\"        extra rule files (--heuristics)
  min-confidence = \"medium\"        high | medium | low (--min-confidence)
  destructive-policy = \"delete\"    delete | overwrite (--destructive-policy)
  report = \"reports/coverage.csv\"  the CSV report of backfill and check (--report)
  baseline = \"reports/effects-baseline.csv\"   what check compares with (--baseline)
  fail-on = \"new\"                  what fails check: error | warning | new | never (--fail-on)
  hints = [\"speakeasy\"]            OpenAPI documents: also write the hints for speakeasy | zuplo | zilla | mcp (--hints)
  catalog-evidence = false         judge actions by their own evidence only, not also by what the catalog declares (--no-catalog-evidence)
  exclude = [\"tests/fixtures\", \"**/drafts\"]   paths or globs left out below the catalogs (--exclude adds to them)
  annotations-key = \"github\"      annotations: the connector key of an OpenAPI document without info.x-effects-key (--key)
Any other key is an error.";

/// The keys of `catalog-effects.toml`, every one optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    pub catalogs: Option<Vec<PathBuf>>,
    pub heuristics: Option<PathBuf>,
    pub min_confidence: Option<ConfidenceArg>,
    pub destructive_policy: Option<PolicyArg>,
    pub report: Option<PathBuf>,
    pub baseline: Option<PathBuf>,
    pub fail_on: Option<FailOn>,
    pub hints: Option<Vec<HintsArg>>,
    pub catalog_evidence: Option<bool>,
    /// Paths or globs the walk leaves out below the catalogs.
    pub exclude: Option<Vec<PathBuf>>,
    /// `annotations`: the connector key an OpenAPI document's tools are named with, where
    /// the document writes none.
    pub annotations_key: Option<String>,
    /// The file these keys came from, if any: a path it gives may not leave its repository
    /// (`report = "../home/.profile"` replaced a file outside it).
    #[serde(skip)]
    pub file: Option<PathBuf>,
}

#[derive(ValueEnum, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ConfidenceArg {
    High,
    Medium,
    Low,
}

/// What fails a run (exit 1), by severity or against the baseline.
#[derive(ValueEnum, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum FailOn {
    /// Error-level findings only.
    Error,
    /// Any finding but a note (`any` is the same).
    #[default]
    #[value(alias = "any")]
    #[serde(alias = "any")]
    Warning,
    /// Only findings not in the baseline (needs --baseline).
    New,
    /// Nothing: exit 1 never happens (2 still does).
    Never,
}

impl FailOn {
    pub fn name(self) -> &'static str {
        match self {
            FailOn::Error => "error",
            FailOn::Warning => "warning",
            FailOn::New => "new",
            FailOn::Never => "never",
        }
    }

    /// Whether a finding of `level`, new or not, fails the run.
    pub fn fails(self, level: Level, new: bool) -> bool {
        match self {
            FailOn::Error => level == Level::Error,
            FailOn::Warning => level != Level::Note,
            FailOn::New => new && level != Level::Note,
            FailOn::Never => false,
        }
    }
}

/// Where an OpenAPI operation's derived hints also go: the MCP generator that reads them.
#[derive(ValueEnum, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum HintsArg {
    /// `x-speakeasy-mcp` (the hints directly in that map).
    Speakeasy,
    /// `x-zuplo-route.mcp.annotations`.
    Zuplo,
    /// `x-zilla-mcp.annotations`.
    Zilla,
    /// `x-mcp.annotations`.
    Mcp,
}

#[derive(ValueEnum, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PolicyArg {
    /// Destructive when any effect is delete (the published rule).
    Delete,
    /// Also destructive when a write replaces or modifies existing data.
    Overwrite,
}

impl Config {
    /// `explicit` (`--config FILE`), else the first `catalog-effects.toml` from the current
    /// folder upward, else no configuration at all.
    pub fn load(explicit: Option<&Path>) -> Result<Config> {
        let (path, folder) = match explicit {
            Some(p) => (
                p.to_path_buf(),
                p.parent().map(Path::to_path_buf).unwrap_or_default(),
            ),
            None => match find_upward() {
                Some(found) => found,
                None => return Ok(Config::default()),
            },
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Error::new(format!("cannot read configuration: {e}")).in_file(&path))?;
        let mut config = parse(&text).map_err(|e| e.in_file(&path))?;
        config.resolve_paths(&folder);
        config.file = Some(path);
        Ok(config)
    }

    /// Paths in the file are relative to its folder, wherever the tool runs from.
    fn resolve_paths(&mut self, folder: &Path) {
        let join = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = folder.join(&*p);
            }
        };
        self.catalogs.iter_mut().flatten().for_each(join);
        self.exclude.iter_mut().flatten().for_each(join);
        for p in [&mut self.heuristics, &mut self.report, &mut self.baseline] {
            p.iter_mut().for_each(join);
        }
    }
}

/// The nearest configuration file from the current folder up, with its folder as a path
/// relative to the current one (`""`, `..`, `../..`), so that paths stay short when printed.
fn find_upward() -> Option<(PathBuf, PathBuf)> {
    let cwd = std::env::current_dir().ok()?;
    let mut up = PathBuf::new();
    for dir in cwd.ancestors() {
        let candidate = dir.join(FILE_NAME);
        if candidate.is_file() {
            return Some((up.join(FILE_NAME), up));
        }
        up.push("..");
    }
    None
}

/// Parses the file's text; errors carry the line and column of the offending key or value.
fn parse(text: &str) -> Result<Config> {
    let config: Config = parse_toml(text)?;
    // An empty path names no file: `report = ""` failed to write, then the run said the
    // CSV was written.
    let paths = [
        ("heuristics", config.heuristics.as_ref()),
        ("report", config.report.as_ref()),
        ("baseline", config.baseline.as_ref()),
    ];
    let catalogs = config
        .catalogs
        .iter()
        .flatten()
        .map(|c| ("catalogs", Some(c)))
        .chain(
            config
                .exclude
                .iter()
                .flatten()
                .map(|e| ("exclude", Some(e))),
        );
    if config
        .annotations_key
        .as_deref()
        .is_some_and(|k| k.trim().is_empty())
    {
        let (line, column) = key_position(text, "annotations-key");
        return Err(
            Error::new("`annotations-key` is empty: name the key, or remove it").at(line, column),
        );
    }
    for (key, path) in paths.into_iter().chain(catalogs) {
        if path.is_some_and(|p| p.as_os_str().is_empty()) {
            let (line, column) = key_position(text, key);
            return Err(Error::new(format!(
                "`{key}` is an empty path: name a file or folder, or remove the key"
            ))
            .at(line, column));
        }
    }
    Ok(config)
}

/// Where `key` is set in the file (1-based line and column), else its start.
fn key_position(text: &str, key: &str) -> (usize, usize) {
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let rest = trimmed
            .strip_prefix(key)
            .or_else(|| trimmed.strip_prefix(&format!("\"{key}\"")));
        if rest.is_some_and(|r| r.trim_start().starts_with('=')) {
            return (i + 1, line.len() - trimmed.len() + 1);
        }
    }
    (1, 1)
}

fn parse_toml(text: &str) -> Result<Config> {
    toml::from_str(text).map_err(|e| {
        let message = e
            .message()
            .trim_end()
            .replacen("unknown field", "unknown key", 1);
        let message = message.replace(", expected one of", "; the keys are");
        let err = Error::new(message);
        match e.span() {
            Some(span) => {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                err.at(line, column)
            }
            None => err,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_parses() {
        let c = parse(
            "catalogs = [\"connectors\", \"more\"]\nheuristics = \"h\"\nmin-confidence = \"high\"\ndestructive-policy = \"overwrite\"\nreport = \"r.csv\"\nbaseline = \"b.csv\"\nfail-on = \"new\"\nannotations-key = \"github\"\n",
        )
        .unwrap();
        assert_eq!(c.annotations_key.as_deref(), Some("github"));
        assert_eq!(
            c.catalogs,
            Some(vec![PathBuf::from("connectors"), PathBuf::from("more")])
        );
        assert_eq!(c.min_confidence, Some(ConfidenceArg::High));
        assert_eq!(c.destructive_policy, Some(PolicyArg::Overwrite));
        assert_eq!(c.fail_on, Some(FailOn::New));
        assert_eq!(c.baseline, Some(PathBuf::from("b.csv")));
    }

    #[test]
    fn an_unknown_key_is_named_with_its_line_and_column() {
        let e = parse("# comment\nfail-on = \"new\"\n  basline = \"b.csv\"\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(3), Some(3)));
        assert!(e.message.starts_with("unknown key `basline`"), "{e}");
        assert!(e.message.contains("`baseline`"), "{e}");
    }

    #[test]
    fn a_bad_value_is_named_with_its_line() {
        let e = parse("min-confidence = \"hgh\"\n").unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("hgh"), "{e}");
        let e = parse("catalogs = \"connectors\"\n").unwrap_err();
        assert_eq!(e.line, Some(1), "{e}");
    }

    #[test]
    fn an_empty_path_is_named_with_its_line() {
        let e = parse("fail-on = \"new\"\n  report = \"\"\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(3)));
        assert!(e.message.starts_with("`report` is an empty path"), "{e}");
        let e = parse("catalogs = [\"a\", \"\"]\n").unwrap_err();
        assert_eq!(e.line, Some(1), "{e}");
        let e = parse("fail-on = \"new\"\nannotations-key = \"\"\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(1)));
        assert!(e.message.starts_with("`annotations-key` is empty"), "{e}");
    }

    #[test]
    fn paths_are_relative_to_the_file() {
        let mut c = parse("catalogs = [\"connectors\", \"/abs\"]\nbaseline = \"b.csv\"\n").unwrap();
        c.resolve_paths(Path::new("../.."));
        assert_eq!(
            c.catalogs,
            Some(vec![
                PathBuf::from("../../connectors"),
                PathBuf::from("/abs")
            ])
        );
        assert_eq!(c.baseline, Some(PathBuf::from("../../b.csv")));
    }
}
