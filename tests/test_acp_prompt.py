"""session/prompt: content blocks, stop reasons, usage, tool call lifecycle, and a busy session."""

from __future__ import annotations

import asyncio
import base64

import acp
import pytest
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    SessionInfoUpdate,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
)
from harness import serve_agent, wait_for

TEXT = {"type": "text", "text": "All done."}
PNG = bytes.fromhex(  # a 1x1 PNG
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf00000301010018dd8db00000000049454e44ae426082"
)


def turn(*blocks, **kw):
    return {"blocks": list(blocks), **kw}


async def test_content_blocks_reach_the_model(tmp_path):
    script = [
        turn({"type": "text", "text": "saw image"}, match=f"[image: image/png, {len(PNG)} bytes]"),
        turn({"type": "text", "text": "saw audio"}, match="[audio: audio/wav]"),
        turn({"type": "text", "text": "saw resource"}, match='<resource uri="file:///p/main.tf">\nresource "x" {}\n</resource>'),
        turn({"type": "text", "text": "saw link"}, match="[resource link: vars.tf <file:///p/vars.tf>"),
    ]
    async with serve_agent(tmp_path / "proj", script=script) as agent:
        sid = await agent.new_session()
        blocks = [
            acp.image_block(base64.b64encode(PNG).decode(), "image/png"),
            acp.audio_block("aGVsbG8=", "audio/wav"),
            acp.resource_block(acp.embedded_text_resource("file:///p/main.tf", 'resource "x" {}')),
            acp.resource_link_block("vars.tf", "file:///p/vars.tf"),
        ]
        for block in blocks:
            result = await agent.conn.prompt(session_id=sid, prompt=[acp.text_block("look: "), block])
            assert result.stop_reason == "end_turn"
        assert agent.text(sid) == "saw imagesaw audiosaw resourcesaw link"


async def test_updates_stream_in_order_before_the_result(tmp_path):
    script = [
        turn(
            {"type": "thinking", "thinking": "Thinking it over."},
            {"type": "text", "text": "First part. Second part."},
        )
    ]
    async with serve_agent(tmp_path / "proj", script=script) as agent:
        sid = await agent.new_session()
        result = await agent.prompt(sid, "Explain the VPC layout")
        kinds = [type(u).__name__ for u in agent.updates(sid) if not isinstance(u, UsageUpdate)]
        assert result.stop_reason == "end_turn"
        assert agent.thoughts(sid) == "Thinking it over."
        assert agent.text(sid) == "First part. Second part."
        first_text = kinds.index("AgentMessageChunk")
        assert all(k == "AgentThoughtChunk" for k in kinds[kinds.index("AgentThoughtChunk") : first_text])
        # the usage update comes after the message, and the title from the first user text
        assert isinstance(agent.updates(sid)[-1], UsageUpdate)
        (info,) = agent.updates(sid, SessionInfoUpdate)
        assert info.title == "Explain the VPC layout"


@pytest.mark.parametrize("stop", ["max_tokens", "refusal"])
async def test_model_stop_reasons(tmp_path, stop):
    async with serve_agent(tmp_path / "proj", script=[turn(TEXT, stop_reason=stop)]) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "go")).stop_reason == stop


async def test_max_turn_requests(tmp_path):
    plan = {"type": "tool_use", "name": "update_plan", "input": {"entries": [{"content": "step"}]}}
    script = [turn(plan)] * 5
    async with serve_agent(tmp_path / "proj", script=script, env={"IAC_CODE_MAX_TURNS": "3"}) as agent:
        sid = await agent.new_session()
        result = await agent.prompt(sid, "loop forever")
        assert result.stop_reason == "max_turn_requests"
        assert len(agent.tool_calls(sid)) == 3
        assert set(agent.final_status(sid).values()) == {"completed"}


async def test_script_exhausted_says_so(tmp_path):
    async with serve_agent(tmp_path / "proj", script=[turn(TEXT)]) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, "one")
        result = await agent.prompt(sid, "two")
        assert result.stop_reason == "end_turn"
        assert "no turn left" in agent.text(sid)


async def test_usage_is_summed_over_every_model_call(tmp_path):
    plan = {"type": "tool_use", "name": "update_plan", "input": {"entries": [{"content": "step"}]}}
    script = [turn(plan), turn(plan), turn(TEXT)]
    async with serve_agent(tmp_path / "proj", script=script) as agent:
        sid = await agent.new_session()
        result = await agent.prompt(sid, "three calls")
        calls = agent.updates(sid, UsageUpdate)
        assert len(calls) == 3
        usage = result.usage
        assert usage.total_tokens == usage.input_tokens + usage.output_tokens
        # each usage_update reports that call's context + output; the turn's usage is their sum
        assert usage.total_tokens == sum(u.used for u in calls)
        assert usage.cached_read_tokens == 0 and usage.cached_write_tokens == 0


