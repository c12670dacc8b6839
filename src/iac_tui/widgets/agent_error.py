"""Shown when the agent could not start or stopped: why, its last stderr lines, how to restart."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalGroup
from textual.content import Content
from textual.widgets import Static

from iac_tui.display import home_relative


class AgentError(VerticalGroup):
    """The agent is gone: `reason`, the tail of its stderr and where the full log is."""

    def __init__(self, reason: str, stderr_tail: list[str], log_path: str | None) -> None:
        super().__init__()
        self.reason = reason
        self.stderr_tail = stderr_tail
        self.log_path = log_path

    def compose(self) -> ComposeResult:
        yield Static(Content.from_markup("[b]⚠ Agent stopped[/b]  $reason", reason=self.reason), classes="agent-error-title")
        if self.stderr_tail:
            # decoded, not shown raw: ANSI sequences in it would reach the terminal and garble the screen
            yield Static(Text.from_ansi("\n".join(self.stderr_tail), no_wrap=False), classes="agent-error-stderr", markup=False)
        else:
            yield Static(Content("(the agent wrote nothing to stderr)"), classes="agent-error-stderr -empty", markup=False)
        hint = "Press [b]ctrl+r[/b] to restart the agent, or send a prompt (it restarts it)."
        if self.log_path:
            hint += " Full log: $log"
        yield Static(Content.from_markup(hint, log=home_relative(self.log_path or "")), classes="agent-error-hint")
