"""Keys before streamed text: an App that notes when a key was pressed and says when it is drawn.

A screen update that lays out and draws more of a streaming answer costs several times one that
only changes the prompt box (`bench/tui_answer.py`). `StreamingMarkdown` therefore holds streamed
text while a person types and writes it once the key's echo is on the screen, in the pause before
the next key; the garbage-collection pacer (`iac_tui.gc_pacing`) also reads `typed_at`.
"""

from __future__ import annotations

import time
from functools import partial

from textual import events
from textual.app import App
from textual.signal import Signal


ECHO_WRITE = 0.003
"""Seconds between the frame that draws a key and `key_drawn_signal`. Textual's writer thread
writes a frame to the terminal, and it needs the interpreter: work started at once (the streamed
text held for the key) kept it waiting up to Python's switch interval (5 ms), so the echo reached
the terminal 8 ms after its frame at the median (`bench/tui_answer.py`, traced). Idle meanwhile,
the app lets the writer run first."""


class KeyEchoApp(App[None]):
    """An App with `typed_at` (when a key was last pressed, monotonic seconds) and
    `key_drawn_signal`, published with a key's time once a frame has drawn its echo (`echo_drawn`)."""

    typed_at = float("-inf")

    def __init__(self) -> None:
        super().__init__()
        self.key_drawn_signal: Signal[float] = Signal(self, "key-drawn")

    async def on_event(self, event: events.Event) -> None:
        """Note a key's time (`typed_at`), then handle the event as Textual does."""
        if isinstance(event, events.Key):
            self.typed_at = time.monotonic()
        await super().on_event(event)

    def echo_drawn(self, typed_at: float) -> None:
        """Called by the widget that echoes keys (the prompt box) from a frame that draws it with
        the key it handled at `typed_at`: `key_drawn_signal` is published `ECHO_WRITE` s after
        that frame (time for Textual's writer thread to write it; nothing checks that it did)."""
        self.set_timer(ECHO_WRITE, partial(self.key_drawn_signal.publish, typed_at))
