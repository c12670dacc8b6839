"""Permission questions from foreign agents: the default option by kind, the key hint, letters without options."""

from __future__ import annotations


from iac_tui.answer_keys import LETTER_GRACE
from iac_tui.widgets.message import AgentMessage
from foreign_agent import ForeignAgent
from tui_support import pending_question, ready, send, turn_done, wait_until



def foreign(ws, **kw):
    """An app driving `foreign_agent.py`'s agent, served in the app's process."""
    return ws.app(None, served=ForeignAgent, **kw)


async def foreign_ready(pilot) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: app.state.session_id == "foreign-1" and app.agents.state == "ready", what="the session")


def answer(app) -> str:
    return app.query(AgentMessage).last().source


def hint(question) -> str:
    return str(question.query_one(".question-hint").render())


async def test_enter_picks_allow_once_when_always_allow_comes_first(ws):
    """claude-agent-acp lists "Always Allow" first: the highlight starts on "Allow", and a bare enter sends it."""
    app = foreign(ws)
    async with app.run_test(size=(100, 30)) as pilot:
        await foreign_ready(pilot)
        await send(pilot, "ask")
        question = await pending_question(pilot)
        assert [o.kind for o in question.options] == ["allow_always", "allow_once", "reject_once", "reject_always"]
        assert question.options[question.highlighted].kind == "allow_once"
        await pilot.press("enter")
        await turn_done(pilot)
        assert answer(app) == "chose allow"


async def test_the_hint_names_the_offered_keys_and_a_missing_one_is_ignored(ws):
    """OpenCode offers no "reject always": the hint reads a/A/r, and `R` neither types nor turns the letters off."""
    app = foreign(ws)
    async with app.run_test(size=(100, 30)) as pilot:
        await foreign_ready(pilot)
        await send(pilot, "ask-opencode")
        question = await pending_question(pilot)
        assert "a/A/r, or ↑↓ and enter" in hint(question) and "R" not in hint(question).split("·")[0]
        await pilot.press("R")
        await pilot.pause(LETTER_GRACE + 0.2)  # a timed window on purpose: a held letter answers once the grace is over; past it, nothing was
        assert question.current is not None and not question.current.request.reply.done
        assert question.letters and question.options[question.highlighted].kind == "allow_once"
        assert app.prompt_box.text == ""
        await pilot.press("r")
        await turn_done(pilot)
        assert answer(app) == "chose reject"


async def test_our_agent_highlights_allow_once_and_offers_all_four_keys(ws):
    turns = [
        {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": "a.tf", "content": "# a\n"}}]},
        {"blocks": [{"type": "text", "text": "Written."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "write it")
        question = await pending_question(pilot)
        assert question.options[question.highlighted].kind == "allow_once"
        assert "a/A/r/R, or ↑↓ and enter" in hint(question)
        await pilot.press("enter")
        await turn_done(pilot)
        assert (ws.project / "a.tf").exists()


async def test_the_reviewer_ignores_a_letter_without_its_option(ws):
    from iac_tui.screens.diff_review import DiffReview

    app = foreign(ws)
    async with app.run_test(size=(100, 30)) as pilot:
        await foreign_ready(pilot)
        await send(pilot, "ask-opencode")
        await pending_question(pilot)
        await pilot.press("ctrl+d")
        await wait_until(pilot, lambda: isinstance(app.screen, DiffReview), what="the reviewer")
        review = app.screen
        await pilot.press("R")
        await pilot.pause(LETTER_GRACE + 0.2)  # a timed window on purpose, as above: past the grace, nothing was answered
        assert app.screen is review and review.letters
        await pilot.press("a")
        await turn_done(pilot)
        assert answer(app) == "chose once"


async def test_a_permission_request_after_its_turn_ended_is_answered_cancelled(ws):
    """The agent ends the turn, then asks (seen with claude-agent-acp): no question shows, the
    request is answered `cancelled`, and the panel says so instead of staying "pending"."""
    from iac_tui.widgets.permission import PermissionQuestion
    from iac_tui.widgets.tool_call import ToolCallPanel

    app = foreign(ws)
    bells = []
    app.bell = lambda: bells.append(1)
    async with app.run_test(size=(100, 30)) as pilot:
        await foreign_ready(pilot)
        await send(pilot, "late")
        await turn_done(pilot)
        (ws.project / "late-go").touch()  # now the agent asks (once the app has seen the turn end, not 0.3 s after it sent it)
        answer_file = ws.project / "late-answer.txt"
        await wait_until(pilot, answer_file.exists, what="the agent to get its answer")
        assert answer_file.read_text() == "cancelled"
        panel = app.query_one(ToolCallPanel)
        assert panel.status == "asked_late" and not panel.awaiting_permission and panel.finished
        assert "asked after its turn ended: cancelled" in str(panel.query_one(".tool-status").render())
        assert app.query_one(PermissionQuestion).current is None and not app.prompt_box.disabled
        assert not bells
