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

    @property
    def attachments(self) -> list[str]:
        """The names of the files it attached."""
        return list(self._attachments)

    def compose(self) -> ComposeResult:
        yield Static(Content(self._text), classes="user-text")
        yield Static(self._attachment_line(), classes="attachments")

    def _attachment_line(self) -> Content:
        if not self._attachments:
            return Content("")
        return Content.from_markup("[dim]attached:[/] $names", names=", ".join(self._attachments))

    def on_mount(self) -> None:
        self.query_one(".attachments", Static).display = bool(self._attachments)

    def append(self, text: str) -> None:
        """Add text (a replayed user message arrives in chunks)."""
        self._text += text
        if self.is_mounted:
            self.query_one(".user-text", Static).update(Content(self._text))

    def attach(self, name: str) -> None:
        """Add an attached file (a replayed message lists its files after its text)."""
        self._attachments.append(name)
        if self.is_mounted:
            line = self.query_one(".attachments", Static)
            line.update(self._attachment_line())
            line.display = True


class AgentMessage(StreamingMarkdown):
    """The agent's answer, streamed as Markdown (code blocks highlighted)."""

    TRIM_OUTER_MARGINS = True  # the message's own margin is the gap
