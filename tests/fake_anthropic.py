"""A local fake of Anthropic's Messages API for tests: scripted SSE replies, recorded requests.

    with FakeAnthropic() as fake:
        fake.add(SSE(message(text("Hello"), stop_reason="end_turn")))
        provider = AnthropicProvider(Settings(anthropic_api_key="sk-test-…", anthropic_base_url=fake.url))
        ...
        assert fake.requests[0].body["messages"][0]["role"] == "user"

`FakeAnthropic` is a real HTTP server on 127.0.0.1 (port 0) run by a thread. Each POST takes the
next scripted reply, in order: an `SSE` stream (a list of `(event name, data)` pairs, each
framed with its `event:` line as the SDK requires, possibly ending early, with an `error`
event, or with `STALL`), or a `JSONReply` (an HTTP error such as 529 or 401). Every request's
path, headers and JSON body are recorded in `requests`. Every response carries
`retry-after-ms: 10`, so the SDK's retries (and the provider's own mid-stream retry) wait 10 ms
instead of their backoff. With no reply left, the server answers 400 `invalid_request_error`,
which the SDK does not retry.

The builders return event lists: `message(*blocks, stop_reason=..., ...)` wraps content blocks
(`text`, `thinking`, `redacted_thinking`, `tool_use`) between `message_start` and
`message_delta`/`message_stop`; `error_event` is a mid-stream error; `cut_before` and
`cut_after_deltas` give a stream cut short.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Event = tuple[str, dict[str, Any] | bytes]
"""One server-sent event: its `event:` name and its `data:` JSON object (bytes: sent as they are)."""

BlockEvents = Callable[[int], list[Event]]
"""A content block's events, given the block's index in the message."""

STALL: Event = ("__stall__", {})
"""Put in an event list: the server stops sending there (until the fake is closed)."""


# ----- event builders -----


def message(
    *blocks: BlockEvents,
    stop_reason: str | None = "end_turn",
    input_tokens: int = 20,
    output_tokens: int = 10,
    cache_read: int = 0,
    cache_write: int = 0,
    message_id: str = "msg_fake",
) -> list[Event]:
    """The events of a whole response: `message_start`, each block in order, `message_delta`
    (with `stop_reason` and the final `output_tokens`) and `message_stop`."""
    events: list[Event] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-fake",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": input_tokens,
                        "output_tokens": 1,
                        "cache_read_input_tokens": cache_read,
                        "cache_creation_input_tokens": cache_write,
                    },
                },
            },
        ),
        ("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(blocks):
        events += block(index)
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events


def _pieces(text: str, count: int) -> list[str]:
    """`text` split into `count` consecutive pieces (fewer if it is shorter)."""
    count = max(1, min(count, len(text)))
    size = -(-len(text) // count)
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _block(index: int, start: dict[str, Any], deltas: list[dict[str, Any]], stop: bool = True) -> list[Event]:
    events: list[Event] = [("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})]
    events += [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
    if stop:
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def text(value: str, pieces: int = 3) -> BlockEvents:
    """A text block streamed as `pieces` `text_delta`s."""
    return lambda i: _block(i, {"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in _pieces(value, pieces)])


def thinking(value: str, signature: str, pieces: int = 3) -> BlockEvents:
    """A thinking block: `thinking_delta`s, then one `signature_delta`."""
    deltas = [{"type": "thinking_delta", "thinking": p} for p in _pieces(value, pieces)]
    deltas.append({"type": "signature_delta", "signature": signature})
    return lambda i: _block(i, {"type": "thinking", "thinking": "", "signature": ""}, deltas)


def redacted_thinking(data: str) -> BlockEvents:
    """A redacted_thinking block (no deltas: its encrypted `data` comes whole)."""
    return lambda i: _block(i, {"type": "redacted_thinking", "data": data}, [])


def tool_use(tool_use_id: str, name: str, input: dict[str, Any], pieces: int = 8, cut_at: float | None = None) -> BlockEvents:
    """A tool_use block whose input JSON arrives in `pieces` `input_json_delta`s.

    `cut_at` (0..1) sends only that share of the JSON, as when the response hits `max_tokens`.
    """
    raw = json.dumps(input)
    if cut_at is not None:
        raw = raw[: int(len(raw) * cut_at)]
    deltas = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(raw, pieces)]
    return lambda i: _block(i, {"type": "tool_use", "id": tool_use_id, "name": name, "input": {}}, deltas)


def error_event(error_type: str = "overloaded_error", text: str = "Overloaded") -> Event:
    """A mid-stream `error` event (the SDK raises it as an `APIStatusError` with status 200)."""
    return ("error", {"type": "error", "error": {"type": error_type, "message": text}})


def cut_after_deltas(events: list[Event], count: int) -> list[Event]:
    """`events` up to and including the `count`-th `content_block_delta`: a stream cut mid-block."""
    seen = 0
    for i, (name, _) in enumerate(events):
        seen += name == "content_block_delta"
        if seen == count:
            return events[: i + 1]
    raise ValueError(f"the events have fewer than {count} deltas")


def cut_before(events: list[Event], name: str) -> list[Event]:
    """`events` up to (not including) the first event called `name`: a stream cut short."""
    names = [n for n, _ in events]
    return events[: names.index(name)]


# ----- replies -----


@dataclass
class SSE:
    """A 200 `text/event-stream` reply playing `events`; the connection closes after the last."""

    events: list[Event]


@dataclass
class JSONReply:
    """A JSON reply with `status` (e.g. an API error body)."""

    status: int
    body: dict[str, Any]


def api_error(status: int, error_type: str, text: str = "fake error") -> JSONReply:
    """An HTTP error reply in the Messages API's shape."""
    return JSONReply(status, {"type": "error", "error": {"type": error_type, "message": text}})


