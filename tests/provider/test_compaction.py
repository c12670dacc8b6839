"""Context compaction: where the conversation is cut, the summary request, the loop's trigger, `/compact`,
and that the compacted history is what a reloaded session gets."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from anthropic_rig import MODEL, LoopRig, anthropic_provider
from fake_anthropic import api_error, message, text, tool_use

from iac_code.agent import compaction
from iac_code.agent.session import Session
from iac_code.config import Settings
from iac_code.core.conversation import (
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    user_text,
)
from iac_code.core.events import Notice, UsageUpdated
from iac_code.session_store.store import SessionMeta, SessionStore, new_session_id

SUMMARY = "The user is building an S3 bucket module; main.tf has the bucket."


def tool_exchange(n: int, size: int = 40) -> list[Message]:
    """An assistant tool use and the user message with its result."""
    return [
        Message(role="assistant", content=[TextBlock(text=f"step {n}"), ToolUseBlock(id=f"toolu_{n}", name="note", input={"text": "i" * size})]),
        Message(role="user", content=[ToolResultBlock(tool_use_id=f"toolu_{n}", content="r" * size)]),
    ]


def turn(n: int, tools: int = 2, size: int = 40) -> list[Message]:
    """A prompt turn: the prompt, `tools` tool exchanges, the final answer."""
    out = [user_text(f"prompt {n}")]
    for k in range(tools):
        out += tool_exchange(n * 10 + k, size)
    return [*out, Message(role="assistant", content=[TextBlock(text=f"answer {n}")])]


def assert_pairs_intact(kept: list[Message]) -> None:
    """Every tool_result in `kept` answers a tool_use in the message right before it."""
    assert not kept or not kept[0].tool_results(), "kept part starts with tool results"
    for i, m in enumerate(kept):
        for r in m.tool_results():
            assert i > 0 and r.tool_use_id in {u.id for u in kept[i - 1].tool_uses()}


def test_cut_never_separates_a_tool_use_from_its_result():
    messages = turn(1) + turn(2, tools=4, size=400) + turn(3, tools=1) + turn(4, tools=6, size=200)[:-1]
    for keep_turns, keep_tokens in itertools.product(range(0, 6), [None, 1, 50, 200, 500, 1000, 10**6]):
        cut = compaction.cut_index(messages, keep_turns, keep_tokens)
        assert 0 <= cut < len(messages)
        assert_pairs_intact(messages[cut:])
        assert not messages[cut].tool_results()


def test_cut_keeps_the_latest_turns_whole_when_they_fit():
    messages = turn(1) + turn(2) + turn(3)
    assert compaction.cut_index(messages, 1, 10**6) == len(turn(1)) * 2
    assert compaction.cut_index(messages, 2, 10**6) == len(turn(1))
    assert compaction.cut_index(messages, 3, 10**6) == 0


def test_cut_moves_into_a_turn_too_big_to_keep():
    messages = turn(1) + turn(2, tools=8, size=400)[:-1]  # a long turn still running
    cut = compaction.cut_index(messages, 1, 300)
    assert cut > len(turn(1))
    assert messages[cut].role == "assistant"
    assert compaction.estimate_tokens(messages[cut:]) <= 300
    assert compaction.estimate_tokens(messages[cut - 2 :]) > 300  # as much kept as fits


def test_the_summary_request_has_no_tool_blocks():
    out = compaction.written_out(turn(1, tools=1, size=compaction.RESULT_CHARS + 10))
    assert all(isinstance(b, TextBlock) for m in out for b in m.content)
    assert [m.role for m in out] == ["user", "assistant", "user", "assistant"]
    assert out[1].content[1].text.startswith("[tool use: note {")
    assert out[2].content[0].text.startswith("[tool result of note]\nrrr")
    assert out[2].content[0].text.endswith("[... 10 more characters left out]")


def test_the_summary_request_writes_an_image_as_its_name_and_counts_it():
    image = ImageBlock(media_type="image/png", data="iVBORw0KGgo=", name="file:///p/net.png")
    messages = [Message(role="user", content=[TextBlock(text="what is this?"), image])]
    out = compaction.written_out(messages)
    assert [b.text for b in out[0].content] == ["what is this?", "[image: file:///p/net.png]"]
    assert compaction.estimate_tokens(messages) > 1000  # an image weighs about 1,600 tokens, not its 12 characters


def small_settings(fake, tmp_path: Path, window: int = 1000) -> Settings:
    return Settings(
        config_dir=tmp_path / "config",
        anthropic_api_key="sk-test-compaction-0123456789",
        anthropic_base_url=fake.url,
        context_window=window,
    )


def stored_conversation(tmp_path: Path, messages: list[Message]) -> tuple[SessionStore, str, Conversation]:
    store = SessionStore(tmp_path / "sessions")
    meta = SessionMeta(session_id=new_session_id(), cwd=str(tmp_path))
    store.create(meta)
    conversation = Conversation(journal=store.journal(meta.session_id))
    for m in messages:
        conversation.append(m)
    return store, meta.session_id, conversation


async def test_the_loop_compacts_near_the_window_and_the_reload_has_the_compacted_history(fake, tmp_path):
    provider = anthropic_provider(small_settings(fake, tmp_path))
    store, session_id, conversation = stored_conversation(tmp_path, turn(1, size=600) + turn(2, size=600))
    fake.add(message(text(SUMMARY)), message(text("Here is the third answer.")))
    rig = LoopRig(provider, tmp_path, conversation=conversation)
    try:
        result = await rig.loop.run(user_text("prompt 3"))
    finally:
        await provider.aclose()

    assert result.stop_reason == "end_turn"
    notice = next(n.text for n in rig.of(Notice) if "context compacted" in n.text)
    before, after = (int(x) for x in notice.split("compacted: ")[1].split(" tokens")[0].split(" -> "))
    assert before > after

    summary_request, turn_request = fake.bodies
    assert summary_request["system"][0]["text"] == compaction.SUMMARY_SYSTEM
    assert "tools" not in summary_request
    assert {b["type"] for m in summary_request["messages"] for b in m["content"]} == {"text"}
    assert summary_request["messages"][-1]["content"][-1]["text"] == compaction.SUMMARY_INSTRUCTION
    assert [m["role"] for m in turn_request["messages"]] == ["user", "assistant", "user"]
    assert SUMMARY in turn_request["messages"][0]["content"][0]["text"]
    assert turn_request["messages"][2]["content"][0]["text"] == "prompt 3"

    messages = conversation.messages
    assert [m.text() for m in messages[1:]] == [compaction.ACK, "prompt 3", "Here is the third answer."]
    _, reloaded = store.load(session_id)
    assert reloaded == messages


async def test_a_single_long_turn_is_compacted_inside_the_turn(fake, tmp_path):
    provider = anthropic_provider(small_settings(fake, tmp_path))
    fake.add(
        message(tool_use("toolu_big", "note", {"text": "n" * 1800}), stop_reason="tool_use", output_tokens=460),
        message(text(SUMMARY)),
        message(text("All noted.")),
    )
    rig = LoopRig(provider, tmp_path)
    try:
        # the prompt is longer than the summary, so replacing it shrinks the context (issue 10, hole 15)
        prompt = "note this long thing, " + "and keep every detail of it " * 8
        assert (await rig.loop.run(user_text(prompt))).stop_reason == "end_turn"
    finally:
        await provider.aclose()

    assert any("context compacted" in n.text for n in rig.of(Notice))
    turn_request = fake.bodies[2]
    assert [m["role"] for m in turn_request["messages"]] == ["user", "assistant", "user"]
    assert SUMMARY in turn_request["messages"][0]["content"][0]["text"]
    assert turn_request["messages"][1]["content"][0]["type"] == "tool_use"
    assert turn_request["messages"][2]["content"][0]["tool_use_id"] == "toolu_big"
    assert_pairs_intact(rig.conversation.messages)


async def test_a_failed_summary_does_not_end_the_turn(fake, tmp_path):
    provider = anthropic_provider(small_settings(fake, tmp_path))
    fake.add(api_error(400, "invalid_request_error", "summary refused"), message(text("Answered anyway.")))
    conversation = Conversation(turn(1, size=600) + turn(2, size=600))
    rig = LoopRig(provider, tmp_path, conversation=conversation)
    try:
        result = await rig.loop.run(user_text("prompt 3"))
    finally:
        await provider.aclose()
    assert result.stop_reason == "end_turn"
    assert rig.conversation.messages[-1].text() == "Answered anyway."
    assert any("compaction failed" in n.text for n in rig.of(Notice))


async def test_slash_compact_compacts_by_hand_and_persists(fake, tmp_path):
    settings = small_settings(fake, tmp_path, window=200_000)
    store = SessionStore(settings.sessions_dir)
    meta = SessionMeta(session_id=new_session_id(), cwd=str(tmp_path), model=MODEL)
    store.create(meta)
    session = Session(meta, settings, store, provider_factory=lambda model, s: anthropic_provider(s))
    for m in turn(1) + turn(2):
        session.conversation.append(m)
    events: list = []

    async def emit(event) -> None:
        events.append(event)

    fake.add(message(text(SUMMARY), input_tokens=300, output_tokens=20))
    try:
        result = await session.prompt([TextBlock(text="/compact")], emit, None)
    finally:
        await session.close()

    assert result.stop_reason == "end_turn"
    assert result.usage.input_tokens == 300
    assert any("context compacted" in e.text for e in events if isinstance(e, Notice))
    usage = [e for e in events if isinstance(e, UsageUpdated)]
    assert usage and usage[-1].size == 200_000
    _, reloaded = store.load(meta.session_id)
    assert reloaded == session.conversation.messages
    assert [m.text() for m in reloaded][1:3] == [compaction.ACK, "prompt 2"]
    assert SUMMARY in reloaded[0].text()


@pytest.mark.parametrize("used, expected", [(799, False), (800, True)])
def test_threshold(used, expected):
    assert compaction.needed(used, 1000) is expected
