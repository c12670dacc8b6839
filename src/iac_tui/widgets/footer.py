"""The key footer, compact (less padding) below `COMPACT_BELOW` columns so that more keys fit."""

from __future__ import annotations

from textual import events
from textual.widgets import Footer

COMPACT_BELOW = 100


class FittedFooter(Footer):
    """Textual's `Footer`, compact on terminals narrower than `COMPACT_BELOW` columns."""

    def on_resize(self, event: events.Resize) -> None:
        self.compact = event.size.width < COMPACT_BELOW
