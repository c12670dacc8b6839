"""A tool's text output: folded to a few lines when long, unfolded on click or enter."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalGroup
from textual.content import Content
from textual.reactive import var
from textual.widgets import Static

MAX_SHOWN_LINES = 2000


class ToolOutput(VerticalGroup):
    """Output text; shows `preview_lines` lines (the last ones if `tail`) until expanded.

    `terminal` renders ANSI colours on a terminal-like background (command output); other output
    that holds escape sequences is decoded the same way, so none reaches the terminal raw.
    """

    expanded: var[bool] = var(False, toggle_class="-expanded")

    def __init__(self, text: str = "", *, preview_lines: int = 10, tail: bool = False, terminal: bool = False, error: bool = False) -> None:
        super().__init__()
        self.text = text
        self.preview_lines = preview_lines
        self.tail = tail
        self.terminal = terminal
        self.set_class(terminal, "-terminal")
        self.set_class(error, "-error")

    def compose(self) -> ComposeResult:
        yield Static(classes="output-text", markup=False)
        yield Static(classes="output-more", markup=False)

    def on_mount(self) -> None:
        self._render_text(force=True)

    def set_text(self, text: str, *, error: bool | None = None) -> None:
        """Replace the text (in place)."""
        if error is not None:
            self.set_class(error, "-error")
        if text != self.text:
            self.text = text
            self._render_text()

    @property
    def hidden_lines(self) -> int:
        """How many lines the folded view leaves out."""
        count = self.text.rstrip("\n").count("\n") + 1 if self.text else 0
        if self.preview_lines == 0:
            return count
        return count - self.preview_lines if count > self.preview_lines + 1 else 0

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
        text_widget = self.query_one(".output-text", Static)
        more = self.query_one(".output-more", Static)
        lines = self.text.rstrip("\n").split("\n") if self.text else []
        hidden = self.hidden_lines
        if self.expanded or not hidden:
            shown = lines[:MAX_SHOWN_LINES]
            note = f"… {len(lines) - MAX_SHOWN_LINES} more lines not shown" if len(lines) > MAX_SHOWN_LINES else ""
            if self.expanded and hidden:
                note = (note + "   " if note else "") + "▴ fold"
        else:
            shown = lines[-self.preview_lines :] if self.tail else lines[: self.preview_lines]
            if self.preview_lines == 0:
                note = f"▸ {_lines(len(lines))} (enter or click to show)"
            else:
                note = f"▸ {_lines(hidden, 'more ')} (enter or click to show)"
        body = "\n".join(shown)
        text_widget.display = bool(shown)
        if self.terminal or "\x1b" in body:  # Textual would send escape sequences to the terminal raw
            text_widget.update(Text.from_ansi(body, no_wrap=False))
        else:
            text_widget.update(Content(body))
        more.update(note)
        more.display = bool(note)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle()


def _lines(count: int, more: str = "") -> str:
    return f"{count} {more}line" + ("" if count == 1 else "s")
