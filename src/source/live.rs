//! A running MCP server as a source of tool lists, for `audit`: a command started as a stdio
//! server, a streamable-HTTP URL, or each server of an MCP client's configuration file.
//! The session (initialize, every page of `tools/list`, close) runs on the official Rust
//! SDK, `rmcp`, in a current-thread runtime inside one blocking call, so the rest of the
//! crate stays synchronous. The pages are read by [`mcp::read_tools`], as a `tools/list`
//! file is: hints and malformed keys are judged the same way whether the list came from a
//! file or a server.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientRequest, Implementation, ListToolsRequest,
    PaginatedRequestParams, ServerResult,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::IntoTransport;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpClientTransport,
    StreamableHttpClientTransportConfig, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, ReadBuf};

use crate::error::{Error, Result};
use crate::source::mcp;

/// Pages of `tools/list` followed before the server is taken to be looping: a cursor never
/// seen before each time, but no end. Far above any real server (a page holds many tools).
pub const MAX_PAGES: usize = 1000;

/// Lines of a failing server's stderr kept for its error message.
const TAIL_LINES: usize = 12;

/// Characters of a line of an error message shown.
const LINE_CHARS: usize = 300;

/// Characters of a line of stderr kept, to mask and then cut to [`LINE_CHARS`].
const TAIL_LINE_CHARS: usize = 64 * 1024;

/// How long a server whose session has ended gets to exit on its own before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// How to reach a server. Its `env` and `headers` values are secrets (tokens, keys): they
/// are handed to the server and to nothing else, and are masked in every message.
#[derive(Clone, PartialEq, Eq)]
pub enum Server {
    /// A program spoken to on its stdin and stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Added to the environment the server inherits.
        env: Vec<(String, String)>,
        /// Where it runs; `None`: where `audit` runs.
        cwd: Option<PathBuf>,
        /// The values a configuration's `${VAR}`s were filled with, anywhere in the entry
        /// (`"args": ["--token", "${TOKEN}"]`): secrets like `env`'s.
        filled: Vec<String>,
    },
    /// A streamable-HTTP endpoint.
    Http {
        url: String,
        headers: Vec<(String, String)>,
        /// As for `Stdio`: a `${VAR}` in the URL or a header.
        filled: Vec<String>,
    },
}

/// Names only: a value may be a secret, and `{:?}` ends up in logs.
impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Server::Stdio {
                command, env, cwd, ..
            } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("env", &env.iter().map(|(k, _)| k).collect::<Vec<_>>())
                .field("cwd", cwd)
                .finish_non_exhaustive(),
            Server::Http { url, headers, .. } => f
                .debug_struct("Http")
                .field("url", url)
                .field(
                    "headers",
                    &headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
                )
                .finish_non_exhaustive(),
        }
    }
}

impl Server {
    /// The values never to show: the environment's and the headers', and the token of a
    /// header such as `Bearer TOKEN` on its own.
    fn secrets(&self) -> Vec<String> {
        let (pairs, filled) = match self {
            Server::Stdio { env, filled, .. } => (env, filled),
            Server::Http {
                headers, filled, ..
            } => (headers, filled),
        };
        let values = pairs.iter().map(|(_, v)| v).chain(filled);
        let mut out: Vec<String> = Vec::new();
        for v in values {
            out.push(v.clone());
            out.extend(v.split_whitespace().skip(1).map(str::to_owned));
        }
        // Short values ("1", "true") would mask ordinary words; longer first, so a whole
        // value is masked before a part of it.
        out.retain(|s| s.len() >= 4);
        out.sort_by_key(|s| std::cmp::Reverse(s.len()));
        out.dedup();
        out
    }
}

