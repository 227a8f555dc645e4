//! TypeScript and JavaScript servers: `registerTool(...)` / `tool(...)` on the official SDK, and tool objects with an `annotations` literal.
