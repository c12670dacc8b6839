"""ACP over HTTP: `iac-code acp --http [HOST:]PORT`, the SDK's Streamable HTTP transport under uvicorn.

The SDK's `AcpServer` does the protocol side (POST per message, SSE streams back, one connection
per `initialize`); each connection's agent side is ours (`acp/sdk_patch.py`). `HttpApp` is the
ASGI front door and adds what a server on a socket needs (PROTOCOL.md, Errors and Process lifetime):

- who may call: with `IAC_CODE_HTTP_TOKEN`, every request carries `Authorization: Bearer <token>`
  (the scheme in any case; else 401). Without a token the server listens only on loopback, and a
  request whose `Host` is not a loopback name, or whose `Origin` is present and not the same
  origin, gets 403: a web page must not reach it through DNS rebinding;
- POST bodies: over `Settings.max_message_bytes` get 413 (read and dropped, never held whole);
  invalid JSON, invalid UTF-8 or nesting too deep get 400, with no traceback; an object that is
  not a JSON-RPC 2.0 message gets 400 with its -32600 error as the body;
- idle connections (no request for `Settings.http_idle_timeout` seconds and no open event
  stream) are closed and their agents shut down, so abandoned connections do not accumulate;
- SIGTERM, SIGINT, SIGHUP: every agent shuts down and every event stream ends, then uvicorn stops.

GET (event streams), DELETE and WebSocket requests go to the SDK's own ASGI adapter.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

from acp.http.asgi import AcpAsgiApp
from acp.http.protocol import CONNECTION_ID_HEADER, SESSION_ID_HEADER

from iac_code.acp.lifetime import let_cleanups_finish, shutdown_signals
from iac_code.acp.sdk_patch import wire_server
from iac_code.acp.server import IacAgent
from iac_code.acp.transport import (
    ParseError,
    error_reply,
    invalid_request,
    is_valid_id,
    parse_message,
)
from iac_code.config import Settings

log = logging.getLogger(__name__)

ASGI = Callable[..., Any]
CLOSE_SECONDS = 1.6
"""How long a shutdown signal waits for the connections to close before uvicorn stops anyway."""


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address, without port) is a loopback address or `localhost`."""
    host = host.strip("[]").lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _host_name(host_header: str) -> str:
    """The host of a `Host` header value, without its port (`[::1]:8080` -> `::1`); "" if malformed."""
    try:
        return urlsplit(f"//{host_header}").hostname or ""
    except ValueError:
        return ""


def refusal(scope: dict[str, Any], token: str | None) -> tuple[int, str] | None:
    """Why a request may not be served: (HTTP status, reason), or None when it may."""
    if token:
        scheme, _, given = (_header(scope, b"authorization") or "").strip().partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
            return 401, "Unauthorized"
        return None
    host = _header(scope, b"host")
    if host is None or not is_loopback(_host_name(host)):
        return 403, "Host not allowed: without IAC_CODE_HTTP_TOKEN only loopback host names are served"
    origin = _header(scope, b"origin")
    if origin is not None:
        try:
            parts = urlsplit(origin)
        except ValueError:
            parts = urlsplit("")
        if parts.scheme not in ("http", "ws") or parts.netloc.lower() != host.lower():
            return 403, "Origin not allowed: only same-origin requests are served"
    return None