async def test_tool_call_lifecycle_keeps_one_id(tmp_path):
    plan = {"type": "tool_use", "name": "update_plan", "input": {"entries": [{"content": "Read the code", "status": "in_progress"}]}}
    unknown = {"type": "tool_use", "name": "launch_rockets", "input": {}}
    bad_input = {"type": "tool_use", "name": "update_plan", "input": {"entries": "not a list"}}
    script = [turn(plan, unknown, bad_input), turn(TEXT)]
    async with serve_agent(tmp_path / "proj", script=script) as agent:
        sid = await agent.new_session()
        result = await agent.prompt(sid, "plan it")
        assert result.stop_reason == "end_turn"
        calls = agent.tool_calls(sid)
        assert len(calls) == 3
        for call_id, updates in calls.items():
            assert isinstance(updates[0], ToolCallStart)
            assert all(isinstance(u, ToolCallProgress) for u in updates[1:])
            assert all(u.tool_call_id == call_id for u in updates)
        ok, unknown_call, bad_call = calls.values()
        assert ok[0].kind == "other" and ok[0].status == "pending"
        assert [u.status for u in ok if u.status] == ["pending", "in_progress", "completed"]
        assert any(u.raw_input == plan["input"] for u in ok)
        assert ok[-1].raw_output == {"output": "Plan updated:\n[~] Read the code"}
        assert ok[-1].title is None and any(u.title == "Update plan (0/1 done)" for u in ok)
        assert unknown_call[-1].status == "failed"
        assert "Unknown tool 'launch_rockets'" in unknown_call[-1].raw_output["error"]
        assert bad_call[-1].status == "failed"
        assert "Invalid input for update_plan" in bad_call[-1].raw_output["error"]


async def test_a_second_prompt_on_a_busy_session_is_refused(tmp_path, monkeypatch):
    from iac_code.core.events import TextDelta
    from iac_code.providers.scripted import ScriptedProvider

    release = asyncio.Event()
    stream = ScriptedProvider.stream

    async def held(self: ScriptedProvider, request):  # noqa: ANN001
        """The turn stays busy after its first word until the test lets it go (not a paced stream
        that a loaded machine might outlast: 0.9 s of waiting)."""
        async for event in stream(self, request):
            yield event
            if isinstance(event, TextDelta):
                await release.wait()

    monkeypatch.setattr(ScriptedProvider, "stream", held)
    slow = turn({"type": "text", "text": "one two three four five six"})
    async with serve_agent(tmp_path / "proj", script=[slow, turn(TEXT)]) as agent:
        sid = await agent.new_session()
        first = asyncio.create_task(agent.prompt(sid, "slow please"))
        await wait_for(lambda: agent.updates(sid, AgentMessageChunk))
        with pytest.raises(acp.RequestError) as err:
            await agent.prompt(sid, "me too")
        assert err.value.code == -32602
        assert "already running" in err.value.data["sessionId"]
        release.set()
        result = await first
        assert result.stop_reason == "end_turn"
        assert agent.text(sid) == "one two three four five six"
        # and the session works afterwards
        assert (await agent.prompt(sid, "again")).stop_reason == "end_turn"
        assert agent.text(sid).endswith("All done.")


async def test_provider_errors_are_reported_and_the_session_goes_on(tmp_path):
    script = [
        turn({"type": "text", "text": "Starting "}, {"type": "error", "kind": "overloaded", "message": "try later"}),
        turn(TEXT),
    ]
    async with serve_agent(tmp_path / "proj", script=script) as agent:
        sid = await agent.new_session()
        result = await agent.prompt(sid, "go")
        assert result.stop_reason == "end_turn"
        assert "overloaded" in agent.text(sid) and "try later" in agent.text(sid)
        assert (await agent.prompt(sid, "again")).stop_reason == "end_turn"
        assert agent.text(sid).endswith("All done.")


async def test_thoughts_only_turn(tmp_path):
    async with serve_agent(tmp_path / "proj", script=[turn({"type": "thinking", "thinking": "hmm"})]) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "think")).stop_reason == "end_turn"
        assert [u.content.text for u in agent.updates(sid, AgentThoughtChunk)] == ["hmm"]


async def test_slash_commands(tmp_path):
    plan = {"type": "tool_use", "name": "update_plan", "input": {"entries": [{"content": "x"}]}}
    script = [turn(plan), turn(TEXT), turn(TEXT)]
    async with serve_agent(tmp_path / "proj", script=script) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, "/help")
        assert "`/compact`" in agent.text(sid) and "`update_plan`" in agent.text(sid)
        await agent.prompt(sid, "/compact")
        assert "Nothing to compact" in agent.text(sid)
        # long enough that its summary is smaller: a compaction that would grow the context is not done
        await agent.prompt(sid, "first task " + "with many details " * 40)
        await agent.prompt(sid, "second task")
        await agent.prompt(sid, "/compact")
        assert "context compacted:" in agent.text(sid)
        await agent.prompt(sid, "/clear")
        assert "Conversation cleared." in agent.text(sid)
