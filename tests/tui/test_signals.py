"""Closing the terminal stops everything: iac-tui in tmux, its agent running `sleep 300`, then a
hangup (`tmux kill-session`), SIGTERM or SIGINT; afterwards none of the processes is left.

The app runs as a person runs it (`python -m iac_tui` in a tmux pane of 80x24), against a
foreign agent (`foreign_agent.py`: a `sleep` of its own and one in a client terminal) and
against this project's agent (a `bash` tool call running `sleep` in the client's terminal).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

AGENT = Path(__file__).with_name("foreign_agent.py")
DEADLINE = 30.0


class Pane:
    """One tmux server (its own socket) running one command in an 80x24 window."""

    def __init__(self, base: Path, command: list[str], env: dict[str, str]) -> None:
        self.socket = str(base / "tmux.sock")
        flags = [f"-e{k}={v}" for k, v in env.items()]
        self.tmux("new-session", "-d", "-s", "app", "-x", "80", "-y", "24", *flags, *command)
        self.pid = int(self.tmux("display-message", "-p", "-t", "app", "#{pane_pid}").strip())

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True, timeout=10).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "app")

    def wait_for(self, predicate, what: str):  # noqa: ANN001, ANN201
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            value = predicate()
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; the screen:\n{self.screen()}")

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "app", "-l", text)
        self.tmux("send-keys", "-t", "app", "Enter")

    def close(self) -> None:
        self.tmux("kill-server")


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def quit_by(pane: Pane, how: str) -> None:
    if how == "hangup":
        pane.tmux("kill-session", "-t", "app")  # the pane's process gets SIGHUP
    else:
        os.kill(pane.pid, signal.SIGTERM if how == "sigterm" else signal.SIGINT)


def left_running(pids: list[int]) -> list[str]:
    """The command lines of `pids` still running once they had `DEADLINE` seconds to end."""
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end and any(alive(p) for p in pids):
        time.sleep(0.1)
    return [f"{p}: " + Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode() for p in pids if alive(p)]


def env_of(ws) -> dict[str, str]:
    return {"IAC_CODE_CONFIG_DIR": str(ws.config), "TERM": "xterm-256color"}  # logs and history there too


@pytest.mark.parametrize("how", ["hangup", "sigterm", "sigint"])
def test_closing_the_terminal_stops_a_foreign_agent_and_what_it_started(ws, how):
    pane = Pane(ws.base, [sys.executable, "-m", "iac_tui", str(ws.project), "--agent", f"{sys.executable} {AGENT}"], env_of(ws))
    pids: list[int] = []
    try:
        pane.wait_for(lambda: "connected to foreign" in pane.screen(), "the app")
        pane.type("sleep")
        found = ws.project / "pids.txt"
        pane.wait_for(lambda: found.exists() and len(found.read_text().split()) >= 3, "the sleeps")
        pids = [pane.pid, *map(int, found.read_text().split())]
        assert all(alive(p) for p in pids)
        quit_by(pane, how)
        assert left_running(pids) == []
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        pane.close()


def test_closing_the_terminal_stops_our_agent_and_its_command(ws):
    tag = f"300.{os.getpid()}"
    script = ws.script([{"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": f"sleep {tag}"}}]}])
    env = {**env_of(ws), **ws.env(script), "IAC_CODE_PERMISSION_MODE": "bypass_permissions"}
    pane = Pane(ws.base, [sys.executable, "-m", "iac_tui", str(ws.project)], env)
    pids: list[int] = []
    try:
        pane.wait_for(lambda: "connected to iac-code" in pane.screen(), "the app")
        pane.wait_for(lambda: "Scripted" in pane.screen(), "the session")
        pane.type("sleep a while")

        def sleeping() -> list[int]:
            out = subprocess.run(["pgrep", "-f", f"sleep {tag}$"], capture_output=True, text=True).stdout
            return [int(p) for p in out.split()]

        sleeps = pane.wait_for(sleeping, "the command")
        agent = [int(p) for p in subprocess.run(["pgrep", "-P", str(pane.pid)], capture_output=True, text=True).stdout.split()]
        pids = [pane.pid, *agent, *sleeps]
        quit_by(pane, "hangup")
        assert left_running(pids) == []
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        pane.close()
