"""The tool calls of one prompt turn: started as the model streams them, parsed, admitted by the
permission gate, run, and each ended `completed` or `failed` with a tool result for the model.

`ToolCalls` belongs to one turn (`loop.Turn.calls`) and keeps what its calls have so far: the
ones started and not yet ended, the tool uses of the last response with the results they have,
and what cancelled tools had produced. The loop (`agent/loop.py`) decides when they run and how
the turn ends; this module runs them, in order, with consecutive admitted read-only and `agent`
calls concurrently. A tool that raises fails its call, never the turn.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass

from iac_code.agent.permissions import PermissionCancelled, PermissionGate
from iac_code.core.conversation import ContentBlock, Message, ToolResultBlock, ToolUseBlock
from iac_code.core.events import EventSink, Location, TextContent, ToolCallStarted, ToolCallUpdated, ToolContent, ToolStatus
from iac_code.core.provider import ToolUseStart
from iac_code.tools.base import SubagentRunner, Tool, ToolContext, ToolContextFactory, ToolInput, ToolResult
from iac_code.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

SubagentFor = Callable[[ToolUseBlock, str], SubagentRunner]
"""The sub-agent runner of an `agent` call, given its tool use and title (the loop binds the
parent loop and the turn's usage: `loop.SubagentStarter`)."""


@dataclass(slots=True)
class _ParsedCall:
    """A parsed tool call with its context, title and locations, before the gate admits it."""

    use: ToolUseBlock
    tool: Tool
    params: ToolInput
    ctx: ToolContext
    title: str
    locations: list[Location]


class ToolCalls:
    """The tool calls of one prompt turn. `context` makes each call's `ToolContext`, complete
    before the gate sees the call; `subagent` gives an `agent` call its sub-agent (None: none);
    every update of a call goes out through `emit`."""

    def __init__(
        self,
        *,
        tools: ToolRegistry,
        gate: PermissionGate,
        emit: EventSink,
        context: ToolContextFactory,
        subagent: SubagentFor | None,
    ) -> None:
        self.tools = tools
        self.gate = gate
        self.emit = emit
        self.context = context
        self.subagent = subagent
        self.open: set[str] = set()
        """The ids of the calls started and not yet ended."""
        self.unanswered: list[ToolUseBlock] = []
        """The tool uses of the response being answered (until `run` returns)."""
        self.answered: dict[str, ToolResultBlock] = {}
        """The results those uses have so far, by tool use id."""
        self.interrupted: dict[str, ToolResult] = {}
        """What cancelled tools had produced, by tool use id."""

    async def started(self, event: ToolUseStart) -> None:
        """The model began the tool use `event`: its call is shown, `pending`."""
        tool = self.tools.get(event.name)
        self.open.add(event.id)
        await self.emit(
            ToolCallStarted(
                event.id,
                title=tool.title(None) if tool else event.name,
                kind=tool.kind if tool else "other",
                status="pending",
            )
        )

    async def run(self, uses: list[ToolUseBlock]) -> list[ContentBlock]:
        """Run the calls `uses` of one response in order, consecutive admitted read-only and
        `agent` calls concurrently; returns their tool results, in the order of `uses`."""
        self.unanswered = uses
        batch: list[Coroutine[None, None, None]] = []
        try:
            for use in uses:
                call = await self._parse(use)
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
                    await self._finish(use, ToolResult.error(refusal))
                elif concurrent:
                    batch.append(self._execute(call))
                else:
                    await self._execute(call)
            await _together(batch)
        finally:
            for never_started in batch:  # a cancel came first
                never_started.close()
        results: list[ContentBlock] = [self.answered[u.id] for u in uses]
        self.unanswered, self.answered = [], {}
        return results

    async def _parse(self, use: ToolUseBlock) -> _ParsedCall | None:
        """The call `use` ready for the gate, its context complete; None when it already failed
        (unknown tool, bad input, or a tool that raised computing its title or locations: a tool
        bug fails its call, not the turn)."""
        tool = self.tools.get(use.name)
        params = tool.parse(use.input) if tool else f"Unknown tool {use.name!r}. Available tools: {', '.join(self.tools.names())}."
        error = params if isinstance(params, str) else ""
        if tool is not None and not isinstance(params, str):
            try:
                title = tool.title(params)
                ctx = self._context(use, title)
                return _ParsedCall(use, tool, params, ctx, title, tool.locations(params, ctx))
            except Exception as exc:
                log.exception("tool %s failed describing a call", tool.name)
                error = f"{tool.name} failed unexpectedly: {type(exc).__name__}: {exc}"
        if tool is not None:
            await self.emit(ToolCallUpdated(use.id, raw_input=use.input))
        await self._finish(use, ToolResult.error(error))
        return None

    def _context(self, use: ToolUseBlock, title: str) -> ToolContext:
        """The context of the call `use`: its progress updates its own panel, its other events
        go out as the turn's, and an `agent` call gets its sub-agent."""

        async def progress(content: list[ToolContent]) -> None:
            await self.emit(ToolCallUpdated(use.id, content=content))

        runner = self.subagent(use, title) if self.subagent is not None else None
        return self.context(progress=progress, emit=self.emit, run_subagent=runner)

    async def _execute(self, call: _ParsedCall) -> None:
        use, ctx = call.use, call.ctx
        await self.emit(ToolCallUpdated(use.id, status="in_progress"))
        try:
            result = await call.tool.run(call.params, ctx)
        except (asyncio.CancelledError, PermissionCancelled):
            if ctx.partial is not None:  # e.g. what a cancelled command printed: kept in its final update
                self.interrupted[use.id] = ctx.partial.redacted(ctx.secrets)
            raise
        except Exception as exc:
            log.exception("tool %s crashed", use.name)
            result = ToolResult.error(f"{use.name} failed unexpectedly: {type(exc).__name__}: {exc}")
        await self._finish(use, result.redacted(ctx.secrets))

    async def _finish(self, use: ToolUseBlock, result: ToolResult) -> None:
        self.answered[use.id] = ToolResultBlock(tool_use_id=use.id, content=result.output, is_error=result.is_error)
        self.open.discard(use.id)
        await self.emit(
            ToolCallUpdated(
                use.id,
                status="failed" if result.is_error else "completed",
                raw_output=result.client_raw_output(),
                content=result.client_content(),
                locations=result.locations,
            )
        )

    async def end(self, call_id: str, status: ToolStatus, text: str) -> None:
        """End an open call with `text`, or with what it had produced when it was cancelled."""
        self.open.discard(call_id)
        partial = self.interrupted.get(call_id)
        content: list[ToolContent]
        if partial:
            raw, content = partial.client_raw_output(), partial.client_content()
        else:
            raw, content = {"error": text}, [TextContent(text)]
        await self.emit(ToolCallUpdated(call_id, status=status, raw_output=raw, content=content))

    async def drop_cut(self, message: Message) -> Message:
        """A response cut off by `max_tokens` runs none of its tool uses (the last one is incomplete):
        fail their calls and drop them from the message kept in history."""
        for use in message.tool_uses():
            await self.end(use.id, "failed", "Not run: the response hit the output token limit (max_tokens).")
        return Message(role="assistant", content=[b for b in message.content if not isinstance(b, ToolUseBlock)])

    def dangling_results(self, reason: str) -> list[ContentBlock]:
        """After a cancel or crash: a tool result for every use of the last response (the one it
        has, else `reason` after any partial output), so no `tool_use` is left without one; []
        when no response was being answered."""
        results: list[ContentBlock] = [
            self.answered.get(u.id) or ToolResultBlock(tool_use_id=u.id, content=self._cut_short(u.id, reason), is_error=True)
            for u in self.unanswered
        ]
        self.unanswered = []
        return results

    def _cut_short(self, call_id: str, reason: str) -> str:
        """The tool result the model gets for a call cut short: `reason`, after any partial output."""
        partial = self.interrupted.get(call_id)
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
