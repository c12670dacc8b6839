"""iac-tui says so when the agent's commands are not sandboxed (issue 17): the status bar carries
the agent's sentence from its `initialize` answer ("not sandboxed" in a narrow window) and the
agent's first turn says it once in the conversation. With a sandbox, nothing is said. No sandbox
here: the agent is asked for bubblewrap and finds none on its PATH.

SVGs in `<repo>/snapshots/test_sandbox_status/`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.widgets import Static
from tui_support import ready, send, turn_done

from iac_tui.widgets.message import AgentMessage

from iac_code.tools.sandbox import detect

pytestmark = pytest.mark.spawned_agent  # which sandbox works is found once per agent process

LABEL = "~/work/infra"
SAY = [{"blocks": [{"type": "text", "text": "Hello."}]}, {"blocks": [{"type": "text", "text": "Again."}]}]
WARNING = "commands are not sandboxed here: install bubblewrap"
NO_SANDBOX = {"IAC_CODE_SANDBOX": "bwrap", "PATH": str(Path(sys.executable).parent)}


def shown(app, widget_id: str) -> str:
    widget = app.query_one(f"#{widget_id}", Static)
    return str(widget.render()) if widget.display else ""


@pytest.mark.parametrize(("size", "said"), [((150, 40), WARNING), ((120, 40), "not sandboxed: install bubblewrap"),
                                           ((80, 24), "not sandboxed")])
async def test_the_status_bar_says_commands_are_not_sandboxed(ws, size, said):
    app = ws.app(SAY, env=NO_SANDBOX)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        assert shown(app, "status-sandbox") == said
        await send(pilot, "hi")
        await turn_done(pilot)
        await send(pilot, "again")
        await turn_done(pilot)
        text = "\n".join(m.source for m in app.query(AgentMessage))
        assert text.count("Commands are not sandboxed here") == 1


async def test_nothing_is_said_when_commands_are_sandboxed(ws):
    if detect("auto").backend == "none":
        pytest.skip("no sandbox backend works here")
    app = ws.app(SAY[:1])
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        assert shown(app, "status-sandbox") == ""
        assert "sandboxed" not in "\n".join(m.source for m in app.query(AgentMessage))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_not_sandboxed_snapshot(snap_compare, ws, size):
    async def run(pilot):
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)

    app = ws.app(SAY[:1], env=NO_SANDBOX, cwd_label=LABEL)
    assert snap_compare(app, terminal_size=size, run_before=run)
