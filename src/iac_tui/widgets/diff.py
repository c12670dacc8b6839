"""A file edit shown as a diff (textual-diff-view), folded when it is long."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalGroup
from textual.reactive import var
from textual.widgets import Static
from textual_diff_view import DiffView

FOLD_LINES = 30


class EditDiff(VerticalGroup):
    """The change of one file: `old_text` None means a new file. `path` is what the title shows."""

    expanded: var[bool] = var(False, toggle_class="-expanded")

    def __init__(self, path: str, old_text: str | None, new_text: str) -> None:
        super().__init__()
        self.path = path
        self.old_text = old_text
        self.new_text = new_text
        self.key = (path, old_text, new_text)
        new_file = old_text is None  # nothing to show on the left: unified view
        self.view = DiffView(path, path, old_text or "", new_text, split=False, annotations=True, auto_split=not new_file)
        self.long = False

    async def prepare(self) -> None:
        """Compute the diff in a thread (call before mounting a large diff)."""
        await self.view.prepare()

    def _diff_lines(self) -> int:
        total = 0
        for group in self.view.grouped_opcodes:
            for tag, i1, i2, j1, j2 in group:
                total += (i2 - i1) + (j2 - j1) if tag == "replace" else max(i2 - i1, j2 - j1)
        return total + 1

    def compose(self) -> ComposeResult:
        self.long = self._diff_lines() > FOLD_LINES
        self.set_class(self.long, "-long")
        yield self.view
        if self.long:
            yield Static("▸ show the whole diff (enter or click)", classes="diff-more", markup=False)

    def watch_expanded(self, expanded: bool) -> None:
        if self.long and self.is_mounted:
            self.query_one(".diff-more", Static).update("▴ fold the diff" if expanded else "▸ show the whole diff (enter or click)")

    def toggle(self) -> None:
        """Unfold or fold a long diff."""
        if self.long:
            self.expanded = not self.expanded

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle()
