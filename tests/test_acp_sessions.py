"""Sessions across process restarts: load (with replay), fork, resume, close, list; concurrency; disk."""

from __future__ import annotations

import asyncio
import json
import os
import signal

import acp
import pytest
from acp.schema import (
    AgentMessageChunk,
    SessionInfoUpdate,
    AgentThoughtChunk,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)
from harness import serve_agent, spawn_agent, wait_for

PLAN = {"type": "tool_use", "name": "update_plan", "input": {"entries": [{"content": "Check the VPC"}]}}
SCRIPT = [
    {"blocks": [{"type": "thinking", "thinking": "Let me plan."}, PLAN]},
    {"blocks": [{"type": "text", "text": "The VPC looks fine."}]},
    {"blocks": [{"type": "text", "text": "Second answer."}]},
    {"blocks": [{"type": "text", "text": "Third answer."}]},
]


async def _first_session(tmp_path) -> str:
    async with serve_agent(tmp_path / "proj", script=SCRIPT) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "Review the network")).stop_reason == "end_turn"
    return sid


async def test_load_replays_the_whole_history_before_answering(tmp_path):
    sid = await _first_session(tmp_path)
    async with serve_agent(tmp_path / "proj", script=SCRIPT) as agent:
        response = await agent.conn.load_session(cwd=str(agent.workdir), session_id=sid, mcp_servers=[])
        # everything was replayed before the response arrived
        replay = [u for u in agent.updates(sid) if not type(u).__name__.startswith(("AvailableCommands", "SessionInfo"))]
        kinds = [type(u) for u in replay]
        (info,) = agent.updates(sid, SessionInfoUpdate)
        assert info.title == "Review the network"
        assert kinds[:2] == [UserMessageChunk, AgentThoughtChunk]
        assert ToolCallStart in kinds and ToolCallProgress in kinds
        assert kinds[-1] is AgentMessageChunk
        assert replay[0].content.text == "Review the network"
        start = next(u for u in replay if isinstance(u, ToolCallStart))
        final = next(u for u in replay if isinstance(u, ToolCallProgress))
        assert start.title == "Update plan (0/1 done)" and start.kind == "other"
        assert start.raw_input == PLAN["input"]
        assert final.status == "completed" and final.tool_call_id == start.tool_call_id
        assert replay[-1].content.text == "The VPC looks fine."
        assert response.modes.current_mode_id == "default"
        assert agent.raw_result("models")["models"]["currentModelId"] == "scripted"
        # the conversation continues with the loaded history
        result = await agent.prompt(sid, "And now?")
        assert result.stop_reason == "end_turn"
        assert result.usage.input_tokens > 100


async def test_fork_is_persisted_at_once_and_independent(tmp_path):
    sid = await _first_session(tmp_path)
    async with serve_agent(tmp_path / "proj", script=SCRIPT[2:]) as agent:
        forked = await agent.conn.fork_session(cwd=str(agent.workdir), session_id=sid, mcp_servers=[])
        fid = forked.session_id
        assert fid != sid
        assert agent.raw_result("models")["models"]["currentModelId"] == "scripted"
        # the fork can be prompted right away; its history is a copy
        assert (await agent.prompt(fid, "continue on the branch")).stop_reason == "end_turn"
    # a new process sees both; the original did not get the fork's turn
    async with serve_agent(tmp_path / "proj", script=SCRIPT) as agent:
        listed = await agent.conn.list_sessions(cwd=str(agent.workdir))
        assert {s.session_id for s in listed.sessions} == {sid, fid}
        await agent.conn.load_session(cwd=str(agent.workdir), session_id=sid, mcp_servers=[])
        await agent.conn.load_session(cwd=str(agent.workdir), session_id=fid, mcp_servers=[])
        original = [u.content.text for u in agent.updates(sid, UserMessageChunk)]
        branch = [u.content.text for u in agent.updates(fid, UserMessageChunk)]
    assert original == ["Review the network"]
    assert branch == ["Review the network", "continue on the branch"]


