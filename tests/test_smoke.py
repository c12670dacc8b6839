"""The agent starts, answers initialize and streams a scripted reply."""

from harness import spawn_agent


async def test_scripted_reply_streams(tmp_path):
    async with spawn_agent(tmp_path / "proj", script=[{"blocks": [{"type": "text", "text": "Hello there, world."}]}]) as agent:
        session = await agent.new_session()
        result = await agent.prompt(session, "hi")
        assert result.stop_reason == "end_turn"
        assert agent.text(session) == "Hello there, world."
        assert len([u for u in agent.updates(session) if u.session_update == "agent_message_chunk"]) == 3
