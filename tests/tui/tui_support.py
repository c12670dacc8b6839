"""Helpers for the iac-tui tests: build the app on `iac-code`'s agent with a scripted model.

An app's agent plays the offline scripted model, with its config dir, logs and history inside
the test's temporary directory. It is served in the app's own process (`ServedAppConnection`:
the same agent, no interpreter to start), except in the test modules marked
`pytest.mark.spawned_agent` (`Workspace(spawn=True)`), whose promise is about the agent's process
(its death, restart, stderr, signals): there each app spawns `python -m iac_code acp` as
`iac-tui` does. A test that gives its own agent command (`agent=`) always runs that command.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import acp
from acp._transport import memory_transport_pair  # as tests/harness.py uses it
from acp.schema import Implementation
from harness import JsonTransport, agent_process_state, served_agent
from textual.errors import NoWidget

from iac_tui.app import IacTui
from iac_tui.launch import AgentCommand
from iac_tui.widgets.diff import EditDiff
from iac_tui.widgets.plan import PlanView
from iac_tui.widgets.tool_call import ToolCallPanel

DEADLINE = 30.0


class ServedAppConnection:
    """An `IacTui` app's connection (its `connection_factory`) to `IacAgent` served in the app's
    process and loop, for the TUI tests whose promise is not the agent's process: the same
    calls as `iac_tui.connection.AgentConnection` (`run`, `stop`, `shutdown`, `agent`, `alive`,
    `stderr`, `initialize_response`). The agent's environment is the one the app gives its
    process (`iac_tui.launch.agent_environment(extra=env)`), its working directory `cwd`.
    `stop(reason)` and `shutdown()` end the agent as a killed or stopped process would end.
    `agent`, when given, makes the SDK agent to serve instead (a foreign agent of tests/tui, on
    the SDK's own agent connection, as `acp.run_agent` serves it on stdio)."""

    def __init__(self, client: Any, cwd: Path, env: dict[str, str], agent: Callable[[], Any] | None = None) -> None:
        from iac_tui.stderr_log import StderrLog

        self.client = client
        self.cwd = cwd
        self.env = env
        self._make_agent = agent
        self.stderr = StderrLog(None)
        self.agent: Any = None
        self.initialize_response: Any = None
        self._reason: str | None = None
        self._stopped = asyncio.Event()
        self._done = asyncio.Event()
        self._closing: asyncio.Future[None] | None = None

    @property
    def alive(self) -> bool:
        """True while the agent serves the connection."""
        return self.agent is not None and not self._stopped.is_set()

    def stop(self, reason: str) -> None:
        """End the agent; `run` then returns with `reason`."""
        self._reason = self._reason or reason
        self._stopped.set()

    async def shutdown(self) -> None:
        """The app quits: the client's terminals are killed, the agent shut down; returns once it is."""
        self._reason = self._reason or "The app quit."
        terminals = getattr(self.client, "terminals", None)
        if terminals is not None:
            terminals.kill_all()
        self._stopped.set()
        if self.agent is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._done.wait(), 10)

    async def run(self, on_ready: Callable[[Any], Awaitable[None]]) -> Any:
        """Serve the agent until `stop` or `shutdown`; `on_ready(initialize_response)` runs once
        it answered. Returns the app's `AgentExit` (no exit status: there is no process)."""
        from iac_tui import __version__
        from iac_tui.connection import AgentExit, client_capabilities
        from iac_tui.launch import agent_environment

        with agent_process_state(self.cwd, agent_environment(extra=self.env), only_changes=True):
            agent_end, client_end = memory_transport_pair()
            if self._make_agent is None:
                served, agent_conn = served_agent(agent_end)
            else:
                from acp.agent.connection import AgentSideConnection  # as harness.served_agent serves IacAgent

                served = self._make_agent()
                agent_conn = AgentSideConnection(served, JsonTransport(agent_end), listening=True, use_unstable_protocol=True)
            conn = acp.connect_to_agent(self.client, JsonTransport(client_end))
            self.agent = conn
            try:
                try:
                    self.initialize_response = await conn.initialize(
                        protocol_version=acp.PROTOCOL_VERSION,
                        client_capabilities=client_capabilities(),
                        client_info=Implementation(name="iac-tui", title="iac-tui", version=__version__),
                    )
                except Exception as exc:  # an error answer
                    return AgentExit(f"The agent failed to initialize: {exc}", None)
                await on_ready(self.initialize_response)
                await self._stopped.wait()
                return AgentExit(self._reason or "The agent exited.", None)
            finally:
                self.agent = None
                # in a task of its own: the app cancels its workers (this `run` among them) as it
                # quits, before its on_unmount awaits `shutdown()`; cancelled here, the agent's
                # shutdown stopped short and its MCP servers outlived the test's event loop
                self._closing = asyncio.ensure_future(self._close(conn, served if self._make_agent is None else None, agent_conn))
                await asyncio.shield(self._closing)

    async def _close(self, conn: Any, served: Any, agent_conn: Any) -> None:
        """End the served agent as its process would end: the connection closed, `IacAgent.shutdown()`
        (sessions closed, their MCP servers stopped), the client's terminals released."""
        try:
            with contextlib.suppress(Exception):
                await conn.close()
            if served is not None:
                await served.shutdown()
            await agent_conn.close()
            terminals = getattr(self.client, "terminals", None)
            if terminals is not None:  # the agent is gone: nobody will release its terminals
                await terminals.close()
        finally:
            self._done.set()


