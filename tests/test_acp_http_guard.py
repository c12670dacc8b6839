"""The HTTP transport's front door: who may call, how big a body may be, and how long a connection lives."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import acp
import httpx
import pytest
from acp.http import create_http_stream
from harness import RecordingClient, http_request, write_script

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HttpAgent:
    def __init__(self, proc: subprocess.Popen, url: str, stderr: Path) -> None:
        self.proc, self.url, self.stderr_path = proc, url, stderr

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


@pytest.fixture
def start_http(tmp_path):
    started: list[subprocess.Popen] = []

    def start(token: str | None = None, script: list | None = None, **settings: str) -> HttpAgent:
        port = _free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "IAC_CODE_"))}
        env.update(IAC_CODE_MODEL="scripted", IAC_CODE_CONFIG_DIR=str(tmp_path / "cfg"))
        if script is not None:
            env["IAC_CODE_SCRIPT"] = str(write_script(tmp_path / "script.json", script))
        if token:
            env["IAC_CODE_HTTP_TOKEN"] = token
        env.update({f"IAC_CODE_{k.upper()}": v for k, v in settings.items()})
        stderr = tmp_path / f"http-stderr-{port}.log"
        with open(stderr, "wb") as err:
            proc = subprocess.Popen([sys.executable, "-m", "iac_code", "acp", "--http", str(port)], env=env, stderr=err)
        started.append(proc)
        url = f"http://127.0.0.1:{port}/"
        for _ in range(400):
            try:
                http_request("GET", url, timeout=0.2)
                break
            except httpx.TransportError:
                if proc.poll() is not None:
                    pytest.fail(stderr.read_text())
                time.sleep(0.05)
        (tmp_path / "proj").mkdir(exist_ok=True)
        return HttpAgent(proc, url, stderr)

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_foreign_host_or_origin_is_refused_without_a_token(start_http):
    agent = start_http()
    port = agent.url.rsplit(":", 1)[1].strip("/")
    refused = [
        {"Host": f"evil.example:{port}"},  # DNS rebinding: a page of evil.example whose name now points here
        {"Host": f"127.0.0.1.evil.example:{port}"},
        {"Origin": "http://evil.example"},
        {"Origin": f"http://localhost:{int(port) + 1}"},
        {"Origin": "null"},
        {"Host": "[::1"},  # malformed: refused, not a traceback
        {"Origin": "http://[::1"},
    ]
    for headers in refused:
        reply = http_request("POST", agent.url, json=INIT, headers=headers)
        assert reply.status_code == 403, headers
    for headers in ({}, {"Host": f"localhost:{port}"}, {"Origin": f"http://127.0.0.1:{port}"}):
        reply = http_request("POST", agent.url, json=INIT, headers=headers)
        assert reply.status_code == 200, headers
        assert reply.json()["result"]["protocolVersion"] == 1
    assert "Traceback" not in agent.stderr()


def test_the_bearer_scheme_is_case_insensitive(start_http):
    agent = start_http(token="s3cret-token")
    for scheme in ("Bearer", "bearer", "BEARER"):
        reply = http_request("POST", agent.url, json=INIT, headers={"Authorization": f"{scheme} s3cret-token"})
        assert reply.status_code == 200, scheme
    for value in ("Bearer wrong-token", "Basic s3cret-token", "s3cret-token", ""):
        assert http_request("POST", agent.url, json=INIT, headers={"Authorization": value}).status_code == 401, value


def test_malformed_bodies_get_400_without_a_traceback(start_http):
    agent = start_http()
    for body in (b"[" * 100_000, b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"\xff\xfe"}}', b"{nope"):
        reply = http_request("POST", agent.url, content=body, headers={"Content-Type": "application/json"})
        assert reply.status_code == 400, body[:40]
        assert "error" in reply.json()
    for bad_id in (True, 1.5, [1]):  # an initialize the SDK could never answer: refused at once
        reply = http_request("POST", agent.url, json={**INIT, "id": bad_id})
        assert reply.status_code == 400 and reply.json()["error"]["code"] == -32600, bad_id
    assert http_request("POST", agent.url, json={**INIT, "jsonrpc": "1.0"}).json()["error"]["code"] == -32600
    assert http_request("POST", agent.url, json=INIT).status_code == 200
    assert "Traceback" not in agent.stderr()


def _peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_a_body_over_the_limit_gets_413_and_is_never_held_whole(start_http):
    limit = 4 * 1024 * 1024
    agent = start_http(max_message_bytes=str(limit))
    assert http_request("POST", agent.url, json=INIT).status_code == 200
    before = _peak_rss_kib(agent.proc.pid)

    def chunks():  # 64 MiB with no Content-Length (chunked), so the server must count as it reads
        piece = b"x" * (1024 * 1024)
        for _ in range(64):
            yield piece

    reply = http_request("POST", agent.url, content=chunks(), headers={"Content-Type": "application/json"}, timeout=120)
    assert reply.status_code == 413
    declared = http_request("POST", agent.url, content=b"y" * (limit + 1), headers={"Content-Type": "application/json"})
    assert declared.status_code == 413
    grown_kib = _peak_rss_kib(agent.proc.pid) - before
    assert grown_kib < 2 * limit // 1024, f"peak RSS grew by {grown_kib} KiB"
    assert http_request("POST", agent.url, json=INIT).status_code == 200


def test_idle_connections_expire(start_http):
    agent = start_http(http_idle_timeout="3")  # long enough that a loaded machine's next request comes in time
    reply = http_request("POST", agent.url, json=INIT)
    connection = reply.headers["acp-connection-id"]
    listed = {"jsonrpc": "2.0", "id": 2, "method": "session/list", "params": {}}
    assert http_request("POST", agent.url, json=listed, headers={"Acp-Connection-Id": connection}).status_code == 202
    deadline = time.monotonic() + 20
    while True:
        status = http_request("POST", agent.url, json=listed, headers={"Acp-Connection-Id": connection}).status_code
        if status == 404:
            break
        assert status == 202 and time.monotonic() < deadline
        time.sleep(4)  # pausing longer than the idle time lets it expire


async def test_abandoned_connections_leave_nothing_behind(tmp_path):
    from iac_code.acp.http import HttpApp
    from iac_code.acp.server import IacAgent
    from iac_code.config import Settings

    def live_agents() -> int:
        gc.collect()
        return sum(isinstance(o, IacAgent) for o in gc.get_objects())

    app = HttpApp(Settings(model="scripted", config_dir=tmp_path, http_idle_timeout=3600), token=None)
    baseline = live_agents()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        ids = [(await client.post("/", json=INIT)).headers["acp-connection-id"] for _ in range(100)]
        assert live_agents() == baseline + 100
        assert await app.expire_idle() == 0  # not idle for the configured hour yet
        assert await app.expire_idle(idle_seconds=0) == 100  # as if the hour had passed
        assert live_agents() == baseline
        listed = {"jsonrpc": "2.0", "id": 2, "method": "session/list", "params": {}}
        assert (await client.post("/", json=listed, headers={"Acp-Connection-Id": ids[0]})).status_code == 404
    await app.close()


def _live_members(pgid: int) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry))
    return members


async def test_sigterm_with_open_event_streams_and_a_running_command(start_http, tmp_path):
    marker = tmp_path / "pgid"
    script = [{"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": f"echo $$ > {marker}; sleep 300"}}]}]
    agent = start_http(script=script, sandbox="off")  # the marker is outside the project; sandboxed: test_sandbox_escapes
    client = RecordingClient()
    http = httpx.AsyncClient(timeout=httpx.Timeout(30, read=None))
    transport = create_http_stream(agent.url, client=http)
    conn = acp.connect_to_agent(client, transport, use_unstable_protocol=True)
    try:
        await conn.initialize(protocol_version=1)
        sid = (await conn.new_session(cwd=str(tmp_path / "proj"), mcp_servers=[])).session_id
        await conn.set_session_mode(session_id=sid, mode_id="bypass_permissions")
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("sleep")]))
        async with asyncio.timeout(20):
            while not marker.exists() or not marker.read_text().strip():
                await asyncio.sleep(0.02)
        pgid = int(marker.read_text())
        assert _live_members(pgid)

        agent.proc.send_signal(signal.SIGTERM)
        status = await asyncio.to_thread(agent.proc.wait, 20)
        assert status == 128 + signal.SIGTERM
        assert _live_members(pgid) == []
        turn.cancel()
        await asyncio.gather(turn, return_exceptions=True)
    finally:
        await transport.close()
        await http.aclose()
    assert "Traceback" not in agent.stderr()
