"""session/cancel during streaming, during a permission prompt and during a running bash."""

from __future__ import annotations

import asyncio
import json
import os

from acp.schema import AgentMessageChunk
from harness import RecordingClient, serve_agent, wait_for

SLOW = {"blocks": [{"type": "text", "text": " ".join(f"word{i}" for i in range(200))}], "chunk_delay_ms": 100}
NEXT = {"blocks": [{"type": "text", "text": "second answer"}]}


async def _cancel_soon(agent, sid, until) -> None:
    await wait_for(until, timeout=20)
    await agent.conn.cancel(session_id=sid)


async def test_cancel_while_streaming(tmp_path):
    async with serve_agent(tmp_path / "proj", script=[SLOW, NEXT]) as agent:
        sid = await agent.new_session()
        prompt = asyncio.create_task(agent.prompt(sid, "talk a lot"))
        await _cancel_soon(agent, sid, lambda: len(agent.updates(sid, AgentMessageChunk)) >= 3)
        # the 200-chunk answer would take 20 s; the cancelled prompt answers long before
        result = await asyncio.wait_for(prompt, 10)
        assert result.stop_reason == "cancelled"
        # the request the cancel cut short still used its input: the usage says so (it was zero)
        assert result.usage.input_tokens > 0 and result.usage.total_tokens >= result.usage.input_tokens
        streamed = len(agent.updates(sid, AgentMessageChunk))
        assert streamed < 200
        # no model request after the cancel, and the session goes on
        result = await agent.prompt(sid, "next")
        assert result.stop_reason == "end_turn"
        assert agent.text(sid).endswith("second answer")
    # the text the client saw before the cancel is kept in the history
    records = [json.loads(line) for line in (agent.config_dir / "sessions" / f"{sid}.jsonl").read_text().splitlines()]
    roles = [(r["message"]["role"], r["message"]["content"][0].get("text", "")) for r in records]
    assert roles[0] == ("user", "talk a lot")
    assert roles[1][0] == "assistant" and roles[1][1].startswith("word0 word1 word2")
    assert roles[2:] == [("user", "next"), ("assistant", "second answer")]


async def test_cancel_during_a_permission_prompt(tmp_path):
    write = {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": "main.tf", "content": "x"}}]}
    holder: dict = {}

    async def cancel_then_answer(call) -> None:
        await holder["agent"].conn.cancel(session_id=call.session_id)

    client = RecordingClient(answers=["cancelled"], on_permission=cancel_then_answer)
    async with serve_agent(tmp_path / "proj", script=[write, NEXT], client=client) as agent:
        holder["agent"] = agent
        sid = await agent.new_session()
        result = await asyncio.wait_for(agent.prompt(sid, "write"), 10)
        assert result.stop_reason == "cancelled"
        assert list(agent.final_status(sid).values()) == ["failed"]
        assert (await agent.prompt(sid, "next")).stop_reason == "end_turn"
        assert agent.text(sid) == "second answer"
    assert not (tmp_path / "proj" / "main.tf").exists()


async def test_cancel_kills_a_running_bash_with_its_process_group(tmp_path):
    pidfile = tmp_path / "pids"
    command = f"sleep 1000 & echo $! > {pidfile}; echo $$ >> {pidfile}; wait"
    bash = {"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": command}}]}
    env = {"IAC_CODE_PERMISSION_MODE": "bypass_permissions", "IAC_CODE_SANDBOX": "off"}  # the pid file is outside the project
    async with serve_agent(tmp_path / "proj", script=[bash, NEXT], env=env) as agent:
        sid = await agent.new_session()
        prompt = asyncio.create_task(agent.prompt(sid, "run"))
        await wait_for(lambda: pidfile.exists() and len(pidfile.read_text().split()) == 2, timeout=20)
        pids = [int(p) for p in pidfile.read_text().split()]
        await agent.conn.cancel(session_id=sid)
        result = await asyncio.wait_for(prompt, 10)
        assert result.stop_reason == "cancelled"
        assert list(agent.final_status(sid).values()) == ["failed"]

        def gone(pid: int) -> bool:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            # a zombie waiting for its reaper counts as gone
            try:
                with open(f"/proc/{pid}/stat") as f:
                    return f.read().split()[2] == "Z"
            except FileNotFoundError:
                return True

        await wait_for(lambda: all(gone(p) for p in pids), timeout=10)
        # the history has no dangling tool use: the next turn runs normally
        assert (await agent.prompt(sid, "next")).stop_reason == "end_turn"
        assert agent.text(sid) == "second answer"


async def test_cancel_of_an_idle_or_unknown_session_is_harmless(tmp_path):
    async with serve_agent(tmp_path / "proj", script=[NEXT]) as agent:
        sid = await agent.new_session()
        await agent.conn.cancel(session_id=sid)
        await agent.conn.cancel(session_id="no-such-session")
        assert (await agent.prompt(sid, "hi")).stop_reason == "end_turn"
