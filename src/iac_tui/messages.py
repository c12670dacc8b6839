"""Textual messages that carry what the agent says to the app.

`client.TuiClient` turns every ACP `session/update` and request into one of these and posts it
to the conversation, in arrival order. The app's workers post the rest (`TurnEnded`,
`AgentStopped`, `SessionEntered`, `SessionOpened`, `Notice`) into the same queue, so everything
reaches the conversation in order; each message then bubbles on to the app. They hold the SDK's
schema objects as they came; nothing here knows about widgets. Dataclasses in Textual's own
style (`eq=False`: a message is itself, compared and hashed by identity).

On the way there a `Gatherer` joins runs of text chunks: an agent streams its answer in chunks of
a few characters, up to hundreds a second, and each Textual message costs a dispatch through the
conversation (and then the app) whatever it holds.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the SDK loads after the first paint (iac_tui.sdk)
    from acp.schema import (
        AvailableCommand,
        Cost,
        PermissionOption,
        PlanEntry,
        ToolCallProgress,
        ToolCallStart,
        ToolCallUpdate,
        Usage,
    )

    from iac_tui.state import ConfigOption
    from iac_tui.terminals import Terminal


class AgentEvent(Message):
    """Base of every message about the agent (for `message_hook`s and logging)."""


@dataclass(eq=False)
class SessionUpdate(AgentEvent):
    """Base of the `session/update` messages; `session_id` names the session it belongs to."""

    session_id: str


@dataclass(eq=False)
class MessageChunk(SessionUpdate):
    """A piece of agent text (`agent_message_chunk`) or, in a replay, of user text; a replayed
    user chunk that is a file (`resource` / `resource_link` block) carries its name in `attachment`."""

    text: str
    role: str = "agent"
    attachment: str | None = None


@dataclass(eq=False)
class ThoughtChunk(SessionUpdate):
    """A piece of the agent's reasoning (`agent_thought_chunk`)."""

    text: str


@dataclass(eq=False)
class ToolCall(SessionUpdate):
    """`tool_call` or `tool_call_update`: `update` is the SDK model (its `session_update` tells which)."""

    update: ToolCallStart | ToolCallProgress


@dataclass(eq=False)
class PlanChanged(SessionUpdate):
    """The agent's whole plan (`plan`): a list of SDK `PlanEntry`."""

    entries: list[PlanEntry]


@dataclass(eq=False)
class UsageChanged(SessionUpdate):
    """Context window use (`usage_update`): tokens `used` of `size`, and the session's cost so
    far when the agent reports it (the SDK's `Cost`: `amount`, ISO 4217 `currency`)."""

    used: int
    size: int
    cost: Cost | None = None


@dataclass(eq=False)
class CommandsChanged(SessionUpdate):
    """Slash commands the agent offers (`available_commands_update`): SDK `AvailableCommand`s."""

    commands: list[AvailableCommand]


@dataclass(eq=False)
class ModeChanged(SessionUpdate):
    """The session's mode changed (`current_mode_update`)."""

    mode_id: str


@dataclass(eq=False)
class ConfigChanged(SessionUpdate):
    """The session's config options changed (`config_option_update`): the SDK's select and boolean options."""

    options: list[ConfigOption]


@dataclass(eq=False)
class SessionInfoChanged(SessionUpdate):
    """The session's title changed (`session_info_update`)."""

    title: str | None


@dataclass(eq=False)
class McpStatusChanged(SessionUpdate):
    """iac-code's `_iac-code/mcp_status` extension notification: the session's MCP servers
    (`name`, `transport`, `status`, `reason`, `tools`), for the help screen: JSON objects as the
    agent sent them (an extension: no SDK model, nothing validated but that each is an object)."""

    servers: list[dict[str, object]]


@dataclass(eq=False)
class PermissionAnswer:
    """The pending answer to one permission request: resolve `future` with an option id, or None for cancelled."""

    future: asyncio.Future[str | None]

    def answer(self, option_id: str | None) -> None:
        """Answer once (later answers are ignored)."""
        if not self.future.done():
            self.future.set_result(option_id)

    @property
    def done(self) -> bool:
        """True once answered."""
        return self.future.done()


