"""Honest reports (issue 10, hole 15): a compaction that would not shrink the context is not
reported as done, and a turn that ended in a model error still reports what its requests used."""

from __future__ import annotations

import json

from harness import serve_agent


def say(text: str) -> dict:
    return {"blocks": [{"type": "text", "text": text}]}


async def test_a_compaction_that_would_not_shrink_the_context_is_not_reported_as_done(tmp_path):
    async with serve_agent(tmp_path / "proj", script=[say("hello"), say("fine")]) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, "hi")
        await agent.prompt(sid, "and now?")
        before = agent.text(sid)
        result = await agent.prompt(sid, "/compact")
        assert result.stop_reason == "end_turn"
        notice = agent.text(sid)[len(before) :]
        assert "context compacted" not in notice
        assert "context not compacted" in notice and "kept as it was" in notice
        # the summary request was made, and it is counted
        assert result.usage.input_tokens > 0
    records = [json.loads(line) for line in (agent.config_dir / "sessions" / f"{sid}.jsonl").read_text().splitlines()]
    texts = [r["message"]["content"][0]["text"] for r in records if "message" in r]
    assert texts == ["hi", "hello", "and now?", "fine"]  # the history was not replaced


async def test_a_turn_ended_by_a_model_error_reports_the_usage_of_its_requests(tmp_path):
    failing = {"blocks": [{"type": "text", "text": "I will start by "}, {"type": "error", "kind": "overloaded", "message": "busy"}]}
    async with serve_agent(tmp_path / "proj", script=[failing]) as agent:
        sid = await agent.new_session()
        result = await agent.prompt(sid, "do the thing")
        assert result.stop_reason == "end_turn"
        assert "overloaded" in agent.text(sid)
        assert result.usage.input_tokens > 0
        assert result.usage.total_tokens >= result.usage.input_tokens + result.usage.output_tokens > 0
