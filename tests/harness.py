"""Test harness: the agent (`IacAgent`) driven by the ACP SDK's client, in a process or in this one.

    async with serve_agent(tmp_path, script=[...]) as agent:   # or spawn_agent(...)
        session = await agent.new_session()
        result = await agent.prompt(session, "hello")
        assert agent.text(session) == "..."

This module decides which agent a test gets, by the two names:

- `spawn_agent` (and `spawn_raw`, raw JSON-RPC lines) start the real `iac-code acp` process:
  for every promise the process keeps (stdio framing, signals, lifetime and exit, the command
  sandbox and the credentials hand-off, pids, stderr and log files, claims between processes,
  what the real binary refuses). These tests are the contract tier (`e2e`, tests/tiers.py).
- `serve_agent` serves `IacAgent` in the test's own process and event loop, on an in-memory
  connection with the same wire layer as stdio (`WireTransport`; every message goes through
  JSON both ways), with the environment and working directory a spawned agent would have: for
  the session logic (sessions, prompt turns, replay, storage, modes, permissions, tools). Same
  `AgentUnderTest` API (its `proc` is None); these tests are the fast tier.

Both run the scripted model with the config dir inside the test's temporary directory (nothing
touches `~/.iac-code` or the network).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp._transport import memory_transport_pair  # the SDK's in-memory pair (as acp/sdk_patch.py uses it)
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    Implementation,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
)
from acp.transports import default_environment

LINE_LIMIT = 50 * 1024 * 1024


def write_script(path: Path, turns: list[dict[str, Any]]) -> Path:
    """Write a scripted-model script with `turns` to `path`."""
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return path



def http_request(method: str, url: str, **kw: Any) -> Any:
    """`httpx.request`, as the top-level `httpx.get`/`httpx.post` do it (a new client, so a new
    connection, for each request), with one TLS context for all of them: each new client otherwise
    reads the CA bundle into a context of its own, ~45 ms of CPU per request, for agents served over
    plain HTTP (the HTTP transport's tests polled an agent's start-up with one such request every 50 ms)."""
    import httpx

    return httpx.request(method, url, verify=_tls_context(), **kw)


_TLS: list[Any] = []


def _tls_context() -> Any:
    if not _TLS:
        import ssl

        _TLS.append(ssl.create_default_context())
    return _TLS[0]

@dataclass
class PermissionCall:
    """One `session/request_permission` the agent sent."""

    session_id: str
    tool_call: Any
    options: list[Any]


@dataclass
class RecordingClient:
    """An ACP client that records every update and answers permission requests.

    `answers` is a queue of option ids (or "cancelled") used in order; when it is empty,
    `default_answer` is used. `on_permission` (optional) runs before answering, e.g. to cancel.
    """

    answers: list[str] = field(default_factory=list)
    default_answer: str = "allow_once"
    updates: dict[str, list[Any]] = field(default_factory=lambda: defaultdict(list))
    permissions: list[PermissionCall] = field(default_factory=list)
    on_permission: Callable[[PermissionCall], Any] | None = None

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates[session_id].append(update)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
        call = PermissionCall(session_id, tool_call, options)
        self.permissions.append(call)
        if self.on_permission is not None:
            result = self.on_permission(call)
            if asyncio.iscoroutine(result):
                await result
        answer = self.answers.pop(0) if self.answers else self.default_answer
        if answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=answer))

    async def read_text_file(self, **_: Any) -> Any:
        raise acp.RequestError.method_not_found("fs/read_text_file")

    async def write_text_file(self, **_: Any) -> Any:
        raise acp.RequestError.method_not_found("fs/write_text_file")


class AgentUnderTest:
    """A spawned agent plus its recording client."""

    def __init__(self, conn: Any, proc: Any, client: RecordingClient, workdir: Path, config_dir: Path) -> None:
        self.conn = conn
        self.proc = proc
        self.client = client
        self.workdir = workdir
        self.config_dir = config_dir
        self.raw: list[dict[str, Any]] = []
        """Every message received from the agent, as sent on the wire."""

    def raw_result(self, method_result_key: str) -> dict[str, Any]:
        """The last raw response whose `result` has the key `method_result_key`."""
        for message in reversed(self.raw):
            result = message.get("result")
            if isinstance(result, dict) and method_result_key in result:
                return result
        raise AssertionError(f"no response with {method_result_key!r}")

    async def new_session(self, cwd: Path | None = None) -> str:
        """Create a session in `cwd` (default: the work dir); returns its id."""
        response = await self.conn.new_session(cwd=str(cwd or self.workdir), mcp_servers=[])
        return response.session_id

    async def prompt(self, session_id: str, text: str, **kw: Any) -> Any:
        """Send a text prompt and return the `PromptResponse`."""
        return await self.conn.prompt(session_id=session_id, prompt=[acp.text_block(text)], **kw)

    def updates(self, session_id: str, kind: type | None = None) -> list[Any]:
        """The updates received for `session_id` (optionally only those of class `kind`)."""
        items = self.client.updates[session_id]
        return [u for u in items if kind is None or isinstance(u, kind)]

    def text(self, session_id: str) -> str:
        """All agent message text received for `session_id`, joined."""
        return "".join(u.content.text for u in self.updates(session_id, AgentMessageChunk))

    def thoughts(self, session_id: str) -> str:
        """All agent thought text received for `session_id`, joined."""
        return "".join(u.content.text for u in self.updates(session_id, AgentThoughtChunk))

    def tool_calls(self, session_id: str) -> dict[str, list[Any]]:
        """Updates per tool call id: the `tool_call` first, then its `tool_call_update`s."""
        calls: dict[str, list[Any]] = defaultdict(list)
        for u in self.updates(session_id):
            if isinstance(u, ToolCallStart | ToolCallProgress):
                calls[u.tool_call_id].append(u)
        return dict(calls)

    def final_status(self, session_id: str) -> dict[str, str]:
        """The last status each tool call reached."""
        out = {}
        for call_id, ups in self.tool_calls(session_id).items():
            statuses = [u.status for u in ups if u.status]
            out[call_id] = statuses[-1] if statuses else ""
        return out


def agent_env(workdir: Path, script: Path | None, **extra: str) -> dict[str, str]:
    """The environment of a spawned agent: scripted model, config dir under `workdir`'s parent."""
    env = {
        "IAC_CODE_MODEL": "scripted",
        "IAC_CODE_CONFIG_DIR": str(workdir.parent / "iac-config"),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    if script is not None:
        env["IAC_CODE_SCRIPT"] = str(script)
    env.update(extra)
    return env


def _prepare(workdir: Path, script: list[dict[str, Any]] | Path | None, env: dict[str, str] | None) -> dict[str, str]:
    """`spawn_agent`'s and `serve_agent`'s start: the work dir made, a list of turns written as a
    script next to it, and the agent's environment (`agent_env`)."""
    workdir.mkdir(parents=True, exist_ok=True)
    if isinstance(script, list):
        script = write_script(workdir.parent / f"script-{os.urandom(4).hex()}.json", script)
    return agent_env(workdir, script, **(env or {}))


def _recorder(raw: list[dict[str, Any]]) -> Callable[[Any], None]:
    """A connection observer appending every incoming message (as JSON-RPC dicts) to `raw`."""

    def observe(event: Any) -> None:
        if event.direction.value == "incoming":
            raw.append(event.message)

    return observe


async def _started(agent: AgentUnderTest, raw: list[dict[str, Any]], initialize: bool) -> AgentUnderTest:
    """`agent` with its recorded messages, its connection initialized unless `initialize` is False."""
    agent.raw = raw
    if initialize:
        await agent.conn.initialize(
            protocol_version=acp.PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(),
            client_info=Implementation(name="iac-code-tests", version="0"),
        )
    return agent


@contextlib.asynccontextmanager
async def spawn_agent(
    workdir: Path,
    script: list[dict[str, Any]] | Path | None = None,
    client: RecordingClient | None = None,
    env: dict[str, str] | None = None,
    initialize: bool = True,
) -> AsyncIterator[AgentUnderTest]:
    """Spawn `python -m iac_code acp` with the scripted model and an initialized connection.

    `workdir` is the project directory sessions run in; the config dir is its sibling
    `iac-config`. `script` is a list of turns (written next to the work dir) or a script path.
    """
    full_env = _prepare(workdir, script, env)
    client = client or RecordingClient()
    stderr_path = workdir.parent / "agent-stderr.log"
    raw: list[dict[str, Any]] = []
    observe = _recorder(raw)

    with open(stderr_path, "ab") as stderr:
        async with acp.spawn_agent_process(
            client,
            sys.executable,
            "-m",
            "iac_code",
            "acp",
            env=full_env,
            cwd=str(workdir),
            transport_kwargs={"stderr": stderr, "limit": LINE_LIMIT},
            observers=[observe],
        ) as (conn, proc):
            yield await _started(AgentUnderTest(conn, proc, client, workdir, Path(full_env["IAC_CODE_CONFIG_DIR"])), raw, initialize)


class JsonTransport:
    """The client's end of an in-memory connection, passing every message through JSON both
    ways as the wire does (a value that does not survive `json.dumps` fails here as on stdio)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def send(self, message: dict[str, Any]) -> None:
        await self._inner.send(json.loads(json.dumps(message)))

    async def receive(self) -> dict[str, Any] | None:
        message = await self._inner.receive()
        return None if message is None else json.loads(json.dumps(message, allow_nan=False))

    async def close(self) -> None:
        await self._inner.close()


@contextlib.contextmanager
def agent_process_state(workdir: Path, environment: dict[str, str], *, only_changes: bool = False) -> Iterator[None]:
    """While inside: `os.environ` is `environment` (what a spawned agent's would be) and the
    working directory is `workdir`; both restored after. With `only_changes`, only the variables
    whose values differ are set and restored (for an app that keeps running beside the agent)."""
    saved_cwd = os.getcwd()
    saved = dict(os.environ) if not only_changes else {k: os.environ.get(k) for k, v in environment.items() if os.environ.get(k) != v}
    if not only_changes:
        os.environ.clear()
    os.environ.update(environment)
    os.chdir(workdir)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        if not only_changes:
            os.environ.clear()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def served_agent(agent_end: Any) -> tuple[Any, Any]:
    """`IacAgent` on the settings of this process's environment, listening on the in-memory
    transport `agent_end` through the wire layer stdio uses; returns (agent, its connection)."""
    from acp.agent.connection import AgentSideConnection

    from iac_code.acp.server import IacAgent
    from iac_code.acp.transport import WireTransport
    from iac_code.config import load_settings

    agent = IacAgent(load_settings())
    conn = AgentSideConnection(agent, WireTransport(agent_end, on_end=agent.shutdown), listening=True, use_unstable_protocol=True)
    return agent, conn


@contextlib.asynccontextmanager
async def serve_agent(
    workdir: Path,
    script: list[dict[str, Any]] | Path | None = None,
    client: RecordingClient | None = None,
    env: dict[str, str] | None = None,
    initialize: bool = True,
) -> AsyncIterator[AgentUnderTest]:
    """`spawn_agent`'s agent served in this process (see the module docstring); same arguments.

    On exit the client's connection closes, as `spawn_agent` closes the agent's stdin: the
    agent's input ends and it shuts down as `iac-code acp` does (`IacAgent.shutdown`, then
    what still cleans up gets up to `stdio.CLEANUP_SECONDS`).
    """
    from iac_code.acp.lifetime import let_cleanups_finish
    from iac_code.acp.stdio import CLEANUP_SECONDS

    full_env = _prepare(workdir, script, env)
    client = client or RecordingClient()
    raw: list[dict[str, Any]] = []
    observe = _recorder(raw)

    with agent_process_state(workdir, {**default_environment(), **full_env}):
        agent_end, client_end = memory_transport_pair()
        served, agent_conn = served_agent(agent_end)
        conn = acp.connect_to_agent(client, JsonTransport(client_end), observers=[observe], use_unstable_protocol=True)
        try:
            yield await _started(AgentUnderTest(conn, None, client, workdir, Path(full_env["IAC_CODE_CONFIG_DIR"])), raw, initialize)
        finally:
            await conn.close()
            await served.shutdown()  # a second time is a no-op (the end of input ran it)
            await agent_conn.close()
            await let_cleanups_finish(CLEANUP_SECONDS)  # as `iac-code acp` lets them before it exits


async def wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll `predicate` until it is true; fail the test after `timeout` seconds."""
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.01)


