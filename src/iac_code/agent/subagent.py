"""Sub-agents: the `agent` tool's runner, its progress lines, and its permission requests.

A sub-agent is a fresh `AgentLoop` over the parent's provider, with its own conversation and only
the read-only tools, for at most `MAX_REQUESTS` model requests. The session gives its loops
`starter`, which makes the runner of one `agent` call (`ToolContext.run_subagent`). What it does
is reported as progress lines in the parent's `agent` tool call. Its permission requests go through the session's policy
(its rules and mode) and reach the client like the parent's, on the parent's `agent` tool call and
titled with the sub-agent (PROTOCOL.md, Permissions); they are never silently denied.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from iac_code.agent.loop import AgentLoop
from iac_code.agent.permissions import Answer, PermissionCancelled, PermissionGate, PermissionPrompter, PermissionRequest
from iac_code.core.conversation import Conversation, ToolUseBlock, user_text
from iac_code.core.events import (
    Event,
    EventSink,
    TextContent,
    TextDelta,
    ToolCallStarted,
    ToolCallUpdated,
)
from iac_code.core.provider import Usage
from iac_code.tools.base import ProgressSink, SubagentRunner

MAX_LINES = 30
MAX_REQUESTS = 20
NOTE = (
    "You are a sub-agent working for another agent. You can only read and search files. Do the "
    "task you are given and reply with a complete, self-contained answer: it is all the other "
    "agent will see."
)


def starter(parent: AgentLoop, usage: Usage, use: ToolUseBlock, label: str) -> SubagentRunner:
    """The runner of the sub-agent of the parent's `agent` call `use` (titled `label`), whose
    usage is added to `usage`, the parent turn's (a `loop.SubagentStarter`)."""
    return functools.partial(run, parent, usage, use.id, label, use.input)


async def run(
    parent: AgentLoop, usage: Usage, call_id: str, label: str, raw_input: dict[str, Any], prompt: str, progress: ProgressSink
) -> str:
    """Run a sub-agent for the parent's `agent` call `call_id` (titled `label`, input `raw_input`)
    on `prompt`; return its final text. Its usage is added to `usage`.

    Raises the `ProviderError` that ended the sub-agent's turn, if one did, and
    `PermissionCancelled` when its turn was cancelled.
    """
    reporter = SubagentReporter(progress)
    prompter = SubagentPrompter(parent.gate.prompter, call_id, label, raw_input, parent.emit) if parent.gate.prompter else None
    child = AgentLoop(
        provider=parent.provider,
        tools=parent.tools.read_only(),
        conversation=Conversation(),
        gate=PermissionGate(parent.gate.policy, prompter),
        emit=reporter.emit,
        context=parent.context,
        config=dataclasses.replace(
            parent.config,
            system_prompt=parent.config.system_prompt + "\n\n" + NOTE,
            max_requests=min(MAX_REQUESTS, parent.config.max_requests),
            thinking_budget=None,
            purpose="subagent",
        ),
    )
    result = await child.run(user_text(prompt))
    usage.add(result.usage)
    if result.stop_reason == "cancelled":  # the child's turn absorbed the cancel; the parent's turn ends too
        raise PermissionCancelled
    if result.failure is not None:  # the child's turn reported it; the `agent` tool fails with it
        raise result.failure
    answer = next((m.text() for m in reversed(child.conversation.messages) if m.role == "assistant" and m.text()), "")
    if result.stop_reason == "max_turn_requests":
        answer += f"\n\n(The sub-agent stopped after {child.config.max_requests} model requests.)"
    return answer or "(The sub-agent gave no answer.)"


class SubagentPrompter:
    """Asks the parent's client on behalf of a sub-agent: the request is made on the parent's
    `agent` tool call, titled "<sub-agent>: <call>", and that call's title, kind and input are
    restored once answered."""

    def __init__(self, prompter: PermissionPrompter, call_id: str, label: str, raw_input: dict[str, Any], emit: EventSink) -> None:
        self._prompter = prompter
        self._call_id = call_id
        self._label = label
        self._raw_input = raw_input
        self._emit = emit

    async def ask(self, request: PermissionRequest) -> Answer:
        """Ask the client about the sub-agent's `request`."""
        asked = dataclasses.replace(request, tool_call_id=self._call_id, title=f"{self._label}: {request.title}")
        answer = await self._prompter.ask(asked)
        await self._emit(ToolCallUpdated(self._call_id, title=self._label, kind="execute", raw_input=self._raw_input))
        return answer


class SubagentReporter:
    """Collects what a sub-agent does ("Read main.tf: done") and reports it as the parent call's content."""

    def __init__(self, progress: ProgressSink) -> None:
        self._progress = progress
        self._titles: dict[str, str] = {}
        self._status: dict[str, str] = {}
        self._text: list[str] = []

    async def emit(self, event: Event) -> None:
        """Receive one sub-agent event; tool call changes are forwarded as progress."""
        if isinstance(event, TextDelta):
            self._text.append(event.text)
            return
        if isinstance(event, ToolCallStarted):
            self._titles[event.tool_call_id] = event.title
            self._status[event.tool_call_id] = event.status
        elif isinstance(event, ToolCallUpdated):
            if event.title:
                self._titles[event.tool_call_id] = event.title
            if event.status:
                self._status[event.tool_call_id] = event.status
            if not (event.title or event.status):
                return
        else:
            return
        marks = {"completed": "done", "failed": "failed", "in_progress": "running", "pending": "pending"}
        lines = [f"{self._titles[i]}: {marks.get(self._status.get(i, ''), '')}" for i in self._titles]
        await self._progress([TextContent("\n".join(lines[-MAX_LINES:]))])