@dataclass(eq=False)
class PermissionRequested(AgentEvent):
    """`session/request_permission`: show `tool_call` and `options`, then call `reply.answer(...)`."""

    session_id: str
    tool_call: ToolCallUpdate
    options: list[PermissionOption]
    reply: PermissionAnswer


@dataclass(eq=False)
class TurnEnded(AgentEvent):
    """A prompt turn finished: `stop_reason` and `usage`, or `error` (a message) when the request failed."""

    session_id: str
    stop_reason: str | None
    usage: Usage | None = None
    error: str | None = None


@dataclass(eq=False)
class AgentStopped(AgentEvent):
    """The agent could not start, or its process ended: `reason` is a one-line explanation,
    `stderr_tail` its last stderr lines and `log_path` the full stderr log."""

    reason: str
    stderr_tail: list[str]
    log_path: str | None


@dataclass(eq=False)
class SessionEntered(AgentEvent):
    """The app now shows `session_id`: clear the conversation (posted before that session's replay)."""

    session_id: str


@dataclass(eq=False)
class SessionOpened(AgentEvent):
    """A session was created, loaded, forked or resumed (`how`), after any replay; `note` to show."""

    session_id: str
    how: str
    note: str | None = None


@dataclass(eq=False)
class Notice(AgentEvent):
    """A note for the conversation from one of the app's own requests (a failure, a flag it could
    not apply). Workers post it rather than mounting the note themselves, so that it shows after
    the updates that arrived before it (a session's replay, say)."""

    text: str
    variant: str = "info"


@dataclass(eq=False)
class TerminalOutput(AgentEvent):
    """A client terminal (`terminal/create`) printed something or its command exited.

    `terminal` is the live `iac_tui.terminals.Terminal` (its `id`, `output`, `exit_status`).
    """

    terminal: Terminal


GATHER_INTERVAL = 1 / 20
"""Seconds a text chunk may wait to be joined with those that follow it (`Gatherer`)."""


def _run_key(message: Message) -> tuple[object, ...] | None:
    """What a chunk must share with the next to be joined with it (None: never joined)."""
    if isinstance(message, MessageChunk) and message.attachment is None:
        return (MessageChunk, message.session_id, message.role)
    if isinstance(message, ThoughtChunk):
        return (ThoughtChunk, message.session_id)
    return None


class Gatherer:
    """Posts messages with `post`, in order, joining runs of text chunks (`MessageChunk`s of one
    session and role, or `ThoughtChunk`s of one session) into one message.

    The first chunk after `interval` seconds without one is posted at once; those that follow
    within `interval` wait and are joined, and go as one message when the interval is over or
    when any other message comes (which is posted after them: order is kept). So a stream of 200
    chunks a second reaches the conversation as at most 1/`interval` messages a second, and a
    single chunk is never held. Call `post` on the event loop (it schedules with `call_later`).
    """

    def __init__(self, post: Callable[[Message], object], interval: float = GATHER_INTERVAL) -> None:
        self._post = post
        self.interval = interval
        self._first: MessageChunk | ThoughtChunk | None = None  # the held run's first chunk
        self._texts: list[str] = []  # the held run's texts
        self._key: tuple[object, ...] | None = None
        self._last = -interval  # when a chunk last went out (monotonic seconds)
        self._timer: asyncio.TimerHandle | None = None

    def post(self, message: Message) -> None:
        """Post `message` now, or hold it to be joined (a text chunk that follows another)."""
        key = _run_key(message)
        if key is None or not isinstance(message, MessageChunk | ThoughtChunk):
            self.flush()
            self._post(message)
            return
        if self._first is not None and key == self._key:
            self._texts.append(message.text)
            return
        self.flush()
        wait = self._last + self.interval - time.monotonic()
        if wait <= 0:
            self._last = time.monotonic()
            self._post(message)
            return
        self._first, self._key, self._texts = message, key, [message.text]
        self._timer = asyncio.get_running_loop().call_later(wait, self.flush)

    def flush(self) -> None:
        """Post the held run of chunks, joined, if there is one."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        first, self._first = self._first, None
        if first is None:
            return
        texts, self._texts = self._texts, []
        self._last = time.monotonic()
        self._post(first if len(texts) == 1 else dataclasses.replace(first, text="".join(texts)))
