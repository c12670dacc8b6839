"""A tool's text output: folded to a few rows when long, unfolded on click or enter.

Folding counts *rendered rows* (a line wider than the panel takes several), so a 300,000-character
line folds like a long file. Unfolded, at most `MAX_SHOWN_LINES` lines and `MAX_SHOWN_CHARS`
characters are shown: the *end* of the output for command output (where the exit status and the
errors are), else the start. The whole text is always one key away in the pager
(`iac_tui.screens.pager`). `status` is a last line kept in view in every state (a command's exit
status).

Content that is Markdown (`is_markdown`: it opens with a code fence and ends with its closing
fence, as Claude's adapter sends command output in ```` ```console ```` blocks) is rendered as
Markdown; folded to its last lines, the fence those lines sit in is opened again above them.
"""

from __future__ import annotations

import re

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalGroup
from textual.content import Content
from textual.reactive import var
from textual.widgets import Markdown, Static

MAX_SHOWN_LINES = 500
MAX_SHOWN_CHARS = 40_000
FALLBACK_WIDTH = 100  # row estimates before the widget has a size


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def is_markdown(text: str) -> bool:
    """True for tool content that is Markdown: it starts with a code fence (```` ``` ```` or
    `~~~`, with or without a language) and ends with the fence that closes it. Plain output
    that merely mentions a fence somewhere stays plain text."""
    lines = text.strip().split("\n")
    if len(lines) < 2:
        return False
    first, last = _FENCE.match(lines[0]), _FENCE.match(lines[-1])
    return bool(first and last and last.group(2).strip() == "" and last.group(1)[0] == first.group(1)[0])


def open_fence(lines: list[str]) -> str | None:
    """The fence line still open after `lines` (None when every fence was closed)."""
    opener: str | None = None
    marker = ""
    for line in lines:
        m = _FENCE.match(line)
        if m is None:
            continue
        if opener is None:
            opener, marker = line, m.group(1)
        elif m.group(1)[0] == marker[0] and len(m.group(1)) >= len(marker) and not m.group(2).strip():
            opener = None
    return opener


