"""The wire edge of the ACP server: JSON-RPC 2.0 validation and the reference's legacy spellings.

The SDK's connection does the routing and schema validation. This module adds what it leaves
out (PROTOCOL.md, Errors), for every transport (stdio and HTTP):

- a message that is not a JSON-RPC 2.0 request, notification or response gets -32600: a wrong
  `jsonrpc`, an id that is not a string, an integer or null (`true`, `1.5`, `[]`), a response
  whose `error` is not an error object;
- a number that is not finite (`Infinity`, `NaN`, `1e400`) in the params gets -32602 naming the
  field, instead of reaching the SDK's models (which fail on it with an internal error);
- an unknown notification is dropped quietly (no reply, no traceback);
- the reference's method names `sessions/list` and `config/set` are served as `session/list`
  and `session/set_config_option`, and its permission answer shorthand
  (`{"outcome": "allowed", "option_id": ...}` / `{"outcome": "denied"}`) is read as the current form;
- -32602 replies name the bad field in `data` (`{"cwd": "Field required"}`) instead of echoing
  the whole input back.

Framing (what is a line, what is a body, their size limits, -32700) belongs to the transports:
`acp/stdio.py` and `acp/http.py`. They hand this layer only JSON objects.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from acp.meta import AGENT_METHODS

log = logging.getLogger(__name__)

METHOD_ALIASES = {"sessions/list": "session/list", "config/set": "session/set_config_option"}
KNOWN_NOTIFICATIONS = frozenset({AGENT_METHODS["session_cancel"]})


class MessageTransport(Protocol):
    """What the SDK's connection reads and writes: decoded JSON-RPC objects; None from `receive` is the end."""

    async def send(self, message: dict[str, Any]) -> None: ...

    async def receive(self) -> dict[str, Any] | None: ...

    async def close(self) -> None: ...


class ParseError(ValueError):
    """Bytes that are not one JSON text: invalid JSON, invalid UTF-8, or nested too deeply."""


def parse_message(data: bytes | bytearray | str) -> Any:
    """The JSON value of `data` (any JSON, not only objects). Raises `ParseError` (-32700)."""
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested too deeply to parse
        raise ParseError(str(exc) if not isinstance(exc, RecursionError) else "nested too deeply") from None


def error_reply(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """A JSON-RPC 2.0 error response object."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def is_valid_id(value: Any) -> bool:
    """JSON-RPC 2.0 ids: a string, an integer (not a boolean) or null."""
    return value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def invalid_request(message: Any) -> str | None:
    """Why `message` is not a valid JSON-RPC 2.0 message, or None if it is one."""
    if not isinstance(message, dict):
        return "a JSON-RPC message must be an object (batches are not supported)"
    if message.get("jsonrpc") != "2.0":
        return 'the "jsonrpc" member must be exactly "2.0"'
    if "id" in message and not is_valid_id(message["id"]):
        return 'the "id" member must be a string, an integer or null'
    if "method" in message:
        if not isinstance(message["method"], str):
            return 'the "method" member must be a string'
        params = message.get("params")
        if params is not None and not isinstance(params, dict | list):
            return 'the "params" member must be an object or an array'
        return None
    if "id" not in message:
        return 'a request needs a "method"; a response needs an "id"'
    if ("result" in message) == ("error" in message):
        return 'a response needs exactly one of "result" and "error"'
    if "error" in message:
        error = message["error"]
        if not (isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str)):
            return 'the "error" member must be an object with an integer "code" and a string "message"'
    return None


def non_finite_field(params: Any) -> str | None:
    """The dotted path of the first number in `params` that is not finite, or None.

    Python's JSON reader accepts `NaN`, `Infinity` and overflowing literals such as `1e400`;
    JSON itself has no such numbers, and nothing in ACP takes one.
    """
    stack: list[tuple[str, Any]] = [("", params)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return path or "params"
        if isinstance(value, dict):
            stack.extend((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((f"{path}.{i}" if path else str(i), v) for i, v in enumerate(value))
    return None


def _normalize_permission_answer(result: dict[str, Any]) -> dict[str, Any]:
    """Read the reference's `{"outcome": "allowed", "option_id": X}` / `{"outcome": "denied"}` form."""
    outcome = result.get("outcome")
    if not isinstance(outcome, str):
        return result
    option = result.get("option_id", result.get("optionId"))
    if outcome in ("allowed", "selected") and option is not None:
        return {"outcome": {"outcome": "selected", "optionId": option}}
    return {"outcome": {"outcome": "cancelled"}}


def _name_bad_fields(error: dict[str, Any]) -> None:
    """Turn the SDK's pydantic error list in a -32602 reply into `{field: message}`."""
    data = error.get("data")
    if not (isinstance(data, dict) and isinstance(data.get("errors"), list)):
        return
    named: dict[str, str] = {}
    for err in data["errors"]:
        if not isinstance(err, dict):
            continue
        loc = [str(p) for p in err.get("loc", ()) if not isinstance(p, int)]
        field = loc[0] if loc else "params"
        named.setdefault(_camel(field), str(err.get("msg", "invalid")))
    error["data"] = named or {"params": "invalid"}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.capitalize() for p in rest)


class WireTransport:
    """Wraps a `MessageTransport` with the checks in the module docstring.

    `on_end`, when given, is awaited once when the input ends (before the SDK's connection hears
    of it), while replies can still be sent: the server's shutdown (PROTOCOL.md, Process lifetime).
    """

    def __init__(self, inner: MessageTransport, on_end: Callable[[], Awaitable[None]] | None = None) -> None:
        self._inner = inner
        self._on_end = on_end

    async def receive(self) -> dict[str, Any] | None:
        """The next message the SDK should see (invalid ones are answered here and skipped)."""
        while True:
            message = await self._inner.receive()
            if message is None:
                on_end, self._on_end = self._on_end, None
                if on_end is not None:
                    await on_end()
                return None
            reply = self._check(message)
            if reply is not None:
                if reply:
                    await self._inner.send(reply)
                continue
            return message

    def _check(self, message: Any) -> dict[str, Any] | None:
        """None to pass `message` on (normalised in place); else the reply to send ({} for none)."""
        problem = invalid_request(message)
        if problem is not None:
            # a bad response is answered with a null id: its id is one of ours, not the client's
            is_response = isinstance(message, dict) and ("result" in message or "error" in message) and "method" not in message
            request_id = None if is_response or not isinstance(message, dict) else message.get("id")
            request_id = request_id if is_valid_id(request_id) else None
            return error_reply(request_id, -32600, "Invalid request", {"details": problem})
        method = message.get("method")
        if method is None:
            result = message.get("result")
            if isinstance(result, dict):
                message["result"] = _normalize_permission_answer(result)
            return None
        method = METHOD_ALIASES.get(method, method)
        message["method"] = method
        is_request = "id" in message
        if not is_request and method not in KNOWN_NOTIFICATIONS and not method.startswith("_"):
            log.debug("ignoring unknown notification %r", method)
            return {}
        field = non_finite_field(message.get("params"))
        if field is not None:
            if not is_request:
                return {}
            return error_reply(message["id"], -32602, "Invalid params", {field: "must be a finite number"})
        return None

    async def send(self, message: dict[str, Any]) -> None:
        """Send `message`, with -32602 error data reduced to the names of the bad fields."""
        error = message.get("error")
        if isinstance(error, dict) and error.get("code") == -32602:
            _name_bad_fields(error)
        await self._inner.send(message)

    async def close(self) -> None:
        """Close the wrapped transport."""
        await self._inner.close()
