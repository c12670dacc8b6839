"""Sessions against the real agent: resume/continue with replay, the picker (load, fork, new), settings."""

from __future__ import annotations

from harness import serve_agent
from iac_tui.screens.session_picker import SessionPicker
from iac_tui.screens.settings import SettingPicker
from iac_tui.widgets.message import AgentMessage, UserMessage
from iac_tui.widgets.note import Note
from iac_tui.widgets.tool_call import ToolCallPanel
from tui_support import ready, send, turn_done, wait_until

FIRST = [
    {"match": "first", "blocks": [{"type": "text", "text": "Answer one."}]},
    {"match": "second", "blocks": [{"type": "text", "text": "Answer two."}]},
    {"match": "third", "blocks": [{"type": "text", "text": "Answer three."}]},
]


async def make_session(ws, prompt: str, turns=FIRST) -> str:
    """Run one prompt in a session of this project, made by the agent served in this process
    (what the app then lists, loads or forks is the agent's store, whoever wrote it); returns
    the session id. A session whose prompt the app must build is made by `make_session_in_app`."""
    async with serve_agent(ws.project, script=turns, env={"IAC_CODE_CONFIG_DIR": str(ws.config)}) as agent:
        session_id = await agent.new_session()
        await agent.prompt(session_id, prompt)
    return session_id


async def make_session_in_app(ws, prompt: str, turns=FIRST) -> str:
    """Run one prompt in a fresh app; returns the session id."""
    app = ws.app(turns)
    async with app.run_test(size=(100, 30)) as pilot:
        session_id = await ready(pilot)
        await send(pilot, prompt)
        await turn_done(pilot)
    return session_id


def conversation_texts(app) -> list[tuple[str, str]]:
    out = []
    for block in app.conversation.blocks:
        if isinstance(block, UserMessage):
            out.append(("user", block.text))
        elif isinstance(block, AgentMessage):
            out.append(("agent", block.source))
    return out


async def test_resume_replays_the_session(ws):
    ws.write("main.tf", "# empty\n")
    turns = [
        {"match": "first", "blocks": [{"type": "text", "text": "Reading."}, {"type": "tool_use", "name": "read_file", "input": {"path": "main.tf"}}]},
        {"blocks": [{"type": "text", "text": "It is empty."}]},
    ]
    session_id = await make_session(ws, "first question", turns)
    app = ws.app(FIRST, resume=session_id)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await ready(pilot) == session_id
        await wait_until(pilot, lambda: conversation_texts(app)[-1:] == [("agent", "It is empty.")], what="the replay")
        assert conversation_texts(app) == [("user", "first question"), ("agent", "Reading."), ("agent", "It is empty.")]
        panel = app.query_one(ToolCallPanel)
        assert panel.status == "completed" and panel.title == "Read main.tf"
        assert app.state.title == "first question"
        # the loaded session goes on
        await send(pilot, "second question")
        await turn_done(pilot)
        assert conversation_texts(app)[-1] == ("agent", "Answer two.")


async def test_continue_loads_the_most_recent_session(ws):
    await make_session(ws, "first question")
    newest = await make_session(ws, "second question")
    app = ws.app([], continue_last=True)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await ready(pilot) == newest
        await wait_until(pilot, lambda: ("user", "second question") in conversation_texts(app), what="the replay")
        assert ("user", "first question") not in conversation_texts(app)


async def test_continue_without_sessions_starts_a_new_one(ws):
    app = ws.app([], continue_last=True)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await ready(pilot)
        await wait_until(pilot, lambda: app.query("Note"), what="the note")
        notes = [n.text for n in app.query("Note")]
        assert any("No earlier session" in n for n in notes)


async def test_picker_lists_newest_first_and_loads(ws):
    older = await make_session(ws, "first question")
    newer = await make_session(ws, "second question")
    app = ws.app(FIRST)
    async with app.run_test(size=(100, 30)) as pilot:
        current = await ready(pilot)
        await pilot.press("ctrl+s")
        picker = await wait_until(pilot, lambda: app.screen if isinstance(app.screen, SessionPicker) else None, what="the picker")
        ids = [s.session_id for s in picker.sessions]
        assert ids == [current, newer, older]  # newest first; the app's own new session is the newest
        index = ids.index(older)
        for _ in range(index):
            await pilot.press("down")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.state.session_id == older, what="the load")
        await wait_until(pilot, lambda: ("agent", "Answer one.") in conversation_texts(app), what="the replay")
        assert ("user", "second question") not in conversation_texts(app)