class Workspace:
    """A project dir, a config dir and a script file under one temporary directory."""

    def __init__(self, base: Path, spawn: bool = False) -> None:
        self.base = base
        self.spawn = spawn
        self.project = base / "infra"
        self.config = base / "iac-config"
        self.logs = base / "tui-logs"
        self.project.mkdir(parents=True, exist_ok=True)
        self._scripts = 0

    def write(self, rel: str, text: str) -> Path:
        """Create a project file."""
        path = self.project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def script(self, turns: list[dict[str, Any]]) -> Path:
        """Write a scripted-model script; returns its path."""
        self._scripts += 1
        path = self.base / f"script-{self._scripts}.json"
        path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
        return path

    def env(self, script: Path | None) -> dict[str, str]:
        """The agent's extra environment: scripted model, config dir in the workspace."""
        env = {"IAC_CODE_MODEL": "scripted", "IAC_CODE_CONFIG_DIR": str(self.config)}
        if script is not None:
            env["IAC_CODE_SCRIPT"] = str(script)
        return env

    def app(self, turns: list[dict[str, Any]] | None = None, *, served: Callable[[], Any] | None = None, **kw: Any) -> IacTui:
        """An app on this project whose agent plays `turns`; `served` makes a foreign SDK agent
        to serve in the app's process instead (`ServedAppConnection`; not in a `spawned_agent`
        module, whose tests give their foreign agent as a command, `agent=`)."""
        if served is not None and self.spawn:
            raise ValueError("a spawned_agent test runs its foreign agent as a command: agent=")
        script = self.script(turns) if turns is not None else None
        kw.setdefault("animations", False)
        kw.setdefault("log_dir", self.logs)
        kw.setdefault("history_file", None)
        # Python's full collections left to Python, not to the app's pacer (iac_tui.gc_pacing),
        # unless a test asks for it (gc_pacing=True): here the heap is the test runner's too
        # (~250k objects, the served agent's among them), and the pacer's first whole collection
        # walked all of it at every app start (~0.1-0.3 s of CPU a test)
        kw.setdefault("gc_pacing", False)
        env = self.env(script)
        env.update(kw.pop("env", {}))
        if not self.spawn and "agent" not in kw:
            kw.setdefault("connection_factory", lambda client: ServedAppConnection(client, self.project, env, served))
        return IacTui(self.project, env=env, **kw)

    def sessions_dir(self) -> Path:
        """Where the agent keeps its sessions."""
        return self.config / "sessions"


def python_agent(code: str) -> AgentCommand:
    """An `--agent` command running a Python snippet with this interpreter."""
    return AgentCommand((sys.executable, "-c", code))


POLL = 0.02
"""Seconds between two checks of a `wait_until` predicate."""


