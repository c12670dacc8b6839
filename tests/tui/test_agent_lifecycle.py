"""The agent's life seen from the app: its stop recorded before it is drawn, teardown, restarts, signals."""

from __future__ import annotations

import sys

import pytest
from pathlib import Path

from iac_tui import messages
from iac_tui.launch import AgentCommand
from iac_tui.widgets.agent_error import AgentError
from iac_tui.widgets.conversation import Conversation
from iac_tui.widgets.message import AgentMessage, UserMessage
from tui_support import pending_question, ready, send, turn_done, wait_until

pytestmark = pytest.mark.spawned_agent  # the agent process dies, restarts, writes stderr

AGENT = Path(__file__).with_name("foreign_agent.py")


async def test_the_stopped_state_is_recorded_before_the_error_block_is_drawn(ws, monkeypatch):
    """Whoever sees the error block sees the agent stopped: ctrl+r works from that moment."""
    seen = []
    draw = Conversation.agent_error

    async def recording(self, *args, **kw):
        seen.append((self.app.agents.state, self.app.turns.busy, self.app.check_action("restart_agent", ())))
        return await draw(self, *args, **kw)

    monkeypatch.setattr(Conversation, "agent_error", recording)
    long = " ".join(f"word{i}" for i in range(400))
    app = ws.app([{"blocks": [{"type": "text", "text": long}], "chunk_delay_ms": 20}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "long answer")
        await wait_until(pilot, lambda: app.query(AgentMessage) and len(app.query_one(AgentMessage).source) > 50, what="streaming")
        app.agents.connection.process.kill()
        await wait_until(pilot, lambda: app.query(AgentError), what="the error")
        assert seen == [("stopped", False, True)]
        await pilot.press("ctrl+r")  # at once: no wait for the app to "hear" it
        await wait_until(pilot, lambda: app.agents.state == "ready" and app.agents.agent is not None, what="the restart")


async def test_workers_that_outlive_the_widgets_do_not_fail(ws):
    app = ws.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
    # the app has torn its widgets down; a late worker's status refresh or message is dropped
    assert not app.query(Conversation)
    app.refresh_status()
    app.post_to_conversation(messages.Notice("late"))
    app.turns.queue_prompt("late")
    app.turns.unqueue_to_draft("late")


async def test_a_turns_end_that_arrives_while_the_app_closes_ends_the_turn(ws):
    """A turn's end can reach the app after its screens are gone (it was on its way as the app
    closed): the turn ends, and nothing raises (the key bindings' refresh raised
    ScreenStackError 'No screens on stack', seen under load at the end of a test)."""
    app = ws.app([{"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": "a.tf", "content": "# a\n"}}]}])
    async with app.run_test(size=(100, 30)) as pilot:
        session_id = await ready(pilot)
        await send(pilot, "write it")
        await pending_question(pilot)  # the turn waits (nothing streams while the app closes)
    assert not app.screen_stack and app.turns.busy  # closed in the middle of the turn
    await app.on_turn_ended(messages.TurnEnded(session_id, "end_turn", None))
    assert not app.turns.busy


async def test_what_reaches_the_conversation_while_the_app_closes_is_not_drawn(ws):
    """Updates already queued for the conversation are still handled while the app closes (quit
    just after sending, before the answer's first chunk): they are dropped, and nothing raises
    (a new block no longer mounts then, and writing to it raised MountError)."""
    app = ws.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        session_id = await ready(pilot)
        conversation = app.query_one(Conversation)
        app.exit()  # closing from here on: widgets mount nothing more
        await conversation.on_message_chunk(messages.MessageChunk(session_id, "late"))
        await conversation.on_thought_chunk(messages.ThoughtChunk(session_id, "late"))
        await conversation.on_notice(messages.Notice("late"))
        await conversation.on_turn_ended(messages.TurnEnded(session_id, "max_tokens", None))


def notes(app) -> list[str]:
    return [n.text for n in app.query("Note")]


async def test_a_prompt_to_a_dead_agent_restarts_it_and_the_session_goes_on(ws):
    turns = [
        {"match": "hello", "blocks": [{"type": "text", "text": "Hi."}]},
        {"match": "again", "blocks": [{"type": "text", "text": "Back again."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(100, 30)) as pilot:
        session_id = await ready(pilot)
        await send(pilot, "hello")
        await turn_done(pilot)
        app.agents.connection.process.kill()
        await wait_until(pilot, lambda: app.query(AgentError), what="the error")
        app.prompt_box.set_draft("again please")
        await pilot.press("enter")  # no ctrl+r: the prompt restarts the agent
        await wait_until(pilot, lambda: app.query(AgentMessage).last().source == "Back again.", what="the answer after the restart")
        assert app.state.session_id == session_id
        said = notes(app)
        assert "The agent had stopped: restarting it to send your prompt." in said
        assert any("Agent restarted" in n for n in said)
        assert [u.text for u in app.query(UserMessage)] == ["hello", "again please"]


async def test_a_foreign_agent_that_died_is_restarted_and_its_session_loaded(ws):
    app = ws.app(None, agent=AgentCommand((sys.executable, str(AGENT))))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.state.session_id == "foreign-1" and app.agents.state == "ready", what="the session")
        await send(pilot, "die")
        await wait_until(pilot, lambda: app.query(AgentError), what="the error")
        app.prompt_box.set_draft("cost")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.query(AgentMessage) and app.query(AgentMessage).last().source == "that cost something", what="the answer")
        assert "Agent restarted; the session was reloaded." in notes(app)
        assert [u.text for u in app.query(UserMessage)] == ["(replayed by the foreign agent)", "cost"]
