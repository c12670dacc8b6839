"""The MCP servers of one session: connected together at its start, stopped at its end.

`McpHub.start` connects every server concurrently, each within the connect timeout. A server
that fails, or that goes away later, never fails the session: the person is told through
`report` (a plain sentence; the ACP adapter sends it as an `agent_message_chunk`), the log
records it, and its tools are no longer offered. `on_status` receives every server's state after
each change (for clients that show it). `close` stops every server (a stdio server's whole
process group) and is safe to call more than once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from iac_code.mcp_client.servers import McpServerSpec
from iac_code.tools.base import Tool

if TYPE_CHECKING:  # the `mcp` SDK (about 0.5 s to import) loads when a session has servers
    from iac_code.mcp_client.connection import McpConnection

log = logging.getLogger(__name__)

Reporter = Callable[[str], Awaitable[None]]
"""Tells the person something about a server, in one sentence of Markdown."""


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """One server as a client may show it: `status` is connecting/connected/failed/stopped."""

    name: str
    transport: str
    status: str
    reason: str | None
    tools: int


StatusListener = Callable[[list[ServerStatus]], Awaitable[None]]


class McpHub:
    """A session's MCP servers (see the module docstring)."""

    def __init__(self, cwd: Path, connect_timeout: float = 30.0, call_timeout: float = 600.0) -> None:
        self.cwd = cwd
        self.connect_timeout = connect_timeout
        self.call_timeout = call_timeout
        self.report: Reporter | None = None
        self.on_status: StatusListener | None = None
        self._connections: list[McpConnection] = []
        self._closed = False

    async def start(self, specs: Iterable[McpServerSpec], problems: Iterable[str] = ()) -> None:
        """Connect every server in `specs` concurrently; report `problems` (unusable entries) and failures.

        Never raises. A server named like one already started is reported and skipped.
        """
        for problem in problems:
            log.warning("MCP configuration: %s", problem)
            await self._say(f"MCP server configuration ignored: {problem}.")
        from iac_code.mcp_client.connection import McpConnection

        fresh: list[McpConnection] = []
        names = {c.spec.name for c in self._connections}
        for spec in specs:
            if spec.name in names:
                await self._say(f"MCP server `{spec.name}` is configured twice; the second one is ignored.")
                continue
            names.add(spec.name)
            conn = McpConnection(spec, self.cwd, self.call_timeout)
            conn.on_lost = self._lost
            fresh.append(conn)
        if not fresh or self._closed:
            return
        self._connections.extend(fresh)
        await self._publish()
        await asyncio.gather(*(c.start(self.connect_timeout) for c in fresh))
        if self._closed:
            return
        for conn in fresh:
            if conn.status == "connected":
                log.info("MCP server %s connected (%s): %d tools", conn.spec.name, conn.spec.describe(), len(conn.tools))
            else:
                log.warning("MCP server %s failed to start (%s): %s", conn.spec.name, conn.spec.describe(), conn.reason)
                await self._say(
                    f"MCP server `{conn.spec.name}` failed to start: {conn.reason}. "
                    "Its tools are not available in this session."
                )
        await self._publish()

    async def _lost(self, conn: McpConnection) -> None:
        if self._closed:
            return
        log.warning("MCP server %s stopped: %s", conn.spec.name, conn.reason)
        await self._say(f"MCP server `{conn.spec.name}` stopped: {conn.reason}. Its tools are no longer available.")
        await self._publish()

    async def _say(self, text: str) -> None:
        if self.report is not None:
            try:
                await self.report(text)
            except Exception:  # the client may be gone; the log has it
                log.debug("could not report an MCP server event", exc_info=True)

    async def _publish(self) -> None:
        if self.on_status is not None:
            try:
                await self.on_status(self.statuses())
            except Exception:
                log.debug("could not publish MCP server status", exc_info=True)

    def statuses(self) -> list[ServerStatus]:
        """Every server's current state, in configuration order."""
        return [
            ServerStatus(c.spec.name, c.spec.transport, c.status, c.reason, len(c.tools) if c.status == "connected" else 0)
            for c in self._connections
        ]

    def tools(self) -> list[Tool]:
        """The tools of the connected servers, as agent tools (a name taken twice keeps the first)."""
        out: list[Tool] = []
        seen: set[str] = set()
        if not self._connections:
            return out
        from iac_code.mcp_client.tool import McpTool

        for conn in self._connections:
            if conn.status != "connected":
                continue
            for info in conn.tools:
                tool = McpTool(conn, info)
                if tool.name in seen:
                    log.warning("MCP tool %s of %s hides another tool of the same name", info.name, conn.spec.name)
                    continue
                seen.add(tool.name)
                out.append(tool)
        return out

    async def close(self) -> None:
        """Stop every server, concurrently; their tools are gone afterwards."""
        self._closed = True
        connections, self._connections = self._connections, []
        if connections:
            started = time.monotonic()
            await asyncio.gather(*(c.stop() for c in connections), return_exceptions=True)
            log.info("stopped %d MCP server(s) in %.2f s", len(connections), time.monotonic() - started)