/// Each line of `text` cut to a readable length, after masking: a secret cut in two would
/// not be found whole.
fn shortened(text: &str) -> String {
    text.lines()
        .map(|l| match l.char_indices().nth(LINE_CHARS) {
            Some((at, _)) => format!("{}…", &l[..at]),
            None => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` with every secret of `server` replaced by `***`.
pub fn masked(text: &str, server: &Server) -> String {
    server
        .secrets()
        .iter()
        .fold(text.to_owned(), |t, s| t.replace(s.as_str(), "***"))
}

/// The tools a server listed.
#[derive(Debug)]
pub struct Listed {
    pub tools: Vec<mcp::Tool>,
    /// Whether every page was read as the server wrote it. Not when an HTTP server answered
    /// with plain JSON, which rmcp decodes into typed tools before anything else sees it:
    /// a misspelled or misplaced hint key is then gone, and the tool reads as not declaring
    /// it.
    pub exact: bool,
}

/// One page of `tools/list` as JSON text, and whether it is the server's own text.
struct Page {
    json: String,
    exact: bool,
}

/// Every tool `server` lists, read as a `tools/list` file is; `timeout` bounds starting and
/// initializing the session, and each request after it. A stdio server is stopped before
/// this returns, whatever happened. The error says what failed, with a failing program's
/// exit status and the last lines of its stderr, secrets masked.
pub fn list_tools(server: &Server, timeout: Duration) -> Result<Listed> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::new(format!("cannot start the MCP client: {e}")))?;
    let pages = runtime
        .block_on(async {
            match server {
                Server::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                    ..
                } => stdio(command, args, env, cwd.as_deref(), timeout).await,
                Server::Http { url, headers, .. } => http(url, headers, timeout).await,
            }
        })
        .map_err(|e| Error::new(shortened(&masked(&e.message, server))))?;
    let mut tools = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        let name = match pages.len() {
            1 => "tools/list".to_owned(),
            _ => format!("tools/list page {}", i + 1),
        };
        let read = mcp::read_tools(&page.json, &name).map_err(|e| Error {
            message: masked(&e.message, server),
            ..e
        })?;
        tools.extend(read);
    }
    Ok(Listed {
        tools,
        exact: pages.iter().all(|p| p.exact),
    })
}

async fn stdio(
    command: &str,
    args: &[String],
    env: &[(String, String)],
    cwd: Option<&Path>,
    timeout: Duration,
) -> Result<Vec<Page>> {
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    // A group of its own, so the programs it starts (`uvx`, `npx` and `docker` run the
    // server as their child) can be stopped with it.
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::new(format!("cannot start `{command}`: {e}")))?;
    let pid = child.id();
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        unreachable!("all three streams are piped");
    };
    // Drained all along: a server blocked on a full stderr pipe would look hung.
    let tail = Arc::new(Mutex::new(Vec::<String>::new()));
    let tail_task = tokio::spawn(keep_tail(stderr, tail.clone()));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let reader = Tee {
        inner: stdout,
        seen: seen.clone(),
    };
    let listed = session((reader, stdin), timeout, Some(&seen)).await;
    let status = stop(&mut child, pid).await;
    // Whatever the server wrote before it exited is in the pipe: read it for the message.
    let _ = tokio::time::timeout(Duration::from_millis(500), tail_task).await;
    listed.map_err(|e| {
        let mut message = e.message;
        if let Some(status) = status.filter(|s| !s.success()) {
            message.push_str(&format!(" (the server exited: {status})"));
        }
        let tail = tail.lock().map(|t| t.clone()).unwrap_or_default();
        if !tail.is_empty() {
            message.push_str("\nits last lines on stderr:");
            for line in tail {
                message.push_str("\n  ");
                message.push_str(&line);
            }
        }
        Error::new(message)
    })
}

async fn http(url: &str, headers: &[(String, String)], timeout: Duration) -> Result<Vec<Page>> {
    // reqwest is built without a crypto provider of its own (docs/architecture.md,
    // "Dependencies"): ring, not the default aws-lc-rs, whose C library is the longer build.
    // rustls deprecates ring for lacking post-quantum key exchange, which guards recorded
    // traffic against a future decryption; a session that lists tools and ends is not
    // worth that build. A second install is refused, which is fine: one is there.
    #[allow(deprecated)]
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut map = HashMap::new();
    for (name, value) in headers {
        let key = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| Error::new(format!("`{name}` is not an HTTP header name")))?;
        let mut value = http::HeaderValue::from_str(value)
            .map_err(|_| Error::new(format!("the value of header `{name}` is not valid")))?;
        value.set_sensitive(true);
        map.insert(key, value);
    }
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(map);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let client = Recording {
        inner: http_client()?,
        seen: seen.clone(),
    };
    let transport = StreamableHttpClientTransport::with_client(client, config);
    session(transport, timeout, Some(&seen)).await
}

/// The client rmcp builds for itself, which is not public: no idle connections kept, and
/// only same-origin 307 and 308 redirects followed (they keep the method and the body; a
/// header meant for one server is not sent to another), at most 10.
fn http_client() -> Result<reqwest::Client> {
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        let keeps_body = matches!(attempt.status().as_u16(), 307 | 308);
        if attempt.previous().len() > 10 {
            attempt.error("more than 10 redirects")
        } else if same_origin && keeps_body {
            attempt.follow()
        } else {
            attempt.stop()
        }
    });
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(policy)
        .build()
        .map_err(|e| Error::new(format!("cannot make an HTTP client: {e}")))
}

/// rmcp's reqwest client, with a copy of every event of a response that is an event stream
/// (the default of the Python and TypeScript SDKs), one message a line as stdio writes
/// them: rmcp decodes a response into typed tools and drops unknown keys. A response that
/// is plain JSON is decoded inside rmcp before this sees it: then the typed tools are all
/// there is ([`typed_page`]).
#[derive(Clone)]
struct Recording {
    inner: reqwest::Client,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl Recording {
    fn record(&self, response: StreamableHttpPostResponse) -> StreamableHttpPostResponse {
        use futures::StreamExt;
        match response {
            StreamableHttpPostResponse::Sse(stream, id) => {
                let seen = self.seen.clone();
                let stream = stream.inspect(move |event| {
                    if let Ok(sse_stream::Sse {
                        data: Some(data), ..
                    }) = event
                        && let Ok(mut seen) = seen.lock()
                    {
                        // A line break in JSON is only ever whitespace between tokens.
                        seen.extend(data.bytes().map(|b| match b {
                            b'\n' | b'\r' => b' ',
                            b => b,
                        }));
                        seen.push(b'\n');
                    }
                });
                StreamableHttpPostResponse::Sse(Box::pin(stream), id)
            }
            other => other,
        }
    }
}

type Events = futures::stream::BoxStream<'static, std::result::Result<sse_stream::Sse, SseError>>;
type Http<T> = std::result::Result<T, StreamableHttpError<reqwest::Error>>;

// Every method is forwarded, not only `post_message`: the trait's defaults for the sized
// variants drop the size limits that reqwest's own implementations enforce.
impl StreamableHttpClient for Recording {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<http::HeaderName, http::HeaderValue>,
    ) -> Http<StreamableHttpPostResponse> {
        let response = self
            .inner
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await?;
        Ok(self.record(response))
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<http::HeaderName, http::HeaderValue>,
        max_sse_event_size: usize,
    ) -> Http<StreamableHttpPostResponse> {
        let response = self
            .inner
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await?;
        Ok(self.record(response))
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<http::HeaderName, http::HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Http<StreamableHttpPostResponse> {
        let response = self
            .inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await?;
        Ok(self.record(response))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<http::HeaderName, http::HeaderValue>,
    ) -> Http<()> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<http::HeaderName, http::HeaderValue>,
    ) -> Http<Events> {
        self.inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<http::HeaderName, http::HeaderValue>,
        max_sse_event_size: usize,
    ) -> Http<Events> {
        self.inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}

/// Initialize, list every page, close. `seen` is every message the server sent, a line
/// each, as far as rmcp lets it be seen: each page is then the response exactly as it came.
async fn session<T, E, A>(
    transport: T,
    timeout: Duration,
    seen: Option<&Arc<Mutex<Vec<u8>>>>,
) -> Result<Vec<Page>>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("catalog-effects", env!("CARGO_PKG_VERSION")),
    );
    let mut service = match tokio::time::timeout(timeout, client.serve(transport)).await {
        Err(_) => {
            return Err(Error::new(format!(
                "no answer to `initialize` within {}",
                seconds(timeout)
            )));
        }
        Ok(Err(e)) => return Err(Error::new(format!("`initialize` failed: {}", plain(&e)))),
        Ok(Ok(service)) => service,
    };
    let pages = pages(&service, timeout, seen).await;
    // Bounded like the rest: a server that ignores the end of its session is stopped by
    // the caller (stdio) or left to time the session out itself (HTTP).
    let _ = service.close_with_timeout(timeout).await;
    pages
}

async fn pages(
    service: &RunningService<RoleClient, ClientConfig>,
    timeout: Duration,
    seen: Option<&Arc<Mutex<Vec<u8>>>>,
) -> Result<Vec<Page>> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    let mut cursors = HashSet::new();
    loop {
        if out.len() == MAX_PAGES {
            return Err(Error::new(format!(
                "`tools/list` still had a next page after {MAX_PAGES} pages"
            )));
        }
        // Bytes before the request cannot hold its response.
        if let Some(seen) = seen {
            seen.lock().expect("not poisoned").clear();
        }
        let params = cursor
            .clone()
            .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        let request = ClientRequest::ListToolsRequest(ListToolsRequest {
            method: Default::default(),
            params,
            extensions: Default::default(),
        });
        let page = match tokio::time::timeout(timeout, service.peer().send_request(request)).await {
            Err(_) => {
                return Err(Error::new(format!(
                    "no answer to `tools/list` (page {}) within {}",
                    out.len() + 1,
                    seconds(timeout)
                )));
            }
            Ok(Err(e)) => return Err(Error::new(format!("`tools/list` failed: {}", plain(&e)))),
            Ok(Ok(result)) => {
                match seen.and_then(|s| last_response(&s.lock().expect("not poisoned"))) {
                    Some(json) => Page { json, exact: true },
                    None => Page {
                        json: typed_page(result)?,
                        exact: false,
                    },
                }
            }
        };
        let next = next_cursor(&page.json);
        out.push(page);
        match next {
            None => return Ok(out),
            Some(next) if !cursors.insert(next.clone()) => {
                return Err(Error::new(format!(
                    "`tools/list` gave the cursor {next:?} a second time: the pages loop"
                )));
            }
            Some(next) => cursor = Some(next),
        }
    }
}

/// A page as rmcp read it, back in JSON, where the server's own text could not be had (an
/// HTTP answer in plain JSON): rmcp decodes the response into its typed `Tool`, which keeps
/// the five annotation keys and drops any other, so a misspelled or misplaced hint key is
/// not seen (a hint that is not a boolean is: the typed reading fails and rmcp hands over
/// the raw result).
fn typed_page(result: ServerResult) -> Result<String> {
    let value = match result {
        ServerResult::ListToolsResult(list) => serde_json::to_value(list),
        ServerResult::CustomResult(raw) => Ok(raw.0),
        _ => {
            return Err(Error::new(
                "`tools/list` was answered with something other than a list of tools",
            ));
        }
    };
    value
        .map(|v| v.to_string())
        .map_err(|e| Error::new(format!("cannot write the tool list back as JSON: {e}")))
}

/// The last JSON-RPC response among complete lines of `bytes` that carries a result.
fn last_response(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    text.split('\n')
        .rev()
        .map(|l| l.trim_end_matches('\r'))
        .find(|line| {
            serde_json::from_str::<Map<String, Value>>(line).is_ok_and(|m| {
                m.contains_key("id") && m.contains_key("result") && !m.contains_key("method")
            })
        })
        .map(str::to_owned)
}

/// The page's `nextCursor`: none when absent, null or empty.
fn next_cursor(page: &str) -> Option<String> {
    let value: Value = serde_json::from_str(page).ok()?;
    let result = value.get("result").unwrap_or(&value);
    result
        .get("nextCursor")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
}

/// An SDK error's message without the Rust type it names (`Transport [rmcp::transport::
/// worker::WorkerTransport<…>] error: …`), which tells a reader nothing.
fn plain(e: &dyn std::fmt::Display) -> String {
    let mut text = e.to_string();
    if let Some(start) = text.find(" [")
        && let Some(len) = text[start..].find(']')
        && text[start..start + len].contains("::")
    {
        text.replace_range(start..start + len + 1, "");
    }
    text
}

fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// Waits for the server to exit after its session ended, kills it if it does not, and
/// kills what it left in its process group. Returns its exit status, if it exited alone.
async fn stop(child: &mut tokio::process::Child, pid: Option<u32>) -> Option<ExitStatus> {
    let status = match tokio::time::timeout(EXIT_GRACE, child.wait()).await {
        Ok(Ok(status)) => Some(status),
        _ => None,
    };
    kill_group(pid);
    if status.is_none() {
        let _ = child.start_kill();
        let _ = tokio::time::timeout(EXIT_GRACE, child.wait()).await;
    }
    status
}

#[cfg(target_os = "linux")]
fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()).filter(|&p| p > 0) {
        // The group is the server's own (`process_group(0)` above); a group already gone
        // is ESRCH, nothing to do.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn kill_group(_pid: Option<u32>) {}

/// Keeps the last [`TAIL_LINES`] lines of a stream, each bounded.
async fn keep_tail(stream: tokio::process::ChildStderr, tail: Arc<Mutex<Vec<String>>>) {
    let mut lines = tokio::io::BufReader::new(stream).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let line: String = line.chars().take(TAIL_LINE_CHARS).collect();
        if let Ok(mut t) = tail.lock() {
            if t.len() == TAIL_LINES {
                t.remove(0);
            }
            t.push(line);
        }
    }
}

/// The server's stdout, handed to rmcp, with a copy of every byte: rmcp decodes a response
/// into typed tools and drops unknown keys, and a misspelled hint key is exactly what
/// `audit` must see.
struct Tee<R> {
    inner: R,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl<R: AsyncRead + Unpin> AsyncRead for Tee<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &poll
            && let Ok(mut seen) = self.seen.lock()
        {
            seen.extend_from_slice(&buf.filled()[before..]);
        }
        poll
    }
}

/// The servers of an MCP client configuration, in the order written, if `text` is one: a
/// JSON object with a `mcpServers` object (Claude Desktop, Claude Code's `.mcp.json`,
/// Cursor) or a `servers` object (VS Code), and no `tools` or `result`, which a
/// `tools/list` file has. `None`: not a configuration (read it as a tool list). A server
/// whose entry cannot be used is an error of its own, so the others are still audited.
/// `file` is the configuration's path: a server runs in its folder, where a relative
/// command or argument is meant.
pub fn read_config(text: &str, file: &Path) -> Option<Vec<(String, Result<Server>)>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let root: ConfigRoot = serde_json::from_str(text).ok()?;
    if root.tools.is_some() || root.result.is_some() {
        return None;
    }
    let servers: Vec<(String, Value)> = [root.mcp_servers, root.servers]
        .into_iter()
        .flatten()
        .flat_map(|s| s.0)
        .collect();
    if !root.listed {
        return None;
    }
    let dir = file
        .parent()
        .map(|d| {
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            }
        })
        .map(Path::to_path_buf);
    Some(
        servers
            .into_iter()
            .map(|(name, entry)| {
                let server = server_of(&entry, dir.as_deref());
                (name, server)
            })
            .collect(),
    )
}