class RawAgent:
    """`iac-code acp` driven with raw JSON-RPC lines (for wire-level checks the SDK would hide)."""

    def __init__(self, proc: asyncio.subprocess.Process, stderr_path: Path) -> None:
        self.proc = proc
        self.stderr_path = stderr_path
        self.notifications: list[dict[str, Any]] = []
        self._next_id = 1000

    async def send_line(self, data: bytes) -> None:
        """Write `data` plus a newline to the agent's stdin."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        await self.proc.stdin.drain()

    async def send(self, message: Any) -> None:
        """Write one JSON message."""
        await self.send_line(json.dumps(message).encode())

    async def read(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next message the agent writes."""
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if not line:
            raise EOFError("agent closed stdout")
        return json.loads(line)

    async def response(self, request_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        """Read until the response to `request_id`, keeping notifications in `notifications`."""
        while True:
            message = await self.read(timeout)
            if "method" in message and "id" not in message:
                self.notifications.append(message)
                continue
            if message.get("id") == request_id:
                return message
            raise AssertionError(f"unexpected message {message}")

    async def request(self, method: str, params: Any = None, timeout: float = 10.0) -> dict[str, Any]:
        """Send a request and return its response object (with `result` or `error`); fail after
        `timeout` seconds without it."""
        self._next_id += 1
        request_id = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send(message)
        return await self.response(request_id, timeout)

    async def initialize(self) -> dict[str, Any]:
        """Send `initialize` (protocol version 1) and return its result. The agent answers once
        its imports are done: 1-2 s alone, over 10 s on a loaded machine (it failed there), so
        this waits up to a minute."""
        reply = await self.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}}, timeout=60.0)
        return reply["result"]

    def stderr(self) -> str:
        """Everything the agent wrote to stderr so far."""
        return self.stderr_path.read_text(errors="replace") if self.stderr_path.exists() else ""


@contextlib.asynccontextmanager
async def spawn_raw(
    workdir: Path, script: list[dict[str, Any]] | None = None, env: dict[str, str] | None = None
) -> AsyncIterator[RawAgent]:
    """Spawn `python -m iac_code acp` with pipes for raw JSON-RPC (see `RawAgent`)."""
    workdir.mkdir(parents=True, exist_ok=True)
    script_path = write_script(workdir.parent / f"script-{os.urandom(4).hex()}.json", script) if script else None
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "IAC_CODE_"))}
    full_env.update(agent_env(workdir, script_path, **(env or {})))
    stderr_path = workdir.parent / f"raw-stderr-{os.urandom(4).hex()}.log"
    with open(stderr_path, "wb") as stderr:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "iac_code",
            "acp",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env=full_env,
            cwd=str(workdir),
            limit=LINE_LIMIT,
        )
    agent = RawAgent(proc, stderr_path)
    try:
        yield agent
    finally:
        if proc.returncode is None:
            assert proc.stdin is not None
            proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), 5)
            except TimeoutError:
                proc.kill()
                await proc.wait()
