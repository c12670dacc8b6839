"""The pager: a tool's whole output, full screen, searchable.

Textual's `Log` (the line API: it draws only the visible lines and measures the width in a
thread, so 100,000 lines open in a fraction of a second; a `TextArea` re-wraps the whole text
several times on open, about 2.5 s for 100,000 lines). `/` or ctrl+f opens the search box; enter
finds the next match, `n` / `N` the next / previous one afterwards; every match is highlighted
and the current one selected (ctrl+c copies it, as does a mouse selection); `g` / `G` go to the
top / end; `esc` or `q` closes.
"""

from __future__ import annotations

import re

from rich.highlighter import Highlighter
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Offset
from textual.screen import ModalScreen
from textual.selection import Selection
from textual.widgets import Input, Log, Static

# CSI, OSC and two-character escape sequences (colours, titles, cursor moves): the pager shows plain text
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")


def plain_lines(text: str) -> list[str]:
    """`text` as the pager shows it: escape sequences removed, split into lines (`str.splitlines`:
    also at \\r and the other line boundaries), tabs expanded to 8 columns."""
    return [line.expandtabs() for line in _ANSI.sub("", text).splitlines()] or [""]


def find(text: str, needle: str, start: int, *, backwards: bool = False) -> int:
    """Offset of the next (or previous) case-insensitive match of `needle` from `start`, wrapping; -1 if none."""
    if not needle:
        return -1
    hay, pin = text.lower(), needle.lower()
    if backwards:
        found = hay.rfind(pin, 0, max(start, 0))
        return found if found >= 0 else hay.rfind(pin)
    found = hay.find(pin, start)
    return found if found >= 0 else hay.find(pin)


def location(text: str, offset: int) -> tuple[int, int]:
    """(row, column) of a character offset."""
    row = text.count("\n", 0, offset)
    column = offset - (text.rfind("\n", 0, offset) + 1)
    return row, column


class Matches(Highlighter):
    """Highlights every case-insensitive occurrence of `needle` (nothing while it is empty)."""

    def __init__(self) -> None:
        self.needle = ""

    def highlight(self, text: Text) -> None:
        if self.needle:
            text.highlight_words([self.needle], "bold reverse", case_sensitive=False)


class Pager(ModalScreen[None]):
    """`text` full screen under `title`; `at_end` starts at the last line (command output).

    `text` is what is shown and searched: `plain_lines` of the text given, joined by newlines."""

    BINDINGS = [
        Binding("escape,q", "close", "Close"),
        Binding("slash,ctrl+f", "search", "Search"),
        Binding("n", "next(False)", "Next match"),
        Binding("N", "next(True)", "Previous match"),
        Binding("g", "top", "Top", show=False),
        Binding("G", "end", "End", show=False),
    ]

    def __init__(self, text: str, title: str = "output", at_end: bool = False) -> None:
        super().__init__()
        self.lines = plain_lines(text)
        self.text = "\n".join(self.lines)
        self.title_text = title
        self.at_end = at_end
        self.needle = ""
        self.matches = Matches()
        self._offset = 0  # where the next search starts (a character offset in `text`)

    def compose(self) -> ComposeResult:
        with Vertical(id="pager"):
            yield Static(
                Content.from_markup("[b]$title[/b]  [dim]$lines lines · / search · n/N next/previous · q close[/dim]", title=self.title_text, lines=f"{len(self.lines):,}"),
                id="pager-title",
            )
            view = Log(highlight=True, auto_scroll=False, id="pager-text")
            view.highlighter = self.matches
            yield view
            search = Input(placeholder="search (enter: next match, esc: close the search)", id="pager-search")
            search.display = False
            # the cursor blinks only where the app animates (as the prompt's): a still picture otherwise
            search.cursor_blink = getattr(self.app, "animations", True)
            yield search
            yield Static("", id="pager-found")

    @property
    def view(self) -> Log:
        """The text."""
        return self.query_one("#pager-text", Log)

    def on_mount(self) -> None:
        # Log.write_lines drops empty lines (it splits each again): a blank line is written as a space
        self.view.write_lines([line or " " for line in self.lines], scroll_end=False)
        if self.at_end:
            self.call_after_refresh(self.action_end)
        if self.focused is None:  # a `/` typed at once may have opened the search already
            self.view.focus()

    def action_close(self) -> None:
        search = self.query_one("#pager-search", Input)
        if search.has_focus:
            search.display = False
            self.view.focus()
            return
        self.dismiss(None)

    def action_search(self) -> None:
        search = self.query_one("#pager-search", Input)
        search.display = True
        search.focus()

    def action_top(self) -> None:
        self.view.scroll_home(animate=False)

    def action_end(self) -> None:
        self.view.scroll_end(animate=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value != self.needle:
            self.needle = self.matches.needle = event.value
            self._offset = self._top_offset()
            self.view.refresh_lines(0, len(self.lines))  # the highlighted matches change
        self.action_next(False)

    def _top_offset(self) -> int:
        """Offset of the first line in view: a new search starts there."""
        top = min(int(self.view.scroll_offset.y), len(self.lines) - 1)
        return sum(len(line) + 1 for line in self.lines[:top])

    def action_next(self, backwards: bool) -> None:
        found_label = self.query_one("#pager-found", Static)
        if not self.needle:
            self.action_search()
            return
        start = self._offset - 1 if backwards else self._offset
        offset = find(self.text, self.needle, start, backwards=backwards)
        if offset < 0:
            found_label.update(Content(f"not found: {self.needle}"))
            return
        self._offset = offset + (0 if backwards else 1)
        row, column = location(self.text, offset)
        self.selections = {self.view: Selection(Offset(column, row), Offset(column + len(self.needle), row))}
        view = self.view
        view.scroll_to(x=max(0, column - view.size.width // 2), y=max(0, row - view.size.height // 2), animate=False)
        found_label.update(Content(f"{self.needle!r} at line {row + 1:,}"))