/// The keys of a configuration `read_config` looks at; any other is left alone.
struct ConfigRoot {
    mcp_servers: Option<Ordered>,
    servers: Option<Ordered>,
    tools: Option<()>,
    result: Option<()>,
    /// Whether `mcpServers` or `servers` was an object.
    listed: bool,
}

impl<'de> serde::Deserialize<'de> for ConfigRoot {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct RootVisitor;
        impl<'de> serde::de::Visitor<'de> for RootVisitor {
            type Value = ConfigRoot;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut map: M,
            ) -> std::result::Result<ConfigRoot, M::Error> {
                let mut root = ConfigRoot {
                    mcp_servers: None,
                    servers: None,
                    tools: None,
                    result: None,
                    listed: false,
                };
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "mcpServers" => root.mcp_servers = map.next_value::<IfObject>()?.0,
                        "servers" => root.servers = map.next_value::<IfObject>()?.0,
                        other => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                            match other {
                                "tools" => root.tools = Some(()),
                                "result" => root.result = Some(()),
                                _ => {}
                            }
                        }
                    }
                }
                root.listed = root.mcp_servers.is_some() || root.servers.is_some();
                Ok(root)
            }
        }
        d.deserialize_map(RootVisitor)
    }
}

/// An object's entries in the order written (a `Map` sorts them).
struct Ordered(Vec<(String, Value)>);

