"""Permission prompts against the real agent: keys by kind, arrows and enter, cancel, the file on disk."""

from __future__ import annotations

from iac_tui.widgets.note import Note
from iac_tui.widgets.permission import PermissionPrompt
from iac_tui.widgets.tool_call import ToolCallPanel
from tui_support import ready, send, turn_done, wait_until


def write_turns(path="notes.tf", content='locals { owner = "ops" }\n', after="Wrote it."):
    return [
        {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": path, "content": content}}]},
        {"blocks": [{"type": "text", "text": after}]},
    ]


async def pending_prompt(pilot) -> PermissionPrompt:
    """The pending permission prompt, once it has the keyboard focus (keys pressed before that go elsewhere)."""
    app = pilot.app
    prompt = await wait_until(
        pilot, lambda: next((p for p in app.query(PermissionPrompt) if not p.reply.done), None), what="a permission prompt"
    )
    await wait_until(pilot, lambda: app.focused is prompt, what="the prompt to take the keys")
    return prompt


async def test_allow_once_writes_the_file(ws):
    app = ws.app(write_turns())
    bells = []
    app.bell = lambda: bells.append(1)  # the terminal bell rings on a request
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write notes")
        prompt = await pending_prompt(pilot)
        assert app.focused is prompt
        assert bells
        panel = app.query_one(ToolCallPanel)
        assert panel.awaiting_permission and panel.kind == "edit"
        assert [o.option_id for o in prompt.options] == ["allow_once", "allow_always", "reject_once", "reject_always"]
        assert not (ws.project / "notes.tf").exists()
        await pilot.press("a")
        await turn_done(pilot)
        assert (ws.project / "notes.tf").read_text() == 'locals { owner = "ops" }\n'
        assert panel.status == "completed" and not panel.awaiting_permission
        assert not app.query(PermissionPrompt)
        assert app.focused is app.prompt


async def test_reject_once_leaves_the_disk_alone(ws):
    app = ws.app(write_turns(after="Understood, not writing."))
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write notes")
        await pending_prompt(pilot)
        await pilot.press("r")
        await turn_done(pilot)
        assert not (ws.project / "notes.tf").exists()
        panel = app.query_one(ToolCallPanel)
        assert panel.status == "failed"
        assert "Permission denied" in str(panel.raw_output)


async def test_arrows_and_enter_choose_by_option(ws):
    app = ws.app(write_turns())
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write notes")
        prompt = await pending_prompt(pilot)
        await pilot.press("down", "down")  # allow_once -> allow_always -> reject_once
        assert prompt.options[prompt.highlighted].option_id == "reject_once"
        await pilot.press("enter")
        await turn_done(pilot)
        assert not (ws.project / "notes.tf").exists()


async def test_allow_always_is_not_asked_again(ws):
    turns = [
        {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": "a.tf", "content": "# a\n"}}]},
        {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": "b.tf", "content": "# b\n"}}]},
        {"blocks": [{"type": "text", "text": "Both written."}]},
    ]
    app = ws.app(turns)
    asked = []
    async with app.run_test(size=(100, 40), message_hook=lambda m: asked.append(m) if type(m).__name__ == "PermissionRequested" else None) as pilot:
        await ready(pilot)
        await send(pilot, "write both")
        await pending_prompt(pilot)
        await pilot.press("A")
        await turn_done(pilot)
        assert (ws.project / "a.tf").exists() and (ws.project / "b.tf").exists()
        assert len(asked) == 1


async def test_reject_always_reject_followups_without_asking(ws):
    turns = [
        {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": "a.tf", "content": "# a\n"}}]},
        {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": "b.tf", "content": "# b\n"}}]},
        {"blocks": [{"type": "text", "text": "Neither written."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write both")
        await pending_prompt(pilot)
        await pilot.press("R")
        await turn_done(pilot)
        assert not (ws.project / "a.tf").exists() and not (ws.project / "b.tf").exists()
        assert [p.status for p in app.query(ToolCallPanel)] == ["failed", "failed"]


async def test_edit_permission_shows_the_diff(ws):
    ws.write("main.tf", 'variable "region" {\n  default = "us-east-1"\n}\n')
    turns = [
        {"blocks": [{"type": "tool_use", "name": "edit_file", "input": {"path": "main.tf", "old_string": "us-east-1", "new_string": "eu-west-1"}}]},
        {"blocks": [{"type": "text", "text": "Edited."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "move region")
        await pending_prompt(pilot)
        panel = app.query_one(ToolCallPanel)
        diffs = list(panel.query("EditDiff"))
        assert len(diffs) == 1
        assert diffs[0].path == "main.tf"
        assert "us-east-1" in diffs[0].old_text and "eu-west-1" in diffs[0].new_text
        await pilot.press("a")
        await turn_done(pilot)
        assert "eu-west-1" in (ws.project / "main.tf").read_text()
        assert list(panel.query("EditDiff")) == diffs  # the same diff widget, not rebuilt


async def test_escape_cancels_a_pending_permission(ws):
    app = ws.app(write_turns())
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write notes")
        prompt = await pending_prompt(pilot)
        await pilot.press("escape")
        await turn_done(pilot)
        assert prompt.reply.done and prompt.reply.future.result() is None  # answered `cancelled`
        assert not (ws.project / "notes.tf").exists()
        assert any(n.text == "Cancelled." for n in app.query(Note))
        assert app.query_one(ToolCallPanel).status == "failed"
        assert not app.query(PermissionPrompt)
