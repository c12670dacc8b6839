"""MCP servers end to end: the agent connects an MCP server given in `session/new`, over stdio,
Streamable HTTP and SSE: the real one (tests/mcp_probe_server.py, on the `mcp` SDK's MCPServer)
for the tools' schemas and over HTTP and SSE; over stdio elsewhere its stand-in in the standard
library (tests/mcp_lite_server.py: ~0.05 s of CPU per start instead of ~1.5 s), which answers as
the probe does (`test_the_lite_server_answers_as_the_probe_does` compares them message for message).

The model sees the server's tools as `mcp__<server>__<tool>` with their schemas; a read-only tool
runs without asking, a writing one asks; `isError` fails the call; a server that cannot start or
dies mid-call is reported and the session goes on; no server process outlives its session (checked
with the real `iac-code acp` process; the other tests serve the agent in process, tests/harness.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from acp.schema import HttpHeader, HttpMcpServer, McpServerStdio, SseMcpServer, ToolCallStart
from fake_anthropic import FakeAnthropic, message, text, tool_use
from harness import RecordingClient, serve_agent, spawn_agent, wait_for

PROBE = str(Path(__file__).with_name("mcp_probe_server.py"))
LITE = str(Path(__file__).with_name("mcp_lite_server.py"))


class McpClient(RecordingClient):
    """Records the agent's `_iac-code/mcp_status` notifications too."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.statuses: list[dict[str, Any]] = []

    async def ext_notification(self, method: str, params: dict[str, Any], **_: Any) -> None:
        if method == "iac-code/mcp_status":
            self.statuses.append(params)


def stdio(name: str = "probe", mode: str = "stdio", server: str = LITE) -> McpServerStdio:
    return McpServerStdio(name=name, command=sys.executable, args=[server, mode], env=[])


def call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": tool, "input": arguments}