@dataclass
class RecordedRequest:
    """One request the fake received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeAnthropic:
    """The fake server (see the module docstring). Use as a context manager, or `start`/`close`."""

    replies: list[SSE | JSONReply] = field(default_factory=list)
    requests: list[RecordedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    def add(self, *replies: SSE | JSONReply | list[Event]) -> None:
        """Queue replies; a bare event list is an `SSE` reply."""
        with self._lock:
            self.replies += [SSE(r) if isinstance(r, list) else r for r in replies]

    @property
    def url(self) -> str:
        """The base URL to give the SDK (`ANTHROPIC_BASE_URL`)."""
        assert self._server is not None, "the fake is not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def bodies(self) -> list[Any]:
        """The JSON bodies of the Messages requests received, in order."""
        return [r.body for r in self.requests if r.path == "/v1/messages"]

    def start(self) -> FakeAnthropic:
        """Listen on 127.0.0.1 on a free port and serve from a daemon thread."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass

            def do_POST(self) -> None:  # noqa: N802 - stdlib naming
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                with fake._lock:
                    fake.requests.append(
                        RecordedRequest("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                    reply = fake.replies.pop(0) if fake.replies else api_error(400, "invalid_request_error", "fake: no reply left")
                if isinstance(reply, JSONReply):
                    self._send_json(reply)
                else:
                    self._send_sse(reply)

            def _send_json(self, reply: JSONReply) -> None:
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.send_header("retry-after-ms", "10")
                self.send_header("request-id", "req_fake")
                self.end_headers()
                self.wfile.write(data)

            def _send_sse(self, reply: SSE) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("retry-after-ms", "10")
                self.send_header("request-id", "req_fake")
                self.send_header("connection", "close")
                self.end_headers()
                for name, data in reply.events:
                    if (name, data) == STALL:
                        self.wfile.flush()
                        fake._released.wait()
                        return
                    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
                    self.wfile.write(b"event: " + name.encode() + b"\ndata: " + raw + b"\n\n")
                    self.wfile.flush()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, args=(0.02,), name="fake-anthropic", daemon=True).start()
        return self

    def close(self) -> None:
        """Release stalled replies and stop the server."""
        self._released.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
