"""One live connection to an MCP server, owned by one task from start to stop.

The MCP SDK ties its cancel scopes to the task that entered them, so a connection has one owner
task that enters the transport and the `ClientSession`, lists the tools, then waits until it is
told to stop or the server goes away, and exits both. Calls (`call_tool`) come from other tasks
and use the session meanwhile. Between the transport and the session a relay forwards the
server's messages and notices the end of the stream: that is how a server that dies between
calls is found at once, not at its next call.

States: `connecting` -> `connected` -> `stopped` (by `stop`) or `failed` (did not start, or died;
`reason` says why). A stdio server's stderr goes to a temporary file; its last lines complete
the reason when the server fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, Implementation, PaginatedRequestParams, Tool

from iac_code.mcp_client.servers import McpServerSpec
from iac_code.mcp_client.stdio import stdio_server

log = logging.getLogger(__name__)

Status = Literal["connecting", "connected", "failed", "stopped"]
STOP_TIMEOUT = 5.0
"""Seconds `stop` waits for the owner task before cancelling it. A stdio server is stopped within
about 1 s (`mcp/stdio.py`: stdin closed, SIGTERM then SIGKILL to its process group), shielded;
an HTTP connection's close is what this bounds."""
STDERR_TAIL = 3


class McpCallError(Exception):
    """A tool call that got no result: the server is gone, timed out or refused the request."""


def describe_exception(exc: BaseException) -> str:
    """A one-line reason from an exception, looking inside the SDK's nested exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return exc.message
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    if isinstance(exc, httpx2.HTTPError):
        return f"{type(exc).__name__}: {exc}"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class McpConnection:
    """The connection to the server `spec` for a session rooted at `cwd` (see the module docstring)."""

    def __init__(self, spec: McpServerSpec, cwd: Path, call_timeout: float) -> None:
        self.spec = spec
        self.cwd = cwd
        self.call_timeout = call_timeout
        self.status: Status = "connecting"
        self.reason: str | None = None
        self.tools: list[Tool] = []
        self.on_lost: Callable[[McpConnection], Awaitable[None]] | None = None
        """Called once when a connected server goes away by itself (not after `stop`)."""
        self._session: ClientSession | None = None
        self._owner: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._wake = asyncio.Event()
        self._stopping = False
        self._stderr: Any = None

    # ----- lifecycle -----

    async def start(self, timeout: float) -> None:
        """Connect, initialize and list the tools within `timeout` seconds; never raises.

        Afterwards `status` is `connected` (with `tools`) or `failed` (with `reason`).
        """
        self._owner = asyncio.create_task(self._own(), name=f"mcp:{self.spec.name}")
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            self._fail(f"no answer within {timeout:g} s")
            await self.stop()
            self.status = "failed"

    async def stop(self) -> None:
        """Disconnect (a stdio server's process group is stopped); safe to call more than once."""
        self._stopping = True
        self._wake.set()
        owner = self._owner
        if owner is not None and not owner.done():
            if not self._ready.is_set():  # still connecting: nothing to wind down politely
                owner.cancel()
            done, _ = await asyncio.wait([owner], timeout=STOP_TIMEOUT)
            if not done:
                owner.cancel()
                await asyncio.wait([owner], timeout=STOP_TIMEOUT)
        if self.status in ("connecting", "connected"):
            self.status = "stopped"
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _fail(self, reason: str) -> None:
        if self.status in ("connecting", "connected"):
            self.status = "failed"
            self.reason = reason + self._stderr_tail()

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0)
            lines = [" ".join(line.split()) for line in self._stderr.read().splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        tail = lines[-STDERR_TAIL:]
        return (" (stderr: " + " | ".join(tail) + ")") if tail else ""

    # ----- the owner task -----

    @contextlib.asynccontextmanager
    async def _transport(self) -> AsyncIterator[tuple[Any, Any]]:
        spec = self.spec
        if spec.transport == "stdio":
            self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
            async with stdio_server(spec.command, list(spec.args), spec.env or None, self.cwd, self._stderr) as streams:
                yield streams
        elif spec.transport == "http":
            client = httpx2.AsyncClient(headers=spec.headers, timeout=httpx2.Timeout(30.0, read=300.0))
            async with client, streamable_http_client(spec.url, http_client=client) as streams:
                yield streams
        else:
            async with sse_client(spec.url, headers=spec.headers or None) as streams:
                yield streams

    async def _relay(self, source: Any, sink: Any) -> None:
        """Forward the server's messages to the session; the end of the stream means it is gone."""
        async with sink:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                async for item in source:
                    await sink.send(item)
            if not self._stopping:  # before the session sees the end: a pending call then names the reason
                self._fail("the server closed the connection")
        self._wake.set()

    async def _own(self) -> None:
        try:
            async with self._transport() as (read, write):
                sink, relayed = anyio.create_memory_object_stream[Any](0)
                async with anyio.create_task_group() as group:
                    group.start_soon(self._relay, read, sink)
                    async with ClientSession(
                        relayed,
                        write,
                        read_timeout_seconds=self.call_timeout,
                        client_info=Implementation(name="iac-code", version="0"),
                    ) as session:
                        await session.initialize()
                        self.tools = await self._list_tools(session)
                        self._session = session
                        if self.status == "connecting":
                            self.status = "connected"
                        self._ready.set()
                        await self._wake.wait()
                        self._session = None
                    group.cancel_scope.cancel()
        except asyncio.CancelledError:
            if not self._stopping:
                self._fail("cancelled")
        except BaseException as exc:  # noqa: BLE001 - any failure of the server is its reason
            if not self._stopping:
                self._fail(describe_exception(exc))
                log.info("MCP server %s: %s", self.spec.name, describe_exception(exc), exc_info=True)
        finally:
            self._session = None
            lost = self.status == "failed" and self._ready.is_set()
            if not self._stopping and self.status in ("connecting", "connected"):
                self._fail("the server closed the connection")
                lost = True
            self._ready.set()
            if lost and self.on_lost is not None:
                with contextlib.suppress(Exception):
                    await self.on_lost(self)

    @staticmethod
    async def _list_tools(session: ClientSession) -> list[Tool]:
        tools: list[Tool] = []
        cursor: str | None = None
        while True:
            params = PaginatedRequestParams(cursor=cursor) if cursor is not None else None
            page = await session.list_tools(params=params)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools

    # ----- calls -----

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call the server's tool `name`; its own failures come back as `is_error` results.

        Raises `McpCallError` when there is no result: the server is not connected, went away
        during the call, timed out (`call_timeout`), or answered with a JSON-RPC error.
        """
        session = self._session
        if session is None or self.status != "connected":
            raise McpCallError(f"MCP server {self.spec.name!r} is not connected" + (f": {self.reason}" if self.reason else ""))
        try:
            return await session.call_tool(name, arguments, read_timeout_seconds=self.call_timeout)
        except MCPError as exc:
            if self.status == "failed":
                raise McpCallError(f"MCP server {self.spec.name!r} stopped during the call: {self.reason}") from None
            raise McpCallError(f"MCP server {self.spec.name!r} failed the call: {exc.message}") from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
            raise McpCallError(f"MCP server {self.spec.name!r} stopped during the call: {describe_exception(exc)}") from None
