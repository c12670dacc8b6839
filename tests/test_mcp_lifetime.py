"""Process lifetime with MCP servers (PROTOCOL.md): on SIGTERM or the end of its input, `iac-code acp`
exits and no process of a session's stdio MCP server remains, also when the server ignores
SIGTERM, outlives its stdin and has a child of its own (`stubborn`). The server is
tests/mcp_lite_server.py, the probe's stand-in: what is tested is the agent's stop, not the server.

The time to exit is printed (`pytest -s`), not asserted: the machine's load decides it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from harness import spawn_raw, wait_for

LITE = str(Path(__file__).with_name("mcp_lite_server.py"))


def _running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie waiting to be reaped is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _pids(directory: Path) -> list[int]:
    path = directory / "pids.log"
    return [int(x) for x in path.read_text().split()] if path.exists() else []


@pytest.mark.parametrize("mode", ["stdio", "stubborn"])
@pytest.mark.parametrize("ending", ["SIGTERM", "stdin-closed"])
async def test_the_server_exits_and_leaves_no_mcp_server_process(tmp_path, mode, ending):
    project = tmp_path / "proj"
    try:
        await _end_and_check(project, mode, ending)
    finally:  # a failure leaves no stray process on the machine
        for pid in _pids(project):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


async def _end_and_check(project: Path, mode: str, ending: str) -> None:
    async with spawn_raw(project) as agent:
        await agent.initialize()
        server = {"name": "probe", "command": sys.executable, "args": [LITE, mode], "env": []}
        reply = await agent.request("session/new", {"cwd": str(project), "mcpServers": [server]})
        assert "result" in reply, reply
        expected = 2 if mode == "stubborn" else 1  # the stubborn server and its child
        await wait_for(lambda: len(_pids(project)) == expected, 30)
        while not any(n.get("method", "").endswith("mcp_status") and
                      [s["status"] for s in n["params"]["servers"]] == ["connected"] for n in agent.notifications):
            agent.notifications.append(await agent.read(30))
        pids = _pids(project)
        assert all(_running(p) for p in pids)

        started = time.monotonic()
        if ending == "SIGTERM":
            agent.proc.send_signal(signal.SIGTERM)
        else:
            assert agent.proc.stdin is not None
            agent.proc.stdin.close()
        status = await asyncio.wait_for(agent.proc.wait(), 30)
        print(f"\n{mode} server, {ending}: the agent exited in {time.monotonic() - started:.2f} s")

        assert status == (128 + signal.SIGTERM if ending == "SIGTERM" else 0)
        await wait_for(lambda: not any(_running(p) for p in pids), 5)  # reaped by init once orphaned
        assert "Traceback" not in agent.stderr()
