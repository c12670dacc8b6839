"""Snapshots of the agent's start and failures: starting, junk on stdout, interrupted tool calls.

SVGs in `<repo>/snapshots/test_agent_snapshots/`. The agent's stderr log path is pinned (it
holds a time and a process id).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from scenario_agent import scenario_command
from tui_support import ready, send, turn_done, wait_until

import iac_tui.connection as connection
from iac_tui.launch import AgentCommand
from iac_tui.widgets.agent_error import AgentError

LABEL = "~/work/infra"


LOG = Path("/tmp/iac-tui-snapshots/agent-stderr-b.log")  # shown in the pictures: a fixed path


@pytest.fixture(autouse=True)
def _fresh_log():
    LOG.parent.mkdir(exist_ok=True)
    LOG.unlink(missing_ok=True)


def test_starting_the_agent(snap_compare, ws, monkeypatch):
    monkeypatch.setattr(connection, "INITIALIZE_TIMEOUT", 60.0)

    async def run(pilot):
        await wait_until(pilot, lambda: pilot.app.indicator.running, what="the spinner")
        await pilot.pause()

    app = ws.app([], agent=AgentCommand(("sh", "-c", "sleep 60")), cwd_label=LABEL, log_file=LOG)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run)


def test_junk_on_stdout_then_a_hang(snap_compare, ws, monkeypatch):
    monkeypatch.setattr(connection, "INITIALIZE_TIMEOUT", 1.0)

    async def run(pilot):
        await wait_until(pilot, lambda: pilot.app.query(AgentError), timeout=10, what="the error")
        await pilot.pause()

    app = ws.app([], agent=AgentCommand(("sh", "-c", "echo hello not json; sleep 100")), cwd_label=LABEL, log_file=LOG)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run)


def test_interrupted_tool_calls(snap_compare, ws):
    async def run(pilot):
        await ready(pilot)
        await send(pilot, "test it")
        await turn_done(pilot)

    app = ws.app(agent=scenario_command("unfinished"), cwd_label=LABEL, log_file=LOG)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run)