/// Any JSON value, kept as [`Ordered`] when it is an object.
struct IfObject(Option<Ordered>);

impl<'de> serde::Deserialize<'de> for IfObject {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct IfObjectVisitor;
        impl<'de> serde::de::Visitor<'de> for IfObjectVisitor {
            type Value = IfObject;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                map: M,
            ) -> std::result::Result<IfObject, M::Error> {
                OrderedVisitor.visit_map(map).map(|o| IfObject(Some(o)))
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(
                self,
                mut seq: S,
            ) -> std::result::Result<IfObject, S::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(IfObject(None))
            }
            fn visit_bool<E>(self, _: bool) -> std::result::Result<IfObject, E> {
                Ok(IfObject(None))
            }
            fn visit_i64<E>(self, _: i64) -> std::result::Result<IfObject, E> {
                Ok(IfObject(None))
            }
            fn visit_u64<E>(self, _: u64) -> std::result::Result<IfObject, E> {
                Ok(IfObject(None))
            }
            fn visit_f64<E>(self, _: f64) -> std::result::Result<IfObject, E> {
                Ok(IfObject(None))
            }
            fn visit_str<E>(self, _: &str) -> std::result::Result<IfObject, E> {
                Ok(IfObject(None))
            }
            fn visit_unit<E>(self) -> std::result::Result<IfObject, E> {
                Ok(IfObject(None))
            }
        }
        d.deserialize_any(IfObjectVisitor)
    }
}

