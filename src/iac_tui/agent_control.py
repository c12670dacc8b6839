"""The agent's runs for the app: each start (and restart), what `initialize` said, and its state.

`AgentController` owns the ACP client (`client.TuiClient`, new per run) and the run's
connection (`connection.AgentConnection`), both imported in a thread with the SDK (`sdk.load`)
so that the app draws first. Its `state` is what the key bindings follow: `starting` until
`initialize` answers, `ready`, then `stopped`, recorded where the stop is known, before the
conversation draws it (whoever sees the error block sees the agent stopped, and ctrl+r enabled).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from textual.message import Message

from iac_tui import messages, sdk
from iac_tui.app_protocols import RunWorker
from iac_tui.launch import AgentCommand, agent_environment
from iac_tui.process import AgentProcess
from iac_tui.state import SessionState
from iac_tui.stderr_log import new_log_path

if TYPE_CHECKING:  # the SDK loads after the first paint (iac_tui.sdk)
    from acp.interfaces import Agent
    from acp.schema import AgentCapabilities, InitializeResponse

    from iac_tui.client import TuiClient
    from iac_tui.connection import AgentConnection

AgentState = Literal["starting", "ready", "stopped"]

SANDBOX_META = "iac-code/sandbox"
"""iac-code's `_meta` key in its `initialize` answer: `{"backend": "bwrap" | "landlock" | "none", "message": str}`."""


def sandbox_warning(response: InitializeResponse) -> str | None:
    """The agent's sentence that its commands are not sandboxed, from its `initialize` answer
    (iac-code says so in `_meta`; other agents say nothing: None)."""
    meta = response.field_meta
    state = meta.get(SANDBOX_META) if isinstance(meta, dict) else None
    if not isinstance(state, dict) or state.get("backend") != "none":
        return None
    message = state.get("message")
    return message if isinstance(message, str) and message else "commands are not sandboxed here"


@dataclass(frozen=True, slots=True)
class AgentLaunch:
    """How the app starts its agent: `command` with `env` added to the user's environment, its
    stderr logged to `log_file` (None: a new file in `log_dir` per run); or, when
    `connection_factory` is given, `connection_factory(client)` instead of a process (a
    connection with `AgentConnection`'s interface: an in-process agent, for benchmarks)."""

    command: AgentCommand
    env: dict[str, str]
    log_dir: Path
    log_file: Path | None = None
    connection_factory: Callable[[TuiClient], Any] | None = None


class AgentController:
    """The agent's runs for one app (see the module docstring).

    `launch` says how to start it. `project` and `session` are
    given to the ACP client; `post` delivers messages to the conversation. `changed()` is called
    when `state` changes (the app refreshes its key bindings); `ready(response, restarted)` is
    awaited once `initialize` answered (the app opens the session; `restarted`: this run was
    started by `start(restart=True)`); `stopped()` is called when a run ended, once `state` says
    so and before its `AgentStopped` is posted; `run` runs the agent in a worker.
    """

    def __init__(
        self,
        launch: AgentLaunch,
        project: Path,
        session: SessionState,
        *,
        post: Callable[[Message], None],
        changed: Callable[[], None],
        ready: Callable[[InitializeResponse, bool], Awaitable[None]],
        stopped: Callable[[], None],
        run: RunWorker,
    ) -> None:
        self.launch = launch
        self.project = project
        self.session = session
        self._post = post
        self._changed = changed
        self._ready = ready
        self._stopped = stopped
        self._run = run
        self._state: AgentState = "starting"
        self.client: TuiClient | None = None
        """The ACP client of the latest run (None before the first)."""
        self.connection: AgentConnection | None = None
        """The latest run (None before the first)."""
        self.info: InitializeResponse | None = None
        """The agent's `initialize` answer in the latest run that got one."""

    @property
    def state(self) -> AgentState:
        """`starting`, `ready` (initialize answered) or `stopped`."""
        return self._state

    def _set_state(self, state: AgentState) -> None:
        if state != self._state:
            self._state = state
            self._changed()

    @property
    def agent(self) -> Agent | None:
        """The agent, to send it requests (`await agent.prompt(...)`): the SDK's side of the live ACP connection, or None."""
        return self.connection.agent if self.connection is not None and self.connection.alive else None

    @property
    def capabilities(self) -> AgentCapabilities | None:
        """The agent's `agentCapabilities` (None before initialize)."""
        return self.info.agent_capabilities if self.info is not None else None

    @property
    def name(self) -> str:
        """The agent's title or name from `initialize` (else its program)."""
        info = self.info.agent_info if self.info is not None else None
        return (info.title or info.name if info is not None else None) or Path(self.launch.command.program).name

    def start(self, restart: bool = False) -> None:
        """Connect the agent (again) in a worker, which first imports the SDK in a thread; a
        `restart` reattaches the session shown (`ready`).

        At launch this runs once the first screen is drawn (the app's `on_mount`): the import
        (~1.3 s) shares the interpreter with the app, and begun before the first paint it slowed
        the paint by about a third. The agent's process is started first, then the SDK loads
        while the agent boots (each on a core of its own when the machine has them). Started
        before Textual was imported, as it was, the agent competed with the app's start-up for
        the cores: at a load of 5 on 2 cores, ready for input x1.64-2.09 a minimal Textual app
        against x1.16-1.54 started here, and the session opened later (5.6-6.2 s vs 4.9-5.4 s)."""
        self._set_state("starting")
        self._run(self._agent_run(restart), group="agent", exit_on_error=False, exclusive=True)

    def stop(self, reason: str) -> None:
        """Give up on the running agent: its process is stopped and the run ends saying `reason`."""
        if self.connection is not None:
            self.connection.stop(reason)

    async def shutdown(self) -> None:
        """The app is quitting: stop the agent, its process group and the client terminals it created."""
        if self.connection is not None:
            await self.connection.shutdown()

    async def _agent_run(self, restart: bool) -> None:
        launch = self.launch
        env = agent_environment(extra=launch.env)
        process: AgentProcess | None = None
        if launch.connection_factory is None:
            with contextlib.suppress(OSError):  # (the connection tries again and says why it cannot run)
                process = AgentProcess.start(launch.command, self.project, env)
        await asyncio.to_thread(sdk.load)  # the prompt box takes keys meanwhile, the agent boots
        from iac_tui.client import TuiClient
        from iac_tui.connection import AgentConnection

        client = TuiClient(self._post, self.project, self.session)
        self.client = client
        try:
            log_path: Path | None = launch.log_file or new_log_path(launch.log_dir)
        except OSError:
            log_path = None
        if launch.connection_factory is not None:
            connection = launch.connection_factory(client)
        else:
            connection = AgentConnection(launch.command, client, self.project, env, log_path, process=process)
        self.connection = connection

        async def on_ready(response: InitializeResponse) -> None:
            self.info = response
            self._set_state("ready")
            await self._ready(response, restart)

        outcome = await connection.run(on_ready)
        # recorded here, where the stop is known, before the conversation draws it: whoever
        # sees the error block sees the agent stopped (and ctrl+r enabled)
        self._set_state("stopped")
        self._stopped()
        written = connection.stderr.path
        self._post(messages.AgentStopped(outcome.reason, connection.stderr.tail(20), str(written) if written else None))
