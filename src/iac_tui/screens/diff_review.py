"""The diff reviewer: every file of an edit, full screen, one diff at a time (after Toad's
permissions screen, `toad/screens/permissions.py`).

On the left the files with their +/- counts; on the right the diff of the highlighted one
(only that one is laid out, so fifty files open at once). `j` / `k` move between files,
`s` toggles split and unified views, `esc` / `q` closes. Given the permission `options`
(SDK `PermissionOption`s), their keys answer from here too (`a` allow once, `A` allow always,
`r` reject once, `R` reject always; no text box is on this screen for a key to be meant for),
and the screen is dismissed with the chosen option id; closing it answers nothing (None).
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from iac_tui.widgets.diff import FileChange, counts_label, diff_counts, make_diff_view

KIND_KEYS = {"allow_once": "a", "allow_always": "A", "reject_once": "r", "reject_always": "R"}
MANY_FILES = 2  # a request with more files than this deserves the reviewer
LONG_DIFF = 40  # ... and so does one whose changed lines exceed this


def wants_review(changes: list[FileChange]) -> bool:
    """True when an edit is better reviewed full screen: several files, or a long diff."""
    if len(changes) > MANY_FILES:
        return True
    return sum(sum(diff_counts(c.old_text, c.new_text)) for c in changes) > LONG_DIFF


class DiffReview(Screen[str | None]):
    """Review `changes` under `title`; with `options`, answer the permission request from here."""

    BINDINGS = [
        Binding("j,down", "move(1)", "Next file"),
        Binding("k,up", "move(-1)", "Previous file"),
        Binding("s", "toggle_split", "Split/unified"),
        Binding("escape,q", "dismiss(None)", "Back"),
        Binding("a", "answer('allow_once')", "Allow once", priority=True),
        Binding("A", "answer('allow_always')", "Allow always", priority=True),
        Binding("r", "answer('reject_once')", "Reject", priority=True),
        Binding("R", "answer('reject_always')", "Reject always", priority=True),
    ]

    index: var[int] = var(0)
    split: var[bool] = var(False)

    def __init__(self, changes: list[FileChange], title: str = "Review the changes", options: list[Any] | None = None) -> None:
        super().__init__()
        self.changes = list(changes)
        self.title_text = title
        self.options = list(options or [])
        self.counts = [diff_counts(c.old_text, c.new_text) for c in self.changes]

    def compose(self) -> ComposeResult:
        added = sum(a for a, _ in self.counts)
        removed = sum(r for _, r in self.counts)
        files = f"{len(self.changes)} file" + ("" if len(self.changes) == 1 else "s")
        head = Content.from_markup("[b]$title[/b]  [dim]$files[/dim]  ", title=self.title_text, files=files)
        yield Static(Content.assemble(head, counts_label(added, removed)), id="review-title")
        with Horizontal(id="review-body"):
            with Vertical(id="review-nav"):
                yield OptionList(
                    *[
                        Option(Content.assemble(Content(f"{c.path}  "), counts_label(a, r)), id=f"file-{i}")
                        for i, (c, (a, r)) in enumerate(zip(self.changes, self.counts, strict=True))
                    ],
                    id="review-files",
                )
                if self.options:
                    yield Static(self._options_help(), id="review-options")
            yield VerticalScroll(id="review-diff")
        yield Footer()

    def _options_help(self) -> Content:
        parts = []
        for option in self.options:
            key = KIND_KEYS.get(option.kind)
            if key is not None:
                parts.append(Content.from_markup("[b]$key[/b] $name", key=key, name=option.name))
        return Content("\n").join(parts)

    async def on_mount(self) -> None:
        files = self.query_one("#review-files", OptionList)
        files.highlighted = 0
        files.focus()
        await self._show(0)

    async def _show(self, index: int) -> None:
        pane = self.query_one("#review-diff", VerticalScroll)
        await pane.remove_children()
        await pane.mount(make_diff_view(self.changes[index], split=self.split))
        pane.scroll_home(animate=False)

    async def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index != self.index:
            self.index = event.option_index
            await self._show(self.index)

    def action_move(self, delta: int) -> None:
        files = self.query_one("#review-files", OptionList)
        files.highlighted = max(0, min(len(self.changes) - 1, (files.highlighted or 0) + delta))

    async def action_toggle_split(self) -> None:
        self.split = not self.split
        await self._show(self.index)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "answer":
            return any(o.kind == parameters[0] for o in self.options)
        return True

    def action_answer(self, kind: str) -> None:
        option = next((o for o in self.options if o.kind == kind), None)
        if option is not None:
            self.dismiss(option.option_id)
