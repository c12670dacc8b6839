"""MCP servers from files: the config file's `mcpServers` (headless) and a project's `.mcp.json`,
which starts nothing until the person approves it once (remembered per file content)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from harness import RecordingClient, serve_agent
from test_headless import run
from test_mcp import LITE, alive, by_tool, call, done, final, output_text, pids, turn

TITLE = "Start the MCP servers of this project's .mcp.json"


def probe_entry(mode: str = "stdio") -> dict:
    return {"command": sys.executable, "args": [LITE, mode]}


def test_headless_uses_the_config_files_mcp_servers(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    config = tmp_path / "cfg"
    config.mkdir()
    servers = {"probe": probe_entry(), "odd": {"type": "ftp", "url": "ftp://x"}}
    (config / "config.json").write_text(json.dumps({"mcpServers": servers}))
    script = [turn("go", call("mcp__probe__echo", text="from config")), done("echo: from config", "The server answered.")]
    result = run(["-p", "go"], project, script)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The server answered.\n"
    assert "[done] probe: echo" in result.stderr
    assert "MCP server configuration ignored: server 'odd': unknown `type` 'ftp'" in result.stderr
    assert [p for p in pids(project) if alive(p)] == []


def test_headless_starts_a_projects_mcp_json_only_when_allowed(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"local": probe_entry()}}))
    script = [turn("go", call("mcp__local__echo", text="x")), done("", "over")]
    refused = run(["-p", "go"], project, script)
    assert f"[failed] {TITLE}: Not started: this project's .mcp.json was not approved." in refused.stderr
    assert "[failed] mcp__local__echo: Unknown tool 'mcp__local__echo'" in refused.stderr
    assert not (project / "pids.log").exists()
    allowed = run(["-p", "go", "--allow", ".mcp.json"], project, script)
    assert allowed.returncode == 0, allowed.stderr
    assert "[done] local: echo" in allowed.stderr
    assert len(pids(project)) == 1


async def test_a_projects_mcp_json_asks_once_and_is_remembered(tmp_path):
    workdir = tmp_path / "proj"
    workdir.mkdir()
    mcp_json = workdir / ".mcp.json"
    mcp_json.write_text(json.dumps({"mcpServers": {"local": probe_entry()}}))
    script = [
        turn("one", call("mcp__local__echo", text="1")),
        done("Unknown tool", "Not available."),
        turn("two", call("mcp__local__echo", text="2")),
        done("echo: 2", "Echoed 2."),
        turn("three", call("mcp__local__echo", text="3")),
        done("echo: 3", "Echoed 3."),
    ]
    client = RecordingClient(answers=["reject_once", "allow_always"])
    async with serve_agent(workdir, script=script, client=client) as agent:
        refused = await agent.new_session()
        assert (await agent.prompt(refused, "one")).stop_reason == "end_turn"
        assert not (workdir / "pids.log").exists()
        approved = await agent.new_session()
        assert (await agent.prompt(approved, "two")).stop_reason == "end_turn"
        later = await agent.new_session()
        assert (await agent.prompt(later, "three")).stop_reason == "end_turn"
        asked = client.permissions
        approval = final(by_tool(agent, approved)[TITLE])
        echoed = final(by_tool(agent, later)["local: echo"])
        texts = [agent.text(s) for s in (refused, approved, later)]
    assert [(p.tool_call.title, p.tool_call.kind) for p in asked] == [(TITLE, "execute")] * 2
    assert asked[0].tool_call.raw_input["servers"] == {"local": f"{sys.executable} {LITE} stdio"}
    assert approval.status == "completed"
    assert echoed.status == "completed" and "echo: 3" in output_text(echoed)
    assert texts == ["Not available.", "Echoed 2.", "Echoed 3."]
    assert [p for p in pids(workdir) if alive(p)] == []

    mcp_json.write_text(json.dumps({"mcpServers": {"local": probe_entry(), "other": probe_entry()}}))
    client = RecordingClient(answers=["reject_always"])
    async with serve_agent(workdir, script=[done("", "ok"), done("", "ok")], client=client) as agent:
        for _ in range(2):
            await agent.prompt(await agent.new_session(), "four")
        asked_again = [p.tool_call.title for p in client.permissions]
    assert asked_again == [TITLE]  # a changed file is asked about again; reject_always is remembered


async def test_the_question_shows_command_and_env_and_a_changed_local_script_asks_again(tmp_path):
    """PROTOCOL.md (MCP servers): the question shows each server's whole command line and env
    (secrets masked) and says stdio servers run outside the sandbox; "Always allow" covers the
    `.mcp.json` and the script its command names inside the project: editing the script asks again."""
    import shutil

    workdir = tmp_path / "proj"
    workdir.mkdir()
    shutil.copy(LITE, workdir / "server.py")
    token = "sk-live-0123456789abcdefghijklmnopqrstuv"
    entry = {"command": sys.executable, "args": ["server.py", "stdio"], "env": {"PROBE_TOKEN": token, "MODE": "fast"}}
    (workdir / ".mcp.json").write_text(json.dumps({"mcpServers": {"local": entry}}))
    script = [done("", "one"), done("", "two")]
    client = RecordingClient(answers=["allow_always"])
    async with serve_agent(workdir, script=script, client=client) as agent:
        await agent.prompt(await agent.new_session(), "one")
        await agent.prompt(await agent.new_session(), "two")  # remembered: no second question
    [asked] = client.permissions
    shown = asked.tool_call.raw_input["servers"]["local"]
    assert shown.startswith(f"{sys.executable} server.py stdio")
    assert "MODE=fast" in shown and "PROBE_TOKEN=sk-l… (40 characters, masked)" in shown
    assert token not in repr(asked) and token not in repr(client.updates)
    question = repr(asked.tool_call.content)
    assert "run outside the command sandbox" in question and "covers these files as they are now" in question
    names = {o.option_id: o.name for o in asked.options}
    assert names["allow_always"] == "Always allow this .mcp.json and the files it runs (as they are now)"
    approvals = (agent.config_dir / "mcp-approvals.json").read_text()
    assert token not in approvals

    with open(workdir / "server.py", "a", encoding="utf-8") as f:
        f.write("\n# changed\n")
    client = RecordingClient(answers=["reject_once"])
    async with serve_agent(workdir, script=[done("", "three")], client=client) as agent:
        await agent.prompt(await agent.new_session(), "three")
    assert [p.tool_call.title for p in client.permissions] == [TITLE]  # the script changed: asked again
