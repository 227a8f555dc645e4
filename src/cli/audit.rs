//! `audit`: check the annotations an MCP server already ships against inference: from a
//! `tools/list` file, or from the server itself (a command, a URL, or every server of an MCP
//! client's configuration file).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use catalog_effects::error::{Error, Result};
use catalog_effects::report::audit::{self, AuditRow};
use catalog_effects::source::live::{self, Server};
use catalog_effects::source::mcp;

use super::config::Config;
use super::engine::EngineArgs;
use super::out::{self, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use super::outputs::{self, SummaryFormat};

#[derive(Args, Debug)]
#[command(
    after_help = "Verdicts: agrees; missing (neither readOnlyHint nor destructiveHint); unsafe (declared \
read-only, inferred to change something on evidence whose record overrules a person: right at \
least 95% of the time with 95% confidence, in 3 providers or more); understated \
(destructiveHint false on a delete, on such evidence); unconfirmed (the same, on evidence too \
weak to overrule the author: a note naming it and its record, never a failure); malformed (a \
hint key misspelled, misplaced or not a boolean); overcautious (declared not read-only, a \
confident read); differs (destructiveHint false where the policy makes it true; true on any \
change is caution, and agrees); destructive-unset (an additive write without destructiveHint, \
which clients take as destructive).\n\n\
What is audited, one of:\n  \
a tools/list result saved in a file;\n  \
a stdio server: the command after `--`, started, listed and stopped;\n  \
a streamable-HTTP server: its URL, with --header for what it needs (a token);\n  \
an MCP client configuration (.mcp.json, Claude Desktop's claude_desktop_config.json, VS Code's \
mcp.json): every server in it, a table each under its name. A file is a configuration when \
it has a top-level `mcpServers` or `servers` object (and no `tools`).\n\n\
Examples:\n  \
catalog-effects audit tools.json\n  \
catalog-effects audit tools.json --format json --report reports/audit.csv\n  \
catalog-effects audit -- uvx mcp-server-git\n  \
catalog-effects audit -- npx -y @modelcontextprotocol/server-filesystem .\n  \
catalog-effects audit https://mcp.example.com/mcp --header \"Authorization: Bearer $TOKEN\"\n  \
catalog-effects audit .mcp.json --timeout 60\n\n\
Environment values of a configuration and header values are sent to the server only: they are \
never printed, and are masked in errors (with the server's own stderr, of which the last lines \
show only when it fails).\n\n\
Exit codes: 0 no tool fails; 1 a tool is unsafe, understated or malformed; 2 errors (a file \
that cannot be read, a server that does not start, exits or does not answer in time; the \
other servers of a configuration are still audited).",
    mut_arg("min_confidence", |a| a.help(
        "Inferences below this confidence count as unclassified: they never make a tool unsafe, understated or overcautious [default: medium]"
    )),
    mut_arg("destructive_policy", |a| a.help(
        "Which inferred effects make destructiveHint true, to compare with the declared one [default: delete]"
    )),
    // A tool list has no catalog beside it: the catalog's options mean nothing here.
    mut_arg("jobs", |a| a.hide(true)),
    mut_arg("exclude", |a| a.hide(true)),
    mut_arg("catalog_evidence", |a| a.hide(true)),
    mut_arg("no_catalog_evidence", |a| a.hide(true))
)]
pub struct AuditArgs {
    /// A file: an MCP `tools/list` result (`{"tools": [...]}`, a JSON-RPC response holding
    /// one, or a bare array of tools) or an MCP client configuration (every server in it);
    /// or the http:// or https:// URL of a streamable-HTTP server.
    #[arg(value_name = "FILE|URL", required_unless_present = "command")]
    pub tools: Option<PathBuf>,
    /// A stdio server to start and audit: the command and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND", conflicts_with = "tools")]
    pub command: Vec<String>,
    /// Seconds a server gets to start and answer `initialize`, and to answer each request
    /// after it.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,
    /// A header sent to a URL with every request, `Name: value`; repeat for more. Its value
    /// is never printed.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// `human`: a table, then what each verdict other than agrees means; `json`: every row
    /// with its reason, and the counts.
    #[arg(long, value_enum, default_value = "human")]
    pub format: SummaryFormat,
    /// Also write the per-tool CSV here (with a configuration, a first column names the
    /// server).
    #[arg(long, value_name = "FILE.csv")]
    pub report: Option<PathBuf>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// What one run audits.
enum Target {
    /// A `tools/list` result in a file, with its text, read as it always was.
    File(PathBuf, String),
    /// One server, named by its command line or URL.
    One(String, Server),
    /// The servers of a configuration file, each named by its key.
    Config(Vec<(String, Result<Server>)>),
}

fn is_url(path: &std::path::Path) -> Option<&str> {
    path.to_str()
        .filter(|s| s.starts_with("http://") || s.starts_with("https://"))
}

/// `Name: value` into its two parts; the message never holds the value.
fn header(text: &str) -> Result<(String, String)> {
    match text.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(Error::new(
            "--header takes `Name: value` (a name, a colon, the value)",
        )),
    }
}

