"""The agent's process: in its own process group, read without trusting its stdout.

`AgentProcess.start` needs no event loop and imports no SDK: the app starts the agent as soon as
its first screen is drawn, before the SDK loads (`agent_control.AgentController.start`), so that
the agent boots while the app loads the SDK. `attach()` then gives the asyncio streams the ACP
connection reads and writes.

The agent runs in a process group of its own (`start_new_session`): `kill()` ends the group, so
a wrapper (`sh -c '...; sleep 100'`) cannot leave a child holding the pipes open after its
leader died. Its stdout is read through a filter: ACP messages are JSON objects, one per line;
any other line (`hello not json`) is kept in `stray` (the last few) for the error the app
shows, and never reaches the protocol layer.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from collections import deque
from collections.abc import Mapping
from pathlib import Path

from iac_tui.launch import AgentCommand

STRAY_LINES = 5
STRAY_CHARS = 300


class AgentProcess:
    """A running agent (`subprocess.Popen` with piped stdio); `command` is what was run."""

    def __init__(self, popen: subprocess.Popen[bytes], command: AgentCommand) -> None:
        self.popen = popen
        self.command = command
        self.stray: deque[str] = deque(maxlen=STRAY_LINES)
        self.stdout: asyncio.StreamReader | None = None
        self.stderr: asyncio.StreamReader | None = None
        self._filter: asyncio.Task[None] | None = None
        self._exited: asyncio.Future[int] | None = None
        self._transports: list[asyncio.BaseTransport] = []
        self._stdin_transport: asyncio.BaseTransport | None = None

    @classmethod
    def start(cls, command: AgentCommand, cwd: Path, env: Mapping[str, str]) -> AgentProcess:
        """Spawn `command` in `cwd` with exactly `env`; OSError when it cannot be run."""
        popen = subprocess.Popen(  # noqa: S603 - the user's own agent command
            list(command.argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=str(cwd),
            env=dict(env),
            start_new_session=True,
        )
        return cls(popen, command)

    @property
    def pid(self) -> int:
        """The agent's process id (also its process group id)."""
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit status once the agent ended (negative: killed by that signal), else None."""
        return self.popen.returncode

    def kill(self) -> None:
        """Kill the agent and everything in its process group (no-op once it ended)."""
        if self.popen.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.popen.kill()

    async def wait(self) -> int:
        """Wait for the agent to exit (not for its pipes to close); returns the exit status."""
        if self._exited is None:
            self._exited = asyncio.ensure_future(asyncio.to_thread(self.popen.wait))
        return await asyncio.shield(self._exited)

    async def attach(self, limit: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Connect the pipes to the running loop: (ACP messages from the agent, writer to its stdin).

        stderr becomes `self.stderr` (for the app to drain); `limit` is the longest line read.
        """
        loop = asyncio.get_running_loop()
        assert self.popen.stdin is not None and self.popen.stdout is not None and self.popen.stderr is not None
        raw = asyncio.StreamReader(limit=limit)
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(raw), self.popen.stdout)
        self._transports.append(transport)
        self.stderr = asyncio.StreamReader(limit=limit)
        stderr = self.stderr
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stderr), self.popen.stderr)
        self._transports.append(transport)
        write_transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, self.popen.stdin)
        self._transports.append(write_transport)
        self._stdin_transport = write_transport
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        self.stdout = asyncio.StreamReader(limit=limit)
        self._filter = asyncio.ensure_future(self._pass_messages(raw, self.stdout, limit))
        return self.stdout, writer

    async def _pass_messages(self, raw: asyncio.StreamReader, out: asyncio.StreamReader, limit: int) -> None:
        """Copy stdout lines that can be ACP messages (a JSON object: `{` first) to `out`; keep the rest in `stray`."""
        try:
            while True:
                try:
                    line = await raw.readline()
                except ValueError:  # a line over the limit (asyncio drops it)
                    self.stray.append(f"(a line longer than {limit:,} bytes, dropped)")
                    continue
                if not line:
                    break
                if line.lstrip()[:1] == b"{":
                    out.feed_data(line)
                elif line.strip():
                    text = line.decode("utf-8", "replace").strip()
                    self.stray.append(text[:STRAY_CHARS] + ("…" if len(text) > STRAY_CHARS else ""))
        finally:
            out.feed_eof()

    def describe_stray(self) -> str:
        """A sentence quoting what the agent wrote to stdout that is not ACP ('' if nothing)."""
        if not self.stray:
            return ""
        quoted = "; ".join(f"`{line}`" for line in self.stray)
        return f" It wrote to stdout what is not ACP: {quoted}."

    async def stop(self, grace: float) -> None:
        """End an agent that still runs: stdin closed and SIGTERM to its group, then after `grace` seconds SIGKILL."""
        if self.popen.returncode is not None:
            return
        self._close_stdin()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGTERM)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wait(), grace)
        self.kill()

    def _close_stdin(self) -> None:
        """Close the agent's stdin through its transport once attached, never under it.

        Closing the pipe's file object while its transport is registered with the event loop
        leaves the loop watching a closed descriptor number; the next pipe that gets that number
        (the next agent's stdin) then loses its registration and nothing written reaches it.
        """
        with contextlib.suppress(Exception):
            if self._stdin_transport is not None:
                self._stdin_transport.close()
            elif self.popen.stdin is not None:
                self.popen.stdin.close()

    def close(self) -> None:
        """Kill the agent if it still runs and close the pipes now (not when garbage-collected)."""
        self.kill()
        if self._filter is not None and not self._filter.done():
            self._filter.cancel()
        for transport in self._transports:
            with contextlib.suppress(Exception):
                transport.close()
        for pipe in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            if pipe is not None:
                with contextlib.suppress(Exception):
                    pipe.close()
