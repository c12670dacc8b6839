"""Short notes in the conversation: stop reasons, errors, session events."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


class Note(Static):
    """A one-paragraph note; `variant` is `info`, `warning` or `error` (a CSS class)."""

    def __init__(self, text: str, variant: str = "info") -> None:
        super().__init__(Content(text), classes=f"-{variant}", markup=False)
        self.text = text
        self.variant = variant