fn target(args: &AuditArgs) -> Result<Target> {
    if !args.command.is_empty() {
        if !args.headers.is_empty() {
            return Err(Error::new("--header goes with a URL, not a command"));
        }
        let name = args.command.join(" ");
        return Ok(Target::One(
            name,
            Server::Stdio {
                command: args.command[0].clone(),
                args: args.command[1..].to_vec(),
                env: Vec::new(),
                cwd: None,
                filled: Vec::new(),
            },
        ));
    }
    let path = args
        .tools
        .clone()
        .ok_or_else(|| Error::new("nothing to audit: give a file, a URL, or `-- COMMAND`"))?;
    if let Some(url) = is_url(&path) {
        let headers = args
            .headers
            .iter()
            .map(|h| header(h))
            .collect::<Result<_>>()?;
        return Ok(Target::One(
            url.to_owned(),
            Server::Http {
                url: url.to_owned(),
                headers,
                filled: Vec::new(),
            },
        ));
    }
    if !args.headers.is_empty() {
        return Err(Error::new(
            "--header goes with a URL (a configuration gives each server its `headers`)",
        ));
    }
    let text = read_tools_file(&path)?;
    match live::read_config(&text, &path) {
        Some(servers) if servers.is_empty() => {
            Err(Error::new("an MCP configuration with no servers").in_file(&path))
        }
        Some(servers) => Ok(Target::Config(servers)),
        None => Ok(Target::File(path, text)),
    }
}

/// A saved tool list or configuration as text: not UTF-8 is named with the place and the
/// encoding, as a catalog file is, rather than as an I/O error with no place.
pub(super) fn read_tools_file(path: &std::path::Path) -> Result<String> {
    let bytes =
        std::fs::read(path).map_err(|e| Error::new(format!("cannot read: {e}")).in_file(path))?;
    catalog_effects::source::decode(bytes).map_err(|e| e.in_file(path))
}

/// A saved list that is one page of more (its `nextCursor` is set): what it lacks is said,
/// so an audit of the page is not taken for one of the server.
pub(super) fn warn_one_page(path: &std::path::Path, list: &mcp::ToolList) {
    if list.next_cursor.is_some() {
        out::warning(&format!(
            "{}: one page of a paginated tools/list (its `nextCursor` is set): the server has more tools than the file holds, and they are not read; save every page into one list, or audit the server itself (a URL, or `-- COMMAND`), which reads every page",
            path.display()
        ));
    }
}

pub fn run(mut args: AuditArgs, config: &Config) -> Result<u8> {
    args.engine.apply(config);
    let timeout = Duration::try_from_secs_f64(args.timeout)
        .ok()
        .filter(|t| !t.is_zero())
        .ok_or_else(|| Error::new("--timeout takes a number of seconds above 0"))?;
    let target = target(&args)?;
    if let Some(path) = &args.report {
        let mut guard = super::args::Guard::new(&[], config);
        if let Some(tools) = args.tools.as_deref().filter(|t| is_url(t).is_none()) {
            guard.inputs.push(("the tool list it audits", tools));
        }
        super::args::check_outputs(&guard, &[super::args::Target::given("--report", path)])?;
    }
    let rules = args.engine.rules()?;
    let audit_of = |tools: &[mcp::Tool]| {
        audit::audit_tools(
            tools,
            &rules,
            args.engine.policy(),
            args.engine.confidence(),
        )
    };
    match target {
        Target::File(path, text) => {
            let list = mcp::read_list(&text, &path.display().to_string())?;
            warn_one_page(&path, &list);
            finish_one(&args, &audit_of(&list.tools))
        }
        Target::One(name, server) => match live::list_tools(&server, timeout) {
            Ok(listed) => {
                warn_inexact(&name, &listed);
                finish_one(&args, &audit_of(&listed.tools))
            }
            Err(e) => {
                print_error(&format!("server `{name}`: {e}"));
                Ok(EXIT_ERROR)
            }
        },
        Target::Config(servers) => {
            let audited: Vec<(String, Result<Vec<AuditRow>>)> = servers
                .into_iter()
                .map(|(name, server)| {
                    let rows = server
                        .and_then(|s| live::list_tools(&s, timeout))
                        .map(|listed| {
                            warn_inexact(&name, &listed);
                            audit_of(&listed.tools)
                        });
                    if let Err(e) = &rows {
                        print_error(&format!("server `{name}`: {e}"));
                    }
                    (name, rows)
                })
                .collect();
            finish_config(&args, &audited)
        }
    }
}

/// A list read through the SDK's typed tools, where a misspelled key cannot be seen: said,
/// so a `missing` there is not taken for the whole truth.
fn warn_inexact(name: &str, listed: &live::Listed) {
    if !listed.exact {
        out::warning(&format!(
            "server `{name}` answered in plain JSON, which the MCP SDK reads into typed tools: \
             a misspelled or misplaced hint key is not seen there (a saved tools/list is read whole)"
        ));
    }
}

