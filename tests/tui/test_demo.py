"""`iac-code demo` in the terminal app: the scripted task on a copy of the example project, approved by keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from iac_code.demo import DEMO_PROMPT, prepare, verify
from iac_tui.app import IacTui
from iac_tui.widgets.badge import FollowBadge
from iac_tui.widgets.message import AgentMessage
from iac_tui.widgets.permission import PermissionQuestion
from iac_tui.widgets.plan import PlanView
from tui_support import assert_question_in_view, ready, turn_done, wait_until


def demo_app(base: Path, monkeypatch) -> tuple[IacTui, Path]:
    project, env = prepare(base)
    monkeypatch.setenv("PATH", env.pop("PATH"))  # the project's checks run this interpreter's python3
    app = IacTui(project, env=env, animations=False, log_dir=base / "logs", history_file=None, initial_prompt=DEMO_PROMPT)
    return app, project


@pytest.mark.timeout(300)  # a hang guard: the whole demo took ~100 s at load 7 (default 120 s)
async def test_demo_plays_in_the_app_with_every_edit_approved(tmp_path, monkeypatch):
    app, project = demo_app(tmp_path, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.prompt_box.text == DEMO_PROMPT
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.turns.busy, what="the turn to start")
        question = app.query_one(PermissionQuestion)
        approvals = 0
        while True:
            prompt = await wait_until(
                pilot,
                lambda: (question.current is not None and not question.current.request.reply.done and question.current.request)
                or (not app.turns.busy and "done"),
                timeout=60,
                what="a permission prompt or the end of the turn",
            )
            if prompt == "done":
                break
            await wait_until(pilot, lambda: app.focused is question, what="the question to take the keys")
            await pilot.pause(0.2)
            assert_question_in_view(app, question)  # at 80x24: tests/tui/test_follow.py
            await pilot.press("a")
            await wait_until(pilot, lambda: prompt.reply.done, what="the answer to be sent")
            approvals += 1
        await turn_done(pilot)
        assert approvals == 8  # seven edits and the validation command
        plan = app.query_one(PlanView)
        assert all(e.status == "completed" for e in plan.entries)
    assert verify(project) == []


async def test_rejecting_an_edit_leaves_that_file_alone(tmp_path, monkeypatch):
    app, project = demo_app(tmp_path, monkeypatch)
    before = (project / "terraform" / "variables.tf").read_text()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("enter")
        question = app.query_one(PermissionQuestion)
        await wait_until(pilot, lambda: question.current is not None and app.focused is question, timeout=60, what="the question")
        await pilot.pause(0.2)
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
