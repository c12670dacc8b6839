"""The streamed Messages API response, event by event: provider events as they arrive, the
complete assistant `Message` at the end.

`MessageBuilder` takes the SDK's raw stream events (`message_start`, `content_block_start`,
`content_block_delta`, `message_delta`) and yields `TextDelta`/`ThinkingDelta` per delta and
`ToolUseStart` when a `tool_use` block starts; `finish` returns the message (text, thinking with
its signature, redacted thinking, tool uses in order), its stop reason and usage. `Replay`
drops what a retried response repeats of what the client was already `Shown`. Nothing here
imports the SDK: the events are read by their attributes.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

from iac_code.core.conversation import (
    ContentBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
)
from iac_code.core.provider import (
    ProviderError,
    ProviderEvent,
    StopReason,
    TextDelta,
    ThinkingDelta,
    ToolUseStart,
    Usage,
)
from iac_code.providers.anthropic_request import valid_json

log = logging.getLogger(__name__)

STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "stop_sequence": "stop_sequence",
    "tool_use": "tool_use",
    "pause_turn": "pause_turn",
    "max_tokens": "max_tokens",
    "refusal": "refusal",
    "model_context_window_exceeded": "max_tokens",
}
"""API stop reason -> provider stop reason (`model_context_window_exceeded` is reported as
`max_tokens`: see `providers.anthropic`)."""


@dataclass(slots=True)
class Shown:
    """What the client has been shown of one response, across attempts: characters of answer
    text and of reasoning, and the ids of the tool uses announced (in order)."""

    text: int = 0
    thinking: int = 0
    tool_use_ids: list[str] = field(default_factory=list)


class Replay:
    """Filters one attempt's events so nothing the client was already shown is sent again.

    A retried response normally starts the same way as the interrupted one: its first `shown`
    characters of text (and of thinking) are dropped, and its first tool uses, already
    announced, are not announced again (they take over the announced ids in `MessageDone`).
    """

    def __init__(self, shown: Shown) -> None:
        self._shown = shown
        self._text = 0
        self._thinking = 0
        self._tool_uses = 0

    def unseen(self, event: ProviderEvent) -> ProviderEvent | None:
        """`event`, cut to its part the client has not seen yet, or None if it saw all of it."""
        shown = self._shown
        if isinstance(event, TextDelta):
            start, self._text = self._text, self._text + len(event.text)
            fresh = event.text[max(0, shown.text - start) :]
            shown.text = max(shown.text, self._text)
            return TextDelta(fresh) if fresh else None
        if isinstance(event, ThinkingDelta):
            start, self._thinking = self._thinking, self._thinking + len(event.text)
            fresh = event.text[max(0, shown.thinking - start) :]
            shown.thinking = max(shown.thinking, self._thinking)
            return ThinkingDelta(fresh) if fresh else None
        if isinstance(event, ToolUseStart):
            index, self._tool_uses = self._tool_uses, self._tool_uses + 1
            if index < len(shown.tool_use_ids):
                return None
            shown.tool_use_ids.append(event.id)
        return event


@dataclass(slots=True)
class _BlockParts:
    """A content block being streamed; text pieces are joined once, at the end."""

    type: str
    parts: list[str] = field(default_factory=list)
    signature: list[str] = field(default_factory=list)
    id: str = ""
    name: str = ""
    data: str = ""


class MessageBuilder:
    """Accumulates raw stream events into the assistant message, its stop reason and usage."""

    def __init__(self) -> None:
        self._blocks: dict[int, _BlockParts] = {}
        self._usage = Usage()
        self._stop_reason: str | None = None

    def apply(self, event: Any) -> list[ProviderEvent]:
        """Take one raw SDK stream event; return the provider events it produces."""
        kind = event.type
        if kind == "message_start":
            usage = event.message.usage
            self._usage = Usage(
                input_tokens=usage.input_tokens or 0,
                output_tokens=usage.output_tokens or 0,
                cache_read_tokens=usage.cache_read_input_tokens or 0,
                cache_write_tokens=usage.cache_creation_input_tokens or 0,
            )
        elif kind == "content_block_start":
            return self._start(event.index, event.content_block)
        elif kind == "content_block_delta":
            return self._delta(event.index, event.delta)
        elif kind == "message_delta":
            self._stop_reason = event.delta.stop_reason or self._stop_reason
            usage = event.usage
            self._usage.output_tokens = usage.output_tokens
            if usage.input_tokens is not None:
                self._usage.input_tokens = usage.input_tokens
            if usage.cache_read_input_tokens is not None:
                self._usage.cache_read_tokens = usage.cache_read_input_tokens
            if usage.cache_creation_input_tokens is not None:
                self._usage.cache_write_tokens = usage.cache_creation_input_tokens
        return []

    def _start(self, index: int, block: Any) -> list[ProviderEvent]:
        if block.type == "text":
            self._blocks[index] = _BlockParts("text", [block.text])
            return [TextDelta(block.text)] if block.text else []
        if block.type == "thinking":
            self._blocks[index] = _BlockParts("thinking", [block.thinking], [block.signature or ""])
            return [ThinkingDelta(block.thinking)] if block.thinking else []
        if block.type == "redacted_thinking":
            self._blocks[index] = _BlockParts("redacted_thinking", data=block.data)
        elif block.type == "tool_use":
            self._blocks[index] = _BlockParts("tool_use", id=block.id, name=block.name)
            return [ToolUseStart(id=block.id, name=block.name)]
        else:
            log.debug("ignoring content block of type %s", block.type)
        return []

    def _delta(self, index: int, delta: Any) -> list[ProviderEvent]:
        block = self._blocks.get(index)
        if block is None:
            return []
        if delta.type == "text_delta":
            block.parts.append(delta.text)
            return [TextDelta(delta.text)]
        if delta.type == "thinking_delta":
            block.parts.append(delta.thinking)
            return [ThinkingDelta(delta.thinking)]
        if delta.type == "signature_delta":
            block.signature.append(delta.signature)
        elif delta.type == "input_json_delta":
            block.parts.append(delta.partial_json)
        return []

    @property
    def usage(self) -> Usage:
        """The usage reported so far: input from `message_start`, output from the latest `message_delta`."""
        return self._usage

    def finish(self, tool_use_ids: list[str]) -> tuple[Message, StopReason, Usage]:
        """The complete message, its provider stop reason and usage.

        Tool uses take the ids in `tool_use_ids` by position (the ids announced to the client).
        Raises `ProviderError("incomplete")` when the stream never gave a stop reason, or when
        it announced fewer tool uses than the client was shown.
        """
        if self._stop_reason is None:
            raise ProviderError("incomplete", "the stream ended before the response's stop reason arrived")
        content: list[ContentBlock] = []
        tool_uses = 0
        for _, block in sorted(self._blocks.items()):
            if block.type == "text":
                content.append(TextBlock(text="".join(block.parts)))
            elif block.type == "thinking":
                content.append(ThinkingBlock(thinking="".join(block.parts), signature="".join(block.signature)))
            elif block.type == "redacted_thinking":
                content.append(RedactedThinkingBlock(data=block.data))
            else:
                tool_id = tool_use_ids[tool_uses] if tool_uses < len(tool_use_ids) else block.id
                content.append(ToolUseBlock(id=tool_id, name=block.name, input=_tool_input("".join(block.parts))))
                tool_uses += 1
        if tool_uses < len(tool_use_ids):
            raise ProviderError("incomplete", "the retried response did not repeat the tool uses already announced")
        stop_reason = STOP_REASONS.get(self._stop_reason)
        if stop_reason is None:
            log.warning("unknown stop reason %r, treated as end_turn", self._stop_reason)
            stop_reason = "end_turn"
        return Message(role="assistant", content=content), stop_reason, self._usage


def _tool_input(raw: str) -> dict[str, Any]:
    """The tool input from its streamed JSON; `{}` when it is empty, cut off (`max_tokens`) or not
    an object (the loop does not run tool uses of a `max_tokens` response; otherwise the tool's
    input validation tells the model what is missing)."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        log.debug("tool input is not complete JSON (%d characters)", len(raw))
        return {}
    return valid_json(value) if isinstance(value, dict) else {}
