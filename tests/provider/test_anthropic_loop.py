"""The real agent loop on the real Anthropic provider against the fake API: tool turns, thinking,
stop reasons, errors mid-turn, the request limit and usage updates."""

from __future__ import annotations

import asyncio

import pytest
from anthropic_rig import MODEL, anthropic_provider
from fake_anthropic import (
    STALL,
    cut_after_deltas,
    error_event,
    message,
    text,
    thinking,
    tool_use,
)

from iac_code.agent.session import Session
from iac_code.core.conversation import Message, TextBlock, ToolUseBlock, user_text
from iac_code.core.events import (
    Notice,
    TextDelta,
    ToolCallStarted,
    ToolCallUpdated,
    UsageUpdated,
)
from iac_code.session_store.store import SessionMeta, SessionStore, new_session_id


def final_statuses(events: list) -> dict[str, str]:
    out: dict[str, str] = {}
    for e in events:
        if isinstance(e, (ToolCallStarted, ToolCallUpdated)) and e.status:
            out[e.tool_call_id] = e.status
    return out


def assert_no_dangling_tool_use(messages: list[Message]) -> None:
    for i, m in enumerate(messages):
        uses = {u.id for u in m.tool_uses()}
        if uses:
            assert i + 1 < len(messages), "tool use at the end of the history"
            assert uses <= {r.tool_use_id for r in messages[i + 1].tool_results()}


async def test_a_tool_turn_runs_both_tools_and_sends_the_results_back(fake, rig, tmp_path):
    fake.add(
        message(
            text("I'll note it and save it."),
            tool_use("toolu_1", "note", {"text": "bucket"}, pieces=5),
            tool_use("toolu_2", "save", {"path": "main.tf", "content": 'resource "x" "y" {}\n'}, pieces=11),
            stop_reason="tool_use",
            input_tokens=100,
            cache_write=900,
            output_tokens=40,
        ),
        message(text("Saved main.tf."), input_tokens=20, cache_read=900, cache_write=150, output_tokens=6),
    )
    r = rig()
    result = await r.loop.run(user_text("add a bucket"))

    assert result.stop_reason == "end_turn"
    assert [p.tool_name for p in r.prompter.requests] == ["save"]  # the write tool asked, the read tool did not
    assert (tmp_path / "proj" / "main.tf").read_text() == 'resource "x" "y" {}\n'
    assert final_statuses(r.events) == {"toolu_1": "completed", "toolu_2": "completed"}
    assert result.usage.input_tokens == 120 and result.usage.cache_read_tokens == 900
    assert result.usage.cache_write_tokens == 1050 and result.usage.output_tokens == 46
    assert r.of(UsageUpdated) == [UsageUpdated(used=1040, size=200_000), UsageUpdated(used=1076, size=200_000)]

    second = fake.bodies[1]
    assert [t["name"] for t in second["tools"]] == ["note", "save"]
    assert second["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    assert [b["type"] for b in second["messages"][1]["content"]] == ["text", "tool_use", "tool_use"]
    results = second["messages"][2]["content"]
    assert results == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "noted: bucket", "is_error": False},
        {
            "type": "tool_result",
            "tool_use_id": "toolu_2",
            "content": "saved main.tf",
            "is_error": False,
            "cache_control": {"type": "ephemeral"},
        },
    ]
    assert [m.role for m in r.conversation.messages] == ["user", "assistant", "user", "assistant"]


async def test_thinking_blocks_go_back_with_their_signature_after_a_tool_use(fake, rig):
    fake.add(
        message(thinking("I should take a note.", "sig-1"), tool_use("toolu_1", "note", {"text": "x"}), stop_reason="tool_use"),
        message(text("Done.")),
    )
    r = rig(thinking_budget=2048, max_tokens=8192)
    assert (await r.loop.run(user_text("go"))).stop_reason == "end_turn"
    assert fake.bodies[0]["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert fake.bodies[1]["messages"][1]["content"][0] == {"type": "thinking", "thinking": "I should take a note.", "signature": "sig-1"}


async def test_max_tokens_inside_a_tool_use_fails_the_call_and_keeps_the_history_valid(fake, rig):
    fake.add(
        message(text("Writing the file."), tool_use("toolu_cut", "save", {"path": "a.tf", "content": "x" * 400}, cut_at=0.4), stop_reason="max_tokens"),
        message(text("Sorry, shorter this time.")),
    )
    r = rig()
    assert (await r.loop.run(user_text("write"))).stop_reason == "max_tokens"
    assert final_statuses(r.events) == {"toolu_cut": "failed"}
    assert r.prompter.requests == []
    assert_no_dangling_tool_use(r.conversation.messages)

    assert (await r.loop.run(user_text("try again"))).stop_reason == "end_turn"
    assert [m["role"] for m in fake.bodies[1]["messages"]] == ["user", "assistant", "user"]
    assert fake.bodies[1]["messages"][1]["content"] == [{"type": "text", "text": "Writing the file."}]


async def test_refusal_ends_the_turn_with_refusal(fake, rig):
    fake.add(message(text("I can't help with that."), stop_reason="refusal"))
    assert (await (r := rig()).loop.run(user_text("x"))).stop_reason == "refusal"
    assert r.conversation.messages[-1].text() == "I can't help with that."


async def test_a_failed_stream_is_reported_and_the_next_prompt_works(fake, rig):
    full = message(text("Let me look.", pieces=2), tool_use("toolu_1", "note", {"text": "x"}, pieces=4), stop_reason="tool_use")
    broken = [*cut_after_deltas(full, 4), error_event()]  # all the text, the tool use half-way
    fake.add(broken, broken, message(text("Back again.")))
    r = rig()
    result = await r.loop.run(user_text("first"))

    assert result.stop_reason == "end_turn"
    notices = [n.text for n in r.of(Notice)]
    assert any("overloaded" in n for n in notices)
    assert final_statuses(r.events) == {"toolu_1": "failed"}
    assert "".join(e.text for e in r.of(TextDelta)) == "Let me look."  # not repeated by the retry
    assert [b for m in r.conversation.messages for b in m.content if isinstance(b, ToolUseBlock)] == []
    assert r.conversation.messages[-1] == Message(role="assistant", content=[TextBlock(text="Let me look.")])

    assert (await r.loop.run(user_text("second"))).stop_reason == "end_turn"
    assert fake.bodies[2]["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "first"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Let me look."}]},
        {"role": "user", "content": [{"type": "text", "text": "second", "cache_control": {"type": "ephemeral"}}]},
    ]


