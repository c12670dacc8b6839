"""The key footer, compact (less padding) below `COMPACT_BELOW` columns so that more keys fit."""

from __future__ import annotations

from textual import events
from textual.widgets import Footer

COMPACT_BELOW = 100


class FittedFooter(Footer):
    """Textual's `Footer`, compact on terminals narrower than `COMPACT_BELOW` columns."""

    def on_resize(self, event: events.Resize) -> None:
        self.compact = event.size.width < COMPACT_BELOW

    async def recompose(self) -> None:
        """Rebuild the keys (Textual does this on every change of focus or bindings), then let go of the old ones.

        Textual 8.2's `Footer` binds each `FooterKey` to its `compact` with `data_bind`, which adds a
        watcher that is dropped only when `compact` next changes: until then every key ever shown
        stays in memory (about 11 per prompt turn here; tens of MiB over a long session). Mutating
        `compact` in place makes Textual drop the watchers of the removed keys.
        `tests/tui/test_layout.py` counts the keys alive after many rebuilds.
        """
        await super().recompose()
        self.mutate_reactive(Footer.compact)
