"""`iac-code demo` in the terminal app: the scripted task on a copy of the example project, approved by keys.

One run plays the whole demo with every edit approved, each question checked in view; the two
rejection runs stop early. The agent is served in the app's process
(`tui_support.ServedAppConnection`): these tests promise the demo's task and what the app shows
of it, not the agent's process (`iac-code demo` spawns it as iac-tui does; tests/tui/
test_agent_process.py and test_signals.py cover that process).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from iac_code.demo import DEMO_PROMPT, prepare, verify
from iac_tui.app import IacTui
from iac_tui.widgets.badge import FollowBadge
from iac_tui.widgets.message import AgentMessage
from iac_tui.widgets.permission import PermissionQuestion
from iac_tui.widgets.plan import PlanView
from tui_support import ServedAppConnection, assert_question_in_view, pending_question, ready, turn_done, wait_until


def demo_app(base: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[IacTui, Path]:
    """The app on a fresh copy of the demo project, its agent served in the app's process with
    the environment `iac-code demo` gives it, the scripted answers streamed without pauses."""
    project, env = prepare(base)
    monkeypatch.setenv("PATH", env.pop("PATH"))  # the project's checks run this interpreter's python3
    env["IAC_CODE_SCRIPT_CHUNK_DELAY_MS"] = "0"  # the script's pauses are for people watching the demo
    # an answer letter waits LETTER_GRACE (0.5 s) for a next key that would make it a word: these
    # runs type nothing after a letter (the grace is tests/tui/test_permissions.py's subject)
    monkeypatch.setattr("iac_tui.widgets.permission.LETTER_GRACE", 0.05)
    app = IacTui(
        project,
        env=env,
        animations=False,
        log_dir=base / "logs",
        history_file=None,
        initial_prompt=DEMO_PROMPT,
        connection_factory=lambda client: ServedAppConnection(client, project, env),
    )
    return app, project


# Every question is checked in view as it arrives at 80x24, the smallest terminal (a resize
# re-lays out every block: ~1 s of CPU each, so the demo is not replayed at each size). At 120x40:
# the first two edits as they arrive (the run that rejects a later edit), the validation command
# after a resize here. The end after a rejection (80x24) is checked by the run that rejects the
# first edit. `A` first (allow always) asks a subset of these questions and ends as the `a` run does.
@pytest.mark.timeout(300)  # a hang guard: the whole demo took ~100 s at load 7 (default 120 s)
async def test_demo_plays_in_the_app_with_every_edit_approved_and_every_question_in_view(tmp_path, monkeypatch):
    app, project = demo_app(tmp_path, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        assert app.prompt_box.text == DEMO_PROMPT
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.turns.busy, what="the turn to start")
        question = app.query_one(PermissionQuestion)
        approvals = 0
        while True:
            found = await wait_until(
                pilot,
                lambda: (question.current is not None and "question") or (not app.turns.busy and "done"),
                timeout=60,
                what="a question or the end of the turn",
            )
            if found == "done":
                break
            await pending_question(pilot)
            await pilot.pause()
            request = question.current.request
            assert_question_in_view(app, question)  # as it arrives at 80x24
            if request.tool_call.kind == "execute":  # the validation command, the last question
                await pilot.resize_terminal(120, 40)
                await pilot.pause()
                assert_question_in_view(app, question)  # at 120x40, the terminal resized while it waits
            await pilot.press("a")
            await wait_until(pilot, lambda: request.reply.done, what="the answer to be sent")
            approvals += 1
        await turn_done(pilot)
        assert approvals == 8  # seven edits and the validation command
        assert app.size == (120, 40)  # the validation command was checked after the resize
        plan = app.query_one(PlanView)
        assert all(e.status == "completed" for e in plan.entries)
        assert app.conversation.following and not app.query_one(FollowBadge).display
    assert verify(project) == []


async def test_rejecting_an_edit_leaves_that_file_alone(tmp_path, monkeypatch):
    app, project = demo_app(tmp_path, monkeypatch)
    before = (project / "terraform" / "variables.tf").read_text()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("enter")
        question = app.query_one(PermissionQuestion)
        await wait_until(pilot, lambda: question.current is not None and app.focused is question, timeout=60, what="the question")
        await pilot.pause()
        assert_question_in_view(app, question)
        await pilot.press("r")  # the first edit: the third vswitch
        await turn_done(pilot, timeout=60)
        # the scripted agent acknowledges the rejection and stops instead of claiming success
        assert question.current is None
        assert app.conversation.following and not app.query_one(FollowBadge).display
        answer = [b for b in app.conversation.blocks if isinstance(b, AgentMessage)][-1]
        assert "You rejected that change" in answer.source
    assert (project / "terraform" / "variables.tf").read_text() == before


async def test_rejecting_a_later_edit_stops_the_task_there(tmp_path, monkeypatch):
    app, project = demo_app(tmp_path, monkeypatch)
    main_tf = (project / "terraform" / "main.tf").read_text()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("enter")
        question = app.query_one(PermissionQuestion)
        asked = []
        for key in ("a", "r"):  # approve the third vswitch, reject the first edit of main.tf
            request = await wait_until(
                pilot,
                lambda: question.current is not None and app.focused is question and question.current.request,
                timeout=60,
                what="the question",
            )
            asked.append(request.tool_call.title)
            await pilot.pause()
            assert_question_in_view(app, question)  # as it arrives at 120x40
            await pilot.press(key)
            await wait_until(pilot, lambda: request.reply.done, what="the answer to be sent")
        await turn_done(pilot, timeout=60)
        # no further edit was asked: the dependent edit of main.tf never came
        assert question.current is None
        assert asked == ["Edit terraform/variables.tf", "Edit terraform/main.tf"]
        answer = [b for b in app.conversation.blocks if isinstance(b, AgentMessage)][-1]
        assert "You rejected that change" in answer.source
    assert (project / "terraform" / "main.tf").read_text() == main_tf
    assert "app-c" in (project / "terraform" / "variables.tf").read_text()