async def test_the_request_limit_ends_with_max_turn_requests(fake, rig):
    fake.add(*[message(tool_use(f"toolu_{i}", "note", {"text": str(i)}), stop_reason="tool_use") for i in range(3)])
    fake.add(message(text("Finally.")))
    r = rig(max_requests=3)
    assert (await r.loop.run(user_text("loop"))).stop_reason == "max_turn_requests"
    assert len(fake.bodies) == 3
    assert final_statuses(r.events) == {f"toolu_{i}": "completed" for i in range(3)}
    assert_no_dangling_tool_use(r.conversation.messages)

    assert (await r.loop.run(user_text("stop now"))).stop_reason == "end_turn"
    last_user = fake.bodies[3]["messages"][-1]
    assert last_user["role"] == "user"  # the tool results and the new prompt, merged into one message
    assert [b["type"] for b in last_user["content"]] == ["tool_result", "text"]


def test_the_default_request_limit_comes_from_settings(monkeypatch):
    from iac_code.config import Settings

    assert Settings().max_turns == 50
    monkeypatch.setenv("IAC_CODE_MAX_TURNS", "7")
    assert Settings().max_turns == 7


async def test_usage_update_follows_every_model_call(fake, rig):
    fake.add(message(tool_use("toolu_1", "note", {"text": "a"}), stop_reason="tool_use", input_tokens=50, output_tokens=5))
    fake.add(message(text("ok"), input_tokens=80, output_tokens=3))
    r = rig()
    await r.loop.run(user_text("u"))
    kinds = [type(e).__name__ for e in r.events if isinstance(e, (UsageUpdated, ToolCallStarted))]
    assert kinds == ["ToolCallStarted", "UsageUpdated", "UsageUpdated"]
    assert [u.used for u in r.of(UsageUpdated)] == [55, 83]


async def test_pause_turn_continues_with_the_paused_message_last(fake, rig):
    fake.add(message(text("Searching..."), stop_reason="pause_turn"), message(text("Found it.")))
    r = rig()
    assert (await r.loop.run(user_text("find"))).stop_reason == "end_turn"
    assert [m["role"] for m in fake.bodies[1]["messages"]] == ["user", "assistant"]
    assert fake.bodies[1]["messages"][1]["content"] == [
        {"type": "text", "text": "Searching...", "cache_control": {"type": "ephemeral"}}
    ]


async def test_cancelling_mid_stream_ends_the_turn_cancelled(fake, rig):
    fake.add([*cut_after_deltas(message(text("Partial answer.", pieces=2)), 1), STALL], message(text("Next.")))
    r = rig()
    task = asyncio.create_task(r.loop.run(user_text("slow")))
    async with asyncio.timeout(10):
        while not r.of(TextDelta):
            await asyncio.sleep(0.01)
    task.cancel()
    assert (await task).stop_reason == "cancelled"
    assert r.conversation.messages[-1] == Message(role="assistant", content=[TextBlock(text="Partial ")])
    assert (await r.loop.run(user_text("again"))).stop_reason == "end_turn"


@pytest.mark.parametrize(("level", "budget"), [("off", None), ("low", 2_048), ("high", 24_576)])
async def test_thought_level_maps_to_a_thinking_budget(fake, settings, tmp_path, level, budget):
    store = SessionStore(settings.sessions_dir)
    meta = SessionMeta(session_id=new_session_id(), cwd=str(tmp_path), model=MODEL, thought_level=level)
    store.create(meta)
    session = Session(meta, settings, store, provider_factory=lambda model, s: anthropic_provider(s))
    fake.add(message(text("ok")))

    async def emit(event) -> None:
        pass

    try:
        await session.prompt([TextBlock(text="hi")], emit, None)
    finally:
        await session.close()
    body = fake.bodies[0]
    if budget is None:
        assert "thinking" not in body
    else:
        assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
        assert body["max_tokens"] > budget
