"""The key footer, compact (less padding) below `COMPACT_BELOW` columns so that more keys fit."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer

from iac_tui.internals import footer_key_type

COMPACT_BELOW = 100


class FittedFooter(Footer):
    """Textual's `Footer`, compact on terminals narrower than `COMPACT_BELOW` columns."""

    def on_resize(self, event: events.Resize) -> None:
        self.compact = event.size.width < COMPACT_BELOW

    def compose(self) -> ComposeResult:
        """Textual's keys, each given the footer's `compact` (and its `-compact` class) before it mounts.

        A `FooterKey`'s own `compact` starts True: mounted as Textual makes it, a key ran its
        watcher (the class added, its styles applied again), then took the footer's value from
        its `data_bind` (on a wide terminal: the class removed, its styles applied a third time).
        The footer is rebuilt on every change of focus or bindings (about 11 keys each), and
        those restyles were ~10% of the app's CPU in the TUI tests (py-spy, 3 Dec 2026).
        Keys inside a binding group are left as Textual makes them (this app has no group).
        """
        key_type = footer_key_type()
        compact = self.compact
        for widget in super().compose():
            if isinstance(widget, key_type):
                widget.set_reactive(key_type.compact, compact)
                widget.set_class(compact, "-compact", update=False)
            yield widget

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
