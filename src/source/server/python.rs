//! Python servers: `@server.tool(...)` on the official SDK (`MCPServer`, `FastMCP`), the standalone `fastmcp` package, and the low-level `types.Tool(...)`.

use super::{Found, Language};
use crate::error::Error;

/// The Python reader (its parser lands with it).
pub struct Python;

impl Language for Python {
    fn name(&self) -> &'static str {
        "python"
    }
    fn is_server(&self, _text: &str) -> bool {
        false
    }
    fn read(&self, _text: &str, _name: &str) -> Result<Found, Error> {
        Err(Error::new("the Python reader is not built in"))
    }
}
