"""A file edit shown as a diff (textual-diff-view): a header with the +/- counts, the diff below.

The diff itself (a `DiffView`, some ten widgets per hunk) is mounted only while the edit is
open: a tool call with fifty diffs shows fifty one-line headers and opens only the first few,
so a large permission request lays out in a moment. A long open diff is folded to
`FOLD_LINES` rows until unfolded.
"""

from __future__ import annotations

import os
from typing import Any

from textual import events, highlight
from textual.app import ComposeResult
from textual.containers import VerticalGroup
from textual.content import Content
from textual.reactive import var
from textual.widget import Widget
from textual.widgets import Static
from textual_diff_view import DiffView

from iac_tui.file_changes import FileChange, diff_counts
from iac_tui.internals import diff_views_guessing_with, kept_highlighted_lines

FOLD_LINES = 30


def counts_label(added: int, removed: int) -> Content:
    """`+3 -1` in the theme's success and error colours."""
    return Content.from_markup("[$text-success]+$a[/] [$text-error]-$r[/]", a=str(added), r=str(removed))


_LANGUAGES: dict[str, str] = {}


def _guess_language(code: str, path: str | None) -> str:
    """`textual.highlight.guess_language`, remembered per file extension: Pygments' guess
    tries every lexer's file patterns (tens of milliseconds per call, two calls per diff)."""
    key = os.path.splitext(path)[1] if path and os.path.splitext(path)[1] else f"{path}\0{code[:200]}"
    language = _LANGUAGES.get(key)
    if language is None:
        language = _LANGUAGES[key] = _textual_guess(code, path)
    return language


_textual_guess = highlight.guess_language


def warm_up_highlighting() -> None:
    """Pay Pygments' first-use cost (loading its lexer tables and plugins, about half a second)
    ahead of the first diff; run it in a thread while nothing else happens."""
    _guess_language('resource "x" "y" {}\n', "main.tf")


class _DiffView(DiffView):
    """textual-diff-view's `DiffView`, guessing each file type's language once per process, and
    composed again only when the styles it draws with change.

    `DiffView.notify_style_update` recomposes the whole diff (every hunk's widgets, the syntax
    highlighting) on every style pass that reaches it, and a class change on any ancestor is
    one: its tool call panel changing state (pending, awaiting, running, done) recomposed each
    diff several times per edit. Textual (8.2.8) then also leaks: a style pass over a diff being
    recomposed meets the old hunks' scroll containers after their message loops ended, and
    `ScrollbarColorProperty` creates and starts a scrollbar for one that nothing ever stops; its
    task is destroyed pending when the container is collected ("Task was destroyed but it is
    pending", then a `PytestUnraisableExceptionWarning`: "<Token var=active_message_pump> was
    created in a different Context"). No upstream issue of either library names this (searched
    2 Dec 2026). Here a style pass only clears the caches every widget clears; once the pass is
    over, the diff is composed again if its look (the theme, its component classes' styles)
    differs from the one it was composed with.
    """

    _look: tuple[object, ...] | None = None
    """The theme and component styles of the last compose; None before the first."""

    def __init__(self, *args: Any, auto_split: bool = False, **kwargs: Any) -> None:
        # DiffView judges `auto_split` at mount too, when its width is still 0: unified, composed
        # again, then split again at its first resize (two composes, each with its own window for
        # Textual's leak above); here it judges from its first real width on
        super().__init__(*args, auto_split=False, **kwargs)
        self._auto_split_from_first_size = auto_split

    async def on_resize(self, event: events.Resize) -> None:
        """(Runs before DiffView's own `on_resize`, which then judges this width.)"""
        if self._auto_split_from_first_size and event.size.width:
            self._auto_split_from_first_size = False
            self.auto_split = True

    def _current_look(self) -> tuple[object, ...]:
        return (self.app.theme, *(self.get_visual_style(name, partial=True) for name in sorted(self.COMPONENT_CLASSES)))

    def compose(self) -> ComposeResult:
        self._look = self._current_look()
        yield from super().compose()

    def notify_style_update(self) -> None:
        Widget.notify_style_update(self)  # the style caches; not DiffView's recompose
        if self._look is not None:
            self.call_after_refresh(self._restyle)

    def _restyle(self) -> None:
        """After a style pass (component styles are applied after `notify_style_update`)."""
        if self.is_attached and self._look != self._current_look():
            DiffView.notify_style_update(self)

    @property
    def highlighted_code_lines(self) -> tuple[list[Content], list[Content]]:
        kept = kept_highlighted_lines(self)
        if kept is not None:
            return kept
        with diff_views_guessing_with(_guess_language):  # no await in between
            return super().highlighted_code_lines