async def test_picker_forks_a_session(ws):
    original = await make_session(ws, "first question")
    app = ws.app(FIRST, resume=original)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: ("agent", "Answer one.") in conversation_texts(app), what="the replay")
        await pilot.press("ctrl+s")
        picker = await wait_until(pilot, lambda: app.screen if isinstance(app.screen, SessionPicker) else None, what="the picker")
        index = [s.session_id for s in picker.sessions].index(original)
        for _ in range(index):
            await pilot.press("down")
        await pilot.press("f")
        await wait_until(pilot, lambda: app.state.session_id not in (None, original), what="the fork")
        await wait_until(pilot, lambda: ("agent", "Answer one.") in conversation_texts(app), what="the fork's replay")
        assert any("Forked" in n.text for n in app.query("Note"))
        await send(pilot, "second question")
        await turn_done(pilot)
        assert ("agent", "Answer two.") in conversation_texts(app)
    assert (ws.sessions_dir() / f"{original}.json").exists()


async def test_ctrl_n_starts_a_new_session(ws):
    app = ws.app(FIRST)
    async with app.run_test(size=(100, 30)) as pilot:
        first = await ready(pilot)
        await send(pilot, "first question")
        await turn_done(pilot)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.state.session_id not in (None, first), what="a new session")
        await wait_until(pilot, lambda: not conversation_texts(app), what="an empty conversation")


async def test_mode_picker_switches_mode(ws):
    app = ws.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("f3")
        picker = await wait_until(pilot, lambda: app.screen if isinstance(app.screen, SettingPicker) else None, what="the picker")
        values = [c.value for c in picker.setting.choices]
        assert values == ["default", "accept_edits", "sandboxed_commands", "plan", "bypass_permissions"]
        said = {c.value: c.description for c in picker.setting.choices}["sandboxed_commands"]
        assert said == "Edit files inside the project and run sandboxed commands without asking; commands that leave the sandbox still ask"
        await pilot.press("down", "down", "enter")  # default -> accept_edits -> sandboxed_commands
        await wait_until(pilot, lambda: app.state.setting("mode").current == "sandboxed_commands", what="the mode change")
        await wait_until(pilot, lambda: str(app.query_one("#status-mode").render()) == "Sandboxed commands", what="the status bar")


async def test_model_and_mode_flags_are_applied(ws):
    app = ws.app([], model="scripted", mode="accept_edits")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: app.state.setting("mode").current == "accept_edits", what="the mode")
        assert app.state.setting("model").current == "scripted"


async def test_unknown_mode_flag_is_reported(ws):
    app = ws.app([], mode="yolo")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: any("Unknown mode" in n.text for n in app.query("Note")), what="the warning")
        assert app.state.setting("mode").current == "default"


async def test_replayed_attachment_shows_as_attachment(ws):
    ws.write("main.tf", 'resource "null_resource" "x" {}\n')
    session_id = await make_session_in_app(ws, "look at @main.tf", [{"blocks": [{"type": "text", "text": "Seen."}]}])
    app = ws.app([], resume=session_id)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: ("agent", "Seen.") in conversation_texts(app), what="the replay")
        user = app.query_one(UserMessage)
        assert user.text == "look at @main.tf"
        assert "main.tf" in str(user.query_one(".attachments").render())


async def test_a_note_about_the_flags_comes_after_the_replay(ws):
    turns = [{"blocks": [{"type": "text", "text": f"Answer {i}: " + "word " * 100}]} for i in range(20)]
    async with serve_agent(ws.project, script=turns, env={"IAC_CODE_CONFIG_DIR": str(ws.config)}) as agent:
        session_id = await agent.new_session()
        for i in range(20):
            await agent.prompt(session_id, f"question {i}")
    app = ws.app([], resume=session_id, mode="yolo")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        warning = await wait_until(
            pilot, lambda: next((n for n in app.query(Note) if "Unknown mode" in n.text), None), what="the warning"
        )
        await wait_until(pilot, lambda: len(conversation_texts(app)) == 40, what="the replay")
        blocks = app.conversation.blocks
        assert blocks.index(warning) > blocks.index(app.query(AgentMessage).last())
