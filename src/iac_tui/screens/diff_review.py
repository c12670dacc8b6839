"""The diff reviewer: every file of an edit, full screen, one diff at a time (after Toad's
permissions screen, `toad/screens/permissions.py`).

On the left the files with their +/- counts; on the right the diff of the highlighted one
(only that one is laid out, so fifty files open at once). `j` / `k` move between files,
`s` toggles split and unified views, `esc` / `q` closes. Given the permission `options`
(SDK `PermissionOption`s), their keys answer from here too (`a` allow once, `A` allow always,
`r` reject once, `R` reject always) and the screen is dismissed with the chosen option id;
closing it answers nothing (None). The letters are as guarded as the docked question's: with
`letters` False (the person was typing when it opened) they are off from the start, any other
printable key turns them off (an answer letter whose option is not offered is ignored), and an answer letter waits `LETTER_GRACE` for a next key that
would make it the start of a word.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import var
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from iac_tui.answer_keys import KIND_KEYS, LETTER_GRACE
from iac_tui.file_changes import FileChange, diff_counts
from iac_tui.widgets.diff import counts_label, make_diff_view

if TYPE_CHECKING:  # the SDK loads after the first paint (iac_tui.sdk)
    from acp.schema import PermissionOption


class DiffReview(Screen[str | None]):
    """Review `changes` under `title`; with `options`, answer the permission request from here."""

    BINDINGS = [
        Binding("j,down", "move(1)", "Next file"),
        Binding("k,up", "move(-1)", "Previous file"),
        Binding("s", "toggle_split", "Split/unified"),
        Binding("escape,q", "dismiss(None)", "Back"),
    ]

    index: var[int] = var(0)
    split: var[bool] = var(False)

    def __init__(
        self, changes: list[FileChange], title: str = "Review the changes", options: list[PermissionOption] | None = None, *, letters: bool = True
    ) -> None:
        super().__init__()
        self.changes = list(changes)
        self.title_text = title
        self.options = list(options or [])
        self.letters = letters
        self.counts = [diff_counts(c.old_text, c.new_text) for c in self.changes]
        self._held: tuple[str, Timer] | None = None

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
        if not self.letters:
            return Content.from_markup("[$text-warning]Letter keys are off (you were typing):[/]\nesc goes back to the question")
        parts = []
        for option in self.options:
            key = KIND_KEYS.get(option.kind)
            if key is not None:
                parts.append(Content.from_markup("[b] $key [/b] $name", key=key, name=option.name))
        return Content("\n").join(parts)

    def _suspend_letters(self) -> None:
        self.letters = False
        if self.options and self.is_mounted:
            self.query_one("#review-options", Static).update(self._options_help())

    def on_key(self, event: events.Key) -> None:
        """Answer letters (guarded, see the module docstring); any other printable key turns them off."""
        if not self.options or event.key in ("j", "k", "s", "q"):
            return
        held, self._held = self._held, None
        if held is not None:
            held[1].stop()
        kinds = {key: kind for kind, key in KIND_KEYS.items()}
        if self.letters and held is None and event.character in kinds and any(o.kind == kinds[event.character] for o in self.options):
            event.stop()
            kind = kinds[event.character]
            self._held = (kind, self.set_timer(LETTER_GRACE, lambda: self._commit(kind)))
        elif self.letters and held is None and event.character in kinds:
            event.stop()  # an answer letter whose option is not offered: ignored, the letters stay on
        elif event.is_printable:
            event.stop()
            self._suspend_letters()

    def _commit(self, kind: str) -> None:
        if self._held is not None and self._held[0] == kind and self.letters:
            self._held = None
            self.action_answer(kind)

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

    def action_answer(self, kind: str) -> None:
        option = next((o for o in self.options if o.kind == kind), None)
        if option is not None:
            self.dismiss(option.option_id)
