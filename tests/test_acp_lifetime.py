"""Process lifetime (PROTOCOL.md): SIGTERM, SIGINT and SIGHUP end the server cleanly, tools included."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from harness import spawn_raw


def _live_members(pgid: int) -> list[int]:
    """Processes of process group `pgid` that are not zombies."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        state, group = fields[0], int(fields[2])
        if group == pgid and state != "Z":
            members.append(int(entry))
    return members


@pytest.mark.parametrize(
    ("signum", "trap"),
    [(signal.SIGTERM, ""), (signal.SIGINT, ""), (signal.SIGHUP, ""), (signal.SIGTERM, "trap '' TERM; ")],
    ids=["SIGTERM", "SIGINT", "SIGHUP", "SIGTERM-ignored-by-the-command"],
)
async def test_a_shutdown_signal_stops_running_commands_and_keeps_the_history(tmp_path, signum, trap):
    project = tmp_path / "proj"
    marker = tmp_path / "pgid"
    command = f"{trap}echo $$ > {marker}; sleep 300; echo never"
    script = [{"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": command}}]}]
    # the marker is outside the project, $$ a pid of this machine: unsandboxed (sandboxed: test_sandbox_escapes)
    async with spawn_raw(project, script=script, env={"IAC_CODE_SANDBOX": "off"}) as agent:
        await agent.initialize()
        sid = (await agent.request("session/new", {"cwd": str(project), "mcpServers": []}))["result"]["sessionId"]
        assert "result" in await agent.request("session/set_mode", {"sessionId": sid, "modeId": "bypass_permissions"})
        await agent.send({"jsonrpc": "2.0", "id": 9, "method": "session/prompt",
                          "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "sleep"}]}})  # fmt: skip
        async with asyncio.timeout(20):
            while not marker.exists() or not marker.read_text().strip():
                await asyncio.sleep(0.02)
        pgid = int(marker.read_text())
        assert _live_members(pgid), "the command is running"
        await asyncio.sleep(0.3)  # the turn settled into waiting for the command, as in real use

        agent.proc.send_signal(signum)
        status = await asyncio.wait_for(agent.proc.wait(), 20)

        assert status == 128 + signum
        assert _live_members(pgid) == [], "the command's process group outlived the server"
        assert "Traceback" not in agent.stderr()
    history = (tmp_path / "iac-config" / "sessions" / f"{sid}.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in history]
    roles = [r["message"]["role"] for r in records if r["type"] == "message"]
    assert roles == ["user", "assistant", "user"]  # the prompt, the tool use, and its (failed) result
    result = records[-1]["message"]["content"][0]
    assert result["type"] == "tool_result" and result["is_error"]


async def test_the_end_of_input_ends_the_server_with_status_0(tmp_path):
    async with spawn_raw(tmp_path / "proj") as agent:
        await agent.initialize()
        assert agent.proc.stdin is not None
        agent.proc.stdin.close()
        assert await asyncio.wait_for(agent.proc.wait(), 20) == 0


async def test_stdin_from_dev_null_ends_the_server_with_status_0(tmp_path):
    """/dev/null cannot be polled (epoll refuses it): its end must still end the server."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "IAC_CODE_"))}
    env.update({"IAC_CODE_MODEL": "scripted", "IAC_CODE_CONFIG_DIR": str(tmp_path / "cfg")})
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "iac_code", "acp", stdin=subprocess.DEVNULL,
                                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    try:
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
    assert proc.returncode == 0, err.decode(errors="replace")[-2000:]