struct OrderedVisitor;

impl<'de> serde::de::Visitor<'de> for OrderedVisitor {
    type Value = Ordered;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: serde::de::MapAccess<'de>>(
        self,
        mut map: M,
    ) -> std::result::Result<Ordered, M::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry::<String, Value>()? {
            entries.push(entry);
        }
        Ok(Ordered(entries))
    }
}

fn server_of(entry: &Value, dir: Option<&Path>) -> Result<Server> {
    let entry = entry
        .as_object()
        .ok_or_else(|| Error::new("the entry is not an object"))?;
    let filled = std::cell::RefCell::new(Vec::new());
    let expand = |s: &str| expand(s, &mut filled.borrow_mut());
    let text = |key: &str| -> Result<Option<String>> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => expand(s).map(Some),
            Some(_) => Err(Error::new(format!("`{key}` is not a string"))),
        }
    };
    let pairs = |key: &str| -> Result<Vec<(String, String)>> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), expand(s)?)),
                    _ => Err(Error::new(format!("`{key}.{k}` is not a string"))),
                })
                .collect(),
            Some(_) => Err(Error::new(format!("`{key}` is not an object"))),
        }
    };
    let kind = text("type")?;
    let url = match text("url")? {
        Some(url) => Some(url),
        None => text("serverUrl")?,
    };
    match kind.as_deref() {
        None | Some("stdio" | "http" | "streamable-http" | "streamableHttp") => {}
        Some("sse") => {
            return Err(Error::new(
                "type `sse` is the older HTTP+SSE transport, which `audit` does not speak \
                 (stdio and streamable HTTP only)",
            ));
        }
        Some(other) => {
            return Err(Error::new(format!("unknown type `{other}` (stdio, http)")));
        }
    }
    let command = text("command")?;
    match (kind.as_deref(), command, url) {
        (None | Some("stdio"), Some(command), _) => {
            let args = match entry.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|a| match a {
                        Value::String(s) => expand(s),
                        _ => Err(Error::new("an item of `args` is not a string")),
                    })
                    .collect::<Result<_>>()?,
                Some(_) => return Err(Error::new("`args` is not an array")),
            };
            let cwd = match text("cwd")? {
                Some(c) => Some(dir.map_or_else(|| PathBuf::from(&c), |d| d.join(&c))),
                None => dir.map(Path::to_path_buf),
            };
            // A relative path to a program is the configuration's, as its author meant.
            let command = match dir {
                Some(d) if command.contains('/') && Path::new(&command).is_relative() => {
                    d.join(&command).to_string_lossy().into_owned()
                }
                _ => command,
            };
            let env = pairs("env")?;
            Ok(Server::Stdio {
                command,
                args,
                env,
                cwd,
                filled: filled.take(),
            })
        }
        (None | Some("http" | "streamable-http" | "streamableHttp"), _, Some(url)) => {
            let headers = pairs("headers")?;
            Ok(Server::Http {
                url,
                headers,
                filled: filled.take(),
            })
        }
        (Some("stdio"), None, _) => Err(Error::new("type `stdio` with no `command`")),
        (None, None, None) => Err(Error::new("neither a `command` nor a `url`")),
        _ => Err(Error::new("an HTTP server with no `url`")),
    }
}

