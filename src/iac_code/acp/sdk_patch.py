"""The one place that reaches into private parts of the `acp` SDK (agent-client-protocol 0.12.x).

The SDK's Streamable HTTP server (`acp.http.server.AcpServer`) builds each connection's
`AgentSideConnection` itself, straight on an in-memory transport and without the unstable session
methods, and offers no hook to change that. We need both: the agent side of every HTTP connection
gets the same wire layer as stdio (`WireTransport`) and the unstable methods (`session/close`,
`session/fork`, `session/resume`), and closing a connection shuts its agent down first.

So `WireConnection` re-implements `ConnectionState.__init__` (setting the same attributes) and
`wire_server` swaps the server's registry. `tests/unit/test_sdk_patch.py` compares these with
the installed SDK and fails, naming what changed, when an SDK release moves them: that is the
moment to re-read this module before lifting the `<0.13` pin in pyproject.toml.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any, Protocol

from acp import Agent, Client
from acp._transport import memory_transport_pair
from acp.agent.connection import AgentSideConnection
from acp.http.server import (
    AcpServer,
    ConnectionRegistry,
    ConnectionState,
    OutboundStream,
)

from iac_code.acp.transport import WireTransport

PUMP_DRAIN_SECONDS = 0.5

class StoppableAgent(Agent, Protocol):
    """An ACP agent that a closing connection shuts down first (`IacAgent`)."""

    async def shutdown(self) -> None:
        """End everything the agent runs; a second call does nothing."""


AgentMaker = Callable[[Client], StoppableAgent]
"""Called with the connection's `AgentSideConnection` (the client's side); returns its agent."""


class WireConnection(ConnectionState):
    """The SDK's per-connection state with our agent side (see the module docstring)."""

    def __init__(self, connection_id: str, make_agent: AgentMaker, *, multiplex: bool = False) -> None:
        # the attributes of ConnectionState.__init__ (agent-client-protocol 0.12.1), checked by the test
        self.connection_id = connection_id
        server_side, pump_side = memory_transport_pair()
        self._pump_side = pump_side
        agents: list[StoppableAgent] = []

        def build(conn: Client) -> StoppableAgent:
            agents.append(make_agent(conn))
            return agents[0]

        self._agent_transport = WireTransport(server_side)
        self._agent_conn = AgentSideConnection(build, self._agent_transport, listening=True, use_unstable_protocol=True)
        self.agent = agents[0]
        self.connection_stream = OutboundStream()
        self.session_streams: dict[str, OutboundStream] = {}
        self._multiplex = OutboundStream() if multiplex else None
        self._pending_routes: dict[str, str] = {}
        self._response_waiters: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._pump_task = None

    async def close(self) -> None:
        """Shut the agent down (turns cancelled, sessions closed) while its streams are open, then close.

        The SDK's own close cancels the pump task and waits for it; in 0.12.1 a cancel that lands
        while the pump routes a message is swallowed (`OutboundStream.push` suppresses
        CancelledError), and that wait never ends. So the pump is ended first by closing its input:
        it routes what the agent sent, then stops by itself.
        """
        try:
            await self.agent.shutdown()
        finally:
            await self._agent_transport.close()
            if self._pump_task is not None:
                done, _ = await asyncio.wait({self._pump_task}, timeout=PUMP_DRAIN_SECONDS)
                if not done:  # a client that stopped reading: drop what it did not take
                    for stream in (self.connection_stream, *self.session_streams.values(), self._multiplex):
                        if stream is not None:
                            stream.close()
                    await asyncio.wait({self._pump_task}, timeout=PUMP_DRAIN_SECONDS)
            await super().close()


class WireRegistry(ConnectionRegistry):
    """A connection registry that makes `WireConnection`s."""

    def _add(self, make_agent: AgentMaker, multiplex: bool) -> ConnectionState:
        state = WireConnection(uuid.uuid4().hex, make_agent, multiplex=multiplex)
        state.start()
        self._connections[state.connection_id] = state
        return state

    def create(self, agent_factory: AgentMaker) -> ConnectionState:  # type: ignore[override]  # its agents stop
        """A new HTTP connection (one per `initialize`)."""
        return self._add(agent_factory, multiplex=False)

    def create_multiplex(self, agent_factory: AgentMaker) -> ConnectionState:  # type: ignore[override]  # its agents stop
        """A new WebSocket connection."""
        return self._add(agent_factory, multiplex=True)

    def ids(self) -> list[str]:
        """The ids of the open connections."""
        return list(self._connections)

    def agents(self) -> list[StoppableAgent]:
        """The agents of the open connections."""
        return [s.agent for s in self._connections.values() if isinstance(s, WireConnection)]


def wire_server(make_agent: AgentMaker) -> tuple[AcpServer, WireRegistry]:
    """The SDK's `AcpServer` whose connections are `WireConnection`s, and its registry."""
    server = AcpServer(make_agent)
    registry = WireRegistry()
    server._registry = registry
    return server, registry
