"""Short notes in the conversation: stop reasons, errors, session events."""

from __future__ import annotations

from collections.abc import Callable

from textual.binding import Binding
from textual.content import Content
from textual.widgets import Static


class Note(Static):
    """A one-paragraph note; `variant` is `info`, `warning` or `error` (a CSS class)."""

    def __init__(self, text: str, variant: str = "info") -> None:
        super().__init__(Content(text), classes=f"-{variant}", markup=False)
        self.text = text
        self.variant = variant


class PrunedNote(Note, can_focus=True):
    """The note at the top of a pruned conversation: enter or a click opens what was pruned
    (`pruned()`, Markdown) in the pager."""

    BINDINGS = [Binding("enter", "open", "Open pruned")]

    def __init__(self, text: str, pruned: Callable[[], str]) -> None:
        super().__init__(text)
        self.pruned = pruned

    def action_open(self) -> None:
        from iac_tui.screens.pager import Pager

        self.app.push_screen(Pager(self.pruned(), title="earlier blocks (pruned from the view)"))

    def on_click(self) -> None:
        self.action_open()
