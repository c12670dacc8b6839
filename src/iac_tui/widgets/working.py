"""The working indicator shown while a turn runs (a spinner unless animations are off)."""

from __future__ import annotations

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class WorkingIndicator(Static):
    """`start(label)` shows it, `stop()` hides it. With `animate` False the mark is still."""

    def __init__(self, animate: bool = True) -> None:
        super().__init__(markup=False)
        self.animated = animate  # not `animate`: that is Widget.animate(), which Textual calls
        self.label = ""
        self.hint = "esc to cancel"
        self._frame = 0
        self._timer: Timer | None = None

    def on_mount(self) -> None:
        self.display = False

    def start(self, label: str = "Working…", hint: str = "esc to cancel") -> None:
        """Show the indicator with `label` and a dim `hint` after it."""
        self.label = label
        self.hint = hint
        self.display = True
        if self.animated and self._timer is None:
            self._timer = self.set_interval(1 / 12, self._tick)
        self._render_label()

    def stop(self) -> None:
        """Hide the indicator."""
        self.display = False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    @property
    def running(self) -> bool:
        """True while shown."""
        return bool(self.display)

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(FRAMES)
        self._render_label(layout=False)

    def _render_label(self, layout: bool = True) -> None:
        """Show the mark, label and hint; `layout=False` when only the mark changed (one cell:
        the size stays, so the screen is repainted, not laid out again, 12 times a second)."""
        mark = FRAMES[self._frame] if self.animated else "●"
        content = Content.from_markup("[$accent]$mark[/] $label  [dim]$hint[/dim]", mark=mark, label=self.label, hint=self.hint)
        self.update(content, layout=layout)
