"""MCP servers the app gives the agent: the `mcpServers` of `<config dir>/config.json`.

The shape is Claude's `.mcp.json` (`{"mcpServers": {"name": {"command", "args", "env"} |
{"type": "http"|"sse", "url", "headers"}}}`), the same key the agent reads for headless use.
Each server becomes an ACP `McpServer` for `session/new`, `session/load` and `session/fork`;
`http`/`sse` servers are passed only to an agent whose `mcpCapabilities` says it speaks them.
Entries that cannot be used are returned as problems for the app to show, never raised.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeAlias

from acp.schema import (
    AcpMcpServer,
    AgentCapabilities,
    EnvVariable,
    HttpHeader,
    HttpMcpServer,
    McpServerStdio,
    SseMcpServer,
)

from iac_tui.config import config_dir

McpServer: TypeAlias = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio
"""An entry of ACP's `mcpServers` (the SDK's union; this app makes stdio, http and sse ones)."""


def _pairs(value: object) -> dict[str, str] | None:
    if value is None:
        return {}
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return value
    return None


def servers_from(config: object, capabilities: AgentCapabilities | None = None) -> tuple[list[McpServer], list[str]]:
    """ACP server entries for the `mcpServers` object `config` (JSON as read), and a problem per
    unusable entry.

    `capabilities` is the agent's `agentCapabilities` (None: unknown, HTTP and SSE are kept; an
    agent without `mcpCapabilities` speaks neither).
    """
    if not config:
        return [], []
    if not isinstance(config, dict):
        return [], ["`mcpServers` in the config file must be an object"]
    mcp_caps = capabilities.mcp_capabilities if capabilities is not None else None
    servers: list[McpServer] = []
    problems: list[str] = []
    for name, entry in config.items():
        if not isinstance(entry, dict):
            problems.append(f"MCP server {name!r}: must be an object")
            continue
        kind = entry.get("type") or ("stdio" if "command" in entry else "http")
        kind = "http" if kind == "streamable-http" else kind
        if kind == "stdio":
            env, args = _pairs(entry.get("env")), entry.get("args", [])
            if not isinstance(entry.get("command"), str) or env is None or not isinstance(args, list):
                problems.append(f"MCP server {name!r}: needs a `command` string, `args` list and `env` object of strings")
                continue
            servers.append(McpServerStdio(name=name, command=entry["command"], args=[str(a) for a in args],
                                          env=[EnvVariable(name=k, value=v) for k, v in env.items()]))
        elif kind in ("http", "sse"):
            headers = _pairs(entry.get("headers"))
            if not isinstance(entry.get("url"), str) or headers is None:
                problems.append(f"MCP server {name!r}: needs a `url` string and `headers` object of strings")
                continue
            spoken = mcp_caps is not None and (mcp_caps.http if kind == "http" else mcp_caps.sse)
            if capabilities is not None and not spoken:
                problems.append(f"MCP server {name!r}: the agent does not support {kind} MCP servers")
                continue
            model = HttpMcpServer if kind == "http" else SseMcpServer
            servers.append(model(type=kind, name=name, url=entry["url"],
                                 headers=[HttpHeader(name=k, value=v) for k, v in headers.items()]))
        else:
            problems.append(f"MCP server {name!r}: unknown type {kind!r} (stdio, http or sse)")
    return servers, problems


def configured_servers(
    capabilities: AgentCapabilities | None = None, path: Path | None = None
) -> tuple[list[McpServer], list[str]]:
    """`servers_from` the config file (`<config dir>/config.json`; missing file: none)."""
    path = path or config_dir() / "config.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [], []
    except (OSError, ValueError) as exc:
        return [], [f"{path}: {exc}"]
    return servers_from(data.get("mcpServers") if isinstance(data, dict) else None, capabilities)
