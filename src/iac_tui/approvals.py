"""Which files outside the project the agent may read or write through the app (`fs/*`).

Inside the project, `fs/read_text_file` and `fs/write_text_file` are served. Outside it, only
what the person approved in a permission question: a path among the `locations` of a tool call
they allowed, while that call runs (until its `completed` or `failed` update); and, once they
chose "Always allow" for a `read` call, reads of files directly in the directories of its
locations for the rest of the run (the agent then reads there without asking: PROTOCOL.md's
rule for read-only tools outside the cwd covers the files of that one directory).
A write outside the project is never remembered beyond its call: the agent asks for each one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp.schema import ToolCallUpdate


class OutsideApprovals:
    """The person's approvals of tool calls that name paths outside `root` (a resolved directory)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._calls: dict[str, set[Path]] = {}  # tool call id -> resolved outside paths it may use
        self._read_dirs: set[Path] = set()

    def outside(self, real: Path) -> bool:
        """Whether the resolved path `real` lies outside the project."""
        return real != self.root and self.root not in real.parents

    def approved(self, tool_call: ToolCallUpdate, option_kind: str) -> None:
        """The person chose an option of kind `option_kind` for `tool_call`."""
        if not option_kind.startswith("allow"):
            return
        paths = set()
        for location in tool_call.locations or []:
            if os.path.isabs(location.path):
                real = Path(os.path.realpath(location.path))
                if self.outside(real):
                    paths.add(real)
        if not paths:
            return
        self._calls.setdefault(tool_call.tool_call_id, set()).update(paths)
        if option_kind == "allow_always" and tool_call.kind == "read":
            self._read_dirs.update(p if p.is_dir() else p.parent for p in paths)

    def finished(self, tool_call_id: str) -> None:
        """The tool call ended: its paths are no longer open to it."""
        self._calls.pop(tool_call_id, None)

    def allows(self, real: Path, write: bool) -> bool:
        """Whether the resolved outside path `real` may be read (or, with `write`, written) now."""
        if any(real in paths for paths in self._calls.values()):
            return True
        return not write and real.parent in self._read_dirs
