"""The agent loop in process: a tool that raises fails its own call, never the turn."""

from __future__ import annotations

import json
from pathlib import Path

from iac_code.agent.loop import AgentLoop, LoopConfig
from iac_code.agent.permissions import PermissionGate, PermissionPolicy
from iac_code.core.conversation import Conversation, user_text
from iac_code.core.events import ToolCallUpdated
from iac_code.providers.scripted import ScriptedProvider
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


async def test_a_tool_that_raises_outside_run_fails_only_its_call(tmp_path: Path):
    script = tmp_path / "script.json"
    uses = [{"type": "tool_use", "name": n, "input": {}} for n in ("broken_title", "broken_preview")]
    script.write_text(json.dumps({"turns": [{"blocks": uses}, {"blocks": [{"type": "text", "text": "carried on"}]}]}))
    events = []

    async def emit(event):  # noqa: ANN001
        events.append(event)

    class Allow:
        async def ask(self, request):  # noqa: ANN001, ANN201
            return "allow_once"

    conversation = Conversation()
    loop = AgentLoop(
        provider=ScriptedProvider(script),
        tools=ToolRegistry([BrokenTitle(), BrokenPreview()]),
        conversation=conversation,
        gate=PermissionGate(PermissionPolicy("default"), Allow()),
        emit=emit,
        context=lambda: ToolContext(cwd=tmp_path, config_dir=tmp_path / "cfg"),
        config=LoopConfig(model="scripted", system_prompt="test"),
    )
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
