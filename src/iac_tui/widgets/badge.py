"""The badge shown while the conversation does not follow its bottom: what is new below, and how to go back."""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.content import Content
from textual.message import Message
from textual.widgets import Static


class FollowBadge(Static):
    """`↓ 3 new · permission needed · end` while the person reads above the newest output.

    Hidden while the conversation follows its bottom. A click posts `Clicked` (the app then
    follows again, as the `end` key does).
    """

    @dataclass
    class Clicked(Message):
        """The person clicked the badge."""

    def __init__(self) -> None:
        super().__init__(id="follow-badge", markup=False)

    def on_mount(self) -> None:
        self.display = False

    def show_state(self, following: bool, unread: int, asking: bool) -> None:
        """Show (or hide) the badge for the conversation's state and a pending question."""
        if self.display == following:  # shown or hidden now: the conversation above changes height
            self.display = not following
            if self.is_attached:
                self.screen.refresh(layout=True)  # repaint all of it (a partial update left a stale row)
        if following:
            return
        parts = [f"↓ {unread} new" if unread else "↓ newer output below"]
        if asking:
            parts.append("permission needed")
        self.update(Content.assemble(Content(" · ".join(parts)).stylize("bold"), ("  · end: jump to the latest", "dim")))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked())