def rows_of(line: str, width: int) -> int:
    """Rows one line takes when wrapped at `width` columns (characters approximate cells)."""
    return max(1, -(-len(line) // max(width, 1)))


def take_rows(lines: list[str], rows: int, width: int, *, from_end: bool) -> tuple[list[str], int]:
    """The first (or last) lines of `lines` that fit in `rows` rows, a long line cut to fit.

    Returns (the lines shown, how many of `lines` are left out entirely or in part).
    """
    shown: list[str] = []
    budget = rows
    partial = 0
    source = reversed(lines) if from_end else iter(lines)
    for line in source:
        if budget <= 0:
            break
        need = rows_of(line, width)
        if need > budget:
            keep = budget * width - 1
            line = ("…" + line[-keep:]) if from_end else (line[:keep] + "…")
            shown.append(line)
            partial = 1
            break
        shown.append(line)
        budget -= need
    left_out = len(lines) - len(shown) + partial
    if from_end:
        shown.reverse()
    return shown, left_out


class ToolOutput(VerticalGroup):
    """Output text; shows `preview_lines` rows (the last ones if `tail`) until expanded.

    `terminal` renders ANSI colours on a terminal-like background (command output); other output
    that holds escape sequences is decoded the same way, so none reaches the terminal raw.
    """

    expanded: var[bool] = var(False, toggle_class="-expanded")

    def __init__(
        self,
        text: str = "",
        *,
        preview_lines: int = 10,
        tail: bool = False,
        terminal: bool = False,
        error: bool = False,
        status: str = "",
        markdown: bool = False,
    ) -> None:
        super().__init__()
        self.text = text
        self.markdown = markdown
        self.preview_lines = preview_lines
        self.tail = tail
        self.terminal = terminal
        self.status = status
        self._width = 0
        self.set_class(terminal and not markdown, "-terminal")
        self.set_class(error, "-error")
        self.set_class(markdown, "-markdown")

    def compose(self) -> ComposeResult:
        yield Static(classes="output-text", markup=False)
        if self.markdown:
            yield Markdown(classes="output-markdown")
        yield Static(classes="output-status", markup=False)
        yield Static(classes="output-more", markup=False)

    def on_mount(self) -> None:
        self._render_text(force=True)

    def on_resize(self) -> None:
        width = self._wrap_width()
        if width != self._width:
            self._render_text()

    def set_text(self, text: str, *, error: bool | None = None, status: str | None = None) -> None:
        """Replace the text (in place)."""
        if error is not None:
            self.set_class(error, "-error")
        changed = False
        if status is not None and status != self.status:
            self.status, changed = status, True
        if text != self.text:
            self.text, changed = text, True
        if changed:
            self._render_text()

    def _wrap_width(self) -> int:
        width = self.content_region.width if self.is_mounted else 0
        return max(width - (2 if self.terminal else 0), 10) if width > 0 else FALLBACK_WIDTH

    @property
    def lines(self) -> list[str]:
        """The text's lines (a trailing newline makes no empty last line)."""
        return self.text.rstrip("\n").split("\n") if self.text else []

    @property
    def total_rows(self) -> int:
        """Rows the whole text takes at the current width."""
        width = self._wrap_width()
        return sum(rows_of(line, width) for line in self.lines)

    @property
    def hidden_lines(self) -> int:
        """How many lines the folded view leaves out (wholly or in part)."""
        lines = self.lines
        if self.preview_lines == 0:
            return len(lines)
        if self.total_rows <= self.preview_lines + 1:
            return 0
        return take_rows(lines, self.preview_lines, self._wrap_width(), from_end=self.tail)[1]

    @property
    def can_expand(self) -> bool:
        """True when folding hides something."""
        return self.hidden_lines > 0

    def watch_expanded(self) -> None:
        self._render_text()

    def refresh_text(self) -> None:
        """Render again (after `preview_lines` changed)."""
        self._render_text()

    def toggle(self) -> None:
        """Fold or unfold (no-op for short output)."""
        if self.can_expand or self.expanded:
            self.expanded = not self.expanded

    def _render_text(self, force: bool = False) -> None:
        if not (force or self.is_mounted):
            return
        self._width = width = self._wrap_width()
        text_widget = self.query_one(".output-text", Static)
        more = self.query_one(".output-more", Static)
        lines = self.lines
        hidden = self.hidden_lines
        note = ""
        if self.expanded or not hidden:
            shown, note = self._unfolded(lines)
            if self.expanded and hidden:
                note = (note + "   " if note else "") + "▴ fold"
        elif self.preview_lines == 0:
            shown = []
            note = f"▸ {_count(len(lines), 'line')} (enter or click to show)"
        else:
            shown, left_out = take_rows(lines, self.preview_lines, width, from_end=self.tail)
            where = "earlier" if self.tail else "more"
            note = f"▸ {_count(left_out, 'line', where + ' ')}, {_count(len(self.text), 'character')} in all (enter or click to show · p pager)"
        body = "\n".join(shown)
        text_widget.display = bool(shown) and not self.markdown
        if self.markdown:
            self._render_markdown(lines, shown)
        elif self.terminal or "\x1b" in body:  # Textual would send escape sequences to the terminal raw
            text_widget.update(Text.from_ansi(body, no_wrap=False))
        else:
            text_widget.update(marked(body))
        status = self.query_one(".output-status", Static)
        status.update(Content(self.status))
        status.display = bool(self.status)
        more.update(note)
        more.display = bool(note)

    def _render_markdown(self, lines: list[str], shown: list[str]) -> None:
        """Render `shown` (all of `lines`, or their first or last ones) as Markdown; the last
        lines of a fenced block get their fence line back above them."""
        start = len(lines) - len(shown) if self.tail else 0
        reopened = open_fence(lines[:start]) if start > 0 else None
        document = self.query_one(".output-markdown", Markdown)
        document.display = bool(shown)
        document.update("\n".join([reopened, *shown] if reopened else shown))

    def _unfolded(self, lines: list[str]) -> tuple[list[str], str]:
        """The unfolded view: everything, or its end (command output) or start, within the limits."""
        if len(lines) <= MAX_SHOWN_LINES and len(self.text) <= MAX_SHOWN_CHARS:
            return lines, ""
        rows = min(MAX_SHOWN_LINES, MAX_SHOWN_CHARS // self._width)
        shown, left_out = take_rows(lines, rows, self._width, from_end=self.tail)
        where = "earlier" if self.tail else "more"
        return shown, f"… {_count(left_out, 'line', where + ' ')} not shown: press p for the whole output"

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle()


_DIAGNOSTIC = re.compile(r"^\S+:\d+:\d+ (error|warning) \S+ ")
_SEVERITY_STYLE = {"error": "$text-error", "warning": "$text-warning"}


def marked(body: str) -> Content:
    """`body` with validation findings (`file:line:col error rule message`, as the agent appends
    them to edits and the validate tool prints them) coloured by severity."""
    if " error " not in body and " warning " not in body:
        return Content(body)
    parts: list[str | tuple[str, str]] = []
    for index, line in enumerate(body.split("\n")):
        end = "\n" if index else ""
        m = _DIAGNOSTIC.match(line)
        parts.append(end)
        parts.append((line, _SEVERITY_STYLE[m.group(1)]) if m else line)
    return Content.assemble(*parts)


def _count(count: int, noun: str, adjective: str = "") -> str:
    return f"{count:,} {adjective}{noun}" + ("" if count == 1 else "s")
