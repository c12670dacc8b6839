"""ACP over HTTP: `iac-code acp --http [HOST:]PORT`, the SDK's Streamable HTTP transport under uvicorn.

The SDK's `acp.http` server does the HTTP side (POST per message, SSE streams back, one
connection per `initialize`). Two things are added here:

- each connection's agent side gets the same wire layer as stdio (`WireTransport`: legacy method
  names, unknown notifications, field-naming -32602) and the session methods ACP still marks
  unstable (`session/close`, `session/fork`, `session/resume`);
- with `IAC_CODE_HTTP_TOKEN` set, every request must carry `Authorization: Bearer <token>`
  (else 401); without it the server only listens on loopback addresses.

Each HTTP connection gets its own `IacAgent`; sessions are shared through the session store.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import uuid
from collections.abc import Callable
from typing import Any

from acp._transport import memory_transport_pair
from acp.agent.connection import AgentSideConnection
from acp.http.asgi import AcpAsgiApp
from acp.http.server import AcpServer, AgentFactory, ConnectionRegistry, ConnectionState, OutboundStream

from iac_code.acp.server import IacAgent
from iac_code.acp.transport import WireTransport
from iac_code.config import Settings

log = logging.getLogger(__name__)


class _WireConnection(ConnectionState):
    """The SDK's per-connection state, with the agent side built on `WireTransport`."""

    def __init__(self, connection_id: str, agent_factory: AgentFactory, *, multiplex: bool = False) -> None:
        # Same fields as ConnectionState.__init__ (agent-client-protocol 0.12); only the
        # AgentSideConnection differs: wrapped transport and the unstable session methods.
        self.connection_id = connection_id
        server_side, pump_side = memory_transport_pair()
        self._pump_side = pump_side
        self._agent_conn = AgentSideConnection(
            agent_factory, WireTransport(server_side), listening=True, use_unstable_protocol=True
        )
        self.connection_stream = OutboundStream()
        self.session_streams: dict[str, OutboundStream] = {}
        self._multiplex = OutboundStream() if multiplex else None
        self._pending_routes: dict[str, str] = {}
        self._response_waiters: dict[str, Any] = {}
        self._pump_task = None


class _WireRegistry(ConnectionRegistry):
    """A connection registry that makes `_WireConnection`s."""

    def _add(self, agent_factory: AgentFactory, multiplex: bool) -> ConnectionState:
        state = _WireConnection(uuid.uuid4().hex, agent_factory, multiplex=multiplex)
        state.start()
        self._connections[state.connection_id] = state
        return state

    def create(self, agent_factory: AgentFactory) -> ConnectionState:
        return self._add(agent_factory, multiplex=False)

    def create_multiplex(self, agent_factory: AgentFactory) -> ConnectionState:
        return self._add(agent_factory, multiplex=True)


class BearerAuth:
    """ASGI middleware: 401 unless `Authorization: Bearer <token>` (WebSockets are closed with 1008)."""

    def __init__(self, app: Callable[..., Any], token: str) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope["type"] in ("http", "websocket"):
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})
                    return
                await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": b'{"error":"Unauthorized"}'})
                return
        await self._app(scope, receive, send)


def create_app(settings: Settings, token: str | None = None) -> Callable[..., Any]:
    """The ASGI application serving ACP at its root path."""
    server = AcpServer(lambda conn: IacAgent(settings))
    server._registry = _WireRegistry()  # noqa: SLF001 - the SDK offers no hook for the agent side's transport
    app: Callable[..., Any] = AcpAsgiApp(server)
    return BearerAuth(app, token) if token else app


def parse_address(value: str) -> tuple[str, int]:
    """`PORT` or `HOST:PORT` -> (host, port); the host defaults to 127.0.0.1. Raises ValueError."""
    host, _, port = value.rpartition(":")
    return (host.strip("[]") or "127.0.0.1"), int(port)


def is_loopback(host: str) -> bool:
    """Whether `host` is a loopback address or `localhost`."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve_http(settings: Settings, address: str, token: str | None) -> None:
    """Serve ACP over HTTP at `address` until interrupted.

    Raises ValueError for a malformed address, or a non-loopback address without a token.
    """
    import uvicorn

    host, port = parse_address(address)
    if not token and not is_loopback(host):
        raise ValueError(f"refusing to serve on {host} without IAC_CODE_HTTP_TOKEN: anyone could run commands")
    log.info("serving ACP over HTTP on http://%s:%d/", host, port)
    uvicorn.run(create_app(settings, token), host=host, port=port, log_level="warning", lifespan="on")