def fits_split(change: FileChange, width: int) -> bool:
    """Whether side by side fits in `width` columns (as `DiffView`'s auto split judges it)."""
    lines = (change.old_text or "").expandtabs().splitlines() + change.new_text.expandtabs().splitlines()
    longest = max((len(line) for line in lines), default=0)
    numbers = len(str(max(len((change.old_text or "").splitlines()), len(change.new_text.splitlines()), 1)))
    return width >= longest * 2 + 4 + 2 * numbers + 6


def make_diff_view(change: FileChange, *, split: bool | None = None, width: int = 0) -> DiffView:
    """A `DiffView` of one change; `split` None lets it split when the width allows (never for a
    new file). `width`, the columns it will get, decides that up front (one layout, not two)."""
    new_file = change.old_text is None
    auto = split is None and not new_file
    if auto and width:
        split = fits_split(change, width)
    return _DiffView(change.path, change.path, change.old_text or "", change.new_text, split=bool(split), annotations=True, auto_split=auto)


class EditDiff(VerticalGroup):
    """The change of one file; `open` False shows only the header until it is toggled open."""

    expanded: var[bool] = var(False, toggle_class="-expanded")
    is_open: var[bool] = var(True, toggle_class="-open")

    def __init__(self, path: str, old_text: str | None, new_text: str, *, open: bool = True) -> None:
        super().__init__()
        self.change = FileChange(path, old_text, new_text)
        self.path = path
        self.old_text = old_text
        self.new_text = new_text
        self.key = self.change.key
        self.added, self.removed = diff_counts(old_text, new_text)
        self.set_reactive(EditDiff.is_open, open)
        self.set_class(open, "-open")
        self.long = self.added + self.removed > FOLD_LINES
        self.set_class(self.long, "-long")

    def compose(self) -> ComposeResult:
        yield Static(self._header(), classes="diff-header", markup=False)
        if self.is_open:
            yield make_diff_view(self.change, width=self._expected_width())
            if self.long:
                yield Static(self._more(), classes="diff-more", markup=False)

    def _expected_width(self) -> int:
        """Columns the diff will get: this widget's, once laid out, else the screen's less the panel's frame."""
        if self.size.width:
            return self.size.width
        return max(self.app.size.width - 10, 20) if self.is_attached else 0

    def _header(self) -> Content:
        mark = "▾" if self.is_open else "▸"
        new = "  [dim](new file)[/dim]" if self.change.old_text is None else ""
        head = Content.from_markup(f"$mark [b]$path[/b]{new}  ", mark=mark, path=self.path)
        return Content.assemble(head, counts_label(self.added, self.removed))

    def _more(self) -> str:
        return "▴ fold the diff" if self.expanded else "▸ show the whole diff (enter or click)"

    async def watch_is_open(self) -> None:
        if self.is_mounted:
            await self.recompose()

    def watch_expanded(self) -> None:
        if self.is_mounted and self.is_open and self.long:
            self.query_one(".diff-more", Static).update(self._more())

    def toggle(self) -> None:
        """Open a closed diff; unfold or fold an open long one (a short open one closes)."""
        if not self.is_open:
            self.is_open = True
        elif self.long and not self.expanded:
            self.expanded = True
        else:
            self.expanded = False
            self.is_open = False

    def set_expanded(self, expanded: bool) -> None:
        """Open and unfold (True), or fold a long diff back to its first rows (False)."""
        if expanded:
            self.is_open = True
        self.expanded = expanded and self.long

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle()
