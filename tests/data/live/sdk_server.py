"""An MCP server written with the Python SDK (`mcp` 2.x), for tests/live_audit.rs.

`python sdk_server.py stdio` serves on stdin/stdout. `python sdk_server.py http` serves
streamable HTTP on 127.0.0.1, on a port the system picks, and prints that port on a line of
its own once it listens; every request must carry `Authorization: Bearer $AUDIT_TOKEN`.
At start it writes `AUDIT_SECRET` (if set) to stderr, so a test can check that what a
server writes there never reaches audit's output.
"""

import os
import socket
import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("audit-fixture")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def list_notes(folder: str) -> str:
    """List the notes in a folder."""
    return folder


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def delete_note(note_id: str) -> str:
    """Delete a note permanently."""
    return note_id


@server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
def remove_folder(folder_id: str) -> str:
    """Remove a folder and every note in it."""
    return folder_id


@server.tool()
def create_note(title: str, body: str) -> str:
    """Create a note."""
    return title


def http() -> None:
    import uvicorn

    token = os.environ["AUDIT_TOKEN"]
    app = server.streamable_http_app()

    async def guarded(scope, receive, send):
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization", b"").decode() != f"Bearer {token}":
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"no"})
                return
        await app(scope, receive, send)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    # Listening before the port is printed: a client that connects before uvicorn serves
    # waits in the backlog instead of being refused (a loaded machine showed the race).
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(guarded, log_level="warning", lifespan="on")
    userver = uvicorn.Server(config)
    print(port, flush=True)
    userver.run(sockets=[sock])


if __name__ == "__main__":
    secret = os.environ.get("AUDIT_SECRET")
    if secret:
        print(f"starting with {secret}", file=sys.stderr, flush=True)
    if sys.argv[1:] == ["http"]:
        http()
    else:
        server.run("stdio")