/// An error whose first line is the message and whose next lines (a server's stderr) are
/// shown as lines, each made safe to print.
fn print_error(message: &str) {
    let mut lines = message.lines();
    out::error(lines.next().unwrap_or_default());
    for line in lines {
        out::eprint(&format!("{}\n", catalog_effects::text::safe::line(line)));
    }
}

/// The report of one tool list, as `audit tools.json` always printed it.
fn finish_one(args: &AuditArgs, rows: &[AuditRow]) -> Result<u8> {
    if let Some(path) = &args.report {
        let mut csv = Vec::new();
        audit::write_csv(rows, &mut csv)?;
        outputs::write_output(path, &String::from_utf8_lossy(&csv))?;
    }
    let failing = rows.iter().filter(|r| r.verdict.fails()).count();
    let text = match args.format {
        SummaryFormat::Human => audit::render_table(rows),
        SummaryFormat::Json => audit::render_json(rows),
    };
    out::print(&match args.format {
        SummaryFormat::Human if args.engine.quiet => quiet_line(&text),
        SummaryFormat::Human => catalog_effects::text::safe::lines(&text).into_owned(),
        _ => text,
    });
    Ok(if failing > 0 { EXIT_FINDINGS } else { EXIT_OK })
}

/// The table ends with its totals line, all that --quiet keeps.
fn quiet_line(text: &str) -> String {
    text.lines()
        .last()
        .map(|l| format!("{l}\n"))
        .unwrap_or_default()
}

/// The reports of a configuration's servers: a table each under its name (human), or one
/// JSON object listing each server with its rows or its error. An error makes the exit
/// code 2 once every server has been audited.
fn finish_config(args: &AuditArgs, audited: &[(String, Result<Vec<AuditRow>>)]) -> Result<u8> {
    if let Some(path) = &args.report {
        outputs::write_output(path, &config_csv(audited)?)?;
    }
    let errors = audited.iter().filter(|(_, r)| r.is_err()).count();
    let failing = audited
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok())
        .flatten()
        .filter(|r| r.verdict.fails())
        .count();
    let text = match args.format {
        SummaryFormat::Human => {
            let mut text = String::new();
            for (name, rows) in audited {
                let Ok(rows) = rows else { continue };
                let table = audit::render_table(rows);
                if !text.is_empty() && !args.engine.quiet {
                    text.push('\n');
                }
                if args.engine.quiet {
                    text.push_str(&format!("{name}: {}", quiet_line(&table)));
                } else {
                    text.push_str(&format!("== {name} ==\n{table}"));
                }
            }
            catalog_effects::text::safe::lines(&text).into_owned()
        }
        SummaryFormat::Json => {
            let servers: Vec<serde_json::Value> = audited
                .iter()
                .map(|(name, rows)| {
                    let mut entry = serde_json::Map::new();
                    entry.insert("server".into(), name.clone().into());
                    match rows {
                        Ok(rows) => {
                            let report: serde_json::Value =
                                serde_json::from_str(&audit::render_json(rows))
                                    .map_err(|e| Error::new(format!("audit JSON: {e}")))?;
                            if let serde_json::Value::Object(fields) = report {
                                entry.extend(fields);
                            }
                        }
                        Err(e) => {
                            entry.insert("error".into(), e.to_string().into());
                        }
                    }
                    Ok(serde_json::Value::Object(entry))
                })
                .collect::<Result<_>>()?;
            let mut text = serde_json::to_string_pretty(&serde_json::json!({ "servers": servers }))
                .map_err(|e| Error::new(format!("audit JSON: {e}")))?;
            text.push('\n');
            text
        }
    };
    out::print(&text);
    Ok(if errors > 0 {
        EXIT_ERROR
    } else if failing > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

/// The per-tool CSV of every server that answered, a first column naming the server.
fn config_csv(audited: &[(String, Result<Vec<AuditRow>>)]) -> Result<String> {
    let fail = |e: csv::Error| Error::new(format!("audit CSV: {e}"));
    let mut out = csv::Writer::from_writer(Vec::new());
    let mut header_written = false;
    for (name, rows) in audited {
        let Ok(rows) = rows else { continue };
        let mut one = Vec::new();
        audit::write_csv(rows, &mut one)?;
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(one.as_slice());
        for (i, record) in reader.records().enumerate() {
            let record = record.map_err(fail)?;
            if i == 0 {
                if header_written {
                    continue;
                }
                header_written = true;
            }
            let first = if i == 0 { "server" } else { name.as_str() };
            out.write_record(std::iter::once(first).chain(record.iter()))
                .map_err(fail)?;
        }
    }
    let bytes = out
        .into_inner()
        .map_err(|e| Error::new(format!("audit CSV: {e}")))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
