"""The agent core's own events: what a prompt turn reports while it runs.

The agent loop emits these through an `EventSink`; the ACP adapter (`iac_code.acp.updates`)
turns each one into a `session/update`, and headless mode prints them. They are plain
dataclasses because text deltas are on the hot path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

ToolStatus = Literal["pending", "in_progress", "completed", "failed"]
ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]
PlanStatus = Literal["pending", "in_progress", "completed"]
PlanPriority = Literal["high", "medium", "low"]


@dataclass(slots=True)
class TextDelta:
    """A piece of the assistant's answer text."""

    text: str


@dataclass(slots=True)
class ThinkingDelta:
    """A piece of the model's reasoning."""

    text: str


@dataclass(slots=True)
class UserText:
    """User text; emitted only when a stored conversation is replayed."""

    text: str


@dataclass(slots=True)
class UserAttachment:
    """A file the user attached to a prompt (embedded: `text` set; linked: `text` None); replay only."""

    uri: str
    name: str
    text: str | None = None


@dataclass(slots=True)
class UserImage:
    """An image the user attached to a prompt (`data` base64, `media_type`, `name` as the client
    gave it: a `file://` URI or None); replay only."""

    data: str
    media_type: str
    name: str | None = None


@dataclass(slots=True)
class Location:
    """A file (absolute path) and optionally a 1-based line a tool call touches."""

    path: str
    line: int | None = None


@dataclass(slots=True)
class TextContent:
    """Text shown in a tool call's panel (output, error, progress)."""

    text: str


@dataclass(slots=True)
class DiffContent:
    """A file edit: `old_text` None means the file is new."""

    path: str
    new_text: str
    old_text: str | None = None


@dataclass(slots=True)
class TerminalContent:
    """A client terminal embedded in a tool call's panel, shown live by the client (ACP
    `{"type": "terminal", "terminalId"}`); the client keeps showing it after it is released."""

    terminal_id: str


ToolContent = TextContent | DiffContent | TerminalContent


@dataclass(slots=True)
class ToolCallStarted:
    """A tool call began (its `tool_use` block started streaming, or it is replayed)."""

    tool_call_id: str
    title: str
    kind: ToolKind
    status: ToolStatus = "pending"
    raw_input: dict[str, Any] | None = None
    locations: list[Location] = field(default_factory=list)
    content: list[ToolContent] | None = None


@dataclass(slots=True)
class ToolCallUpdated:
    """A change to a started tool call; fields left None are unchanged."""

    tool_call_id: str
    status: ToolStatus | None = None
    title: str | None = None
    kind: ToolKind | None = None
    raw_input: dict[str, Any] | None = None
    raw_output: Any = None
    content: list[ToolContent] | None = None
    locations: list[Location] | None = None


@dataclass(slots=True)
class PlanEntry:
    """One item of the agent's task list."""

    content: str
    status: PlanStatus = "pending"
    priority: PlanPriority = "medium"


@dataclass(slots=True)
class PlanUpdated:
    """The agent's whole task list, replacing the previous one."""

    entries: list[PlanEntry]


@dataclass(slots=True)
class UsageUpdated:
    """Context used by the conversation so far and the model's context window, in tokens."""

    used: int
    size: int


@dataclass(slots=True)
class Notice:
    """A message from the agent itself (compaction, errors), shown as agent text."""

    text: str


@dataclass(slots=True)
class TitleChanged:
    """The session got a title (from the first user text)."""

    title: str


Event = (
    TextDelta
    | ThinkingDelta
    | UserText
    | UserAttachment
    | UserImage
    | ToolCallStarted
    | ToolCallUpdated
    | PlanUpdated
    | UsageUpdated
    | Notice
    | TitleChanged
)

EventSink = Callable[[Event], Awaitable[None]]
"""Receives each event of a turn, in order; awaiting it means the event was delivered."""
