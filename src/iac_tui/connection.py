"""One run of the agent process and its ACP connection.

`AgentConnection.run` takes the agent's process (`iac_tui.process.AgentProcess`, started while
the SDK loads, or by `run` itself; the user's environment passed explicitly), connects the SDK's
client side to its stdio (stdout read with a 50 MiB line limit, lines that are not ACP kept
aside), drains its stderr into a `StderrLog` for as long as it runs, sends `initialize` (the
timeout kills the agent's whole process group), hands over to the app, and returns when the
process ends, saying why (quoting stray stdout lines, the best clue to a misconfigured agent).
It never raises for a failed start: a missing program, an agent that dies or never answers
`initialize` all come back as an `AgentExit`. An agent that closes its stdout but keeps running
is stopped (the connection is gone), and so is one the app gives up on (`stop(reason)`).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import acp
from acp.client.connection import ClientSideConnection
from acp.interfaces import Agent
from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation, InitializeResponse

from iac_tui import __version__
from iac_tui.internals import receive_task
from iac_tui.launch import AgentCommand
from iac_tui.process import AgentProcess
from iac_tui.stderr_log import StderrLog

if TYPE_CHECKING:
    from iac_tui.client import TuiClient

LINE_LIMIT = 50 * 1024 * 1024
INITIALIZE_TIMEOUT = 30.0
STDERR_GRACE = 2.0
STOP_GRACE = 1.0  # seconds between SIGTERM and SIGKILL when the app ends a live agent


@dataclass(slots=True)
class AgentExit:
    """Why a run ended: a one-line `reason` and the exit status (None if the agent never ran)."""

    reason: str
    returncode: int | None


def describe_returncode(code: int | None) -> str:
    """`exited with status 1` / `was killed by SIGKILL`."""
    if code is None:
        return "stopped"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with status {code}"


def client_capabilities() -> ClientCapabilities:
    """What the app offers the agent: project-confined file reads and writes, and terminals."""
    return ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True)


class AgentConnection:
    """Speaks ACP through `client` to `command` run in `cwd` with `env`; `process` is an agent
    already started with that command (the app starts it while the SDK loads), else `run`
    starts one."""

    def __init__(
        self, command: AgentCommand, client: TuiClient, cwd: Path, env: dict[str, str], log_path: Path | None, process: AgentProcess | None = None
    ) -> None:
        self.command = command
        self.client = client
        self.cwd = cwd
        self.env = env
        self.stderr = StderrLog(log_path)
        self.agent: Agent | None = None  # the agent's side of the ACP connection, while it is up
        self.process: AgentProcess | None = process
        self.initialize_response: InitializeResponse | None = None
        self._stop_reason: str | None = None

    @property
    def alive(self) -> bool:
        """True while the process runs and the connection is up."""
        return self.agent is not None and self.process is not None and self.process.returncode is None

    async def shutdown(self) -> None:
        """Stop the agent and everything it started, now: the app is quitting (ctrl+q, or the
        terminal closed: SIGHUP, SIGTERM, SIGINT). The client terminals' commands are killed
        (their process groups), then the agent is stopped: stdin closed and SIGTERM to its
        process group (an agent that handles it stops what it runs, as `iac-code acp` does), and
        SIGKILL to the group after `STOP_GRACE` seconds. Returns once the agent has exited."""
        self._stop_reason = self._stop_reason or "The app quit."
        self.client.terminals.kill_all()
        if self.process is not None:
            await self.process.stop(STOP_GRACE)

    def stop(self, reason: str) -> None:
        """Kill an agent that is of no use any more (its whole process group); `run` then returns with `reason`."""
        if self.process is not None and self.process.returncode is None:
            self._stop_reason = self._stop_reason or reason
            self.process.kill()

    async def run(self, on_ready: Callable[[InitializeResponse], Awaitable[None]]) -> AgentExit:
        """Run the agent until it exits; `on_ready(initialize_response)` runs once it answered."""
        process = self.process
        try:
            if process is None:
                process = self.process = AgentProcess.start(self.command, self.cwd, self.env)
            reader, writer = await process.attach(LINE_LIMIT)
        except (OSError, ValueError) as exc:  # the program is missing, not executable, ...
            self.stderr.close()
            if process is not None:
                process.close()
            return AgentExit(f"Could not start the agent `{self.command}`: {exc}", None)
        assert process.stderr is not None
        drain = asyncio.create_task(self.stderr.drain(process.stderr))
        # TuiClient is a duck-typed Client: the SDK looks its methods up by name and answers a
        # request it leaves out (elicitation, ext_method) -32601, where the Protocol's stubs answer null
        agent = acp.connect_to_agent(self.client, writer, reader)  # type: ignore[arg-type]  # see above
        self.agent = agent
        try:
            return await self._serve(agent, process, on_ready)
        finally:
            self.agent = None
            try:
                with contextlib.suppress(Exception):
                    await agent.close()
                await process.stop(STOP_GRACE)
                if not drain.done():
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(asyncio.shield(drain), STDERR_GRACE)
            finally:
                # also when the app cancels this run as it quits: pipes left to the garbage
                # collector would be closed later, by fd number, under a later agent's pipes
                if not drain.done():
                    drain.cancel()
                process.close()
            await self.client.terminals.close()  # the agent is gone: nobody will release its terminals

    async def _serve(
        self, agent: ClientSideConnection, process: AgentProcess, on_ready: Callable[[InitializeResponse], Awaitable[None]]
    ) -> AgentExit:
        exited = asyncio.ensure_future(process.wait())

        def ended(reason: str) -> AgentExit:
            return AgentExit(reason + process.describe_stray(), process.returncode)

        try:
            initialize = asyncio.ensure_future(
                agent.initialize(
                    protocol_version=acp.PROTOCOL_VERSION,
                    client_capabilities=client_capabilities(),
                    client_info=Implementation(name="iac-tui", title="iac-tui", version=__version__),
                )
            )
            initialize.add_done_callback(lambda f: f.cancelled() or f.exception())  # retrieved, also when given up on
            done, _ = await asyncio.wait({initialize, exited}, timeout=INITIALIZE_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
            if initialize not in done:
                initialize.cancel()
                if exited in done:
                    return ended(f"The agent {describe_returncode(process.returncode)} before it answered initialize.")
                process.kill()  # the whole process group: nothing is left holding its pipes
                await exited
                return ended(f"The agent did not answer initialize within {INITIALIZE_TIMEOUT:.0f} s and was stopped.")
            try:
                self.initialize_response = initialize.result()
            except Exception as exc:  # an error answer, or the connection closed
                await asyncio.wait({exited}, timeout=STDERR_GRACE)
                if isinstance(exc, ConnectionError) and process.returncode is not None:
                    return ended(f"The agent {describe_returncode(process.returncode)} before it answered initialize.")
                return ended(f"The agent failed to initialize: {_describe(exc)}")
            await on_ready(self.initialize_response)
            await self._until_gone(agent, exited)
            return ended(self._stop_reason or f"The agent {describe_returncode(process.returncode)}.")
        finally:
            if not exited.done():
                exited.cancel()

    async def _until_gone(self, agent: ClientSideConnection, exited: asyncio.Future[int]) -> None:
        """Wait for the process to exit; stop it if its stdout closes while it runs on.

        Without its stdout the agent can answer nothing, yet a live process looks like a working
        agent: every request would fail with no word of why. The end of stdout is the end of the
        SDK's receive task (`iac_tui.internals.receive_task`; without it, only the exit is awaited).
        """
        receiver = receive_task(agent)
        if receiver is not None:
            await asyncio.wait({exited, receiver}, return_when=asyncio.FIRST_COMPLETED)
            if not exited.done():  # an exiting agent closes stdout just before it ends: allow for that
                await asyncio.wait({exited}, timeout=STDERR_GRACE)
            if not exited.done():
                self.stop("The agent closed its output (stdout) but kept running; it was stopped.")
        await exited


def _describe(exc: BaseException) -> str:
    if isinstance(exc, acp.RequestError):
        data = f" ({exc.data})" if exc.data else ""
        return f"{exc}{data}"
    return str(exc) or type(exc).__name__
