"""Textual messages that carry what the agent says to the app.

`client.TuiClient` turns every ACP `session/update` and request into one of these and posts it
to the app, in arrival order. The app's workers post the rest (`TurnEnded`, `AgentStopped`,
`SessionEntered`, `SessionOpened`, `Notice`) into the same queue, so everything reaches the
conversation in order. They hold the SDK's schema objects as they came; nothing here knows
about widgets.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from textual.message import Message


class AgentEvent(Message):
    """Base of every message about the agent (for `message_hook`s and logging)."""


class SessionUpdate(AgentEvent):
    """Base of the `session/update` messages; `session_id` names the session it belongs to."""

    def __init__(self, session_id: str) -> None:
        super().__init__()
        self.session_id = session_id


class MessageChunk(SessionUpdate):
    """A piece of agent text (`agent_message_chunk`) or, in a replay, of user text; a replayed
    user chunk that is a file (`resource` / `resource_link` block) carries its name in `attachment`."""

    def __init__(
        self, session_id: str, text: str, role: str = "agent", message_id: str | None = None, attachment: str | None = None
    ) -> None:
        super().__init__(session_id)
        self.text = text
        self.role = role
        self.message_id = message_id
        self.attachment = attachment


class ThoughtChunk(SessionUpdate):
    """A piece of the agent's reasoning (`agent_thought_chunk`)."""

    def __init__(self, session_id: str, text: str) -> None:
        super().__init__(session_id)
        self.text = text


class ToolCall(SessionUpdate):
    """`tool_call` (`started`) or `tool_call_update`: `update` is the SDK model."""

    def __init__(self, session_id: str, update: Any, started: bool) -> None:
        super().__init__(session_id)
        self.update = update
        self.started = started


class PlanChanged(SessionUpdate):
    """The agent's whole plan (`plan`): a list of SDK `PlanEntry`."""

    def __init__(self, session_id: str, entries: list[Any]) -> None:
        super().__init__(session_id)
        self.entries = entries


class UsageChanged(SessionUpdate):
    """Context window use (`usage_update`): tokens used of `size`."""

    def __init__(self, session_id: str, used: int, size: int, cost: Any = None) -> None:
        super().__init__(session_id)
        self.used = used
        self.size = size
        self.cost = cost


class CommandsChanged(SessionUpdate):
    """Slash commands the agent offers (`available_commands_update`)."""

    def __init__(self, session_id: str, commands: list[Any]) -> None:
        super().__init__(session_id)
        self.commands = commands


class ModeChanged(SessionUpdate):
    """The session's mode changed (`current_mode_update`)."""

    def __init__(self, session_id: str, mode_id: str) -> None:
        super().__init__(session_id)
        self.mode_id = mode_id


class ConfigChanged(SessionUpdate):
    """The session's config options changed (`config_option_update`)."""

    def __init__(self, session_id: str, options: list[Any]) -> None:
        super().__init__(session_id)
        self.options = options


class SessionInfoChanged(SessionUpdate):
    """The session's title or time changed (`session_info_update`)."""

    def __init__(self, session_id: str, title: str | None, updated_at: str | None) -> None:
        super().__init__(session_id)
        self.title = title
        self.updated_at = updated_at


class McpStatusChanged(SessionUpdate):
    """The session's MCP servers changed state (iac-code's `_iac-code/mcp_status` notification):
    `servers` is a list of `{"name", "transport", "status", "reason", "tools"}`."""

    def __init__(self, session_id: str, servers: list[dict[str, Any]]) -> None:
        super().__init__(session_id)
        self.servers = servers


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


class PermissionRequested(AgentEvent):
    """`session/request_permission`: show `tool_call` and `options`, then call `reply.answer(...)`."""

    def __init__(self, session_id: str, tool_call: Any, options: list[Any], reply: PermissionAnswer) -> None:
        super().__init__()
        self.session_id = session_id
        self.tool_call = tool_call
        self.options = options
        self.reply = reply


class TurnEnded(AgentEvent):
    """A prompt turn finished: `stop_reason` and `usage`, or `error` (a message) when the request failed."""

    def __init__(self, session_id: str, stop_reason: str | None, usage: Any = None, error: str | None = None) -> None:
        super().__init__()
        self.session_id = session_id
        self.stop_reason = stop_reason
        self.usage = usage
        self.error = error


class AgentStopped(AgentEvent):
    """The agent could not start, or its process ended.

    `reason` is a one-line explanation, `returncode` the exit status (None if it never ran),
    `stderr_tail` its last stderr lines and `log_path` the full stderr log.
    """

    def __init__(self, reason: str, returncode: int | None, stderr_tail: list[str], log_path: str | None) -> None:
        super().__init__()
        self.reason = reason
        self.returncode = returncode
        self.stderr_tail = stderr_tail
        self.log_path = log_path


class SessionEntered(AgentEvent):
    """The app now shows `session_id`: clear the conversation (posted before that session's replay)."""

    def __init__(self, session_id: str) -> None:
        super().__init__()
        self.session_id = session_id


class SessionOpened(AgentEvent):
    """A session was created, loaded, forked or resumed (`how`), after any replay; `note` to show."""

    def __init__(self, session_id: str, how: str, note: str | None = None) -> None:
        super().__init__()
        self.session_id = session_id
        self.how = how
        self.note = note


class Notice(AgentEvent):
    """A note for the conversation from one of the app's own requests (a failure, a flag it could
    not apply). Workers post it rather than mounting the note themselves, so that it shows after
    the updates that arrived before it (a session's replay, say)."""

    def __init__(self, text: str, variant: str = "info") -> None:
        super().__init__()
        self.text = text
        self.variant = variant


class TerminalOutput(AgentEvent):
    """A client terminal (`terminal/create`) printed something or its command exited.

    `terminal` is the live `iac_tui.terminals.Terminal` (its `id`, `output`, `exit_status`).
    """

    def __init__(self, terminal: Any) -> None:
        super().__init__()
        self.terminal = terminal
