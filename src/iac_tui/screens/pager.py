"""The pager: a tool's whole output, full screen, searchable.

A read-only `TextArea` (it draws only the visible lines, so 100,000 lines open at once). `/`
or ctrl+f opens the search box; enter finds the next match, `n` / `N` the next / previous one
afterwards; `g` / `G` go to the top / end; `esc` or `q` closes.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static, TextArea
from textual.widgets.text_area import Selection


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


class Pager(ModalScreen[None]):
    """`text` full screen under `title`; `at_end` starts at the last line (command output)."""

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
        self.text = text
        self.title_text = title
        self.at_end = at_end
        self.needle = ""
        self._offset = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="pager"):
            lines = self.text.count("\n") + 1
            yield Static(
                Content.from_markup("[b]$title[/b]  [dim]$lines lines · / search · n/N next/previous · q close[/dim]", title=self.title_text, lines=f"{lines:,}"),
                id="pager-title",
            )
            area = TextArea(self.text, read_only=True, soft_wrap=False, show_line_numbers=True, id="pager-text")
            area.cursor_blink = False
            yield area
            yield Input(placeholder="search (enter: next match, esc: close the search)", id="pager-search")
            yield Static("", id="pager-found")

    @property
    def area(self) -> TextArea:
        """The text."""
        return self.query_one("#pager-text", TextArea)

    def on_mount(self) -> None:
        self.query_one("#pager-search", Input).display = False
        if self.at_end:
            self.action_end()
        self.area.focus()

    def action_close(self) -> None:
        search = self.query_one("#pager-search", Input)
        if search.has_focus:
            search.display = False
            self.area.focus()
            return
        self.dismiss(None)

    def action_search(self) -> None:
        search = self.query_one("#pager-search", Input)
        search.display = True
        search.focus()

    def action_top(self) -> None:
        self.area.move_cursor((0, 0))
        self.area.scroll_home(animate=False)

    def action_end(self) -> None:
        area = self.area
        area.move_cursor(area.document.end)
        area.scroll_end(animate=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value != self.needle:
            self.needle = event.value
            self._offset = self._cursor_offset()
        self.action_next(False)

    def _cursor_offset(self) -> int:
        return self.area.document.get_index_from_location(self.area.cursor_location)

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
        self.area.selection = Selection((row, column), (row, column + len(self.needle)))
        self.area.scroll_cursor_visible(center=True, animate=False)
        found_label.update(Content(f"{self.needle!r} at line {row + 1:,}"))
