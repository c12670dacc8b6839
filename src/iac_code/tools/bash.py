"""`bash`: run a shell command in the session's working directory.

The command runs inside the session's sandbox (`tools.sandbox`: the project and a private
`TMPDIR` writable, `.git/` and the other protected paths read-only, credentials hidden, no
network) unless its input says `sandbox: false` with a `reason`, which the person approves (the
permission gate asks in words that it runs outside the sandbox), or no sandbox works here.
The command runs as `/bin/bash -c` in a new process session (no controlling terminal), with
stdin from /dev/null and a non-interactive environment (`ENV_OVERRIDES`: no prompts, `cat` as
pager, an editor that fails at once with advice), so nothing can wait for a person. The agent's
credentials are not in its environment. stdout and stderr share one pipe (their lines stay in order). The output kept is
the first 10,000 and the last 20,000 bytes, whatever the command prints; invalid UTF-8 is replaced
and terminal escape sequences are removed. While it runs, a live tail of the output is reported
as output arrives, at most twice a second.

On timeout or cancel the whole process group is stopped (SIGTERM, then SIGKILL half a second
later), also when the cancel comes after the shell exited; what a cancelled command printed
until then is kept as `ctx.partial`, for the call's final update. A command that leaves a background
process holding the output pipe still returns: reading stops half a second after the shell exits,
and the background process is left running.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

from pydantic import Field, model_validator

from iac_code.core.events import TextContent
from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolPreview, ToolResult
from iac_code.tools.bash_terminal import run_in_terminal
from iac_code.tools.files import ArgvStr
from iac_code.tools.sandbox.landlock_exec import Unavailable
from iac_code.tools.shell import (
    HEAD_BYTES,
    TAIL_BYTES,
    cancelled_result,
    clean_terminal_output,
    command_argv,
    command_environment,
    command_launch,
    command_result,
)

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
EXIT_GRACE = 0.5  # seconds to keep reading after the shell exited
KILL_GRACE = 0.5  # seconds between SIGTERM and SIGKILL
PROGRESS_INTERVAL = 0.5
PROGRESS_LINES = 20
CHUNK = 1 << 16

class BashInput(ToolInput):
    command: ArgvStr = Field(min_length=1, description="The bash command to run, e.g. `terraform fmt -check -recursive`.")
    timeout: float | None = Field(
        default=None,
        gt=0,
        le=MAX_TIMEOUT,
        description=f"Seconds before the command is killed. Default {DEFAULT_TIMEOUT:.0f}, at most {MAX_TIMEOUT:.0f}.",
    )
    description: str | None = Field(
        default=None, description="What the command does, in a few words, for the user approving it."
    )
    sandbox: bool = Field(
        default=True,
        description="Run inside the sandbox (the default). false: ask the user to run this one command outside "
        "it, with `reason`; only for what the sandbox blocks (network, credentials, writes outside the project or "
        "in .git/, e.g. `terraform init`, `git commit`).",
    )
    reason: str | None = Field(
        default=None, description="Required with `sandbox: false`: why the command must run outside the sandbox, for the user approving it."
    )

    @model_validator(mode="after")
    def _reason_given(self) -> BashInput:
        if not self.sandbox and not (self.reason or "").strip():
            raise ValueError("`reason` is required with `sandbox: false`: say why the command must run outside the sandbox")
        return self


class BashTool(Tool[BashInput]):
    """Run a bash command without a terminal; report its output (head and tail) and exit code.

    The result fails when the exit code is not 0 or the command timed out; its `rawOutput` is
    `{"output": str, "exit_code": int, "timed_out": bool}` (a negative exit code is a signal).
    """

    name = "bash"
    description = (
        "Run a bash command in the working directory and return its combined stdout and stderr and "
        "its exit code. There is no terminal and no input: use non-interactive flags (e.g. "
        "`terraform plan -input=false`, `git --no-pager`). Long output keeps its beginning and end. "
        f"The command is killed after `timeout` seconds (default {DEFAULT_TIMEOUT:.0f}, at most "
        f"{MAX_TIMEOUT:.0f}). Prefer read_file, grep, glob and edit_file over cat, grep, find and sed. "
        "Commands run in a sandbox: they may write only inside the project (not in .git/, .terraform/, "
        ".iac-code/, .mcp.json) and in $TMPDIR, cannot read credentials (~/.ssh, ~/.aws, .env files, keys) "
        "and have no network. A command that needs more (e.g. `terraform init`, `helm repo update`, "
        "`git commit`) asks the user to run it outside the sandbox: set `sandbox: false` and a `reason`."
    )
    input_model = BashInput
    kind = "execute"
    category = "execute"

    def title(self, params: BashInput | None) -> str:
        if params is None:
            return "Run command"
        lines = params.command.strip().splitlines() or [params.command]
        command = lines[0]
        if len(command) > 80:
            command = command[:79] + "…"
        elif len(lines) > 1:
            command += " …"
        return f"Run `{command}`" + ("" if params.sandbox else " outside the sandbox")

    async def preview(self, params: BashInput, ctx: ToolContext) -> ToolPreview:
        text = f"$ {params.command}"
        if params.description:
            text = f"{params.description}\n\n{text}"
        if not params.sandbox:
            text = (
                f"Runs outside the sandbox (it can write anywhere you can, read your credentials and use "
                f"the network). Reason: {params.reason}\n\n{text}"
            )
        return ToolPreview(content=[TextContent(text)])

    async def run(self, params: BashInput, ctx: ToolContext) -> ToolResult:
        timeout = params.timeout or DEFAULT_TIMEOUT
        if ctx.terminals is not None:
            argv, sandbox = command_argv(params.command, ctx, params.sandbox)
            return await run_in_terminal(argv, sandbox, timeout, ctx)
        read_fd, write_fd = os.pipe()
        try:
            launch, sandbox = command_launch(params.command, ctx, params.sandbox)
        except Unavailable as exc:
            os.close(read_fd)
            os.close(write_fd)
            return ToolResult.error(f"The sandbox cannot confine the command here ({exc}); it did not run.")
        in_pid_namespace = sandbox is not None and sandbox.backend == "bwrap"
        try:  # nothing awaits between the launch prepared and the start: its confinement is released below
            with launch:
                spawn = asyncio.ensure_future(asyncio.create_subprocess_exec(
                    *launch.argv, cwd=ctx.cwd, env=command_environment(ctx.secrets, sandbox),
                    stdin=asyncio.subprocess.DEVNULL, stdout=write_fd, stderr=write_fd, start_new_session=True,
                    preexec_fn=launch.preexec,
                ))  # fmt: skip
                try:
                    proc = await asyncio.shield(spawn)
                except asyncio.CancelledError:  # it may have started (asyncio would kill the first process only)
                    with contextlib.suppress(Exception):
                        await _stop_group(await spawn, in_pid_namespace=in_pid_namespace)
                    raise
        except OSError as exc:
            os.close(read_fd)
            return ToolResult.error(f"Cannot start {launch.argv[0]}: {exc.strerror or exc}.")
        except BaseException:  # e.g. cancelled while the process was being set up
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
        pipe = os.fdopen(read_fd, "rb", buffering=0)
        output = Capture()
        transport: asyncio.ReadTransport | None = None
        pump: asyncio.Task[None] | None = None
        timed_out = lingering = finished = False
        try:
            reader = asyncio.StreamReader()
            transport, _ = await asyncio.get_running_loop().connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), pipe
            )
            pump = asyncio.create_task(_pump(reader, output, ctx))
            try:
                async with asyncio.timeout(timeout):
                    await proc.wait()
            except TimeoutError:
                timed_out = True
                await _stop_group(proc, in_pid_namespace=in_pid_namespace)
            done, _ = await asyncio.wait({pump}, timeout=EXIT_GRACE)
            lingering = not done
            finished = True
        finally:
            if not finished:  # cancelled, maybe after the shell exited: stop what it left running too
                await _stop_group(proc, in_pid_namespace=in_pid_namespace)
            if pump is not None:
                pump.cancel()
                await asyncio.gather(pump, return_exceptions=True)
            if transport is not None:
                transport.close()
            else:
                pipe.close()
            if not finished:  # what it printed until the kill stays in the call's final update
                ctx.partial = cancelled_result(output.text())
        return command_result(output.text(), proc.returncode, timed_out, lingering, timeout, sandboxed=sandbox is not None)


class Capture:
    """The first `HEAD_BYTES` and last `TAIL_BYTES` of a byte stream, with counts of the rest."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.dropped_lines = 0

    def feed(self, data: bytes) -> None:
        """Take the next piece of the stream."""
        self.total += len(data)
        room = HEAD_BYTES - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            cut = len(self.tail) - TAIL_BYTES
            if cut > 0:
                self.dropped_lines += self.tail.count(b"\n", 0, cut)
                del self.tail[:cut]

    @property
    def dropped(self) -> int:
        """Bytes of the stream not kept."""
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> str:
        """The kept output as clean text, with a marker where the middle was dropped."""
        if not self.dropped:
            return clean_terminal_output((self.head + self.tail).decode("utf-8", "replace"))
        marker = f"\n[... {self.dropped_lines:,} lines ({self.dropped:,} bytes) of output omitted ...]\n"
        head = clean_terminal_output(self.head.decode("utf-8", "replace"))
        return head + marker + clean_terminal_output(self.tail.decode("utf-8", "replace"))

    def live_tail(self) -> str:
        """The last few lines, for progress reports."""
        recent = (self.tail or self.head)[-4096:]
        return "\n".join(clean_terminal_output(recent.decode("utf-8", "replace")).splitlines()[-PROGRESS_LINES:])


