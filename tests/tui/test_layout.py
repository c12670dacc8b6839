"""At 80 columns: the footer keeps f1 and drops keys that cannot work; Tab goes to the newest block."""

from __future__ import annotations

from iac_tui.widgets.agent_error import AgentError
from iac_tui.widgets.tool_call import ToolCallPanel
from tui_support import python_agent, ready, send, turn_done, wait_until


def footer_keys(app) -> set[str]:
    """The keys the footer shows (Textual's active bindings that are shown)."""
    return {key for key, active in app.screen.active_bindings.items() if active.binding.show}


async def test_keys_that_cannot_work_leave_the_footer_when_the_agent_stopped(ws):
    app = ws.app([], agent=python_agent("import sys; sys.exit(3)"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.query(AgentError), what="the error")
        await pilot.pause(0.1)
        keys = footer_keys(app)
        assert {"f1", "ctrl+r"} <= keys
        assert not keys & {"f2", "f3", "f4", "ctrl+s", "ctrl+n", "escape"}


async def test_ready_agent_offers_its_keys_and_f1_fits_at_80_columns(ws):
    app = ws.app([])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.pause(0.1)
        keys = footer_keys(app)
        assert {"f1", "ctrl+s", "ctrl+n", "f2", "f3"} <= keys
        f1 = next(k for k in app.query("FooterKey") if k.key == "f1")
        assert f1.region.right <= 80 and f1.region.width > 0  # on screen, not cut


async def test_tab_from_the_prompt_goes_to_the_newest_block(ws):
    ws.write("a.tf", "# a\n")
    turns = [
        {"blocks": [{"type": "tool_use", "name": "read_file", "input": {"path": "a.tf"}}]},
        {"blocks": [{"type": "tool_use", "name": "glob", "input": {"pattern": "*.tf"}}]},
        {"blocks": [{"type": "text", "text": "Done."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "look")
        await turn_done(pilot)
        panels = list(app.query(ToolCallPanel))
        assert len(panels) == 2
        app.prompt_box.focus()
        await pilot.press("tab")
        assert app.focused is panels[-1]
