"""The agent loop: request the model, run the tools it asked for, append the results, repeat.

One `AgentLoop.run` is one prompt turn. It ends with an ACP stop reason:

- `end_turn` when the model finishes (`end_turn`/`stop_sequence`), or after a reported error;
- `max_tokens` / `refusal` when the model stops that way;
- `max_turn_requests` when the turn used its budget of model requests;
- `cancelled` when the task running it is cancelled (`session/cancel`) or the client answers a
  permission request with `cancelled`.

Whatever happens, every tool call that was started ends `completed` or `failed`, and the
conversation keeps no `tool_use` without its `tool_result`. Permissions and compaction live in
their own modules; this one only calls them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from iac_code.agent import compaction
from iac_code.agent.permissions import (
    PermissionPolicy,
    PermissionPrompter,
    PermissionRequest,
)
from iac_code.core.conversation import (
    ContentBlock,
    Conversation,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    estimate_tokens,
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
    UsageUpdated,
)
from iac_code.core.provider import (
    MessageDone,
    ModelRequest,
    Provider,
    ProviderError,
    ToolUseStart,
    Usage,
)
from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolPreview, ToolResult
from iac_code.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

PERMISSION_DENIED = "Permission denied."
CANCELLED = "Cancelled by the user."
SUBAGENT_MAX_REQUESTS = 20


@dataclass(slots=True)
class TurnResult:
    """How a prompt turn ended: an ACP stop reason, the usage of every model call in it, and the
    model error that ended it, if one did."""

    stop_reason: str
    usage: Usage
    failure: ProviderError | None = None

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
    purpose: str = "turn"


@dataclass(slots=True)
class _Call:
    """What is known of a parsed tool call before it runs."""

    ctx: ToolContext
    title: str
    locations: list[Location]
    paths: list[Path]


class _Cancelled(Exception):
    """The client answered a permission request with `cancelled`."""


@dataclass(slots=True)
class _TurnState:
    usage: Usage = field(default_factory=Usage)
    open_calls: set[str] = field(default_factory=set)
    partial: list[ContentBlock] = field(default_factory=list)
    partial_text: list[str] = field(default_factory=list)
    unanswered: list[ToolUseBlock] = field(default_factory=list)
    answered: dict[str, ToolResultBlock] = field(default_factory=dict)
    interrupted: dict[str, ToolResult] = field(default_factory=dict)  # what cancelled tools had produced

    def flush_text(self) -> None:
        """Move the text streamed since the last block boundary into `partial`."""
        if self.partial_text:
            self.partial.append(TextBlock(text="".join(self.partial_text)))
            self.partial_text = []


class AgentLoop:
    """Runs prompt turns over one conversation with one provider, tool set and permission policy."""

    def __init__(
        self,
        *,
        provider: Provider,
        tools: ToolRegistry,
        conversation: Conversation,
        policy: PermissionPolicy,
        prompter: PermissionPrompter | None,
        emit: EventSink,
        context: Callable[[], ToolContext],
        config: LoopConfig,
    ) -> None:
        self.provider = provider
        self.tools = tools
        self.conversation = conversation
        self.policy = policy
        self.prompter = prompter
        self.emit = emit
        self._context = context
        self.config = config
        self._state = _TurnState()
        self._last_context = 0  # tokens of the last request's prompt
        self._last_count = 0  # messages in the conversation at that request

    # ----- the turn -----

    async def run(self, prompt: Message) -> TurnResult:
        """Run one prompt turn for the user message `prompt` (see the module docstring)."""
        self._state = state = _TurnState()
        try:
            self.conversation.append(prompt)
            return await self._turn(state)
        except (asyncio.CancelledError, _Cancelled) as exc:
            if isinstance(exc, asyncio.CancelledError):
                task = asyncio.current_task()
                if task is not None:
                    task.uncancel()
            await self._settle(state, CANCELLED)
            return TurnResult("cancelled", state.usage)
        except BaseException:
            await self._settle(state, "Failed: internal error.")
            raise

    async def _turn(self, state: _TurnState) -> TurnResult:
        requests = 0
        while True:
            if requests >= self.config.max_requests:
                return TurnResult("max_turn_requests", state.usage)
            await self._maybe_compact()
            requests += 1
            try:
                done = await self._request(state)
            except ProviderError as exc:
                log.warning("model request failed (%s): %s", exc.kind, exc.message)
                self._keep_partial(state)
                for call_id in sorted(state.open_calls):
                    await self._end_call(call_id, "failed", "Not run: the model request failed.")
                await self.emit(Notice(f"\n\n**Error:** {exc.describe()}\n"))
                return TurnResult("end_turn", state.usage, failure=exc)
            message, stop = done.message, done.stop_reason
            if stop == "max_tokens" and message.tool_uses():
                message = await self._drop_cut_tool_uses(message)
            if message.content:
                self.conversation.append(message)
            uses = message.tool_uses()
            if uses:
                state.unanswered = uses
                results = await self._run_tools(uses, state)
                self.conversation.append(Message(role="user", content=results))
                state.unanswered, state.answered = [], {}
                continue
            if stop == "pause_turn":
                continue
            if stop in ("max_tokens", "refusal"):
                return TurnResult(stop, state.usage)
            return TurnResult("end_turn", state.usage)

    async def _request(self, state: _TurnState) -> MessageDone:
        request = ModelRequest(
            model=self.config.model,
            system=self.config.system_prompt,
            messages=list(self.conversation.messages),
            tools=self.tools.specs(),
            max_tokens=self.config.max_tokens,
            thinking_budget=self.config.thinking_budget,
            purpose=self.config.purpose,  # type: ignore[arg-type]
        )
        state.partial, state.partial_text = [], []
        done: MessageDone | None = None
        async for event in self.provider.stream(request):
            if isinstance(event, TextDelta | ThinkingDelta):
                if isinstance(event, TextDelta):
                    state.partial_text.append(event.text)
                await self.emit(event)
            elif isinstance(event, ToolUseStart):
                state.flush_text()
                tool = self.tools.get(event.name)
                state.open_calls.add(event.id)
                await self.emit(
                    ToolCallStarted(
                        event.id,
                        title=tool.title(None) if tool else event.name,
                        kind=tool.kind if tool else "other",
                        status="pending",
                    )
                )
            elif isinstance(event, MessageDone):
                done = event
        if done is None:
            raise ProviderError("incomplete", "the response ended without a final message")
        state.usage.add(done.usage)
        self._last_context = done.usage.context_tokens + done.usage.output_tokens
        self._last_count = len(self.conversation.messages) + 1
        await self.emit(UsageUpdated(used=self._last_context, size=self.provider.context_window(self.config.model)))
        state.partial, state.partial_text = [], []  # only now: a cancel in the emit above keeps the text
        return done

    async def _drop_cut_tool_uses(self, message: Message) -> Message:
        """A response cut off by `max_tokens` runs none of its tool uses (the last one is incomplete):
        fail their calls and drop them from the message kept in history."""
        for use in message.tool_uses():
            await self._end_call(use.id, "failed", "Not run: the response hit the output token limit (max_tokens).")
        return Message(role="assistant", content=[b for b in message.content if not isinstance(b, ToolUseBlock)])

    # ----- tools -----

    async def _run_tools(self, uses: list[ToolUseBlock], state: _TurnState) -> list[ContentBlock]:
        """Run the calls in order, consecutive auto-allowed read-only ones concurrently."""
        batch: list[tuple[ToolUseBlock, Tool, ToolInput, _Call]] = []

        async def flush() -> None:
            if batch:
                await asyncio.gather(*(self._execute(u, t, p, c) for u, t, p, c in batch))
                batch.clear()

        for use in uses:
            tool = self.tools.get(use.name)
            if tool is None:
                await flush()
                known = ", ".join(self.tools.names())
                await self._finish(use, ToolResult.error(f"Unknown tool {use.name!r}. Available tools: {known}."))
                continue
            params = tool.parse(use.input)
            if isinstance(params, str):
                await flush()
                await self.emit(ToolCallUpdated(use.id, raw_input=use.input))
                await self._finish(use, ToolResult.error(params))
                continue
            call = self._describe(tool, params)
            if isinstance(call, str):
                await flush()
                await self.emit(ToolCallUpdated(use.id, raw_input=use.input))
                await self._finish(use, ToolResult.error(call))
                continue
            verdict = self.policy.decide(use.name, tool.category, call.paths, call.ctx.cwd, call.ctx.config_dir)
            if tool.category == "read" and verdict.action == "allow":
                batch.append((use, tool, params, call))
                continue
            await flush()
            await self._execute(use, tool, params, call)
        await flush()
        return [state.answered[u.id] for u in uses]

    def _describe(self, tool: Tool, params: ToolInput) -> _Call | str:
        """A call's context, title, locations and paths; an error message if the tool raised
        computing them (a tool bug must fail its call, not the turn)."""
        ctx = self._context()
        try:
            return _Call(ctx, tool.title(params), tool.locations(params, ctx), tool.paths(params, ctx))
        except Exception as exc:
            log.exception("tool %s failed describing a call", tool.name)
            return f"{tool.name} failed unexpectedly: {type(exc).__name__}: {exc}"

    async def _preview(self, tool: Tool, params: ToolInput, ctx: ToolContext) -> ToolPreview | None:
        try:
            return await tool.preview(params, ctx)
        except (asyncio.CancelledError, _Cancelled):
            raise
        except Exception as exc:
            log.exception("tool %s failed computing its preview", tool.name)
            return ToolPreview(error=f"{tool.name} failed unexpectedly: {type(exc).__name__}: {exc}")

    async def _execute(self, use: ToolUseBlock, tool: Tool, params: ToolInput, call: _Call) -> None:
        ctx, title, locations = call.ctx, call.title, call.locations
        await self.emit(ToolCallUpdated(use.id, title=title, kind=tool.kind, raw_input=use.input, locations=locations))
        verdict = self.policy.decide(use.name, tool.category, call.paths, ctx.cwd, ctx.config_dir)
        if verdict.action == "deny":
            await self._finish(use, ToolResult.error(verdict.reason))
            return
        if verdict.action == "ask":
            preview = await self._preview(tool, params, ctx)
            if preview is not None and preview.error:
                await self._finish(use, ToolResult.error(preview.error))
                return
            answer = "reject_once"
            if self.prompter is not None:
                answer = await self.prompter.ask(
                    PermissionRequest(
                        tool_call_id=use.id,
                        tool_name=use.name,
                        title=title,
                        kind=tool.kind,
                        raw_input=use.input,
                        content=preview.content if preview else [],
                        locations=(preview.locations if preview and preview.locations else locations),
                    )
                )
            if answer == "cancelled":
                raise _Cancelled()
            self.policy.remember(use.name, answer)
            if answer.startswith("reject"):
                await self._finish(use, ToolResult.error(PERMISSION_DENIED))
                return
        await self.emit(ToolCallUpdated(use.id, status="in_progress"))

        async def progress(content: list) -> None:
            await self.emit(ToolCallUpdated(use.id, content=content))

        ctx.progress = progress
        ctx.emit = self.emit
        ctx.run_subagent = self._run_subagent
        try:
            result = await tool.run(params, ctx)
        except (asyncio.CancelledError, _Cancelled):
            if ctx.partial is not None:  # e.g. what a cancelled command printed: kept in its final update
                self._state.interrupted[use.id] = ctx.partial.redacted(ctx.secrets)
            raise
        except Exception as exc:
            log.exception("tool %s crashed", use.name)
            result = ToolResult.error(f"{use.name} failed unexpectedly: {type(exc).__name__}: {exc}")
        await self._finish(use, result.redacted(ctx.secrets))

    async def _finish(self, use: ToolUseBlock, result: ToolResult) -> None:
        self._state.answered[use.id] = ToolResultBlock(tool_use_id=use.id, content=result.output, is_error=result.is_error)
        self._state.open_calls.discard(use.id)
        await self.emit(
            ToolCallUpdated(
                use.id,
                status="failed" if result.is_error else "completed",
                raw_output=result.client_raw_output(),
                content=result.client_content(),
                locations=result.locations,
            )
        )

    async def _end_call(self, call_id: str, status: str, text: str) -> None:
        self._state.open_calls.discard(call_id)
        await self.emit(
            ToolCallUpdated(call_id, status=status, raw_output={"error": text}, content=[TextContent(text)])  # type: ignore[arg-type]
        )

    # ----- endings -----

    def _keep_partial(self, state: _TurnState) -> None:
        """Keep the text the client already saw of an unfinished response in the conversation."""
        state.flush_text()
        kept, state.partial = state.partial, []
        if kept:
            self.conversation.append(Message(role="assistant", content=kept))

    async def _settle(self, state: _TurnState, reason: str) -> None:
        """After a cancel or crash: answer every dangling tool use and end every open call.

        A further cancel while the calls are being ended (a second `session/cancel`, a
        `session/close`) does not stop it: the remaining calls would be left open.
        """
        try:
            self._keep_partial(state)
            if state.unanswered:
                results = [
                    state.answered.get(u.id)
                    or ToolResultBlock(tool_use_id=u.id, content=self._interrupted_text(u.id, reason), is_error=True)
                    for u in state.unanswered
                ]
                self.conversation.append(Message(role="user", content=results))
                state.unanswered = []
            for call_id in sorted(state.open_calls):
                try:
                    partial = state.interrupted.get(call_id)
                    if partial is None:
                        await self._end_call(call_id, "failed", reason)
                    else:
                        state.open_calls.discard(call_id)
                        await self.emit(
                            ToolCallUpdated(
                                call_id,
                                status="failed",
                                raw_output=partial.client_raw_output(),
                                content=partial.client_content(),
                            )
                        )
                except asyncio.CancelledError:  # a repeated cancel: end the remaining calls anyway
                    task = asyncio.current_task()
                    if task is not None:
                        task.uncancel()
        except Exception:  # the client may be gone; the conversation is already consistent
            log.debug("could not report the end of open tool calls", exc_info=True)

    def _interrupted_text(self, call_id: str, reason: str) -> str:
        """The tool result the model gets for a call cut short: `reason`, after any partial output."""
        partial = self._state.interrupted.get(call_id)
        return f"{partial.output}\n\n{reason}" if partial is not None else reason

    # ----- context -----

    async def _maybe_compact(self) -> None:
        window = self.provider.context_window(self.config.model)
        fresh = self.conversation.messages[self._last_count :] if self._last_count else self.conversation.messages
        used = self._last_context + estimate_tokens(fresh) if self._last_count else estimate_tokens(fresh)
        if not compaction.needed(used, window):
            return
        try:
            outcome = await compaction.compact(self.conversation, self.provider, self.config.model, keep_turns=1)
        except ProviderError as exc:  # not fatal: the request may still fit
            log.warning("context compaction failed (%s): %s", exc.kind, exc.message)
            await self.emit(Notice(f"\n\n_context compaction failed: {exc.describe()}_\n\n"))
            return
        if outcome is not None:
            self._state.usage.add(outcome.usage)
            self._last_context, self._last_count = outcome.after_tokens, len(self.conversation.messages)
            await self.emit(Notice(outcome.notice()))

    async def _run_subagent(self, prompt: str, progress) -> str:  # noqa: ANN001 - see SubagentRunner
        """Run a sub-agent with its own context and the read-only tools; return its final text.

        Raises the `ProviderError` that ended the sub-agent's turn, if one did.
        """
        from iac_code.agent.subagent import SubagentReporter
        from iac_code.core.conversation import user_text

        reporter = SubagentReporter(progress)
        child = AgentLoop(
            provider=self.provider,
            tools=self.tools.read_only(),
            conversation=Conversation(),
            policy=PermissionPolicy("default"),
            prompter=None,
            emit=reporter.emit,
            context=self._context,
            config=LoopConfig(
                model=self.config.model,
                system_prompt=self.config.system_prompt + "\n\n" + SUBAGENT_NOTE,
                max_requests=min(SUBAGENT_MAX_REQUESTS, self.config.max_requests),
                max_tokens=self.config.max_tokens,
                purpose="subagent",
            ),
        )
        result = await child.run(user_text(prompt))
        self._state.usage.add(result.usage)
        if result.stop_reason == "cancelled":  # the child's turn absorbed the cancel of the task both run in
            raise asyncio.CancelledError
        if result.failure is not None:  # the child's turn reported it; the `agent` tool fails with it
            raise result.failure
        answer = next((m.text() for m in reversed(child.conversation.messages) if m.role == "assistant" and m.text()), "")
        if result.stop_reason == "max_turn_requests":
            answer += f"\n\n(The sub-agent stopped after {child.config.max_requests} model requests.)"
        return answer or "(The sub-agent gave no answer.)"


SUBAGENT_NOTE = (
    "You are a sub-agent working for another agent. You can only read and search files. Do the "
    "task you are given and reply with a complete, self-contained answer: it is all the other "
    "agent will see."
)
