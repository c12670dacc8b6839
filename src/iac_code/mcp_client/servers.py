"""MCP server specifications and the `.mcp.json` shape they are read from.

A specification says how to reach one server: `stdio` (a command started with `args` and
extra `env`, in the session's cwd), `http` (MCP Streamable HTTP at `url`) or `sse` (the older
HTTP+SSE transport at `url`), with optional HTTP `headers`. The config file's `mcpServers` and a
project's `.mcp.json` use Claude's shape::

    {"mcpServers": {
       "probe": {"command": "python", "args": ["server.py"], "env": {"TOKEN": "x"}},
       "docs":  {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}},
       "old":   {"type": "sse", "url": "http://127.0.0.1:9000/sse"}}}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Transport = Literal["stdio", "http", "sse"]


@dataclass(frozen=True, slots=True)
class McpServerSpec:
    """How to reach one MCP server (see the module docstring)."""

    name: str
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        """A one-line description for people: the command line or the URL."""
        if self.transport == "stdio":
            return " ".join([self.command, *self.args])
        return f"{self.url} ({self.transport})"


class McpConfigError(ValueError):
    """A server entry that cannot be used; the message names the entry and the problem."""


def _strings(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise McpConfigError(f"{what} must be a list of strings")
    return list(value)


def _mapping(value: Any, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise McpConfigError(f"{what} must be an object of strings")
    return dict(value)


def spec_from_entry(name: str, entry: Any) -> McpServerSpec:
    """One server of a `.mcp.json`-shaped `mcpServers` object.

    `type` is `stdio` (the default when `command` is given), `http` (also `streamable-http`)
    or `sse`. Raises `McpConfigError` naming the field for anything malformed.
    """
    if not isinstance(entry, dict):
        raise McpConfigError(f"server {name!r}: must be an object")
    kind = entry.get("type") or ("stdio" if "command" in entry else "http" if "url" in entry else None)
    if kind == "streamable-http":
        kind = "http"
    if kind == "stdio":
        command = entry.get("command")
        if not isinstance(command, str) or not command:
            raise McpConfigError(f"server {name!r}: `command` must be a non-empty string")
        try:
            args = _strings(entry.get("args", []), "`args`")
            env = _mapping(entry.get("env", {}), "`env`")
        except McpConfigError as exc:
            raise McpConfigError(f"server {name!r}: {exc}") from None
        return McpServerSpec(name=name, transport="stdio", command=command, args=tuple(args), env=env)
    if kind in ("http", "sse"):
        url = entry.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise McpConfigError(f"server {name!r}: `url` must be an http(s) URL")
        try:
            headers = _mapping(entry.get("headers", {}), "`headers`")
        except McpConfigError as exc:
            raise McpConfigError(f"server {name!r}: {exc}") from None
        transport: Transport = "http" if kind == "http" else "sse"
        return McpServerSpec(name=name, transport=transport, url=url, headers=headers)
    raise McpConfigError(f"server {name!r}: unknown `type` {entry.get('type')!r} (stdio, http or sse)")


def specs_from_config(servers: Any) -> tuple[list[McpServerSpec], list[str]]:
    """The usable servers of an `mcpServers` object, and one message per entry that is not."""
    if not servers:
        return [], []
    if not isinstance(servers, dict):
        return [], ["`mcpServers` must be an object mapping server names to servers"]
    specs, problems = [], []
    for name, entry in servers.items():
        try:
            specs.append(spec_from_entry(str(name), entry))
        except McpConfigError as exc:
            problems.append(str(exc))
    return specs, problems


def read_mcp_json(path: Path) -> dict[str, Any]:
    """The `mcpServers` object of a `.mcp.json` file (empty when it has none).

    Raises `McpConfigError` when the file cannot be read or is not a JSON object.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise McpConfigError(f"{path}: {exc}") from None
    if not isinstance(data, dict):
        raise McpConfigError(f"{path}: the top level must be an object")
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise McpConfigError(f"{path}: `mcpServers` must be an object")
    return servers