async def _send_json(send: ASGI, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
    payload = json.dumps(body).encode() if body is not None else b""
    raw = [(b"content-type", b"application/json")]
    raw += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": payload})


class BodyTooLarge(Exception):
    """A request body over the limit (already read to its end and dropped)."""


async def read_body(receive: ASGI, limit: int, declared: int | None) -> bytearray:
    """The request body, at most `limit` bytes. Raises `BodyTooLarge` after draining a longer one."""
    body = bytearray()
    too_large = declared is not None and declared > limit
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        if not too_large and len(body) + len(chunk) > limit:
            too_large, body = True, bytearray()
        if not too_large:
            body += chunk
        if not message.get("more_body", False):
            break
    if too_large:
        raise BodyTooLarge
    return body


class HttpApp:
    """The ASGI application serving ACP (see the module docstring)."""

    def __init__(self, settings: Settings, token: str | None = None) -> None:
        self.server, self._registry = wire_server(lambda conn: IacAgent(settings))
        self._sdk_app = AcpAsgiApp(self.server)
        self._token = token
        self._limit = settings.max_message_bytes
        self._idle = settings.http_idle_timeout
        self._last_request: dict[str, float] = {}
        self._streams: Counter[str] = Counter()
        self._reaper: asyncio.Task[None] | None = None
        self._closed = False

    async def __call__(self, scope: dict[str, Any], receive: ASGI, send: ASGI) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self._lifespan(receive, send)
            return
        if kind not in ("http", "websocket"):
            return
        refused = refusal(scope, self._token)
        if refused is not None:
            log.warning("refused a request (%d %s)", *refused)
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await _send_json(send, refused[0], {"error": refused[1]})
            return
        self._start_reaper()
        connection_id = _header(scope, CONNECTION_ID_HEADER.lower().encode())
        if connection_id in self._last_request:
            self._last_request[connection_id] = time.monotonic()
        if kind == "http" and scope["method"] == "POST":
            await self._post(scope, receive, send, connection_id)
        elif kind == "http" and scope["method"] == "GET" and connection_id:
            self._streams[connection_id] += 1
            try:
                await self._sdk_app(scope, receive, send)
            finally:
                self._streams[connection_id] -= 1
                if connection_id in self._last_request:
                    self._last_request[connection_id] = time.monotonic()
        else:
            await self._sdk_app(scope, receive, send)

    async def _post(self, scope: dict[str, Any], receive: ASGI, send: ASGI, connection_id: str | None) -> None:
        length = _header(scope, b"content-length")
        declared = int(length) if length and length.isdigit() else None
        try:
            body = await read_body(receive, self._limit, declared)
        except BodyTooLarge:
            await _send_json(send, 413, {"error": f"Request body over the limit of {self._limit} bytes (max_message_bytes)"})
            return
        try:
            message = parse_message(body) if body else None
        except ParseError as exc:
            await _send_json(send, 400, {"error": f"Invalid JSON: {exc}"})
            return
        del body
        problem = invalid_request(message) if isinstance(message, dict) else None
        if isinstance(message, dict) and problem is not None:  # answered here: the SDK would wait for a reply it cannot match
            request_id = message.get("id") if "method" in message and is_valid_id(message.get("id")) else None
            await _send_json(send, 400, error_reply(request_id, -32600, "Invalid request", {"details": problem}))
            return
        result = await self.server.handle_post(
            message,
            content_type=_header(scope, b"content-type"),
            connection_id=connection_id,
            session_id=_header(scope, SESSION_ID_HEADER.lower().encode()),
        )
        new_id = result.headers.get(CONNECTION_ID_HEADER)
        if new_id:
            self._last_request[new_id] = time.monotonic()
        await _send_json(send, result.status, result.body, result.headers)

    # ----- idle connections -----

    def _start_reaper(self) -> None:
        if self._reaper is None and not self._closed:
            self._reaper = asyncio.ensure_future(self._reap_forever())

    async def _reap_forever(self) -> None:
        period = min(max(self._idle / 4, 0.05), 30.0)
        while True:
            await asyncio.sleep(period)
            await self.expire_idle()

    async def expire_idle(self, idle_seconds: float | None = None) -> int:
        """Close the connections with no request for `idle_seconds` (default: `http_idle_timeout`)
        and no open event stream, shutting their agents down; returns how many."""
        now = time.monotonic()
        limit = self._idle if idle_seconds is None else idle_seconds
        idle = [
            cid for cid, last in self._last_request.items()
            if now - last >= limit and not self._streams[cid]
        ]  # fmt: skip
        for cid in idle:
            log.info("closing HTTP connection %s: idle for %.0f s", cid, now - self._last_request[cid])
            self._forget(cid)
            await self.server.handle_delete(connection_id=cid)
        gone = set(self._last_request) - set(self._registry.ids())  # deleted by their clients
        for cid in gone:
            self._forget(cid)
        return len(idle)

    def _forget(self, cid: str) -> None:
        self._last_request.pop(cid, None)
        self._streams.pop(cid, None)

    # ----- lifetime -----

    async def _lifespan(self, receive: ASGI, send: ASGI) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._start_reaper()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def close(self) -> None:
        """Shut every connection's agent down and end every event stream; a second call does nothing."""
        if self._closed:
            return
        self._closed = True
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
        await asyncio.gather(*(agent.shutdown() for agent in self._registry.agents()), return_exceptions=True)
        await self.server.close()
        self._last_request.clear()


def parse_address(value: str) -> tuple[str, int]:
    """`PORT` or `HOST:PORT` -> (host, port); the host defaults to 127.0.0.1. Raises ValueError."""
    host, _, port = value.rpartition(":")
    return (host.strip("[]") or "127.0.0.1"), int(port)


def serve_http(settings: Settings, address: str, token: str | None) -> int | None:
    """Serve ACP over HTTP at `address` until a shutdown signal; returns that signal's number.

    Raises ValueError for a malformed address, or a non-loopback address without a token.
    """
    host, port = parse_address(address)
    if not token and not is_loopback(host):
        raise ValueError(f"refusing to serve on {host} without IAC_CODE_HTTP_TOKEN: anyone could run commands")
    return asyncio.run(_serve(settings, host, port, token))


async def _serve(settings: Settings, host: str, port: int, token: str | None) -> int | None:
    import uvicorn

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:  # our handlers below decide what a signal does
            yield

    app = HttpApp(settings, token)
    server = Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=1))
    stopping: list[asyncio.Task[None]] = []

    async def stop() -> None:
        # agents shut down, event streams end: nothing left for uvicorn to wait on; bounded so that
        # the process ends within 2 s whatever a connection does (uvicorn cancels what remains)
        await asyncio.wait({asyncio.ensure_future(app.close())}, timeout=CLOSE_SECONDS)
        server.should_exit = True

    def on_signal(signum: int) -> None:
        if stopping:
            server.force_exit = True
        else:
            stopping.append(asyncio.ensure_future(stop()))

    log.info("serving ACP over HTTP on http://%s:%d/", host, port)
    with shutdown_signals(on_signal) as received:
        await server.serve()
        await asyncio.gather(*stopping)
        await let_cleanups_finish(0.3)
    return received[0] if received else None
