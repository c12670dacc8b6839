"""The prompts typed while a turn runs, waiting above the prompt box to be sent when it ends."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

SHOWN_CHARS = 200  # of a queued prompt's first line


class QueuedPrompts(Static):
    """One dim line per queued prompt (oldest first) and what to do with them; hidden when none."""

    def on_mount(self) -> None:
        self.display = False

    def show_prompts(self, prompts: list[str]) -> None:
        """Show `prompts` (the queue, oldest first)."""
        self.display = bool(prompts)
        if not prompts:
            return
        lines = []
        for text in prompts:
            first = text.strip().splitlines()[0] if text.strip() else ""
            more = len(first) > SHOWN_CHARS or len(text.strip().splitlines()) > 1
            lines.append(Content.from_markup("[b $accent]» queued[/]  $text", text=first[:SHOWN_CHARS] + ("…" if more else "")))
        what = "sent when the turn ends" if len(prompts) == 1 else "sent one per turn, in this order"
        hint = f"[dim]{what} · ↑ in the empty prompt box edits the last · ctrl+x removes it[/dim]"
        self.update(Content("\n").join([*lines, Content.from_markup(hint)]))
