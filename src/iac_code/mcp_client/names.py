"""Names of MCP tools as the model sees them: `mcp__<server>__<tool>`, and their human titles.

On its own (no `mcp` SDK import) so that replaying a history (`agent/replay.py`) costs nothing
at start-up.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>`, with characters the model API refuses replaced by `_` (max 128)."""
    return _UNSAFE.sub("_", f"mcp__{server}__{tool}")[:128]


def title_from_name(name: str) -> str | None:
    """"<server>: <tool>" for a name `mcp__<server>__<tool>` (None for other names), for calls
    whose server is not connected (e.g. replayed by `session/load`)."""
    if not name.startswith("mcp__"):
        return None
    server, sep, tool = name[len("mcp__") :].partition("__")
    return f"{server}: {tool}" if sep and server and tool else None
