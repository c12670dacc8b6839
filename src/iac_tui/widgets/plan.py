"""The agent's plan as a checklist, replaced in place by each `plan` update."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalGroup
from textual.content import Content
from textual.widgets import Static

STATUS_MARKS = {"pending": "☐", "in_progress": "◐", "completed": "☑"}
PRIORITY_MARKS = {"high": "!", "medium": " ", "low": " "}

if TYPE_CHECKING:  # the SDK loads after the first paint (iac_tui.sdk)
    from acp.schema import PlanEntry


class PlanView(VerticalGroup):
    """A checklist of SDK `PlanEntry`s (content, status, priority)."""

    def __init__(self, entries: list[PlanEntry] | None = None) -> None:
        super().__init__()
        self.entries: list[PlanEntry] = list(entries or [])

    def compose(self) -> ComposeResult:
        yield Static(classes="plan-title")
        yield Static(classes="plan-entries")

    def on_mount(self) -> None:
        self._render_entries(force=True)

    def set_entries(self, entries: list[PlanEntry]) -> None:
        """Replace the whole plan (in place)."""
        self.entries = list(entries)
        self._render_entries()

    @property
    def done(self) -> int:
        """How many entries are completed."""
        return sum(1 for e in self.entries if e.status == "completed")

    def _render_entries(self, force: bool = False) -> None:
        if not (force or self.is_mounted):
            return
        self.query_one(".plan-title", Static).update(
            Content.from_markup("[b]Plan[/b]  [dim]$done of $total done[/dim]", done=str(self.done), total=str(len(self.entries)))
        )
        lines = []
        for entry in self.entries:
            mark = STATUS_MARKS.get(entry.status, "☐")
            flag = PRIORITY_MARKS.get(entry.priority, " ")
            if entry.status == "completed":
                line = Content.from_markup("[$text-success]$mark[/] [dim strike]$text[/]", mark=mark, text=entry.content)
            elif entry.status == "in_progress":
                line = Content.from_markup("[$text-warning]$mark[/] [b]$text[/b]", mark=mark, text=entry.content)
            else:
                line = Content.from_markup("[dim]$mark[/dim] $text", mark=mark, text=entry.content)
            if flag.strip():
                line = Content.assemble(line, Content.from_markup("  [$text-warning]![/][dim]high[/dim]"))
            lines.append(line)
        self.query_one(".plan-entries", Static).update(Content("\n").join(lines))
