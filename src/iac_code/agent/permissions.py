"""Who decides whether a tool call may run: the session's mode, its remembered answers, and the client.

Rules (PROTOCOL.md, Permissions; issue #3, Safety):

- read-only tools inside the session cwd run without asking; reads outside it (symlinks resolved)
  or of sensitive paths (`.ssh`, cloud credentials, `.env`, the config dir) ask, except in
  `bypass_permissions`;
- `write_file`/`edit_file` ask in `default` mode, run in `accept_edits` and `bypass_permissions`,
  and are refused in `plan`; a write outside the cwd (or to a sensitive path) asks in every mode
  and is not covered by an earlier `allow_always`;
- `bash`/`agent` ask in `default` and `accept_edits`, run in `bypass_permissions`, are refused in
  `plan`;
- `allow_always`/`reject_always` hold for that tool for the rest of the session; a remembered
  rejection also covers writes outside the cwd.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from iac_code.config import ModeId
from iac_code.core.events import Location, ToolContent, ToolKind
from iac_code.tools.base import Category
from iac_code.tools.paths import is_inside, is_sensitive

Answer = Literal["allow_once", "allow_always", "reject_once", "reject_always", "cancelled"]
"""The user's decision, by permission option kind; `cancelled` means the prompt was cancelled."""


@dataclass(slots=True)
class Verdict:
    """The policy's decision for one call: run it, ask the client, or refuse it with `reason`."""

    action: Literal["allow", "ask", "deny"]
    reason: str = ""


@dataclass(slots=True)
class PermissionRequest:
    """What the client is asked about: the tool call as it will run."""

    tool_call_id: str
    tool_name: str
    title: str
    kind: ToolKind
    raw_input: dict[str, Any]
    content: list[ToolContent] = field(default_factory=list)
    locations: list[Location] = field(default_factory=list)


class PermissionPrompter(Protocol):
    """Asks the user (through the client) whether a call may run."""

    async def ask(self, request: PermissionRequest) -> Answer:
        """Return the kind of the option the user chose, or `cancelled`."""
        ...


PLAN_MODE_REFUSAL = (
    "Plan mode is read-only: {tool} was not run. Describe the change you would make instead; "
    "the user can switch modes to let you apply it."
)


class PermissionPolicy:
    """Decides per call from the mode and the answers remembered for this session."""

    def __init__(self, mode: ModeId = "default") -> None:
        self.mode: ModeId = mode
        self._always: dict[str, bool] = {}

    def decide(
        self, tool_name: str, category: Category, paths: list[Path], cwd: Path, config_dir: Path
    ) -> Verdict:
        """Decide for a call of `tool_name` touching the real `paths` in a session rooted at `cwd`."""
        remembered = self._always.get(tool_name)
        if remembered is False:
            return Verdict("deny", "Permission denied.")
        exposed = any(not is_inside(p, cwd) or is_sensitive(p, config_dir) for p in paths)
        if category == "read":
            if not exposed or self.mode == "bypass_permissions" or remembered:
                return Verdict("allow")
            return Verdict("ask")
        if self.mode == "plan":
            return Verdict("deny", PLAN_MODE_REFUSAL.format(tool=tool_name))
        if category == "write":
            if exposed:
                return Verdict("ask")
            if remembered or self.mode in ("accept_edits", "bypass_permissions"):
                return Verdict("allow")
            return Verdict("ask")
        if remembered or self.mode == "bypass_permissions":
            return Verdict("allow")
        return Verdict("ask")

    def remember(self, tool_name: str, answer: Answer) -> None:
        """Record an `allow_always`/`reject_always` answer for the rest of the session."""
        if answer == "allow_always":
            self._always[tool_name] = True
        elif answer == "reject_always":
            self._always[tool_name] = False
