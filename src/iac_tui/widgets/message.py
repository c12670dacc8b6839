"""Conversation messages: what the user sent and what the agent answers."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalGroup
from textual.content import Content
from textual.widgets import Static

from iac_tui.widgets.streaming import StreamingMarkdown


class UserMessage(VerticalGroup):
    """A prompt as the user wrote it, with the files it attached."""

    def __init__(self, text: str = "", attachments: list[str] | None = None) -> None:
        super().__init__()
        self._text = text
        self._attachments = attachments or []

    @property
    def text(self) -> str:
        """The message text."""
        return self._text

    def compose(self) -> ComposeResult:
        yield Static(Content(self._text), classes="user-text")
        if self._attachments:
            names = ", ".join(self._attachments)
            yield Static(Content.from_markup("[dim]attached:[/] $names", names=names), classes="attachments")

    def append(self, text: str) -> None:
        """Add text (a replayed user message arrives in chunks)."""
        self._text += text
        if self.is_mounted:
            self.query_one(".user-text", Static).update(Content(self._text))


class AgentMessage(StreamingMarkdown):
    """The agent's answer, streamed as Markdown (code blocks highlighted)."""
