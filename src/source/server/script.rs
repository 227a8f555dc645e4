//! TypeScript and JavaScript servers: `registerTool(...)` / `tool(...)` on the official SDK, and tool objects with an `annotations` literal.

use super::{Found, Language};
use crate::error::Error;

/// The TypeScript and JavaScript reader (its parser lands with it).
pub struct Script;

impl Language for Script {
    fn name(&self) -> &'static str {
        "script"
    }
    fn is_server(&self, _text: &str) -> bool {
        false
    }
    fn read(&self, _text: &str, _name: &str) -> Result<Found, Error> {
        Err(Error::new(
            "the TypeScript/JavaScript reader is not built in",
        ))
    }
}
