"""ACP over HTTP (`iac-code acp --http`): the SDK's HTTP client against the real server process."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time

import acp
import httpx
import pytest
from acp.http import create_http_stream
from harness import RecordingClient, http_request, write_script


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_agent(tmp_path):
    port = free_port()
    script = write_script(tmp_path / "script.json", [{"blocks": [{"type": "text", "text": "over http"}]}])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "IAC_CODE_"))}
    env.update(
        IAC_CODE_MODEL="scripted",
        IAC_CODE_SCRIPT=str(script),
        IAC_CODE_CONFIG_DIR=str(tmp_path / "cfg"),
        IAC_CODE_HTTP_TOKEN="test-token",
    )
    proc = subprocess.Popen([sys.executable, "-m", "iac_code", "acp", "--http", str(port)], env=env, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/"
    for _ in range(200):
        try:
            http_request("GET", url, timeout=0.2)
            break
        except httpx.TransportError:
            if proc.poll() is not None:
                pytest.fail(proc.stderr.read().decode())
            time.sleep(0.05)
    (tmp_path / "proj").mkdir()
    yield url, tmp_path / "proj"
    proc.terminate()
    proc.wait(10)


async def test_prompt_and_session_methods_over_http(http_agent):
    url, project = http_agent
    client = RecordingClient()
    http = httpx.AsyncClient(timeout=httpx.Timeout(30, read=None))  # HTTP/1.1: uvicorn serves no HTTP/2
    transport = create_http_stream(url, client=http, headers={"Authorization": "Bearer test-token"})
    conn = acp.connect_to_agent(client, transport, use_unstable_protocol=True)
    try:
        init = await conn.initialize(protocol_version=1)
        assert init.agent_info.name == "iac-code"
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        result = await conn.prompt(session_id=sid, prompt=[acp.text_block("hello")])
        assert result.stop_reason == "end_turn"
        await asyncio.sleep(0.2)
        assert "".join(u.content.text for u in client.updates[sid] if u.session_update == "agent_message_chunk") == "over http"
        listed = await conn.list_sessions(cwd=str(project))
        assert [s.session_id for s in listed.sessions] == [sid]
        await conn.close_session(session_id=sid)  # an unstable method, served over HTTP too
    finally:
        await transport.close()
        await http.aclose()


def test_requests_without_the_token_are_refused(http_agent):
    url, _ = http_agent
    reply = http_request("POST", url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
    assert reply.status_code == 401


def test_serving_off_loopback_needs_a_token(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "IAC_CODE_"))}
    env["IAC_CODE_CONFIG_DIR"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "iac_code", "acp", "--http", "0.0.0.0:0"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and "IAC_CODE_HTTP_TOKEN" in result.stderr
