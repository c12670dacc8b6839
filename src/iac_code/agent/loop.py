"""The agent loop: request the model, run the tools it asked for, append the results, repeat.

One `AgentLoop.run` is one prompt turn. It ends with an ACP stop reason:

- `end_turn` when the model finishes (`end_turn`/`stop_sequence`), or after a reported error;
- `max_tokens` / `refusal` when the model stops that way;
- `max_turn_requests` when the turn used its budget of model requests;
- `cancelled` when the task running it is cancelled (`session/cancel`) or the client answers a
  permission request with `cancelled`.

Whatever happens, every tool call that was started ends `completed` or `failed`, and the
conversation keeps no `tool_use` without its `tool_result`. What a turn has so far is one `Turn`,
handed to each step. Permissions and compaction live in their own modules; this one only calls
them. So do sub-agents (`agent/subagent.py`): the loop is given the `SubagentStarter` that makes
the `agent` tool's runner, and knows nothing else of them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field

from iac_code.agent import compaction
from iac_code.agent.permissions import PermissionCancelled, PermissionGate
from iac_code.core.conversation import (
    ContentBlock,
    Conversation,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from iac_code.core.events import (
    EventSink,
    Location,
    Notice,
    TextContent,
    TextDelta,
    ThinkingDelta,
    ToolCallStarted,
    ToolCallUpdated,
    ToolContent,
    ToolStatus,
    UsageUpdated,
)
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
from iac_code.tools.base import SubagentRunner, Tool, ToolContext, ToolContextFactory, ToolInput, ToolResult
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
class _ParsedCall:
    """A parsed tool call with its context, title and locations, before the gate admits it."""

    use: ToolUseBlock
    tool: Tool
    params: ToolInput
    ctx: ToolContext
    title: str
    locations: list[Location]


@dataclass(slots=True)
class Turn:
    """What one prompt turn has so far, made by `AgentLoop.run` and handed to each of its steps:
    the `usage` of its model requests (a sub-agent's added), the tool calls started and not yet
    ended, the response being streamed (`partial` blocks, `partial_text` since the last block),
    the tool uses of the last response with the results they have so far, and what cancelled
    tools had produced."""

    usage: Usage = field(default_factory=Usage)
    open_calls: set[str] = field(default_factory=set)
    partial: list[ContentBlock] = field(default_factory=list)
    partial_text: list[str] = field(default_factory=list)
    unanswered: list[ToolUseBlock] = field(default_factory=list)
    answered: dict[str, ToolResultBlock] = field(default_factory=dict)
    streamed: bool = False  # the response in `partial` arrived whole
    in_flight: Usage | None = None  # what the request being streamed has reported it used so far
    interrupted: dict[str, ToolResult] = field(default_factory=dict)  # what cancelled tools had produced

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
        turn = Turn()
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
                for call_id in sorted(turn.open_calls):
                    await self._end_call(turn, call_id, "failed", "Not run: the model request failed.")
                await self.emit(Notice(f"\n\n**Error:** {exc.describe()}\n"))
                return TurnResult("end_turn", turn.usage, failure=exc)
            message, stop = done.message, done.stop_reason
            if stop == "max_tokens" and message.tool_uses():
                message = await self._drop_cut_tool_uses(turn, message)
            if message.content:
                self.conversation.append(message)
            uses = message.tool_uses()
            if uses:
                turn.unanswered = uses
                results = await self._run_tools(uses, turn)
                self.conversation.append(Message(role="user", content=results))
                turn.unanswered, turn.answered = [], {}
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
                tool = self.tools.get(event.name)
                turn.open_calls.add(event.id)
                await self.emit(
                    ToolCallStarted(
                        event.id,
                        title=tool.title(None) if tool else event.name,
                        kind=tool.kind if tool else "other",
                        status="pending",
                    )
                )
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

    async def _drop_cut_tool_uses(self, turn: Turn, message: Message) -> Message:
        """A response cut off by `max_tokens` runs none of its tool uses (the last one is incomplete):
        fail their calls and drop them from the message kept in history."""
        for use in message.tool_uses():
            await self._end_call(turn, use.id, "failed", "Not run: the response hit the output token limit (max_tokens).")
        return Message(role="assistant", content=[b for b in message.content if not isinstance(b, ToolUseBlock)])

    # ----- tools -----

    async def _run_tools(self, uses: list[ToolUseBlock], turn: Turn) -> list[ContentBlock]:
        """Run the calls in order; consecutive admitted read-only and `agent` calls run concurrently."""
        batch: list[Coroutine[None, None, None]] = []
        try:
            for use in uses:
                call = await self._parse(use, turn)
                concurrent = call is not None and (call.tool.category == "read" or call.tool.name == "agent")
                if not concurrent:
                    await _together(batch)
                if call is None:
                    continue
                await self.emit(ToolCallUpdated(use.id, title=call.title, kind=call.tool.kind, raw_input=use.input, locations=call.locations))
                refusal = await self.gate.admit(
                    call.tool, call.params, call.ctx, tool_call_id=use.id, raw_input=use.input, title=call.title, locations=call.locations
                )
                if refusal is not None:
                    await self._finish(turn, use, ToolResult.error(refusal))
                elif concurrent:
                    batch.append(self._execute(call, turn))
                else:
                    await self._execute(call, turn)
            await _together(batch)
        finally:
            for never_started in batch:  # a cancel came first
                never_started.close()
        return [turn.answered[u.id] for u in uses]

    async def _parse(self, use: ToolUseBlock, turn: Turn) -> _ParsedCall | None:
        """The call `use` ready for the gate, its context complete; None when it already failed
        (unknown tool, bad input, or a tool that raised computing its title or locations: a tool
        bug fails its call, not the turn)."""
        tool = self.tools.get(use.name)
        params = tool.parse(use.input) if tool else f"Unknown tool {use.name!r}. Available tools: {', '.join(self.tools.names())}."
        error = params if isinstance(params, str) else ""
        if tool is not None and not isinstance(params, str):
            try:
                title = tool.title(params)
                ctx = self._context(use, title, turn)
                return _ParsedCall(use, tool, params, ctx, title, tool.locations(params, ctx))
            except Exception as exc:
                log.exception("tool %s failed describing a call", tool.name)
                error = f"{tool.name} failed unexpectedly: {type(exc).__name__}: {exc}"
        if tool is not None:
            await self.emit(ToolCallUpdated(use.id, raw_input=use.input))
        await self._finish(turn, use, ToolResult.error(error))
        return None

    def _context(self, use: ToolUseBlock, title: str, turn: Turn) -> ToolContext:
        """The context of the call `use`: its progress updates its own panel, its other events
        go out as the loop's, and an `agent` call gets its sub-agent."""

        async def progress(content: list[ToolContent]) -> None:
            await self.emit(ToolCallUpdated(use.id, content=content))

        runner = self.subagents(self, turn.usage, use, title) if self.subagents is not None else None
        return self.context(progress=progress, emit=self.emit, run_subagent=runner)

    async def _execute(self, call: _ParsedCall, turn: Turn) -> None:
        use, ctx = call.use, call.ctx
        await self.emit(ToolCallUpdated(use.id, status="in_progress"))
        try:
            result = await call.tool.run(call.params, ctx)
        except (asyncio.CancelledError, PermissionCancelled):
            if ctx.partial is not None:  # e.g. what a cancelled command printed: kept in its final update
                turn.interrupted[use.id] = ctx.partial.redacted(ctx.secrets)
            raise
        except Exception as exc:
            log.exception("tool %s crashed", use.name)
            result = ToolResult.error(f"{use.name} failed unexpectedly: {type(exc).__name__}: {exc}")
        await self._finish(turn, use, result.redacted(ctx.secrets))

    async def _finish(self, turn: Turn, use: ToolUseBlock, result: ToolResult) -> None:
        turn.answered[use.id] = ToolResultBlock(tool_use_id=use.id, content=result.output, is_error=result.is_error)
        turn.open_calls.discard(use.id)
        await self.emit(
            ToolCallUpdated(
                use.id,
                status="failed" if result.is_error else "completed",
                raw_output=result.client_raw_output(),
                content=result.client_content(),
                locations=result.locations,
            )
        )

    async def _end_call(self, turn: Turn, call_id: str, status: ToolStatus, text: str) -> None:
        """End an open call with `text`, or with what it had produced when it was cancelled."""
        turn.open_calls.discard(call_id)
        partial = turn.interrupted.get(call_id)
        content: list[ToolContent]
        if partial:
            raw, content = partial.client_raw_output(), partial.client_content()
        else:
            raw, content = {"error": text}, [TextContent(text)]
        await self.emit(ToolCallUpdated(call_id, status=status, raw_output=raw, content=content))

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
            if turn.unanswered:
                results = [
                    turn.answered.get(u.id)
                    or ToolResultBlock(tool_use_id=u.id, content=_interrupted_text(turn, u.id, reason), is_error=True)
                    for u in turn.unanswered
                ]
                self.conversation.append(Message(role="user", content=results))
                turn.unanswered = []
            for call_id in sorted(turn.open_calls):
                try:
                    await self._end_call(turn, call_id, "failed", reason)
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


def _interrupted_text(turn: Turn, call_id: str, reason: str) -> str:
    """The tool result the model gets for a call cut short: `reason`, after any partial output."""
    partial = turn.interrupted.get(call_id)
    return f"{partial.output}\n\n{reason}" if partial is not None else reason


async def _together(calls: list[Coroutine[None, None, None]]) -> None:
    """Run `calls` concurrently and clear the list; the first that raises cancels the others."""
    pending, calls[:] = list(calls), []
    try:
        async with asyncio.TaskGroup() as group:
            for call in pending:
                group.create_task(call)
    except BaseExceptionGroup as failed:
        raise failed.exceptions[0] from None
