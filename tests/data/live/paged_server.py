"""A stdio MCP server of a few lines, with no library, for tests/live_audit.rs: it answers
`initialize` and `tools/list`, the list in pages linked by `nextCursor`.

`python3 paged_server.py PAGES` serves PAGES pages of two tools each; the first tool of the
last page misspells `readOnlyHint`. `loop` hands back the same cursor forever; `hang`
never answers `initialize`; `exit` writes `AUDIT_SECRET` to stderr and exits at once.
With `AUDIT_PID_FILE` set it writes its process id there; with `AUDIT_STUBBORN` set it
does not exit when its stdin closes, so only a kill ends it.
"""

import json
import os
import signal
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "3"
if os.environ.get("AUDIT_PID_FILE"):
    with open(os.environ["AUDIT_PID_FILE"], "w") as f:
        f.write(str(os.getpid()))

if mode == "exit":
    print(f"cannot start: {os.environ.get('AUDIT_SECRET', '')}", file=sys.stderr, flush=True)
    sys.exit(3)


def page(n: int, pages: int) -> dict:
    last = n == pages - 1
    tools = [
        {
            "name": f"get_record_{n}",
            "description": "Get a record.",
            "inputSchema": {"type": "object"},
            "annotations": {"readonlyHint": True} if last else {"readOnlyHint": True},
        },
        {
            "name": f"delete_record_{n}",
            "description": "Delete a record.",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": False, "destructiveHint": True},
        },
    ]
    result = {"tools": tools}
    if not last:
        result["nextCursor"] = f"page-{n + 1}"
    return result


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        continue
    method = message["method"]
    if method == "initialize":
        if mode == "hang":
            continue
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "paged", "version": "1"},
        }
    elif method == "tools/list":
        cursor = (message.get("params") or {}).get("cursor")
        if mode == "loop":
            result = {"tools": [], "nextCursor": "again"}
        else:
            n = int(cursor.split("-")[1]) if cursor else 0
            result = page(n, int(mode))
    else:
        reply = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": method}}
        print(json.dumps(reply), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)

if os.environ.get("AUDIT_STUBBORN"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(600)
