"""The session's MCP servers as the help screen shows them: name, transport, state, tools, reason.

The states come from the agent's `_iac-code/mcp_status` notification (iac-code sends it; other
agents do not, and the section then says so).
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Markdown


def status_markdown(servers: list[dict[str, object]] | None) -> str:
    """A Markdown section for `servers` (the notification's `servers` list; None: not reported)."""
    lines = ["## MCP servers", ""]
    if servers is None:
        lines.append("The agent has not reported any MCP servers for this session. Configure servers under "
                     "`mcpServers` in `~/.iac-code/config.json` (the shape of Claude's `.mcp.json`).")
        return "\n".join(lines)
    lines += ["| server | transport | state | tools |", "|---|---|---|---|"]
    for s in servers:
        state = str(s.get("status", "?"))
        if s.get("reason"):
            state += f": {s['reason']}"
        state = state.replace("|", "\\|")
        lines.append(f"| {s.get('name', '?')} | {s.get('transport', '?')} | {state} | {s.get('tools', 0)} |")
    return "\n".join(lines)


class McpStatus(Markdown):
    """The MCP servers section of the help screen."""

    def __init__(self, servers: list[dict[str, object]] | None, **kw: Any) -> None:
        super().__init__(status_markdown(servers), **kw)
