"""Slash commands: what a session does with a prompt that starts with `/` and names one of them.

A command is given what it uses of the session (`CommandSession`), not the session itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from iac_code.agent import compaction
from iac_code.agent.loop import TurnResult
from iac_code.config import MODES
from iac_code.core.conversation import Conversation
from iac_code.core.events import EventSink, Notice, UsageUpdated
from iac_code.core.provider import Provider, ProviderError, Usage
from iac_code.tools.registry import ToolRegistry


class CommandSession(Protocol):
    """What the slash commands use of a session (`agent.session.Session` is one)."""

    @property
    def conversation(self) -> Conversation:
        """The session's conversation (`/clear` empties it, `/compact` summarises it)."""
        ...

    @property
    def tools(self) -> ToolRegistry:
        """The session's built-in tools (`/help` lists them)."""
        ...

    @property
    def model(self) -> str:
        """The model id `/compact` summarises with."""
        ...

    def context_window(self) -> int:
        """The current model's context window in tokens."""
        ...

    async def provider(self) -> Provider:
        """The provider of the current model."""
        ...


@dataclass(frozen=True, slots=True)
class Command:
    """A slash command the session understands."""

    name: str
    description: str
    hint: str | None = None


COMMANDS = (
    Command("compact", "Summarise older turns to free context (keeps the latest turn whole)"),
    Command("clear", "Start the conversation afresh (the session and its settings stay)"),
    Command("help", "List the commands, tools and modes"),
)


async def run_command(session: CommandSession, name: str, args: str, emit: EventSink) -> TurnResult:
    """Run the slash command `name` (one of `COMMANDS`) in `session`; report through `emit`.

    `/clear` empties the conversation, `/compact` summarises older turns (a failed summary is
    the turn's `failure`), `/help` lists commands, tools and modes. `args` is unused today.
    """
    usage = Usage()
    if name == "clear":
        session.conversation.replace([], "clear")
        await emit(Notice("Conversation cleared."))
        await emit(UsageUpdated(used=0, size=session.context_window()))
    elif name == "compact":
        provider = await session.provider()
        try:
            outcome = await compaction.compact(session.conversation, provider, session.model, keep_turns=1)
        except ProviderError as exc:
            usage.add(exc.usage)
            await emit(Notice(f"**Error:** compaction failed: {exc.describe()}"))
            return TurnResult("end_turn", usage, failure=exc)
        if outcome is None:
            await emit(Notice("Nothing to compact yet: the conversation has only its latest turn."))
        else:
            usage.add(outcome.usage)
            await emit(Notice(outcome.notice()))
            if outcome.shrunk:
                await emit(UsageUpdated(used=outcome.after_tokens, size=session.context_window()))
    else:
        await emit(Notice(help_text(session.tools)))
    return TurnResult("end_turn", usage)


def help_text(tools: ToolRegistry) -> str:
    """The `/help` answer: commands, tools and modes, as Markdown."""
    lines = ["**Commands**", ""]
    lines += [f"- `/{c.name}`: {c.description}" for c in COMMANDS]
    lines += ["", "**Tools**", "", ", ".join(f"`{n}`" for n in tools.names())]
    lines += ["", "**Modes**", ""]
    lines += [f"- `{m.id}`: {m.description}" for m in MODES]
    return "\n".join(lines)
