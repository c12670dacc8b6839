"""Prompts typed during a turn: queued, shown, editable, removable, sent when the turn ends; typing is never lost."""

from __future__ import annotations

import sys
from pathlib import Path

from iac_tui.launch import AgentCommand
from iac_tui.widgets.message import AgentMessage, UserMessage
from iac_tui.widgets.queued import QueuedPrompts
from tui_support import pending_question, ready, send, turn_done, wait_until

WAIT = "while [ ! -e go ]; do sleep 0.05; done; echo released"


def slow_then(*answers: str) -> list[dict]:
    """A first turn (prompt `first`) that runs until the file `go` exists, then turns answering
    `answers` by their first word."""
    turns = [
        {"match": "first", "blocks": [{"type": "tool_use", "name": "bash", "input": {"command": WAIT}}]},
        {"match": "released", "blocks": [{"type": "text", "text": "The first turn is done."}]},
    ]
    return turns + [{"match": a.split()[0], "blocks": [{"type": "text", "text": f"answer to {a}"}]} for a in answers]


def app_of(ws, turns):
    """The app on our agent, commands run without asking (the turn waits in its command)."""
    return ws.app(turns, env={"IAC_CODE_PERMISSION_MODE": "bypass_permissions"})


def release(ws) -> None:
    """Let the first turn's command finish."""
    (ws.project / "go").touch()


def sent(app) -> list[str]:
    return [u.text for u in app.query(UserMessage)]


def queued_text(app) -> str:
    widget = app.query_one(QueuedPrompts)
    return str(widget.render()) if widget.display else ""


async def type_and_enter(pilot, text: str) -> None:
    app = pilot.app
    app.prompt_box.set_draft(text)
    await pilot.press("enter")
    await pilot.pause()


async def test_a_prompt_sent_during_a_turn_is_queued_and_sent_when_it_ends(ws):
    app = app_of(ws, slow_then("second please"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "first")
        await type_and_enter(pilot, "second please")
        assert app.turns.busy and app.turns.queued == ["second please"]
        assert "» queued  second please" in queued_text(app)
        assert app.prompt_box.text == ""
        assert sent(app) == ["first"]  # not sent yet
        release(ws)
        await wait_until(pilot, lambda: sent(app) == ["first", "second please"], what="the queued prompt to be sent")
        await turn_done(pilot)
        assert app.query(AgentMessage).last().source == "answer to second please"
        assert app.turns.queued == [] and not app.query_one(QueuedPrompts).display


async def test_a_queued_prompt_can_be_edited_and_removed(ws):
    app = app_of(ws, slow_then("third one", "fixed typo"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "first")
        await type_and_enter(pilot, "secnd typo")
        await type_and_enter(pilot, "third one")
        assert app.turns.queued == ["secnd typo", "third one"]
        await pilot.press("ctrl+x")  # drops the newest
        assert app.turns.queued == ["secnd typo"]
        await pilot.press("up")  # the empty box takes the last queued prompt back, to edit
        assert app.prompt_box.text == "secnd typo" and app.prompt_box.cursor_location == (0, 10) and app.turns.queued == []
        app.prompt_box.set_draft("fixed typo")
        await pilot.press("enter")
        assert app.turns.queued == ["fixed typo"]
        release(ws)
        await wait_until(pilot, lambda: sent(app) == ["first", "fixed typo"], what="the edited prompt")
        await turn_done(pilot)


async def test_esc_cancels_the_turn_first_and_the_queued_prompt_comes_back_to_the_box(ws):
    """Then backspace edits it at once: the lost backspaces were a draft put back into the box
    with its cursor at the start, where backspace deletes nothing."""
    app = app_of(ws, slow_then("next"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "first")
        await type_and_enter(pilot, "next thing")
        await pilot.press("escape")
        await turn_done(pilot)
        assert sent(app) == ["first"]  # nothing sent after a cancel
        assert app.turns.queued == [] and app.prompt_box.text == "next thing"
        assert app.prompt_box.cursor_location == (0, 10)  # at the end
        await pilot.press(*["backspace"] * 6)  # right after the turn ended
        assert app.prompt_box.text == "next"


async def test_keys_typed_while_a_question_waits_edit_the_draft(ws):
    """Backspace (and ctrl+w, alt+backspace, ctrl+u) pressed while the question owns the keys (or in the moment it
    closes) edits the draft."""
    turns = [
        {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": "a.tf", "content": "# a\n"}}]},
        {"blocks": [{"type": "text", "text": "Written."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "write it")
        app.prompt_box.set_draft("draft: xyz")
        question = await pending_question(pilot)
        await pilot.press("backspace", "backspace", "w")
        assert app.prompt_box.text == "draft: xw"
        await pilot.press(*" more words", "ctrl+w")  # the editing keys TextArea binds, too
        assert app.prompt_box.text == "draft: xw more "
        await pilot.press(*"ords", "alt+backspace")
        assert app.prompt_box.text == "draft: xw more "
        await pilot.press("ctrl+u", *"draft: xw")
        assert app.prompt_box.text == "draft: xw"
        await pilot.press("escape", *["backspace"] * 4)  # the question closes as these arrive
        await turn_done(pilot)
        assert app.prompt_box.text == "draft"
        assert question.current is None


async def test_a_prompt_typed_while_the_agent_starts_is_sent_once_the_session_opens(ws):
    app = ws.app([{"blocks": [{"type": "text", "text": "Hello there."}]}])
    async with app.run_test(size=(100, 30)) as pilot:
        app.prompt_box.set_draft("hello")
        await pilot.press("enter")  # before the agent answered anything
        await wait_until(pilot, lambda: sent(app) == ["hello"], what="the prompt to be sent")
        await turn_done(pilot)
        assert app.query(AgentMessage).last().source == "Hello there."


AGENT = Path(__file__).with_name("foreign_agent.py")


async def test_a_prompt_queued_behind_a_foreign_agents_turn_is_sent_after_it(ws):
    (ws.project / "notes.txt").write_text("one\ntwo\n")
    app = ws.app(None, agent=AgentCommand((sys.executable, str(AGENT))))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.state.session_id == "foreign-1" and app.agents.state == "ready", what="the session")
        await send(pilot, "check it")  # waits for the file `go` before it ends
        await type_and_enter(pilot, "cost")
        assert app.turns.queued == ["cost"]
        (ws.project / "go").touch()
        await wait_until(pilot, lambda: sent(app) == ["check it", "cost"], what="the queued prompt")
        await turn_done(pilot)
        assert app.query(AgentMessage).last().source == "that cost something"
