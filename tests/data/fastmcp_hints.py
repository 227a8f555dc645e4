"""A real MCP generator consuming a backfilled OpenAPI document.

Builds a server with FastMCP's `from_openapi`, whose component function (the few lines a
user writes) copies the hints `catalog-effects backfill --hints speakeasy` wrote into
`x-speakeasy-mcp` onto each tool, lists the tools through a real MCP client (in memory), and
prints `{tool name: annotations}` as JSON.

Usage: python3 fastmcp_hints.py DOCUMENT
"""

import asyncio
import json
import sys

import yaml
from fastmcp import Client, FastMCP
from mcp.types import ToolAnnotations

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def copy_hints(route, component):
    hints = route.extensions.get("x-speakeasy-mcp") or {}
    found = {k: hints[k] for k in HINTS if k in hints}
    if found:
        component.annotations = ToolAnnotations(**found)


async def main(path):
    with open(path, encoding="utf-8") as f:
        spec = yaml.safe_load(f)
    server = FastMCP.from_openapi(openapi_spec=spec, mcp_component_fn=copy_hints)
    async with Client(server) as client:
        tools = await client.list_tools()
    out = {
        t.name: (t.annotations.model_dump(by_alias=True, exclude_none=True) if t.annotations else {})
        for t in tools
    }
    print(json.dumps(out, sort_keys=True))


asyncio.run(main(sys.argv[1]))
