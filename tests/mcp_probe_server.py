"""A real MCP server for the tests, on the `mcp` SDK's MCPServer (FastMCP in SDK 1.x).

    python mcp_probe_server.py stdio              # over stdin/stdout
    python mcp_probe_server.py http PORTFILE      # Streamable HTTP (`/mcp`) on 127.0.0.1, a free
                                                  # port (written to PORTFILE once it listens)
    python mcp_probe_server.py sse PORTFILE       # the older HTTP+SSE transport (`/sse`)

Tools: `echo` (read-only: returns its text), `write_note` (writes `notes/<name>.txt` under the
server's working directory), `fail` (a tool error: `isError`), `picture` (text, an image and a
resource link), `crash` (the process exits in the middle of the call), `slow` (read-only, takes
a minute). Every call is appended to `calls.log` in the working directory, so tests can tell
whether a tool really ran; each server process appends its pid to `pids.log` as it starts.

Over stdio most tests run tests/mcp_lite_server.py instead, its stand-in in the standard library
(with the `crash` and `stubborn` modes): importing the SDK is ~1.5 s of CPU per start, done here
with the garbage collector off (its passes over the SDK's new models find nothing to free: ~15%
less), which changes nothing the server does.
"""

from __future__ import annotations

import gc
import os
import socket
import sys
from pathlib import Path

gc.disable()
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402
from mcp.types import ImageContent, ResourceLink, TextContent, ToolAnnotations  # noqa: E402

gc.enable()
gc.freeze()

server = MCPServer("probe", version="1.0")


def _log_call(name: str) -> None:
    with open("calls.log", "a", encoding="utf-8") as log:
        log.write(name + "\n")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Return `text` unchanged."""
    _log_call("echo")
    return f"echo: {text}"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def write_note(name: str, text: str) -> str:
    """Write a note to notes/<name>.txt."""
    _log_call("write_note")
    Path("notes").mkdir(exist_ok=True)
    Path("notes", f"{name}.txt").write_text(text, encoding="utf-8")
    return f"wrote notes/{name}.txt"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def fail(reason: str) -> str:
    """Always fails with `reason`."""
    _log_call("fail")
    raise ToolError(f"probe refused: {reason}")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def picture() -> list:
    """A caption, a 1x1 PNG and a link to the full picture."""
    _log_call("picture")
    return [
        TextContent(type="text", text="a red dot"),
        ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png"),
        ResourceLink(type="resource_link", name="dot.png", uri="file:///pictures/dot.png"),
    ]


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def slow() -> str:
    """Takes a minute."""
    import anyio

    _log_call("slow")
    await anyio.sleep(60)
    return "done"


@server.tool()
def crash() -> str:
    """The server process dies during this call."""
    _log_call("crash")
    print("probe: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


def serve_http(port_file: str, transport: str) -> None:
    import anyio
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    app = server.streamable_http_app() if transport == "http" else server.sse_app()
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    userver = uvicorn.Server(config)

    async def main() -> None:
        async def announce() -> None:
            while not userver.started:
                await anyio.sleep(0.02)
            Path(port_file).write_text(str(sock.getsockname()[1]), encoding="utf-8")

        async with anyio.create_task_group() as group:
            group.start_soon(announce)
            await userver.serve(sockets=[sock])

    anyio.run(main)


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    with open("pids.log", "a", encoding="utf-8") as pids:
        pids.write(f"{os.getpid()}\n")
    if mode in ("http", "sse"):
        serve_http(sys.argv[2], mode)
    else:
        server.run("stdio")