async def test_fork_of_unknown_session(tmp_path):
    async with serve_agent(tmp_path / "proj") as agent:
        with pytest.raises(acp.RequestError) as err:
            await agent.conn.fork_session(cwd=str(agent.workdir), session_id="nope", mcp_servers=[])
    assert err.value.code == -32602 and "sessionId" in err.value.data


async def test_resume_live_and_from_disk_without_replay(tmp_path):
    async with serve_agent(tmp_path / "proj", script=SCRIPT) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, "Review the network")
        before = len(agent.updates(sid))
        await agent.conn.resume_session(cwd=str(agent.workdir), session_id=sid, mcp_servers=[])
        await asyncio.sleep(0.2)
        replayed = [u for u in agent.updates(sid)[before:] if not type(u).__name__.startswith(("AvailableCommands", "SessionInfo"))]
        assert replayed == []
    async with serve_agent(tmp_path / "proj", script=SCRIPT[2:]) as agent:
        response = await agent.conn.resume_session(cwd=str(agent.workdir), session_id=sid, mcp_servers=[])
        assert response.modes.current_mode_id == "default"
        assert "sessionId" not in agent.raw_result("models")
        assert agent.updates(sid, UserMessageChunk) == []
        await wait_for(lambda: agent.updates(sid, SessionInfoUpdate))
        assert agent.updates(sid, SessionInfoUpdate)[0].title == "Review the network"
        result = await agent.prompt(sid, "go on")
        assert result.stop_reason == "end_turn"
        assert agent.text(sid) == "Second answer."


async def test_close_then_prompt_is_an_error_naming_the_session(tmp_path):
    async with serve_agent(tmp_path / "proj", script=SCRIPT) as agent:
        sid = await agent.new_session()
        await agent.conn.close_session(session_id=sid)
        with pytest.raises(acp.RequestError) as err:
            await agent.prompt(sid, "hello?")
        assert err.value.code == -32602
        assert "sessionId" in err.value.data
        # the history stays on disk and the session can be resumed
        listed = await agent.conn.list_sessions(cwd=str(agent.workdir))
        assert [s.session_id for s in listed.sessions] == [sid]
        await agent.conn.resume_session(cwd=str(agent.workdir), session_id=sid, mcp_servers=[])
        with pytest.raises(acp.RequestError):
            await agent.conn.close_session(session_id="never-existed")


async def test_list_is_newest_first_with_titles_and_paging(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    script = [{"blocks": [{"type": "text", "text": "ok"}]}] * 60
    async with serve_agent(tmp_path / "proj", script=script) as agent:
        ids = []
        for i in range(55):
            sid = await agent.new_session()
            if i < 3:
                await agent.prompt(sid, f"Task number {i}\nsecond line")
            ids.append(sid)
        await agent.new_session(cwd=other)
        await agent.prompt(ids[1], "Task number 1 again")
        first = await agent.conn.list_sessions(cwd=str(agent.workdir))
        assert len(first.sessions) == 50 and first.next_cursor
        second = await agent.conn.list_sessions(cwd=str(agent.workdir), cursor=first.next_cursor)
        assert len(second.sessions) == 5 and second.next_cursor is None
        listed = first.sessions + second.sessions
        assert {s.session_id for s in listed} == set(ids)
        assert listed[0].session_id == ids[1]
        assert listed[0].title == "Task number 1"
        assert all(s.cwd == str(agent.workdir) for s in listed)
        stamps = [s.updated_at for s in listed]
        assert stamps == sorted(stamps, reverse=True)
        assert stamps[0].endswith("+00:00")
        everything = await agent.conn.list_sessions()
        assert len(everything.sessions) == 50 and everything.next_cursor


async def test_four_concurrent_sessions_never_cross(tmp_path):
    script = [
        {"match": f"session {i}", "blocks": [{"type": "text", "text": " ".join([f"s{i}"] * 30)}], "chunk_delay_ms": 5}
        for i in range(4)
    ]
    async with serve_agent(tmp_path / "proj", script=script) as agent:
        sids = [await agent.new_session() for _ in range(4)]
        results = await asyncio.gather(*(agent.prompt(s, f"session {i}") for i, s in enumerate(sids)))
        assert [r.stop_reason for r in results] == ["end_turn"] * 4
        for i, sid in enumerate(sids):
            chunks = [u.content.text.strip() for u in agent.updates(sid, AgentMessageChunk)]
            assert chunks == [f"s{i}"] * 30
    for sid in sids:
        lines = (agent.config_dir / "sessions" / f"{sid}.jsonl").read_text().splitlines()
        records = [json.loads(line) for line in lines]
        assert [r["message"]["role"] for r in records] == ["user", "assistant"]


async def test_a_killed_server_loses_at_most_the_message_in_flight(tmp_path):
    slow = {"blocks": [{"type": "text", "text": " ".join(["slow"] * 500)}], "chunk_delay_ms": 50}
    async with spawn_agent(tmp_path / "proj", script=[SCRIPT[1], slow]) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, "first question")
        asyncio.create_task(agent.prompt(sid, "second question"))
        await wait_for(lambda: "slow" in agent.text(sid))
        os.kill(agent.proc.pid, signal.SIGKILL)
        await agent.proc.wait()
    async with serve_agent(tmp_path / "proj", script=SCRIPT[2:]) as agent:
        await agent.conn.load_session(cwd=str(agent.workdir), session_id=sid, mcp_servers=[])
        users = [u.content.text for u in agent.updates(sid, UserMessageChunk)]
        assert users == ["first question", "second question"]
        assert agent.text(sid) == "The VPC looks fine."
        assert (await agent.prompt(sid, "third")).stop_reason == "end_turn"


