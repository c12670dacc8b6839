"""bash: exit codes, no stdin or terminal, timeouts and cancel kill the group, bounded output."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
import tracemalloc
from pathlib import Path

import pytest

from iac_code.core.events import TextContent
from iac_code.tools import bash
from iac_code.tools.bash import HEAD_BYTES, TAIL_BYTES, BashTool, clean_terminal_output

tool = BashTool()


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting to be reaped counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def wait_until_dead(pid: int) -> None:
    async with asyncio.timeout(30):
        while alive(pid):
            await asyncio.sleep(0.02)


async def read_pid(path: Path) -> int:
    async with asyncio.timeout(30):
        while not (path.exists() and path.read_text().strip()):
            await asyncio.sleep(0.01)
    return int(path.read_text())


async def test_output_and_exit_code(call):
    result = await call(tool, command="echo out; echo err >&2; echo again")
    assert not result.is_error
    assert result.output == "out\nerr\nagain\n\nExit code: 0"
    assert result.raw_output == {"output": "out\nerr\nagain", "exit_code": 0, "timed_out": False}


async def test_a_failing_command_reports_its_exit_code(call):
    result = await call(tool, command="echo partial; exit 3")
    assert result.is_error
    assert result.output == "partial\n\nExit code: 3"
    assert result.raw_output["exit_code"] == 3


async def test_stdin_is_empty_so_cat_returns(call):
    result = await call(tool, command="cat")
    assert not result.is_error and result.output == "(no output)\n\nExit code: 0"


async def test_runs_in_the_session_cwd_with_a_non_interactive_environment(project, call):
    result = await call(tool, command='pwd; echo "$GIT_TERMINAL_PROMPT $PAGER $GIT_PAGER"')
    assert result.output.splitlines()[:2] == [str(project), "0 cat cat"]


async def test_cd_goes_where_the_rules_resolve_it_whatever_cdpath_says(project, call, tmp_path, monkeypatch):
    (tmp_path / "elsewhere" / "etc").mkdir(parents=True)
    monkeypatch.setenv("CDPATH", str(tmp_path / "elsewhere"))
    result = await call(tool, command="cd etc 2>/dev/null; pwd")
    assert result.output.splitlines()[0] == str(project)  # no `etc` here: cd fails, CDPATH is not searched


async def test_no_controlling_terminal_and_a_new_session(call):
    result = await call(tool, command="(: </dev/tty) 2>/dev/null && echo has-tty || echo no-tty")
    assert result.output.startswith("no-tty")
    result = await call(tool, command="python3 -c 'import os; print(os.getsid(0))'")
    assert int(result.output.split()[0]) != os.getsid(0)


async def test_a_timeout_kills_the_whole_process_group(project, call):
    result = await call(tool, command="sleep 100000 & echo $! > bg.pid; echo waiting; sleep 100000", timeout=1)
    assert result.is_error
    assert result.output == "waiting\n\nTimed out after 1 s: the command and its process group were killed."
    assert result.raw_output["timed_out"] is True
    await wait_until_dead(int((project / "bg.pid").read_text()))


async def test_a_timeout_may_be_a_fraction_of_a_second(call):
    result = await call(tool, command="sleep 100000", timeout=0.2)
    assert result.is_error and "Timed out after 0.2 s" in result.output


@pytest.fixture
def leftover_server(project):
    """Kill the process group of a server a command left running (its pid is in server.pid)."""
    yield project / "server.pid"
    pid_file = project / "server.pid"
    if pid_file.exists():
        pid = int(pid_file.read_text())
        try:
            os.killpg(os.getpgid(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


async def test_a_background_process_holding_the_pipe_does_not_block_the_result(call, leftover_server, monkeypatch):
    monkeypatch.setattr(bash, "EXIT_GRACE", 0.1)  # the pipe is read this long after the shell exits (0.5 s)
    command = "python3 -m http.server 0 --bind 127.0.0.1 & echo $! > server.pid; sleep 0.2; echo started"
    result = await call(tool, command=command)
    assert not result.is_error
    assert "started" in result.output and "Exit code: 0" in result.output
    assert "background process" in result.output
    assert alive(int(leftover_server.read_text()))  # left running, as the command asked


async def test_a_flood_of_output_keeps_head_and_tail_in_bounded_memory(call):
    command = "head -c 50000000 /dev/zero | tr '\\0' 'a' | fold -w 99; echo THE-END"
    tracemalloc.start()
    try:
        result = await call(tool, command=command)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not result.is_error
    assert len(result.output) < HEAD_BYTES + TAIL_BYTES + 500
    assert result.output.startswith("a" * 99 + "\n")
    assert result.output.endswith("THE-END\n\nExit code: 0")
    assert "lines (" in result.output and "bytes) of output omitted ...]" in result.output
    assert peak < 8 * 1024 * 1024, f"peak traced memory {peak:,} bytes"


async def test_invalid_utf8_and_escape_sequences_are_cleaned(call):
    command = "printf '\\033[2J\\033[H\\033[1;31mred\\033[0m \\377\\376 end\\n'; printf 'p 10%%\\rp 100%%\\n'; printf '\\033]0;title\\007x\\n'"
    result = await call(tool, command=command)
    assert result.output == "red \ufffd\ufffd end\np 100%\nx\n\nExit code: 0"


def test_clean_terminal_output():
    assert clean_terminal_output("\x1b[?25l\x1b(Bok\x07\r\n") == "ok\n"
    assert clean_terminal_output("50%\r100%\rdone\n") == "done\n"


async def test_cancel_kills_the_process_group_and_propagates(project, ctx):
    pid_file = project / "bg.pid"
    params = tool.parse({"command": "sleep 100000 & echo $! > bg.pid; wait"})
    task = asyncio.create_task(tool.run(params, ctx))
    pid = await read_pid(pid_file)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait_until_dead(pid)


async def test_cancel_after_the_shell_exited_still_kills_what_it_left_running(project, ctx, monkeypatch):
    """Cancelled while it waits for a background process's output (after the shell exited)."""
    monkeypatch.setattr(bash, "EXIT_GRACE", 60.0)
    params = tool.parse({"command": "sleep 100000 & echo $! > bg.pid; echo $$ > sh.pid"})
    task = asyncio.create_task(tool.run(params, ctx))
    pid = await read_pid(project / "bg.pid")
    await wait_until_dead(await read_pid(project / "sh.pid"))
    try:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await wait_until_dead(pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


async def test_a_live_tail_is_reported_while_it_runs(ctx, monkeypatch):
    monkeypatch.setattr(bash, "PROGRESS_INTERVAL", 0.1)
    reports: list[list] = []

    async def progress(content: list) -> None:
        reports.append(content)

    ctx.progress = progress
    # each sleep outlasts the interval, so "second" is read at least 0.1 s after the last report
    await tool.run(tool.parse({"command": "echo first; sleep 0.12; echo second; sleep 0.12; echo third"}), ctx)
    assert reports
    assert all(isinstance(c, TextContent) for r in reports for c in r)
    assert any("second" in r[0].text for r in reports)


async def test_preview_title_and_limits(ctx):
    params = tool.parse({"command": "terraform fmt -check", "description": "Check formatting"})
    preview = await tool.preview(params, ctx)
    assert preview.content == [TextContent("Check formatting\n\n$ terraform fmt -check")]
    assert tool.title(params) == "Run `terraform fmt -check`"
    assert tool.title(tool.parse({"command": "cd x\nmake"})) == "Run `cd x …`"
    assert tool.title(tool.parse({"command": "x" * 200})) == "Run `" + "x" * 79 + "…`"
    assert tool.title(None) == "Run command"
    assert isinstance(tool.parse({"command": "ls", "timeout": 601}), str)
    assert isinstance(tool.parse({"command": "ls", "timeout": 0}), str)
    assert tool.kind == "execute" and tool.category == "execute"
    assert tool.paths(params, ctx) == []


async def test_commands_do_not_get_the_agents_credentials(tmp_path, monkeypatch):
    from iac_code.tools.base import ToolContext
    from iac_code.tools.bash import BashInput, BashTool

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value-123")
    monkeypatch.setenv("IAC_DEMO_VISIBLE", "yes")
    result = await BashTool().run(
        BashInput(command='echo "key=${ANTHROPIC_API_KEY:-unset} other=$IAC_DEMO_VISIBLE"'),
        ToolContext(cwd=tmp_path, config_dir=tmp_path / "cfg"),
    )
    assert "key=unset other=yes" in result.output


def _running(marker: str) -> list[int]:
    """Live processes whose command line holds `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and alive(int(entry)):
            with contextlib.suppress(OSError), open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(entry))
    return found


async def test_a_command_cancelled_as_bubblewrap_starts_it_does_not_run_on(tmp_path):
    """A cancel that lands in bubblewrap's first milliseconds (before its child armed
    --die-with-parent) stops the command too: it ran to its end before (a `sleep` survived in 2
    of 3 tries at 0-2 ms on a quiet machine). The task is cancelled at its first await after the
    process started, i.e. as early as an agent can cancel."""
    from sandbox_rig import require

    from iac_code.tools.base import ToolContext
    from iac_code.tools.bash import BashInput
    from iac_code.tools.sandbox import Sandbox, private_space, remove_space

    require("bwrap")
    space = private_space()
    try:
        ctx = ToolContext(cwd=tmp_path, config_dir=tmp_path / "cfg", sandbox=Sandbox("bwrap", space))
        marker = f"sleep 3{os.getpid() % 1000}.5"
        for _ in range(5):
            task = asyncio.create_task(tool.run(BashInput(command=marker), ctx))
            while not _running(marker) and not task.done():
                await asyncio.sleep(0)  # until bwrap has been started
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            left = _running(marker)
            deadline = time.monotonic() + 10
            while left and time.monotonic() < deadline:  # what the kill ends goes; what it missed sleeps on
                await asyncio.sleep(0.01)
                left = _running(marker)
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            assert left == [], "the command outlived its cancel"
    finally:
        remove_space(space)
