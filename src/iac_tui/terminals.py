"""Client terminals (ACP `terminal/*`): commands the agent runs in a pseudo-terminal of ours.

An agent that sees `clientCapabilities.terminal` may ask the client to run a command instead of
running it itself (`terminal/create`), so that the person watches it live. Each `Terminal` is a
child process whose stdout and stderr are a fresh pseudo-terminal (so programs colour their
output) and whose stdin is /dev/null (nobody types into it: a command that waits for input
ends at once instead of hanging), in its own session and process group; its output (stdout and stderr
together, as a terminal shows them) is kept in memory up to the agent's `outputByteLimit`, cut
from the front at a character boundary as ACP says. `Terminals` is the set of one connection's
terminals: `create`, `output`, `wait_for_exit`, `kill`, `release`, and `close` when the agent goes.

Source of the rules: ACP "Terminals" (agentclientprotocol.com/protocol/terminals).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import secrets
import signal
import struct
import termios
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DEFAULT_OUTPUT_LIMIT = 1024 * 1024
"""Bytes of output kept when the agent gives no `outputByteLimit`."""
COLUMNS, ROWS = 120, 40
"""The pseudo-terminal's size: what `tput cols` and line-wrapping programs see."""
READ_CHUNK = 65536


@dataclass(frozen=True, slots=True)
class ExitStatus:
    """How a terminal's command ended: `exit_code` (0-255) or the `signal` name that killed it."""

    exit_code: int | None
    signal: str | None


def trim_front(data: bytes | bytearray, limit: int) -> tuple[bytes, bool]:
    """The last at most `limit` bytes of `data`, starting on a UTF-8 character boundary.

    Returns (kept bytes, whether anything was dropped). ACP: "truncated from the beginning of
    the output to stay within the limit ... at a character boundary".
    """
    if len(data) <= limit:
        return bytes(data), False
    start = len(data) - limit
    while start < len(data) and (data[start] & 0xC0) == 0x80:  # a continuation byte
        start += 1
    return bytes(data[start:]), True


class Terminal:
    """One command on its own pseudo-terminal (see the module docstring)."""

    def __init__(self, terminal_id: str, command: str, limit: int) -> None:
        self.id = terminal_id
        self.command = command
        self.limit = limit
        self.truncated = False
        self.exit_status: ExitStatus | None = None
        self._output = bytearray()
        self._process: asyncio.subprocess.Process | None = None
        self._master: int | None = None
        self._closed = asyncio.Event()  # output drained: the pseudo-terminal reports end of file
        self._exited = asyncio.Event()
        self._watch: asyncio.Task[None] | None = None

    @property
    def output(self) -> str:
        """Everything kept of the output so far, decoded (an undecodable byte becomes U+FFFD)."""
        return self._output.decode("utf-8", errors="replace")

    async def start(self, argv: list[str], cwd: Path, env: dict[str, str], on_output: Callable[[Terminal], None]) -> None:
        """Spawn `argv` on a new pseudo-terminal. Raises `OSError` when it cannot start."""
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        try:
            self._process = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=slave, stderr=slave, cwd=str(cwd), env=env, start_new_session=True
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        self._master = master
        loop = asyncio.get_running_loop()

        def readable() -> None:
            try:
                chunk = os.read(master, READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:  # EIO: every writer of the pseudo-terminal is gone
                chunk = b""
            if not chunk:
                self._close_master()
                return
            self._output += chunk
            if len(self._output) > self.limit:
                kept, dropped = trim_front(self._output, self.limit)
                self._output = bytearray(kept)
                self.truncated = self.truncated or dropped
            on_output(self)

        loop.add_reader(master, readable)
        self._watch = asyncio.create_task(self._wait())

    async def _wait(self) -> None:
        assert self._process is not None
        code = await self._process.wait()
        # output written just before the exit is still in the pseudo-terminal: give it a moment
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._closed.wait(), 0.5)
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"SIG{-code}"
            self.exit_status = ExitStatus(None, name)
        else:
            self.exit_status = ExitStatus(code, None)
        self._exited.set()

    def _close_master(self) -> None:
        if self._master is not None:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(self._master)
            with contextlib.suppress(OSError):
                os.close(self._master)
            self._master = None
        self._closed.set()

    async def wait_for_exit(self) -> ExitStatus:
        """Wait until the command has exited; its exit status."""
        await self._exited.wait()
        assert self.exit_status is not None
        return self.exit_status

    def kill(self) -> None:
        """Kill the command's whole process group (SIGKILL); the output stays readable."""
        process = self._process
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)

    async def release(self) -> None:
        """Kill the command if it still runs and free everything the terminal holds."""
        self.kill()
        if self._watch is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._watch), 2.0)
            if not self._watch.done():
                self._watch.cancel()
        self._close_master()


class Terminals:
    """The terminals of one agent connection, by id.

    `on_output(terminal)` is called (synchronously, on the event loop) after each chunk of output
    and when a command exits; the app uses it to show the output live.
    """

    def __init__(self, on_output: Callable[[Terminal], None] = lambda _t: None) -> None:
        self._terminals: dict[str, Terminal] = {}
        self._on_output = on_output

    def __contains__(self, terminal_id: str) -> bool:
        return terminal_id in self._terminals

    def get(self, terminal_id: str) -> Terminal:
        """The live terminal `terminal_id`. Raises `KeyError` when unknown or released."""
        return self._terminals[terminal_id]

    async def create(
        self, command: str, args: list[str], cwd: Path, env: dict[str, str], output_byte_limit: int | None
    ) -> Terminal:
        """Start `command args...` in `cwd` with `env` (added to the app's own environment).

        `output_byte_limit` (bytes, None: `DEFAULT_OUTPUT_LIMIT`) caps the output kept. Raises
        `OSError` when the command cannot start (missing program, bad cwd).
        """
        limit = DEFAULT_OUTPUT_LIMIT if output_byte_limit is None else max(output_byte_limit, 0)
        terminal = Terminal(f"term_{secrets.token_hex(6)}", " ".join([command, *args]), limit)
        full_env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(COLUMNS), "LINES": str(ROWS), **env}
        await terminal.start([command, *args], cwd, full_env, self._notify)
        self._terminals[terminal.id] = terminal
        asyncio.get_running_loop().create_task(self._report_exit(terminal))
        return terminal

    def _notify(self, terminal: Terminal) -> None:
        with contextlib.suppress(Exception):
            self._on_output(terminal)

    async def _report_exit(self, terminal: Terminal) -> None:
        await terminal.wait_for_exit()
        self._notify(terminal)

    async def release(self, terminal_id: str) -> None:
        """Kill and forget `terminal_id`. Raises `KeyError` when unknown or released."""
        terminal = self._terminals.pop(terminal_id)
        await terminal.release()

    def kill_all(self) -> None:
        """Kill every terminal's command (its whole process group) now; the terminals stay until released."""
        for terminal in self._terminals.values():
            terminal.kill()

    async def close(self) -> None:
        """Release every terminal (the agent is gone)."""
        for terminal_id in list(self._terminals):
            with contextlib.suppress(KeyError):
                await self.release(terminal_id)
