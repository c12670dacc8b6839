"""Conversation messages: what the user sent and what the agent answers."""

from __future__ import annotations

import re
from urllib.parse import unquote, urlparse

from textual.app import ComposeResult
from textual.containers import VerticalGroup
from textual.content import Content
from textual.widgets import Static

from iac_tui.widgets.streaming import StreamingMarkdown


# iac-code replays an embedded resource as text in the user's message (see `fold_resources`)
_RESOURCE = re.compile(r'\n?<resource uri="([^"]*)">\n.*?\n</resource>', re.S)


def fold_resources(text: str) -> tuple[str, list[str]]:
    """Split `<resource uri="...">...</resource>` blocks out of replayed user text.

    Returns the text without them and the names of the files they held.
    """
    names = []
    for uri in _RESOURCE.findall(text):
        parsed = urlparse(uri)
        names.append(unquote(parsed.path).rsplit("/", 1)[-1] if parsed.scheme == "file" else uri)
    return _RESOURCE.sub("", text), names


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

    async def finish(self) -> None:
        """The replayed message is complete: show embedded files as attachments, not as text."""
        text, names = fold_resources(self._text)
        if not names:
            return
        self._text = text
        self._attachments.extend(names)
        await self.recompose()


class AgentMessage(StreamingMarkdown):
    """The agent's answer, streamed as Markdown (code blocks highlighted)."""
