"""The agent loop: request the model, run the tools it asked for, append the results, repeat.

One `AgentLoop.run` is one prompt turn. It ends with an ACP stop reason:

- `end_turn` when the model finishes (`end_turn`/`stop_sequence`), or after a reported error;
- `max_tokens` / `refusal` when the model stops that way;
- `max_turn_requests` when the turn used its budget of model requests;
- `cancelled` when the task running it is cancelled (`session/cancel`) or the client answers a
  permission request with `cancelled`.

Whatever happens, every tool call that was started ends `completed` or `failed`, and the
conversation keeps no `tool_use` without its `tool_result`. What a turn has so far is one `Turn`,
handed to each step; its tool calls are run by `agent/tool_calls.py` (parse, the permission gate,
run, results). Permissions and compaction live in their own modules; this one only calls
them. So do sub-agents (`agent/subagent.py`): the loop is given the `SubagentStarter` that makes
the `agent` tool's runner, and knows nothing else of them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from iac_code.agent import compaction
from iac_code.agent.permissions import PermissionCancelled, PermissionGate
from iac_code.agent.tool_calls import ToolCalls
from iac_code.core.conversation import ContentBlock, Conversation, Message, TextBlock, ToolUseBlock
from iac_code.core.events import EventSink, Notice, TextDelta, ThinkingDelta, UsageUpdated
from iac_code.core.provider import (
    MessageDone,
    ModelRequest,
    Provider,
    ProviderError,
    RequestPurpose,
    ToolUseStart,
    Usage,
    UsageReported,
)
from iac_code.tools.base import SubagentRunner, ToolContextFactory
from iac_code.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

CANCELLED = "Cancelled by the user."
INTERRUPTED = "[The user interrupted your previous response: its text above is incomplete.]"
"""Added to the prompt after a turn whose partial text was kept when it was cancelled, so the
model knows that text was cut off (the session adds it; see `TurnResult.interrupted`)."""


@dataclass(slots=True)
class TurnResult:
    """How a prompt turn ended: an ACP stop reason, the usage of every model call in it, and the
    model error that ended it, if one did."""

    stop_reason: str
    usage: Usage
    failure: ProviderError | None = None
    interrupted: bool = False
    """The turn was cancelled mid-response and the text streamed so far was kept in the history."""

    @property
    def error(self) -> str | None:
        """The description of `failure` for the user, if the turn ended with one."""
        return self.failure.describe() if self.failure is not None else None


@dataclass(slots=True)
class LoopConfig:
    """The per-turn knobs of the loop."""

    model: str
    system_prompt: str
    max_requests: int = 50
    max_tokens: int = 16_000
    thinking_budget: int | None = None
    purpose: RequestPurpose = "turn"


@dataclass(slots=True)
class Turn:
    """What one prompt turn has so far, made by `AgentLoop.run` and handed to each of its steps:
    its tool `calls`, the `usage` of its model requests (a sub-agent's added), and the response
    being streamed (`partial` blocks, `partial_text` since the last block)."""

    calls: ToolCalls
    usage: Usage = field(default_factory=Usage)
    partial: list[ContentBlock] = field(default_factory=list)
    partial_text: list[str] = field(default_factory=list)
    streamed: bool = False  # the response in `partial` arrived whole
    in_flight: Usage | None = None  # what the request being streamed has reported it used so far

    def flush_text(self) -> None:
        """The text streamed since the last block boundary becomes a block of `partial`."""
        if self.partial_text:
            self.partial.append(TextBlock(text="".join(self.partial_text)))
            self.partial_text = []


SubagentStarter = Callable[["AgentLoop", Usage, ToolUseBlock, str], SubagentRunner]
"""The runner of one `agent` tool call's sub-agent, given the parent loop, the usage of its turn
(the sub-agent's is added to it), the call's tool use and its title: `agent.subagent.starter`."""


class AgentLoop:
    """Runs prompt turns over one conversation with one provider, tool set and permission gate.

    `context` makes each tool call's `ToolContext`, complete before the gate sees the call;
    `subagents` makes the `agent` tool's runner (None: that tool has no sub-agents).
    """

    def __init__(
        self,
        *,
        provider: Provider,
        tools: ToolRegistry,
        conversation: Conversation,
        gate: PermissionGate,
        emit: EventSink,
        context: ToolContextFactory,
        config: LoopConfig,
        subagents: SubagentStarter | None = None,
    ) -> None:
        self.provider = provider
        self.tools = tools
        self.conversation = conversation
        self.gate = gate
        self.emit = emit
        self.context = context
        self.config = config
        self.subagents = subagents
        self._meter = compaction.ContextMeter()

    # ----- the turn -----

    async def run(self, prompt: Message) -> TurnResult:
        """Run one prompt turn for the user message `prompt` (see the module docstring)."""
        turn = self._new_turn()
        try:
            self.conversation.append(prompt)
            return await self._until_stop(turn)
        except (asyncio.CancelledError, PermissionCancelled):
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                task.uncancel()
            cut = bool(turn.partial or turn.partial_text) and not turn.streamed  # text kept of an unfinished answer
            if turn.in_flight is not None:  # a request cut short still used its input (and what it wrote)
                turn.usage.add(turn.in_flight)
                turn.in_flight = None
            await self._settle(turn, CANCELLED)
            return TurnResult("cancelled", turn.usage, interrupted=cut)
        except BaseException:
            await self._settle(turn, "Failed: internal error.")
            raise

    def _new_turn(self) -> Turn:
        """A turn with no calls yet; its `agent` calls' sub-agents add their usage to the turn's."""
        usage, starter = Usage(), self.subagents
        subagent = (lambda use, title: starter(self, usage, use, title)) if starter is not None else None
        calls = ToolCalls(tools=self.tools, gate=self.gate, emit=self.emit, context=self.context, subagent=subagent)
        return Turn(calls, usage=usage)

    async def _until_stop(self, turn: Turn) -> TurnResult:
        """The model requests of the turn, each followed by the tools it asked for, until a stop reason."""
        requests = 0
        while True:
            if requests >= self.config.max_requests:
                return TurnResult("max_turn_requests", turn.usage)
            await self._maybe_compact(turn)
            requests += 1
            try:
                done = await self._request(turn)
            except ProviderError as exc:
                log.warning("model request failed (%s): %s", exc.kind, exc.message)
                turn.in_flight = None  # (the error carries it)
                turn.usage.add(exc.usage)  # what the failed request used still counts
                self._keep_partial(turn)
                for call_id in sorted(turn.calls.open):
                    await turn.calls.end(call_id, "failed", "Not run: the model request failed.")
                await self.emit(Notice(f"\n\n**Error:** {exc.describe()}\n"))
                return TurnResult("end_turn", turn.usage, failure=exc)
            message, stop = done.message, done.stop_reason
            if stop == "max_tokens" and message.tool_uses():
                message = await turn.calls.drop_cut(message)
            if message.content:
                self.conversation.append(message)
            uses = message.tool_uses()
            if uses:
                results = await turn.calls.run(uses)
                self.conversation.append(Message(role="user", content=results))
                continue
            if stop == "pause_turn":
                continue
            if stop in ("max_tokens", "refusal"):
                return TurnResult(stop, turn.usage)
            return TurnResult("end_turn", turn.usage)

    async def _request(self, turn: Turn) -> MessageDone:
        request = ModelRequest(
            model=self.config.model,
            system=self.config.system_prompt,
            messages=list(self.conversation.messages),
            tools=self.tools.specs(),
            max_tokens=self.config.max_tokens,
            thinking_budget=self.config.thinking_budget,
            purpose=self.config.purpose,
        )
        turn.partial, turn.partial_text, turn.streamed = [], [], False
        done: MessageDone | None = None
        async for event in self.provider.stream(request):
            if isinstance(event, TextDelta | ThinkingDelta):
                if isinstance(event, TextDelta):
                    turn.partial_text.append(event.text)
                await self.emit(event)
            elif isinstance(event, ToolUseStart):
                turn.flush_text()
                await turn.calls.started(event)
            elif isinstance(event, UsageReported):
                turn.in_flight = event.usage
            elif isinstance(event, MessageDone):
                done, turn.streamed = event, True
        turn.in_flight = None  # counted by `done`, or by the error raised
        if done is None:
            raise ProviderError("incomplete", "the response ended without a final message")
        turn.usage.add(done.usage)
        used = self._meter.measure(done.usage, len(self.conversation.messages) + 1)
        await self.emit(UsageUpdated(used=used, size=self.provider.context_window(self.config.model)))
        turn.partial, turn.partial_text = [], []  # only now: a cancel in the emit above keeps the text
        return done

    # ----- endings -----

    def _keep_partial(self, turn: Turn) -> None:
        """Keep the text the client already saw of an unfinished response in the conversation."""
        turn.flush_text()
        kept, turn.partial = turn.partial, []
        if kept:
            self.conversation.append(Message(role="assistant", content=kept))

    async def _settle(self, turn: Turn, reason: str) -> None:
        """After a cancel or crash: answer every dangling tool use and end every open call.

        A further cancel while the calls are being ended (a second `session/cancel`, a
        `session/close`) does not stop it: the remaining calls would be left open.
        """
        try:
            self._keep_partial(turn)
            results = turn.calls.dangling_results(reason)
            if results:
                self.conversation.append(Message(role="user", content=results))
            for call_id in sorted(turn.calls.open):
                try:
                    await turn.calls.end(call_id, "failed", reason)
                except asyncio.CancelledError:  # a repeated cancel: end the remaining calls anyway
                    task = asyncio.current_task()
                    if task is not None:
                        task.uncancel()
        except Exception:  # the client may be gone; the conversation is already consistent
            log.debug("could not report the end of open tool calls", exc_info=True)

    # ----- context -----

    async def _maybe_compact(self, turn: Turn) -> None:
        if not self._meter.due(self.conversation.messages, self.provider.context_window(self.config.model)):
            return
        try:
            outcome = await compaction.compact(self.conversation, self.provider, self.config.model, keep_turns=1)
        except ProviderError as exc:  # not fatal: the request may still fit
            log.warning("context compaction failed (%s): %s", exc.kind, exc.message)
            turn.usage.add(exc.usage)
            await self.emit(Notice(f"\n\n_context compaction failed: {exc.describe()}_\n\n"))
            return
        if outcome is not None:
            turn.usage.add(outcome.usage)
            self._meter.compacted(outcome, len(self.conversation.messages))
            await self.emit(Notice(outcome.notice()))

