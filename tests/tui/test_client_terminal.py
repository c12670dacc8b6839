"""iac-tui as the client of a foreign agent that relies on client files and terminals."""

from __future__ import annotations


from iac_tui.widgets.message import AgentMessage
from iac_tui.widgets.tool_output import ToolOutput
from textual.widgets import Static
from foreign_agent import ForeignAgent
from tui_support import send, turn_done, wait_until



def shown_output(app) -> str:
    """The plain text the tool panel shows (ANSI decoded) of its terminal."""
    return "\n".join(str(o.query_one(".output-text", Static).render()) for o in app.query(ToolOutput))


async def test_foreign_agent_runs_in_a_live_client_terminal_and_uses_client_files(ws):
    ws.write("notes.txt", "first\nsecond line\nthird\n")
    app = ws.app(None, served=ForeignAgent)  # in the app's process: the terminal is the client's either way
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.state.session_id == "foreign-1" and app.agents.state == "ready", what="the session")
        await send(pilot, "check it")
        # live: the first lines show while the command still waits
        await wait_until(pilot, lambda: "step 1" in shown_output(app), what="live terminal output")
        shown = shown_output(app)
        assert "red alert" in shown and "\x1b" not in shown and "step 2" not in shown
        (ws.project / "go").touch()
        await turn_done(pilot)
        shown = shown_output(app)
        assert "step 2" in shown
        status = "\n".join(str(o.query_one(".output-status", Static).render()) for o in app.query(ToolOutput))
        assert "✘ exit status 4" in status  # how the client terminal ended, shown once under its output
        assert "exit status" not in shown
        answer = app.query(AgentMessage).last().source
        assert "read 'second line'; exit 4; saw step 2: True" in answer
    assert (ws.project / "out.txt").read_text() == "written by the client\n"
