"""The agent's reasoning: a dimmed block, open while it streams, folded to one line after."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalGroup
from textual.reactive import var
from textual.widgets import Static

from iac_tui.widgets.streaming import StreamingMarkdown


class Thought(VerticalGroup, can_focus=True):
    """A collapsible thought; `expanded` shows the whole text."""

    BINDINGS = [Binding("enter,space", "toggle_expanded", "Show/hide", show=True)]

    expanded: var[bool] = var(True, toggle_class="-expanded")

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.body = StreamingMarkdown(text, classes="thought-body")
        self.streaming = True

    def compose(self) -> ComposeResult:
        yield Static(classes="thought-header")
        yield self.body

    def on_mount(self) -> None:
        self._update_header(force=True)

    async def write(self, text: str) -> None:
        """Append reasoning text."""
        await self.body.write(text)

    async def finish(self, collapse: bool = True) -> None:
        """The thought is complete: stop streaming and (by default) fold it."""
        if not self.streaming:
            return
        self.streaming = False
        await self.body.finish()
        if collapse:
            self.expanded = False
        self._update_header()

    def watch_expanded(self, expanded: bool) -> None:
        self._update_header()
        if expanded and self.is_mounted:
            self._relayout_body()

    def _relayout_body(self) -> None:
        """Lay the body out afresh when it is shown again.

        Text that reached a block just before the thought was folded could keep the block's
        old height (seen under load with Textual 8.2: the last wrapped line went missing).
        """
        for widget in (self.body, *self.body.query("Markdown"), *self.body.query("MarkdownBlock")):
            widget.refresh(layout=True)

    def _update_header(self, force: bool = False) -> None:
        if not (force or self.is_mounted):
            return
        arrow = "▾" if self.expanded else "▸"
        label = "Thinking…" if self.streaming else "Thought"
        words = len(self.body.source.split())
        detail = f"  ({words} words)" if not self.expanded and words else ""
        self.query_one(".thought-header", Static).update(f"{arrow} {label}{detail}")

    def action_toggle_expanded(self) -> None:
        self.expanded = not self.expanded

    def on_click(self, event: events.Click) -> None:
        if event.widget is not None and event.widget.has_class("thought-header"):
            self.action_toggle_expanded()
