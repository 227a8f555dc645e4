"""An MCP server of a few lines, with no library, for tests/live_audit.rs: it answers
`initialize` and `tools/list`, the list in pages linked by `nextCursor`.

`python3 paged_server.py PAGES` serves PAGES pages of two tools each on stdio; the first
tool of the last page misspells `readOnlyHint`. `loop` hands back the same cursor forever;
`hang` never answers `initialize`; `exit` writes `AUDIT_SECRET` to stderr and exits at
once. With `AUDIT_PID_FILE` set it writes its process id there; with `AUDIT_STUBBORN` set
it does not exit when its stdin closes, so only a kill ends it.

`python3 paged_server.py http-sse PAGES` and `http-json PAGES` serve the same pages over
streamable HTTP on 127.0.0.1, on a port the system picks (printed on a line of its own
once it listens), each answer an event stream or plain JSON.
"""

import json
import os
import signal
import sys
import time


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


def answer(message: dict, mode: str):
    """The response to a request, or None for a notification or a request left unanswered."""
    if "id" not in message or "method" not in message:
        return None
    method = message["method"]
    if method == "initialize":
        if mode == "hang":
            return None
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
        return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": method}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def stdio(mode: str) -> None:
    if os.environ.get("AUDIT_PID_FILE"):
        with open(os.environ["AUDIT_PID_FILE"], "w") as f:
            f.write(str(os.getpid()))
    if mode == "exit":
        print(f"cannot start: {os.environ.get('AUDIT_SECRET', '')}", file=sys.stderr, flush=True)
        sys.exit(3)
    for line in sys.stdin:
        reply = answer(json.loads(line), mode)
        if reply is not None:
            print(json.dumps(reply), flush=True)
    if os.environ.get("AUDIT_STUBBORN"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(600)


def http(events: bool, mode: str) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            reply = answer(json.loads(body), mode)
            if reply is None:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            # Pretty-printed, so an event's data spans several lines.
            text = json.dumps(reply, indent=1) if events else json.dumps(reply)
            if events:
                data = "".join(f"data: {line}\n" for line in text.split("\n"))
                payload = f"event: message\n{data}\n".encode()
                kind = "text/event-stream"
            else:
                payload = text.encode()
                kind = "application/json"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Mcp-Session-Id", "s1")
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self):
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_DELETE(self):
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    args = sys.argv[1:] or ["3"]
    if args[0] in ("http-sse", "http-json"):
        http(args[0] == "http-sse", args[1] if len(args) > 1 else "3")
    else:
        stdio(args[0])
