//! Python servers: `@server.tool(...)` on the official SDK (`MCPServer`, `FastMCP`), the standalone `fastmcp` package, and the low-level `types.Tool(...)`.
