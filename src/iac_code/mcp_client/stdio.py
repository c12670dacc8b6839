"""A stdio MCP server run by us: its process, its pipes as the `ClientSession`'s streams, and a
bounded stop.

The `mcp` SDK's `stdio_client` gives a server 2 s after closing its stdin, then SIGTERM and 2 s
more: longer than the whole shutdown PROTOCOL.md allows ("Process lifetime": exit within 2 s).
So the process is ours, started in its own session (a new process group), and
`stop_server_process` closes its stdin, waits `STOP_GRACE` seconds, sends SIGTERM to the group,
waits `STOP_GRACE` again, then SIGKILL; what is left of the group after the server exits is
killed too, so no process of the server outlives it. Everything used from the SDK is public:
`get_default_environment`, the JSON-RPC message adapter and `SessionMessage`.

Framing is the MCP stdio transport's: one JSON-RPC message per line, UTF-8, both ways.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp_types
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

log = logging.getLogger(__name__)

STOP_GRACE = 0.3
"""Seconds a server gets to exit after its stdin closes, and again after SIGTERM, before SIGKILL."""
REAP_SECONDS = 0.3
"""Seconds to see a SIGKILLed server gone (only an unkillable process runs this out)."""
_POLL = 0.01
_PIPE_ERRORS = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError)


@contextlib.asynccontextmanager
async def stdio_server(command: str, args: list[str], env: dict[str, str] | None, cwd: Path,
                       errlog: TextIO) -> AsyncIterator[tuple[Any, Any]]:
    """Run `command args` in `cwd` (environment: the SDK's safe defaults plus `env`; stderr to
    `errlog`) and yield `(read, write)` memory streams for `ClientSession`: `read` gives
    `SessionMessage`s (or the exception a line failed to parse with), `write` takes them.

    On exit the server is stopped by `stop_server_process` (shielded, at most about
    2 * STOP_GRACE + REAP_SECONDS). Raises OSError when the command cannot be started.
    """
    process = await anyio.open_process([command, *args], env=get_default_environment() | (env or {}),
                                       stderr=errlog, cwd=cwd, start_new_session=True)
    to_session, read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_stdout() -> None:
        assert process.stdout is not None
        async with to_session:
            buffer = ""
            with contextlib.suppress(*_PIPE_ERRORS):
                async for chunk in TextReceiveStream(process.stdout, errors="replace"):
                    *lines, buffer = (buffer + chunk).split("\n")
                    for line in lines:
                        if line.strip():
                            await to_session.send(_parse(line))

    async def write_stdin() -> None:
        assert process.stdin is not None
        with contextlib.suppress(*_PIPE_ERRORS):
            async with from_session:
                async for message in from_session:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await process.stdin.send(data.encode("utf-8"))
        await to_session.aclose()  # the server cannot be written to: the session sees the end

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read_stdout)
            group.start_soon(write_stdin)
            try:
                yield read, write
            finally:
                with anyio.CancelScope(shield=True):
                    await stop_server_process(process)
                    for stream in (read, write, to_session, from_session):
                        await stream.aclose()
                group.cancel_scope.cancel()
    finally:
        if process.returncode is None:  # the task group failed before the stop above ran
            _signal_group(process.pid, signal.SIGKILL)


async def stop_server_process(process: Process) -> None:
    """Stop a server started by `stdio_server`: close its stdin, wait `STOP_GRACE`, SIGTERM its
    process group, wait `STOP_GRACE`, SIGKILL the group; then kill what is left of the group and
    close the pipes. Never raises; bounded (about 2 * STOP_GRACE + REAP_SECONDS)."""
    assert process.stdin is not None and process.stdout is not None
    with contextlib.suppress(*_PIPE_ERRORS):
        await process.stdin.aclose()
    if not await _exited(process, STOP_GRACE):
        _signal_group(process.pid, signal.SIGTERM)
        if not await _exited(process, STOP_GRACE):
            _signal_group(process.pid, signal.SIGKILL)
            if not await _exited(process, REAP_SECONDS):
                log.warning("MCP server process %d survived SIGKILL", process.pid)
    _signal_group(process.pid, signal.SIGKILL)  # children it left behind in its group
    with contextlib.suppress(*_PIPE_ERRORS), anyio.move_on_after(REAP_SECONDS):
        await process.aclose()  # its pipes and the event loop's transport


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


async def _exited(process: Process, timeout: float) -> bool:
    """Whether the process ended within `timeout` s (polled: `wait()` also waits for pipe EOF)."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(_POLL)
    return process.returncode is not None


def _parse(line: str) -> SessionMessage | Exception:
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        log.info("MCP server sent a line that is not JSON-RPC: %.200s", line)
        return exc
