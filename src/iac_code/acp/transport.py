"""The wire edge of the ACP server: JSON-RPC 2.0 validation and the reference's legacy spellings.

The SDK's connection does the framing, routing and schema validation. This module adds what it
leaves out (PROTOCOL.md, Errors):

- a line that is not JSON gets a -32700 reply and the connection goes on;
- a message that is not a JSON-RPC 2.0 request object gets -32600;
- an unknown notification is dropped quietly (no reply, no traceback);
- the reference's method names `sessions/list` and `config/set` are served as `session/list`
  and `session/set_config_option`, and its permission answer shorthand
  (`{"outcome": "allowed", "option_id": ...}` / `{"outcome": "denied"}`) is read as the current form;
- -32602 replies name the bad field in `data` (`{"cwd": "Field required"}`) instead of echoing
  the whole input back.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from acp._transport import NdjsonTransport, Transport
from acp.meta import AGENT_METHODS

log = logging.getLogger(__name__)

METHOD_ALIASES = {"sessions/list": "session/list", "config/set": "session/set_config_option"}
KNOWN_NOTIFICATIONS = frozenset({AGENT_METHODS["session_cancel"]})


def error_reply(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    """A JSON-RPC 2.0 error response object."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


class StdioTransport(NdjsonTransport):
    """NDJSON over stdio that answers unparseable lines with -32700 instead of dropping them."""

    async def receive(self) -> dict[str, Any] | None:  # type: ignore[override]
        while True:
            line = await self._read_line()
            if not line:
                return None
            line = line.strip()
            if not line:
                continue
            try:
                return json.loads(line)
            except (ValueError, RecursionError) as exc:  # RecursionError: nested too deeply to parse
                log.warning("received a line that is not JSON (%d bytes)", len(line))
                await self.send(error_reply(None, -32700, "Parse error", {"details": str(exc)}))


def _invalid_request(message: Any) -> str | None:
    """Why `message` is not a valid JSON-RPC 2.0 message, or None if it is one."""
    if not isinstance(message, dict):
        return "a JSON-RPC message must be an object (batches are not supported)"
    if message.get("jsonrpc") != "2.0":
        return 'the "jsonrpc" member must be exactly "2.0"'
    if "id" in message and not (message["id"] is None or isinstance(message["id"], str | int)):
        return 'the "id" member must be a string, a number or null'
    if "method" in message:
        if not isinstance(message["method"], str):
            return 'the "method" member must be a string'
        params = message.get("params")
        if params is not None and not isinstance(params, dict | list):
            return 'the "params" member must be an object or an array'
        return None
    if "id" in message and ("result" in message or "error" in message):
        return None
    return 'a request needs a "method"; a response needs a "result" or an "error"'


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
    """Wraps any message `Transport` with the checks in the module docstring."""

    def __init__(self, inner: Transport) -> None:
        self._inner = inner

    async def receive(self) -> dict[str, Any] | None:
        """The next message the SDK should see (invalid ones are answered here and skipped)."""
        while True:
            message = await self._inner.receive()
            if message is None:
                return None
            problem = _invalid_request(message)
            if problem is not None:
                request_id = message.get("id") if isinstance(message, dict) else None
                if not isinstance(request_id, str | int):
                    request_id = None
                await self._inner.send(error_reply(request_id, -32600, "Invalid request", {"details": problem}))
                continue
            method = message.get("method")
            if method is None:
                result = message.get("result")
                if isinstance(result, dict):
                    message["result"] = _normalize_permission_answer(result)
                return message
            method = METHOD_ALIASES.get(method, method)
            message["method"] = method
            if "id" not in message and method not in KNOWN_NOTIFICATIONS and not method.startswith("_"):
                log.debug("ignoring unknown notification %r", method)
                continue
            return message

    async def send(self, message: dict[str, Any]) -> None:
        """Send `message`, with -32602 error data reduced to the names of the bad fields."""
        error = message.get("error")
        if isinstance(error, dict) and error.get("code") == -32602:
            _name_bad_fields(error)
        await self._inner.send(message)

    async def close(self) -> None:
        """Close the wrapped transport."""
        await self._inner.close()
