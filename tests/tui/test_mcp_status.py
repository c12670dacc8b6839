"""iac-tui passes the config file's MCP servers to the agent and shows their state on the help
screen (f1): connected with its tool count, or failed with the reason."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tui_support import ready, send, wait_until

from iac_tui.screens.help import HelpScreen
from iac_tui.widgets.mcp_status import McpStatus
from iac_tui.widgets.message import AgentMessage
from iac_tui.widgets.note import Note


def said(app) -> str:
    """Every agent message and note in the conversation."""
    return "\n".join([m.source for m in app.query(AgentMessage)] + [n.text for n in app.query(Note)])

LITE = str(Path(__file__).resolve().parents[1] / "mcp_lite_server.py")  # the probe's stand-in (tests/test_mcp.py)


async def test_config_servers_reach_the_agent_and_their_state_shows_in_help(ws):
    ws.config.mkdir(parents=True, exist_ok=True)
    servers = {
        "probe": {"command": sys.executable, "args": [LITE, "stdio"]},
        "broken": {"command": sys.executable, "args": [LITE, "crash"]},
        "odd": {"type": "gopher", "url": "gopher://x"},
    }
    (ws.config / "config.json").write_text(json.dumps({"mcpServers": servers}))
    turns = [
        {"match": "echo", "blocks": [{"type": "tool_use", "name": "mcp__probe__echo", "input": {"text": "tui"}}]},
        {"match": "echo: tui", "blocks": [{"type": "text", "text": "The probe answered."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(110, 60)) as pilot:
        session = await ready(pilot)
        await send(pilot, "echo please")
        await wait_until(pilot, lambda: "The probe answered." in said(app), what="the answer")
        reported = await wait_until(pilot, lambda: app.state.mcp_servers.get(session), what="the MCP status")
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help screen")
        section = app.screen.query_one(McpStatus).source
        notes = said(app)
    by_name = {s["name"]: s for s in reported}
    assert (by_name["probe"]["status"], by_name["probe"]["tools"]) == ("connected", 6)
    assert by_name["broken"]["status"] == "failed" and "missing PROBE_TOKEN" in by_name["broken"]["reason"]
    assert "| probe | stdio | connected | 6 |" in section
    assert "| broken | stdio | failed: the server closed the connection (stderr: probe: cannot start: missing PROBE_TOKEN) | 0 |" in section
    assert "MCP server `broken` failed to start" in notes
    assert "MCP server 'odd': unknown type 'gopher'" in notes