def hold_tool_calls(monkeypatch: Any) -> asyncio.Event:
    """Hold every scripted stream of this process's served agents at its first tool call until the
    returned event is set: a test puts the person where it wants them (scrolled up, typing) while
    the turn runs, then lets the call come, instead of pacing the stream and hoping the person got
    there first (a paced stream was seconds of waiting per test, and a race on a loaded machine)."""
    from iac_code.core.provider import ToolUseStart
    from iac_code.providers.scripted import ScriptedProvider

    release = asyncio.Event()
    stream = ScriptedProvider.stream

    async def held(self: ScriptedProvider, request: Any) -> Any:
        async for event in stream(self, request):
            if isinstance(event, ToolUseStart):
                await release.wait()
            yield event

    monkeypatch.setattr(ScriptedProvider, "stream", held)
    return release


async def wait_until(pilot: Any, predicate: Callable[[], Any], timeout: float = DEADLINE, what: str = "") -> Any:
    """Poll `predicate` every `POLL` seconds until it is truthy and return its value; fail after
    `timeout` seconds. Between checks the app runs on (its messages, its screen updates); the
    checks are plain sleeps, not Pilot pauses: a pause posts a callback to every widget and waits
    for each, which in a long conversation was a quarter of a test's CPU (the whole demo: 27 s of
    CPU with pauses, 20.5 s with sleeps). Follow with `pilot.pause()` before asserting on what is
    drawn."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        await asyncio.sleep(POLL)


async def ready(pilot: Any) -> str:
    """Wait for the agent to start and a session to open; returns the session id. Up to a
    minute: the agent's start took over 30 s on a loaded machine (2 cores, load 9)."""
    app = pilot.app
    await wait_until(
        pilot, lambda: app.state.session_id and app.agents.state == "ready" and app.state.config_options, timeout=60.0, what="a session"
    )
    await pilot.pause()  # what the session's opening queued (its note, the status) handled and drawn
    return app.state.session_id


async def send(pilot: Any, text: str) -> None:
    """Type `text` in the prompt and press enter; returns once the turn runs (its block shows)."""
    app = pilot.app

    def newest() -> Any:
        blocks = app.query("UserMessage")
        return blocks.last() if blocks else None

    before = newest()  # (old blocks may be pruned meanwhile: compare the newest, not the count)
    app.prompt_box.focus()
    app.prompt_box.load_text(text)
    await pilot.press("enter")
    await wait_until(pilot, lambda: newest() is not before, what="the turn to start")


async def pending_question(pilot: Any) -> Any:
    """The docked permission question once it shows a request and has the keys (keys pressed
    before that go elsewhere)."""
    from iac_tui.widgets.permission import PermissionQuestion

    app = pilot.app
    question = app.query_one(PermissionQuestion)
    await wait_until(pilot, lambda: question.current is not None and not question.current.request.reply.done, what="a permission question")
    await wait_until(pilot, lambda: app.focused is question and app.prompt_box.disabled, what="the question to take the keys")
    return question


async def turn_done(pilot: Any, timeout: float = DEADLINE) -> None:
    """Wait until the running turn has ended and its blocks are rendered (`busy` goes off once the
    conversation has finished the turn's blocks: `TurnController.turn_ended`; the pause lets the
    screen lay them out and draw them)."""
    app = pilot.app
    await wait_until(pilot, lambda: not app.turns.busy, timeout, what="the turn to end")
    await pilot.pause()


def visible_rows(widget) -> int:
    """How many of the widget's rows are on screen (0 when scrolled out of view)."""
    try:
        geometry = widget.screen.find_widget(widget)
    except NoWidget:
        return 0
    return geometry.region.intersection(geometry.clip).height


def assert_question_in_view(app, question) -> None:
    """The question is whole on screen and the call it asks about (its diff, if any) shows too."""
    assert question.display and visible_rows(question) == question.outer_size.height > 3
    panel = next(p for p in app.query(ToolCallPanel) if p.awaiting_permission)
    assert visible_rows(panel) > 0, f"the panel of {panel.title!r} is off screen"
    for diff in panel.query(EditDiff):
        assert visible_rows(diff) > 0, f"the diff of {panel.title!r} is off screen"
    plans = list(app.query(PlanView))
    if plans:
        blocks = app.conversation.blocks
        assert blocks.index(plans[0]) < blocks.index(panel), "the plan was put below the call awaiting approval"
    assert app.conversation.following
