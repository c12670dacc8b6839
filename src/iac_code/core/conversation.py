"""The conversation model: messages made of content blocks, in the shape of Anthropic's Messages API.

A conversation is a list of `Message`s alternating between the user and the assistant. User
messages carry text (and images the user attached), or the `tool_result`s answering the assistant's `tool_use`s; assistant
messages carry text, `thinking` (with its signature, sent back verbatim) and `tool_use` blocks.
This is the provider-neutral form stored in session files and handed to providers.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, Field


_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD.

    UTF-8 cannot encode lone surrogates, so text holding one could be neither sent to a model
    nor stored. They come from `\\udXXX` escapes in JSON (a client's prompt, a model's tool
    input) and from text decoded with `surrogateescape`.
    """
    return text if text.isascii() else _SURROGATE.sub("\ufffd", text)


class TextBlock(BaseModel):
    """Plain text."""

    type: Literal["text"] = "text"
    text: str


IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
"""The image formats the Messages API accepts."""
MAX_IMAGE_BASE64 = 5 * 1024 * 1024
"""The longest base64 `data` of one image the Messages API takes ("image exceeds 5 MB maximum"
names the encoded length): 3.75 MiB decoded."""
MAX_IMAGE_SIDE = 8000
"""The Messages API refuses an image wider or taller than this, in pixels."""
REQUEST_IMAGES = 20
"""The most images one request carries, the newest. Past 20 images in a request the API refuses
any wider or taller than 2,000 px, and past 100 it refuses the request; older images are left out
(`providers.anthropic_request.message_params`) so one attachment too many never fails every later
turn of a session."""
REQUEST_IMAGE_BASE64 = 20 * 1024 * 1024
"""The most base64 image data one request carries (the API refuses a request over 32 MB)."""
IMAGE_TOKENS = 1600
"""What an image counts for in `estimate_tokens`: about the most the Messages API charges for one
(it scales them to at most ~1.15 megapixels, ~1,600 tokens)."""


class ImageBlock(BaseModel):
    """An image the user attached: `data` is its base64 encoding, `media_type` one of
    `IMAGE_TYPES`, `name` what the client called it (a file name or URI), for the replay."""

    type: Literal["image"] = "image"
    media_type: str
    data: str
    name: str | None = None


class ThinkingBlock(BaseModel):
    """Model reasoning; `signature` must be sent back unchanged with it."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str = ""


class RedactedThinkingBlock(BaseModel):
    """Reasoning the provider returned encrypted; kept only to send it back."""

    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str


class ToolUseBlock(BaseModel):
    """The assistant asks to run tool `name` with `input`; `id` pairs it with its result."""

    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)


class ToolResultBlock(BaseModel):
    """The result of the `tool_use` whose id is `tool_use_id`; `is_error` marks failures."""

    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: str
    is_error: bool = False


ContentBlock = Annotated[
    TextBlock | ImageBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock | ToolResultBlock,
    Field(discriminator="type"),
]


class Message(BaseModel):
    """One message of the conversation."""

    role: Literal["user", "assistant"]
    content: list[ContentBlock]

    def text(self) -> str:
        """The message's text blocks joined (no thinking, no tool blocks)."""
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    def tool_uses(self) -> list[ToolUseBlock]:
        """The `tool_use` blocks of this message, in order."""
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    def tool_results(self) -> list[ToolResultBlock]:
        """The `tool_result` blocks of this message, in order."""
        return [b for b in self.content if isinstance(b, ToolResultBlock)]

    @property
    def is_prompt(self) -> bool:
        """True for a user message typed by the user (not one that only returns tool results)."""
        return self.role == "user" and not self.tool_results()


def user_text(text: str) -> Message:
    """A user message holding one text block."""
    return Message(role="user", content=[TextBlock(text=text)])


INTERRUPTED = "Interrupted: this tool call did not finish (the turn was cancelled or the agent stopped)."


def repair(messages: list[Message]) -> list[Message]:
    """Return `messages` with every dangling `tool_use` answered.

    A `tool_use` whose `tool_result` is missing from the next message (the turn was cancelled,
    or the server was killed between the two) gets an error result `INTERRUPTED`, so the
    conversation is valid for the Messages API again. Orphan `tool_result`s with no matching
    `tool_use` are dropped. The input list is not modified.
    """
    out: list[Message] = []
    pending: list[str] = []  # tool_use ids of the last assistant message still unanswered
    for msg in messages:
        if pending:
            if msg.role == "user":
                answered = {r.tool_use_id for r in msg.tool_results()}
                missing = [i for i in pending if i not in answered]
                if missing:
                    fill = [ToolResultBlock(tool_use_id=i, content=INTERRUPTED, is_error=True) for i in missing]
                    results = [b for b in msg.content if isinstance(b, ToolResultBlock)]
                    others = [b for b in msg.content if not isinstance(b, ToolResultBlock)]
                    msg = Message(role="user", content=[*results, *fill, *others])
            else:
                out.append(
                    Message(
                        role="user",
                        content=[ToolResultBlock(tool_use_id=i, content=INTERRUPTED, is_error=True) for i in pending],
                    )
                )
            pending = []
        elif msg.role == "user" and msg.tool_results():
            valid = {u.id for u in out[-1].tool_uses()} if out and out[-1].role == "assistant" else set()
            kept = [b for b in msg.content if not isinstance(b, ToolResultBlock) or b.tool_use_id in valid]
            if not kept:
                continue
            msg = Message(role="user", content=kept)
        out.append(msg)
        if msg.role == "assistant":
            pending = [u.id for u in msg.tool_uses()]
    if pending:
        out.append(
            Message(
                role="user",
                content=[ToolResultBlock(tool_use_id=i, content=INTERRUPTED, is_error=True) for i in pending],
            )
        )
    return out


def estimate_tokens(messages: list[Message], *extra_text: str) -> int:
    """A rough token count (characters / 4) of `messages` plus `extra_text`; no tokenizer needed."""
    chars = sum(len(t) for t in extra_text)
    for msg in messages:
        for b in msg.content:
            if isinstance(b, TextBlock):
                chars += len(b.text)
            elif isinstance(b, ThinkingBlock):
                chars += len(b.thinking)
            elif isinstance(b, ToolUseBlock):
                chars += len(b.name) + sum(len(str(v)) for v in b.input.values()) + 16
            elif isinstance(b, ToolResultBlock):
                chars += len(b.content)
            elif isinstance(b, ImageBlock):
                chars += IMAGE_TOKENS * 4
            else:
                chars += len(b.data)
    return chars // 4 + 1


class Journal(Protocol):
    """Where a conversation is persisted as it grows (the session store implements it)."""

    def append(self, message: Message) -> None:
        """Persist one completed message."""
        ...

    def reset(self, messages: list[Message], reason: str) -> None:
        """Persist that the conversation was replaced (compaction, clear) by `messages`."""
        ...


class Conversation:
    """The messages of a session, persisted through an optional `Journal` as each one completes."""

    def __init__(self, messages: list[Message] | None = None, journal: Journal | None = None) -> None:
        self.messages: list[Message] = list(messages or [])
        self.journal = journal

    def append(self, message: Message) -> None:
        """Add a completed message and persist it."""
        self.messages.append(message)
        if self.journal is not None:
            self.journal.append(message)

    def replace(self, messages: list[Message], reason: str) -> None:
        """Replace the whole conversation (compaction, `/clear`) and persist that."""
        self.messages = list(messages)
        if self.journal is not None:
            self.journal.reset(self.messages, reason)