/// `text` with `${VAR}`, `${VAR:-default}` and `${env:VAR}` filled in from the environment,
/// as Claude Code and VS Code do; a variable only the client can fill (`${input:…}`,
/// `${workspaceFolder}`) is an error. The message names the variable, never a value, and
/// each value used is added to `filled`.
fn expand(text: &str, filled: &mut Vec<String>) -> Result<String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let Some(end) = rest[at..].find('}') else {
            out.push_str(&rest[at..]);
            return Ok(out);
        };
        let inner = &rest[at + 2..at + end];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        let name = name.strip_prefix("env:").unwrap_or(name);
        let plain =
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !plain {
            return Err(Error::new(format!(
                "`${{{inner}}}` is filled in by the client, not from the environment"
            )));
        }
        match (std::env::var(name), default) {
            (Ok(v), _) => {
                out.push_str(&v);
                filled.push(v);
            }
            (Err(_), Some(d)) => out.push_str(d),
            (Err(_), None) => {
                return Err(Error::new(format!("the environment has no `{name}`")));
            }
        }
        rest = &rest[at + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_is_told_from_a_tool_list_by_its_content() {
        let file = Path::new("dir/.mcp.json");
        assert!(read_config(r#"{"tools": []}"#, file).is_none());
        assert!(read_config(r#"[]"#, file).is_none());
        assert!(read_config(r#"{"result": {"tools": []}}"#, file).is_none());
        assert!(read_config(r#"{"mcpServers": []}"#, file).is_none());
        assert!(read_config("not json", file).is_none());
        let servers = read_config(
            r#"{"mcpServers": {
                "git": {"command": "uvx", "args": ["mcp-server-git"], "env": {"K": "v"}},
                "web": {"type": "http", "url": "https://example.test/mcp", "headers": {"Authorization": "Bearer t"}},
                "old": {"type": "sse", "url": "https://example.test/sse"},
                "none": {}
            }}"#,
            file,
        )
        .unwrap();
        let names: Vec<&str> = servers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["git", "web", "old", "none"]);
        assert_eq!(
            servers[0].1,
            Ok(Server::Stdio {
                command: "uvx".into(),
                args: vec!["mcp-server-git".into()],
                env: vec![("K".into(), "v".into())],
                cwd: Some(PathBuf::from("dir")),
                filled: Vec::new(),
            })
        );
        assert_eq!(
            servers[1].1,
            Ok(Server::Http {
                url: "https://example.test/mcp".into(),
                headers: vec![("Authorization".into(), "Bearer t".into())],
                filled: Vec::new(),
            })
        );
        assert!(servers[2].1.is_err());
        assert!(servers[3].1.is_err());
    }

    #[test]
    fn vs_code_servers_and_relative_commands() {
        let servers = read_config(
            r#"{"servers": {"local": {"type": "stdio", "command": "./bin/server", "args": []}}}"#,
            Path::new("/p/.vscode/mcp.json"),
        )
        .unwrap();
        let Ok(Server::Stdio { command, cwd, .. }) = &servers[0].1 else {
            panic!("{servers:?}");
        };
        assert_eq!(command, "/p/.vscode/./bin/server");
        assert_eq!(cwd.as_deref(), Some(Path::new("/p/.vscode")));
    }

    #[test]
    fn variables_come_from_the_environment_and_a_missing_one_is_named() {
        let mut filled = Vec::new();
        assert_eq!(
            expand("a ${NO_SUCH_VAR_X:-d} b", &mut filled).unwrap(),
            "a d b"
        );
        assert_eq!(
            expand("${env:NO_SUCH_VAR_X}", &mut filled)
                .unwrap_err()
                .message,
            "the environment has no `NO_SUCH_VAR_X`"
        );
        assert!(expand("${input:token}", &mut filled).is_err());
        assert!(filled.is_empty(), "{filled:?}");
        let path = std::env::var("PATH").unwrap();
        assert_eq!(expand("${PATH}", &mut filled).unwrap(), path);
        // A value from the environment is a secret of the server that uses it.
        assert_eq!(filled, std::slice::from_ref(&path));
        let servers = read_config(
            r#"{"mcpServers": {"s": {"command": "x", "args": ["--token", "${PATH}"]}}}"#,
            Path::new("c.json"),
        )
        .unwrap();
        let server = servers[0].1.as_ref().unwrap();
        assert_eq!(
            masked(&format!("bad token {path}"), server),
            "bad token ***"
        );
    }

    #[test]
    fn secrets_are_masked_and_short_values_are_not() {
        let server = Server::Http {
            url: "http://127.0.0.1/mcp".into(),
            headers: vec![
                ("Authorization".into(), "Bearer s3cr3t-token".into()),
                ("X-Flag".into(), "1".into()),
            ],
            filled: Vec::new(),
        };
        assert_eq!(
            masked("sent Bearer s3cr3t-token, then s3cr3t-token; 1", &server),
            "sent ***, then ***; 1"
        );
        assert!(!format!("{server:?}").contains("s3cr3t"));
        // Masked before it is cut: the secret past the cut is not half shown.
        let long = format!("{}Bearer s3cr3t-token", "x".repeat(LINE_CHARS - 10));
        let shown = shortened(&masked(&long, &server));
        assert!(!shown.contains("s3cr"), "{shown}");
    }

    #[test]
    fn pages_and_cursors() {
        let bytes = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\n{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"tools\":[],\"nextCursor\":\"c2\"}}\n";
        let page = last_response(bytes).unwrap();
        assert_eq!(next_cursor(&page).as_deref(), Some("c2"));
        assert_eq!(next_cursor(r#"{"tools": [], "nextCursor": ""}"#), None);
        assert_eq!(next_cursor(r#"{"tools": []}"#), None);
    }

    #[test]
    fn an_sdk_error_loses_its_type_name() {
        assert_eq!(
            plain(&"Send message error Transport [rmcp::a::B<c::D>] error: HTTP 401"),
            "Send message error Transport error: HTTP 401"
        );
        assert_eq!(plain(&"a [b] c"), "a [b] c");
    }
}
