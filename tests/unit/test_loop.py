"""The agent loop in process: a tool that raises fails its own call, never the turn; a call's
context is complete when the permission gate sees it; an `agent` call runs its sub-agent (given by
the session as `subagent.starter`), whose usage the turn counts."""

from __future__ import annotations

import json
from pathlib import Path

from iac_code.agent import subagent
from iac_code.agent.loop import AgentLoop, LoopConfig
from iac_code.agent.permissions import PermissionGate, PermissionPolicy
from iac_code.core.conversation import Conversation, user_text
from iac_code.core.events import TextContent, ToolCallStarted, ToolCallUpdated
from iac_code.providers.scripted import ScriptedProvider
from iac_code.tools.agent import AgentTool
from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolPreview, ToolResult
from iac_code.tools.registry import ToolRegistry


class Empty(ToolInput):
    pass


class BrokenTitle(Tool):
    name = "broken_title"
    description = "raises in title()"
    input_model = Empty
    kind = "other"
    category = "read"

    def title(self, params):  # noqa: ANN001, ANN201
        if params is None:
            return "Broken"
        raise RuntimeError("title blew up")

    async def run(self, params, ctx):  # noqa: ANN001, ANN201
        return ToolResult("never")


class BrokenPreview(Tool):
    name = "broken_preview"
    description = "raises in preview()"
    input_model = Empty
    kind = "edit"
    category = "write"

    async def preview(self, params, ctx) -> ToolPreview | None:  # noqa: ANN001
        raise OSError("preview blew up")

    async def run(self, params, ctx):  # noqa: ANN001, ANN201
        return ToolResult("never")


class Allow:
    async def ask(self, request):  # noqa: ANN001, ANN201
        return "allow_once"


def scripted_loop(tmp_path: Path, responses: list[list[dict]], tools: list[Tool], events: list, **options) -> AgentLoop:  # noqa: ANN003
    """An `AgentLoop` over the scripted model answering with `responses` (one list of blocks a
    request), every question allowed once, the emitted events appended to `events`."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"blocks": blocks} for blocks in responses]}))

    async def emit(event):  # noqa: ANN001
        events.append(event)

    return AgentLoop(
        provider=ScriptedProvider(script),
        tools=ToolRegistry(tools),
        conversation=Conversation(),
        gate=PermissionGate(PermissionPolicy("default"), Allow()),
        emit=emit,
        context=lambda **call: ToolContext(cwd=tmp_path, config_dir=tmp_path / "cfg", **call),
        config=LoopConfig(model="scripted", system_prompt="test"),
        **options,
    )


async def test_a_tool_that_raises_outside_run_fails_only_its_call(tmp_path: Path):
    uses = [{"type": "tool_use", "name": n, "input": {}} for n in ("broken_title", "broken_preview")]
    events: list = []
    loop = scripted_loop(tmp_path, [uses, [{"type": "text", "text": "carried on"}]], [BrokenTitle(), BrokenPreview()], events)
    conversation = loop.conversation
    result = await loop.run(user_text("go"))
    assert result.stop_reason == "end_turn"
    finals = [e for e in events if isinstance(e, ToolCallUpdated) and e.status == "failed"]
    assert [e.raw_output["error"] for e in finals] == [
        "broken_title failed unexpectedly: RuntimeError: title blew up",
        "broken_preview failed unexpectedly: OSError: preview blew up",
    ]
    results = conversation.messages[2].tool_results()
    assert [r.is_error for r in results] == [True, True]
    assert conversation.messages[-1].text() == "carried on"


class Watched(Tool):
    """Records what its context offers when the gate previews the call, and reports progress."""

    name = "watched"
    description = "an edit that reports progress"
    input_model = Empty
    kind = "edit"
    category = "write"

    def __init__(self) -> None:
        self.at_preview: dict[str, bool] = {}

    async def preview(self, params, ctx) -> ToolPreview | None:  # noqa: ANN001
        self.at_preview = {name: getattr(ctx, name) is not None for name in ("progress", "emit", "run_subagent")}
        return None

    async def run(self, params, ctx):  # noqa: ANN001, ANN201
        await ctx.report([TextContent("half way")])
        return ToolResult("done")


async def test_the_gate_sees_a_complete_context_and_progress_reaches_the_calls_own_panel(tmp_path: Path):
    tool, events = Watched(), []
    use = {"type": "tool_use", "name": "watched", "input": {}}
    loop = scripted_loop(tmp_path, [[use], [{"type": "text", "text": "ok"}]], [tool], events, subagents=subagent.starter)
    assert (await loop.run(user_text("go"))).stop_reason == "end_turn"
    assert tool.at_preview == {"progress": True, "emit": True, "run_subagent": True}
    progress = [e for e in events if isinstance(e, ToolCallUpdated) and e.content == [TextContent("half way")]]
    started = [e.tool_call_id for e in events if isinstance(e, ToolCallStarted)]
    assert len(started) == 1 and [e.tool_call_id for e in progress] == started


async def test_an_agent_call_runs_its_sub_agent_and_the_turn_counts_its_usage(tmp_path: Path):
    events: list = []
    answer = "found it " * 50  # ~110 output tokens for the scripted model (a character in 4)
    use = {"type": "tool_use", "name": "agent", "input": {"prompt": "look around"}}
    responses = [[use], [{"type": "text", "text": answer}], [{"type": "text", "text": "done"}]]
    loop = scripted_loop(tmp_path, responses, [AgentTool()], events, subagents=subagent.starter)
    result = await loop.run(user_text("go"))
    assert result.stop_reason == "end_turn"
    assert loop.conversation.messages[2].tool_results()[0].content == answer
    assert result.usage.output_tokens > 100  # the parent's own two responses are a few tokens