async def _pump(reader: asyncio.StreamReader, output: Capture, ctx: ToolContext) -> None:
    """Read the pipe until EOF into `output`, reporting a live tail at most every PROGRESS_INTERVAL."""
    loop = asyncio.get_running_loop()
    last_report = loop.time()
    while chunk := await reader.read(CHUNK):
        output.feed(chunk)
        if loop.time() - last_report >= PROGRESS_INTERVAL:
            last_report = loop.time()
            with contextlib.suppress(Exception):  # progress is best effort
                await ctx.report([TextContent(output.live_tail())])


def _children(pid: int) -> list[int]:
    """The pids of `pid`'s children (Linux /proc/PID/task/*/children; [] where it cannot be read)."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(word) for word in f.read().split()]
    return found


async def _stop_group(proc: asyncio.subprocess.Process, *, in_pid_namespace: bool = False) -> None:
    """SIGTERM the process group, then SIGKILL it after KILL_GRACE; wait for the shell.

    The SIGKILL is sent even when this is cancelled during the grace (the server shutting down).
    With `in_pid_namespace` (`proc` is bubblewrap, its command in a PID namespace and a session
    of its own) the namespace's first process, `proc`'s child, is killed too: bubblewrap's
    `--die-with-parent` misses a kill that lands before its child armed it (the first ~2 ms, ~50
    under load), and the command then ran to its end. Stopping the group first keeps bubblewrap
    from starting that child after its children were read. Killing the namespace's first process
    ends all it holds, as bubblewrap's own end does.
    """
    if in_pid_namespace:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGSTOP)
        for pid in _children(proc.pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGTERM)
        if in_pid_namespace:
            os.killpg(proc.pid, signal.SIGCONT)
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), KILL_GRACE)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    await proc.wait()