async def test_a_dangling_tool_use_is_repaired_on_load(tmp_path):
    sid = await _first_session(tmp_path)
    history = tmp_path / "iac-config" / "sessions" / f"{sid}.jsonl"
    dangling = {
        "type": "message",
        "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_dangling", "name": "read_file", "input": {"path": "main.tf"}}],
        },
    }
    with open(history, "a") as f:
        f.write(json.dumps(dangling) + "\n")
        f.write('{"type": "message", "message": {"role": "us')  # a torn last line
    async with serve_agent(tmp_path / "proj", script=SCRIPT[2:]) as agent:
        await agent.conn.load_session(cwd=str(agent.workdir), session_id=sid, mcp_servers=[])
        calls = agent.tool_calls(sid)
        final = calls["toolu_dangling"][-1]
        assert final.status == "failed"
        assert "Interrupted" in final.raw_output["error"]
        assert (await agent.prompt(sid, "carry on")).stop_reason == "end_turn"


async def test_secrets_never_reach_session_files_or_logs(tmp_path):
    key = "sk-ant-test-SECRET-0123456789abcdef"
    async with spawn_agent(tmp_path / "proj", script=SCRIPT, env={"ANTHROPIC_API_KEY": key}) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, f"my key is {key}, keep it safe")
    stored = (agent.config_dir / "sessions" / f"{sid}.jsonl").read_text()
    assert key not in stored and "[REDACTED]" in stored
    for path in agent.config_dir.rglob("*"):
        if path.is_file():
            assert key not in path.read_text(errors="replace"), path


async def test_attached_files_are_replayed_as_resource_blocks(tmp_path):
    script = [{"blocks": [{"type": "text", "text": "seen"}]}]
    async with serve_agent(tmp_path / "proj", script=script) as agent:
        sid = await agent.new_session()
        await agent.conn.prompt(
            session_id=sid,
            prompt=[
                acp.text_block("check these"),
                acp.resource_block(acp.embedded_text_resource("file:///p/main.tf", 'resource "x" "y" {}\n')),
                acp.resource_link_block("vars.tf", "file:///p/vars.tf"),
            ],
        )
    async with serve_agent(tmp_path / "proj", script=script) as agent:
        await agent.conn.load_session(cwd=str(agent.workdir), session_id=sid, mcp_servers=[])
        text, embedded, link = [u.content for u in agent.updates(sid, UserMessageChunk)]
    assert text.text == "check these"
    assert embedded.type == "resource"
    assert (embedded.resource.uri, embedded.resource.text) == ("file:///p/main.tf", 'resource "x" "y" {}\n')
    assert (link.type, link.name, link.uri) == ("resource_link", "vars.tf", "file:///p/vars.tf")