def turn(match: str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return {"match": match, "blocks": list(blocks)}


def done(match: str, words: str) -> dict[str, Any]:
    return turn(match, {"type": "text", "text": words})


def pids(directory: Path) -> list[int]:
    path = directory / "pids.log"
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def calls(directory: Path) -> list[str]:
    path = directory / "calls.log"
    return path.read_text().split() if path.exists() else []


def by_tool(agent: Any, session: str) -> dict[str, list[Any]]:
    """Tool call updates keyed by the call's title (the `tool_call` carries the human title later)."""
    out: dict[str, list[Any]] = {}
    for ups in agent.tool_calls(session).values():
        title = next((u.title for u in reversed(ups) if u.title and ":" in u.title), ups[0].title)
        out.setdefault(title, []).extend(ups)
    return out


def final(updates: list[Any]) -> Any:
    return next(u for u in reversed(updates) if u.status in ("completed", "failed"))


def output_text(update: Any) -> str:
    return "".join(getattr(c.content, "text", "") for c in update.content or [])


async def exchange(server: str, directory: Path, messages: list[dict[str, Any]]) -> tuple[dict[int, Any], int]:
    """Send `messages` to the stdio server `server` run in `directory`, one at a time: each
    request's answer by its id (None where the server ended instead), and the server's exit status."""
    directory.mkdir()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, server, "stdio", cwd=directory, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers: dict[int, Any] = {}
    try:
        for message in messages:
            proc.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
            await proc.stdin.drain()
            while "id" in message:
                line = await asyncio.wait_for(proc.stdout.readline(), 30)
                answer = json.loads(line) if line else None
                if answer is None or answer.get("id") == message["id"]:
                    answers[message["id"]] = answer
                    break
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.close()
        return answers, await asyncio.wait_for(proc.wait(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_the_lite_server_answers_as_the_probe_does(tmp_path):
    """tests/mcp_lite_server.py stands in for the probe over stdio: the same answers to what our
    client sends (its `initialize`, `tools/list`, each tool's result), the same files, the same
    end when a tool crashes the server."""
    from mcp_types.version import LATEST_HANDSHAKE_VERSION  # what our client's `initialize` asks for

    def call_tool(ident: int, tool: str, **arguments: Any) -> dict[str, Any]:
        return {"id": ident, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}

    messages = [
        {"id": 1, "method": "initialize", "params": {
            "protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {}, "clientInfo": {"name": "iac-code", "version": "0"}}},
        {"method": "notifications/initialized"},
        {"id": 2, "method": "ping"},
        {"id": 3, "method": "tools/list"},
        call_tool(4, "echo", text="hi"),
        call_tool(5, "write_note", **{"name": "a", "text": "alpha"}),
        call_tool(6, "fail", reason="quota exceeded"),
        call_tool(7, "picture"),
        call_tool(8, "crash"),
    ]
    real = await exchange(PROBE, tmp_path / "real", messages)
    lite = await exchange(LITE, tmp_path / "lite", messages)
    assert real[0][3]["result"]["tools"], "the probe listed no tools"
    assert real[0][8] is None and real[1] == 3, "the probe did not crash on `crash`"
    assert lite == real
    for name in ("calls.log", "notes/a.txt"):
        assert (tmp_path / "lite" / name).read_text() == (tmp_path / "real" / name).read_text(), name


async def test_the_model_is_offered_the_servers_tools_with_their_schemas(tmp_path):
    workdir = tmp_path / "proj"
    with FakeAnthropic() as fake:
        fake.add(
            message(tool_use("toolu_1", "mcp__probe__echo", {"text": "hi"}), stop_reason="tool_use"),
            message(text("It said hi.")),
        )
        env = {"IAC_CODE_MODEL": "claude-sonnet-4-6", "ANTHROPIC_API_KEY": "sk-test-mcp-0123456789", "ANTHROPIC_BASE_URL": fake.url}
        async with serve_agent(workdir, env=env) as agent:
            session = (await agent.conn.new_session(cwd=str(workdir), mcp_servers=[stdio(server=PROBE)])).session_id
            result = await agent.prompt(session, "echo hi")
            assert result.stop_reason == "end_turn"
            tools = {t["name"]: t for t in fake.requests[0].body["tools"]}
            second = fake.requests[1].body["messages"][-1]["content"][0]
    assert {"mcp__probe__echo", "mcp__probe__write_note", "mcp__probe__fail", "read_file"} <= set(tools)
    assert tools["mcp__probe__write_note"]["input_schema"]["required"] == ["name", "text"]
    assert tools["mcp__probe__echo"]["input_schema"]["properties"]["text"]["type"] == "string"
    assert second["type"] == "tool_result" and "echo: hi" in str(second["content"])


async def test_read_only_tool_runs_without_asking_a_writing_one_asks(tmp_path):
    workdir = tmp_path / "proj"
    script = [
        turn("first", call("mcp__probe__echo", text="hello"), call("mcp__probe__write_note", name="a", text="alpha")),
        done("wrote notes/a.txt", "Done."),
        turn("second", call("mcp__probe__write_note", name="b", text="beta")),
        done("Permission denied", "Not allowed."),
    ]
    client = McpClient(answers=["allow_once", "reject_once"])
    async with serve_agent(workdir, script=script, client=client) as agent:
        session = (await agent.conn.new_session(cwd=str(workdir), mcp_servers=[stdio()])).session_id
        assert (await agent.prompt(session, "first")).stop_reason == "end_turn"
        assert (await agent.prompt(session, "second")).stop_reason == "end_turn"
        tools = by_tool(agent, session)
        asked = [(p.tool_call.title, p.tool_call.kind) for p in client.permissions]
        statuses = client.statuses
    assert asked == [("probe: write_note", "other"), ("probe: write_note", "other")]
    assert final(tools["probe: echo"]).status == "completed"
    assert "echo: hello" in output_text(final(tools["probe: echo"]))
    assert any(u.kind == "read" for u in tools["probe: echo"])
    writes = [u for u in tools["probe: write_note"] if u.status in ("completed", "failed")]
    assert [u.status for u in writes] == ["completed", "failed"]
    assert (workdir / "notes" / "a.txt").read_text() == "alpha"
    assert not (workdir / "notes" / "b.txt").exists()
    assert calls(workdir) == ["echo", "write_note"]
    assert statuses[-1]["servers"] == [{"name": "probe", "transport": "stdio", "status": "connected", "reason": None, "tools": 6}]


async def test_allow_always_remembers_that_one_tool(tmp_path):
    workdir = tmp_path / "proj"
    script = [
        turn("go", call("mcp__probe__write_note", name="a", text="1")),
        turn("wrote notes/a.txt", call("mcp__probe__write_note", name="b", text="2")),
        turn("wrote notes/b.txt", call("mcp__probe__crash")),
        done("", "end"),
    ]
    client = McpClient(answers=["allow_always", "reject_once"])
    async with serve_agent(workdir, script=script, client=client) as agent:
        session = (await agent.conn.new_session(cwd=str(workdir), mcp_servers=[stdio()])).session_id
        await agent.prompt(session, "go")
        asked = [p.tool_call.title for p in client.permissions]
    assert asked == ["probe: write_note", "probe: crash"]
    assert (workdir / "notes" / "b.txt").read_text() == "2"
    assert "crash" not in calls(workdir)


async def test_results_is_error_fails_the_call_images_and_links_become_markers(tmp_path):
    workdir = tmp_path / "proj"
    script = [
        turn("go", call("mcp__probe__fail", reason="quota exceeded"), call("mcp__probe__picture")),
        done("quota", "It failed."),
    ]
    async with serve_agent(workdir, script=script) as agent:
        caps = agent.raw_result("agentCapabilities")["agentCapabilities"]
        session = (await agent.conn.new_session(cwd=str(workdir), mcp_servers=[stdio()])).session_id
        result = await agent.prompt(session, "go")
        failed = final(by_tool(agent, session)["probe: fail"])
        picture = final(by_tool(agent, session)["probe: picture"])
    assert caps["mcpCapabilities"] == {"http": True, "sse": True}
    assert result.stop_reason == "end_turn"
    assert failed.status == "failed"
    assert "probe refused: quota exceeded" in output_text(failed)
    assert failed.raw_output["isError"] is True
    assert picture.status == "completed"
    assert output_text(picture) == "a red dot\n[image: image/png]\n[resource: dot.png file:///pictures/dot.png]"
    assert agent.text(session).endswith("It failed.")


async def test_a_server_that_cannot_start_is_reported_and_the_session_goes_on(tmp_path):
    workdir = tmp_path / "proj"
    script = [turn("go", call("mcp__probe__echo", text="still here")), done("still here", "Fine.")]
    client = McpClient()
    async with serve_agent(workdir, script=script, client=client) as agent:
        servers = [stdio("broken", "crash"), stdio(), McpServerStdio(name="ghost", command="/nonexistent/mcp-server", args=[], env=[])]
        session = (await agent.conn.new_session(cwd=str(workdir), mcp_servers=servers)).session_id
        result = await agent.prompt(session, "go")
        said = agent.text(session)
        update = final(by_tool(agent, session)["probe: echo"])
        last = client.statuses[-1]["servers"]
    assert result.stop_reason == "end_turn"
    assert "MCP server `broken` failed to start" in said and "missing PROBE_TOKEN" in said
    assert "MCP server `ghost` failed to start: command not found" in said
    assert said.endswith("Fine.")
    assert update.status == "completed"
    assert [(s["name"], s["status"], s["tools"]) for s in last] == [("broken", "failed", 0), ("probe", "connected", 6), ("ghost", "failed", 0)]
    assert "missing PROBE_TOKEN" in last[0]["reason"]


async def test_a_server_that_dies_mid_call_is_reported_and_the_session_goes_on(tmp_path):
    workdir = tmp_path / "proj"
    script = [
        turn("go", call("mcp__probe__crash")),
        done("stopped during the call", "The server died."),
        turn("again", call("mcp__probe__echo", text="x")),
        done("Unknown tool", "Its tools are gone."),
    ]
    async with serve_agent(workdir, script=script) as agent:
        session = (await agent.conn.new_session(cwd=str(workdir), mcp_servers=[stdio()])).session_id
        first = await agent.prompt(session, "go")
        update = final(by_tool(agent, session)["probe: crash"])
        await wait_for(lambda: "MCP server `probe` stopped" in agent.text(session))
        second = await agent.prompt(session, "again")
        said = agent.text(session)
    assert first.stop_reason == second.stop_reason == "end_turn"
    assert update.status == "failed" and "stopped during the call" in output_text(update)
    assert "crashing on purpose" in said  # the server's last words, from its stderr
    assert said.endswith("Its tools are gone.")


async def test_no_server_process_is_left_after_close_cancel_or_exit(tmp_path):
    workdir = tmp_path / "proj"
    script = [turn("slow", call("mcp__probe__slow"))]
    async with spawn_agent(workdir, script=script) as agent:
        closed = (await agent.conn.new_session(cwd=str(workdir), mcp_servers=[stdio()])).session_id
        await agent.prompt(closed, "nothing scripted")  # waits for the server to be up
        first = pids(workdir)
        await agent.conn.close_session(session_id=closed)
        assert len(first) == 1 and not alive(first[0])

        busy = (await agent.conn.new_session(cwd=str(workdir), mcp_servers=[stdio()])).session_id
        turn_task = asyncio.create_task(agent.prompt(busy, "slow"))
        await wait_for(lambda: "slow" in calls(workdir))
        await agent.conn.cancel(session_id=busy)
        assert (await turn_task).stop_reason == "cancelled"
        second = [p for p in pids(workdir) if p not in first]
        assert len(second) == 1 and alive(second[0])
        await agent.conn.close_session(session_id=busy)
        assert not alive(second[0])

        closing = (await agent.conn.new_session(cwd=str(workdir), mcp_servers=[stdio()])).session_id
        calls_before = calls(workdir).count("slow")
        turn_task = asyncio.create_task(agent.prompt(closing, "slow"))
        await wait_for(lambda: calls(workdir).count("slow") > calls_before)
        running = [p for p in pids(workdir) if p not in first + second]
        await agent.conn.close_session(session_id=closing)  # cancel-and-close in one request
        assert (await turn_task).stop_reason == "cancelled"
        assert len(running) == 1 and not alive(running[0])

        await agent.conn.new_session(cwd=str(workdir), mcp_servers=[stdio()])
        await wait_for(lambda: len(pids(workdir)) == 4)
        third = pids(workdir)[3]
        proc = agent.proc
    await wait_for(lambda: proc.returncode is not None)
    await wait_for(lambda: not alive(third), timeout=10)


async def test_load_reconnects_the_servers_and_stops_the_replaced_ones(tmp_path):
    workdir = tmp_path / "proj"
    script = [
        turn("before", call("mcp__probe__echo", text="one")),
        done("echo: one", "First."),
        turn("after", call("mcp__probe__echo", text="two")),
        done("echo: two", "Second."),
    ]
    async with serve_agent(workdir, script=script) as agent:
        session = (await agent.conn.new_session(cwd=str(workdir), mcp_servers=[stdio()])).session_id
        await agent.prompt(session, "before")
        [old] = pids(workdir)
        replayed_from = len(agent.updates(session))
        await agent.conn.load_session(cwd=str(workdir), session_id=session, mcp_servers=[stdio()])
        assert not alive(old)
        replayed = [u.title for u in agent.updates(session)[replayed_from:] if isinstance(u, ToolCallStart)]
        assert replayed == ["probe: echo"]
        result = await agent.prompt(session, "after")
        new = [p for p in pids(workdir) if p != old]
        said = agent.text(session)
    assert result.stop_reason == "end_turn"
    assert len(new) == 1
    assert said.endswith("Second.")


@contextlib.asynccontextmanager
async def http_probe(directory: Path, transport: str):
    directory.mkdir(parents=True, exist_ok=True)
    port_file = directory / "port"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, PROBE, transport, str(port_file), cwd=str(directory), stderr=asyncio.subprocess.DEVNULL
    )
    try:
        await wait_for(lambda: port_file.exists() and port_file.read_text().strip() != "", timeout=30)
        port = int(port_file.read_text())
        path = "/mcp" if transport == "http" else "/sse"
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        proc.terminate()
        await proc.wait()


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_the_same_over_http(tmp_path, transport):
    workdir = tmp_path / "proj"
    server_dir = tmp_path / "server"
    script = [
        turn("go", call("mcp__web__echo", text="over the wire"), call("mcp__web__write_note", name="w", text="web")),
        done("wrote notes/w.txt", "Done."),
        turn("bad", call("mcp__web__fail", reason="nope")),
        done("nope", "Failed."),
    ]
    client = McpClient(answers=["allow_once"])
    async with http_probe(server_dir, transport) as url, serve_agent(workdir, script=script, client=client) as agent:
        server_cls = HttpMcpServer if transport == "http" else SseMcpServer
        server = server_cls(type=transport, name="web", url=url, headers=[HttpHeader(name="X-Probe", value="1")])
        session = (await agent.conn.new_session(cwd=str(workdir), mcp_servers=[server])).session_id
        assert (await agent.prompt(session, "go")).stop_reason == "end_turn"
        assert (await agent.prompt(session, "bad")).stop_reason == "end_turn"
        tools = by_tool(agent, session)
        asked = [p.tool_call.title for p in client.permissions]
        status = client.statuses[-1]["servers"][0]
        starts = [u for u in agent.updates(session, ToolCallStart)]
    assert asked == ["web: write_note"]
    assert "echo: over the wire" in output_text(final(tools["web: echo"]))
    assert final(tools["web: write_note"]).status == "completed"
    assert (server_dir / "notes" / "w.txt").read_text() == "web"
    assert final(tools["web: fail"]).status == "failed"
    assert (status["transport"], status["status"], status["tools"]) == (transport, "connected", 6)
    assert len(starts) == 3
