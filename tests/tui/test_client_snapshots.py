"""Snapshots of the client's own states: a prompt queued during a turn, an agent restarted by a prompt.

SVGs in `<repo>/snapshots/test_client_snapshots/`. Deterministic as in test_snapshots.py: fixed
sizes, no animations, a fixed project label, the token figures and the stderr log path pinned.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_support import ready, send, turn_done, wait_until

from iac_tui.widgets.agent_error import AgentError
from iac_tui.widgets.message import AgentMessage

LABEL = "~/work/infra"
LOG = Path("/tmp/iac-tui-snapshots/agent-stderr-c.log")  # shown in the restarted state: a fixed path
PINNED = {"usage_labels": ("ctx 5.2k/200k 2%", "↑10.4k ↓212"), "log_file": LOG, "cwd_label": LABEL}
WAIT = "while [ ! -e go ]; do sleep 0.05; done"


@pytest.fixture(autouse=True)
def _fresh_log():
    LOG.parent.mkdir(exist_ok=True)
    LOG.unlink(missing_ok=True)


def test_queued_prompt(snap_compare, ws):
    turns = [{"match": "format", "blocks": [{"type": "text", "text": "Formatting first."}, {"type": "tool_use", "name": "bash", "input": {"command": WAIT}}]}]

    async def run(pilot):
        app = pilot.app
        await ready(pilot)
        await send(pilot, "format the module")
        await wait_until(pilot, lambda: app.query("ToolCallPanel"), what="the command")
        app.prompt_box.set_draft("then add a DynamoDB lock table to the backend")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.turns.queued, what="the queue")
        await pilot.pause()

    app = ws.app(turns, env={"IAC_CODE_PERMISSION_MODE": "bypass_permissions"}, **PINNED)
    assert snap_compare(app, terminal_size=(100, 30), run_before=run)


@pytest.mark.spawned_agent  # the agent process is killed
def test_agent_restarted_by_a_prompt(snap_compare, ws):
    turns = [
        {"match": "hello", "blocks": [{"type": "text", "text": "Hello. What should we build?"}]},
        {"match": "bucket", "blocks": [{"type": "text", "text": "Back: the session went on. Adding the bucket."}]},
    ]

    async def run(pilot):
        app = pilot.app
        await ready(pilot)
        await send(pilot, "hello")
        await turn_done(pilot)
        app.agents.connection.process.kill()
        await wait_until(pilot, lambda: app.query(AgentError), what="the error")
        app.prompt_box.set_draft("add a logs bucket")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.query(AgentMessage).last().source.startswith("Back"), what="the answer")
        await turn_done(pilot)
        await pilot.pause()

    app = ws.app(turns, **PINNED)
    assert snap_compare(app, terminal_size=(100, 30), run_before=run)
