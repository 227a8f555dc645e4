//! MCP `tools/list` JSON mapped into the normalized action view, for `audit` and `lint --tools`.
