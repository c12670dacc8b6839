"""The provider protocol: how the agent loop asks a model for the next assistant message.

A provider streams `ProviderEvent`s for one model request and ends with exactly one
`MessageDone` carrying the complete assistant `Message`, its stop reason and its usage (before it,
`UsageReported` events say what the response has reported so far, for a cancel). Answer
and reasoning text stream as the core's own `TextDelta`/`ThinkingDelta` events, which the loop
forwards to the client as they are. Failures
are raised as `ProviderError` with a `kind` the loop can report; nothing provider-specific (no
SDK type) crosses this boundary.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from iac_code.core.conversation import Message
from iac_code.core.events import TextDelta, ThinkingDelta

RequestPurpose = Literal["turn", "compaction", "subagent"]
"""What a model request is for (a prompt turn's, a compaction's summary, a sub-agent's)."""
StopReason = Literal["end_turn", "stop_sequence", "tool_use", "pause_turn", "max_tokens", "refusal"]
"""Why the model stopped (the Messages API's stop reasons this agent acts on)."""
ErrorKind = Literal[
    "overloaded",
    "rate_limited",
    "authentication",
    "permission",
    "invalid_request",
    "not_found",
    "context_too_long",
    "server",
    "network",
    "timeout",
    "stalled",
    "incomplete",
    "script",
]

ERROR_LABELS: dict[str, str] = {
    "overloaded": "the model provider is overloaded",
    "rate_limited": "rate limited by the model provider",
    "authentication": "authentication failed",
    "permission": "the credentials lack permission for this request",
    "invalid_request": "the model provider rejected the request as invalid",
    "not_found": "model or endpoint not found",
    "context_too_long": "the conversation is too long for the model's context window",
    "server": "the model provider had a server error",
    "network": "network error reaching the model provider",
    "timeout": "the model request timed out",
    "stalled": "the model stream stalled",
    "incomplete": "the model stream ended before the message was complete",
    "script": "the scripted model's script is unusable",
}


@dataclass(slots=True)
class Usage:
    """Token counts of one or more model requests."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """All tokens: input (uncached, cache read and cache write) plus output."""
        return self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens

    @property
    def context_tokens(self) -> int:
        """Tokens of the prompt as the model saw it (input incl. cached parts)."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    def add(self, other: Usage) -> None:
        """Add `other`'s counts to this one, in place."""
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens


@dataclass(slots=True)
class ToolSpec:
    """A tool as offered to the model: name, description and JSON schema of its input."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(slots=True)
class ModelRequest:
    """One request for the next assistant message."""

    model: str
    system: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    max_tokens: int = 16_000
    thinking_budget: int | None = None
    """Extended-thinking budget in tokens; None disables thinking."""
    purpose: RequestPurpose = "turn"


@dataclass(slots=True)
class ToolUseStart:
    """A `tool_use` block started; its input is still streaming."""

    id: str
    name: str


@dataclass(slots=True)
class UsageReported:
    """What the response has reported of its usage so far (the input as it starts, the output as
    it grows), for the whole request: `MessageDone.usage` replaces it once the response is
    complete. It is what a request cut short by a cancel used."""

    usage: Usage


@dataclass(slots=True)
class MessageDone:
    """The response is complete."""

    message: Message
    stop_reason: StopReason
    usage: Usage


ProviderEvent = TextDelta | ThinkingDelta | ToolUseStart | UsageReported | MessageDone


class ProviderError(Exception):
    """A model request failed; `kind` classifies it (see `ERROR_LABELS`)."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.usage = Usage()
        """Tokens the failed request used before it failed (a stream that broke off after it
        started reports its input and the output so far); zero when nothing is known."""

    def describe(self) -> str:
        """A one-line description for the user: the class of problem, then the detail."""
        label = ERROR_LABELS.get(self.kind, self.kind)
        return f"{label}: {self.message}" if self.message else label


class Provider(Protocol):
    """A model backend."""

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        """Stream the response to `request`; the last event is a `MessageDone`.

        Raises `ProviderError` on failure. Cancelling the consuming task closes the stream.
        """
        ...

    def context_window(self, model: str) -> int:
        """The context window of `model` in tokens."""
        ...

    def supports_thinking(self, model: str) -> bool:
        """Whether `model` accepts an extended-thinking budget."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
