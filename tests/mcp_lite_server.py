"""tests/mcp_probe_server.py's stdio server in the standard library only, for the tests whose
subject is our MCP client, not the `mcp` SDK's server.

    python mcp_lite_server.py stdio       # over stdin/stdout
    python mcp_lite_server.py crash       # exits at once with an error on stderr
    python mcp_lite_server.py stubborn    # stdio, but ignores SIGTERM, outlives its stdin and has
                                          # a child (`sleep`) in its process group

The probe imports the SDK (~1.5 s of CPU per start, most of it building `mcp_types`' pydantic
models); this one starts in ~0.05 s. It answers as the probe does, message for message: the same
`initialize` answer, the same `tools/list` (names, schemas, annotations), the same tool results
(`isError`, content, structured content), the same `calls.log` and `pids.log`;
tests/test_mcp.py's `test_the_lite_server_answers_as_the_probe_does` drives both with the same
messages and compares every answer. Tools run one at a time in the order they are asked, except
`slow`, which runs beside the others (as the SDK's server runs every request in its own task).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

LATEST = "2025-11-25"
KNOWN_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", LATEST)
_out = threading.Lock()


def _schema(tool: str, suffix: str, props: dict[str, str]) -> dict[str, Any]:
    schema: dict[str, Any] = {"properties": {name: {"title": title, "type": "string"} for name, title in props.items()}}
    if props:
        schema["required"] = list(props)
    return {**schema, "type": "object", "title": f"{tool}{suffix}"}


def _tool(name: str, description: str, annotations: dict[str, bool] | None, args: dict[str, str], output: bool = True) -> dict[str, Any]:
    """A tool as the SDK's server lists it: `args` are its string arguments' names and titles."""
    tool: dict[str, Any] = {"description": description, "inputSchema": _schema(name, "Arguments", args), "name": name}
    if annotations is not None:
        tool["annotations"] = annotations
    if output:  # the SDK's server derives an output schema from a `-> str` tool
        tool["outputSchema"] = _schema(name, "Output", {"result": "Result"})
    return tool


READ_ONLY = {"readOnlyHint": True}
TOOLS = [
    _tool("echo", "Return `text` unchanged.", READ_ONLY, {"text": "Text"}),
    _tool("write_note", "Write a note to notes/<name>.txt.", {"destructiveHint": True, "readOnlyHint": False}, {"name": "Name", "text": "Text"}),
    _tool("fail", "Always fails with `reason`.", READ_ONLY, {"reason": "Reason"}),
    _tool("picture", "A caption, a 1x1 PNG and a link to the full picture.", READ_ONLY, {}, output=False),
    _tool("slow", "Takes a minute.", READ_ONLY, {}),
    _tool("crash", "The server process dies during this call.", None, {}),
]
INITIALIZED = {
    "capabilities": {"prompts": {"listChanged": False}, "resources": {"listChanged": False, "subscribe": False}, "tools": {"listChanged": False}},
    "serverInfo": {"name": "probe", "version": "1.0"},
}


def _send(message: dict[str, Any]) -> None:
    with _out:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}, separators=(",", ":")) + "\n")
        sys.stdout.flush()


def _log_call(name: str) -> None:
    with open("calls.log", "a", encoding="utf-8") as log:
        log.write(name + "\n")


def _text(text: str, structured: bool = True) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"text": text, "type": "text"}], "isError": False}
    if structured:
        result["structuredContent"] = {"result": text}
    return result


def _call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    _log_call(name)
    if name == "echo":
        return _text(f"echo: {args['text']}")
    if name == "write_note":
        Path("notes").mkdir(exist_ok=True)
        Path("notes", f"{args['name']}.txt").write_text(args["text"], encoding="utf-8")
        return _text(f"wrote notes/{args['name']}.txt")
    if name == "fail":
        return {"content": [{"text": f"Error executing tool fail: probe refused: {args['reason']}", "type": "text"}], "isError": True}
    if name == "picture":
        return {"content": [
            {"text": "a red dot", "type": "text"},
            {"data": "iVBORw0KGgo=", "mimeType": "image/png", "type": "image"},
            {"name": "dot.png", "type": "resource_link", "uri": "file:///pictures/dot.png"},
        ], "isError": False}
    if name == "slow":
        time.sleep(60)
        return _text("done")
    print("probe: crashing on purpose", file=sys.stderr, flush=True)  # crash
    os._exit(3)


def _answer_call(ident: Any, params: dict[str, Any]) -> None:
    _send({"id": ident, "result": _call(params["name"], params.get("arguments") or {})})


def serve() -> None:
    """Answer requests on stdin until it closes."""
    names = {tool["name"] for tool in TOOLS}
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        method, ident, params = message.get("method"), message.get("id"), message.get("params") or {}
        if ident is None:  # a notification (initialized, cancelled): nothing to answer
            continue
        if method == "initialize":
            asked = params.get("protocolVersion")
            _send({"id": ident, "result": {**INITIALIZED, "protocolVersion": asked if asked in KNOWN_VERSIONS else LATEST}})
        elif method == "ping":
            _send({"id": ident, "result": {}})
        elif method == "tools/list":
            _send({"id": ident, "result": {"tools": TOOLS}})
        elif method == "tools/call" and params.get("name") in names:
            if params["name"] == "slow":
                threading.Thread(target=_answer_call, args=(ident, params), daemon=True).start()
            else:
                _answer_call(ident, params)
        else:
            _send({"id": ident, "error": {"code": -32601, "message": f"Method not found: {method}"}})


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    with open("pids.log", "a", encoding="utf-8") as pids:
        pids.write(f"{os.getpid()}\n")
    if mode == "crash":
        print("probe: cannot start: missing PROBE_TOKEN", file=sys.stderr, flush=True)
        sys.exit(2)
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        with open("pids.log", "a", encoding="utf-8") as pids:
            pids.write(f"{child.pid}\n")
        serve()
        time.sleep(300)
    else:
        serve()
