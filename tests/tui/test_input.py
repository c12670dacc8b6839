"""The prompt against the real agent: cancel, slash and @path completion, attachments, history, help."""

from __future__ import annotations

from iac_tui.screens.help import HelpScreen
from iac_tui.widgets.message import AgentMessage, UserMessage
from iac_tui.widgets.note import Note
from tui_support import ready, send, turn_done, wait_until

LONG = " ".join(f"w{i}" for i in range(2000))


async def test_escape_cancels_a_long_stream_and_the_session_goes_on(ws):
    turns = [
        {"match": "long", "blocks": [{"type": "text", "text": LONG}], "chunk_delay_ms": 5},
        {"match": "short", "blocks": [{"type": "text", "text": "Short answer."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "long story")
        await wait_until(pilot, lambda: app.query(AgentMessage) and len(app.query_one(AgentMessage).source) > 100, what="streaming")
        assert app.check_action("cancel_turn", ()) is True
        await pilot.press("escape")
        await turn_done(pilot)
        streamed = app.query_one(AgentMessage).source
        assert 100 < len(streamed) < len(LONG)
        assert [n.text for n in app.query(Note)] == ["Cancelled."]
        assert app.check_action("cancel_turn", ()) is False
        await send(pilot, "short one")
        await turn_done(pilot)
        assert app.query(AgentMessage).last().source == "Short answer."


async def test_slash_opens_the_agents_commands(ws):
    app = ws.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: app.prompt_box.commands, what="available commands")
        assert {c.name for c in app.prompt_box.commands} >= {"compact", "clear", "help"}
        await pilot.press("/", "c", "o")
        completion = app.prompt_box.completion
        assert completion.open
        assert [i.value for i in completion.items][0] == "/compact "
        await pilot.press("tab")
        assert app.prompt_box.text == "/compact "
        await pilot.pause()
        assert not completion.open


async def test_at_path_attaches_the_file_as_a_resource(ws):
    ws.write("modules/network/main.tf", 'resource "aws_vpc" "main" { cidr_block = "10.9.0.0/16" }\n')
    ws.write("build/output.tf", "# generated\n")
    ws.write(".gitignore", "build/\n")
    turns = [
        {"match": "10.9.0.0/16", "blocks": [{"type": "text", "text": "I can see the VPC file."}]},
        {"blocks": [{"type": "text", "text": "No file attached."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt_box.focus()
        await pilot.press(*"check @", "n", "e", "t", "m")
        completion = app.prompt_box.completion
        await wait_until(pilot, lambda: completion.open, what="path completion")
        values = [i.value for i in completion.items]
        assert values[0] == "@modules/network/main.tf "
        app.prompt_box.load_text("")
        await pilot.press("@", "o", "u", "t")
        await pilot.pause()
        assert "@build/output.tf " not in [i.value for i in completion.items]  # .gitignore'd
        app.prompt_box.load_text("")
        await pilot.press(*"check @netm")
        await wait_until(pilot, lambda: completion.open, what="path completion")
        await pilot.press("tab")
        assert app.prompt_box.text == "check @modules/network/main.tf "
        await pilot.press("enter")
        await turn_done(pilot)
        assert app.query_one(AgentMessage).source == "I can see the VPC file."
        user = app.query_one(UserMessage)
        assert "modules/network/main.tf" in str(user.query_one(".attachments").render())


PNG = bytes.fromhex(  # a 1x1 PNG
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf00000301010018dd8db00000000049454e44ae426082"
)


async def test_an_attached_image_reaches_this_projects_agent_and_comes_back_on_load(ws):
    """iac-code advertises `promptCapabilities.image`: `@diagram.png` goes as an image, the model
    sees it (the scripted model's `[image: <mime>, <N> bytes]`), and a load replays it."""
    (ws.project / "diagram.png").write_bytes(PNG)
    turns = [
        {"match": f"[image: image/png, {len(PNG)} bytes]", "blocks": [{"type": "text", "text": "A diagram of one pixel."}]},
        {"blocks": [{"type": "text", "text": "No image."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(100, 30)) as pilot:
        session_id = await ready(pilot)
        await send(pilot, "what is @diagram.png")
        await turn_done(pilot)
        assert app.query_one(AgentMessage).source == "A diagram of one pixel."
        assert "diagram.png" in str(app.query_one(UserMessage).query_one(".attachments").render())
    app = ws.app(turns, resume=session_id)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: app.query(UserMessage) and app.query(UserMessage).first().query(".attachments"), what="the replayed prompt")
        assert "diagram.png" in str(app.query(UserMessage).first().query_one(".attachments").render())


async def test_history_walks_previous_prompts(ws, tmp_path):
    turns = [{"blocks": [{"type": "text", "text": "one"}]}, {"blocks": [{"type": "text", "text": "two"}]}]
    history = tmp_path / "history.jsonl"
    app = ws.app(turns, history_file=history)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "first prompt")
        await turn_done(pilot)
        await send(pilot, "second prompt\nwith two lines")
        await turn_done(pilot)
        app.prompt_box.focus()
        await pilot.press(*"draft")
        await pilot.press("up")
        assert app.prompt_box.text == "second prompt\nwith two lines"
        app.prompt_box.move_cursor((0, 0))
        await pilot.press("up")
        assert app.prompt_box.text == "first prompt"
        await pilot.press("down")
        assert app.prompt_box.text == "second prompt\nwith two lines"
        app.prompt_box.move_cursor(app.prompt_box.document.end)
        await pilot.press("down")
        assert app.prompt_box.text == "draft"
    again = ws.app([], history_file=history)
    async with again.run_test(size=(100, 30)) as pilot:
        again.prompt_box.focus()
        await pilot.press("up")
        assert again.prompt_box.text == "second prompt\nwith two lines"


async def test_newline_keys_do_not_send(ws):
    app = ws.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt_box.focus()
        await pilot.press("a", "shift+enter", "b", "ctrl+j", "c")
        assert app.prompt_box.text == "a\nb\nc"
        assert not app.turns.busy and not app.query("UserMessage")  # nothing was sent


async def test_f1_opens_help(ws):
    app = ws.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen), what="help to close")
