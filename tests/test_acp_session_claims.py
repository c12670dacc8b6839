"""One session is live in at most one place (PROTOCOL.md, Storage), and a load never moves or doubles it."""

from __future__ import annotations

import asyncio
import json

from harness import spawn_raw

SCRIPT = [{"blocks": [{"type": "text", "text": "noted"}]}] * 4


async def _session_with_history(agent, project) -> str:
    await agent.initialize()
    sid = (await agent.request("session/new", {"cwd": str(project), "mcpServers": []}))["result"]["sessionId"]
    reply = await agent.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "remember"}]})
    assert reply["result"]["stopReason"] == "end_turn"
    return sid


def _load(sid: str, cwd) -> dict:
    return {"sessionId": sid, "cwd": str(cwd), "mcpServers": []}


async def test_a_session_live_in_one_process_is_refused_to_another(tmp_path):
    project = tmp_path / "proj"
    async with spawn_raw(project, script=SCRIPT) as first, spawn_raw(project, script=SCRIPT) as second:
        sid = await _session_with_history(first, project)
        await second.initialize()
        for method in ("session/load", "session/resume"):
            reply = await second.request(method, _load(sid, project))
            assert reply["error"]["code"] == -32602, method
            assert "in use by another iac-code process" in reply["error"]["data"]["sessionId"]
        # the first process still runs it, and its history is not interleaved
        assert (await first.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "again"}]}))["result"]
        # once the first process closes it, the second may load it
        assert "result" in await first.request("session/close", {"sessionId": sid})
        assert "result" in await second.request("session/load", _load(sid, project))
        # and now the first one is refused
        assert (await first.request("session/load", _load(sid, project)))["error"]["code"] == -32602


async def test_a_killed_process_leaves_no_claim_behind(tmp_path):
    project = tmp_path / "proj"
    async with spawn_raw(project, script=SCRIPT) as first:
        sid = await _session_with_history(first, project)
        first.proc.kill()
        await first.proc.wait()
    async with spawn_raw(project, script=SCRIPT) as second:
        await second.initialize()
        assert "result" in await second.request("session/load", _load(sid, project))


async def test_load_with_another_cwd_is_refused_and_does_not_move_the_session(tmp_path):
    project, elsewhere = tmp_path / "proj", tmp_path / "elsewhere"
    elsewhere.mkdir(parents=True)
    async with spawn_raw(project, script=SCRIPT) as agent:
        sid = await _session_with_history(agent, project)
        assert "result" in await agent.request("session/close", {"sessionId": sid})
        for method in ("session/load", "session/resume"):
            reply = await agent.request(method, _load(sid, elsewhere))
            assert reply["error"]["code"] == -32602, method
            assert str(project) in reply["error"]["data"]["cwd"]
        listed = await agent.request("session/list", {"cwd": str(project)})
        assert [s["sessionId"] for s in listed["result"]["sessions"]] == [sid]
        assert (await agent.request("session/list", {"cwd": str(elsewhere)}))["result"]["sessions"] == []
    meta = json.loads((tmp_path / "iac-config" / "sessions" / f"{sid}.json").read_text())
    assert meta["cwd"] == str(project)


async def test_two_loads_of_one_session_at_once_replay_it_once(tmp_path):
    project = tmp_path / "proj"
    async with spawn_raw(project, script=SCRIPT) as agent:
        await agent.initialize()
        sid = (await agent.request("session/new", {"cwd": str(project), "mcpServers": []}))["result"]["sessionId"]
        # a history long enough that its replay fills the pipe, so the two loads overlap
        long_text = "remember " + "x" * 400_000
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": long_text}]}
        assert (await agent.request("session/prompt", prompt))["result"]["stopReason"] == "end_turn"
        assert "result" in await agent.request("session/close", {"sessionId": sid})
        agent.notifications.clear()
        for request_id in (501, 502):
            await agent.send({"jsonrpc": "2.0", "id": request_id, "method": "session/load", "params": _load(sid, project)})
        replies = {}
        async with asyncio.timeout(20):
            while len(replies) < 2:
                message = await agent.read()
                if "id" in message and "method" not in message:
                    replies[message["id"]] = message
                elif message.get("method") == "session/update":
                    agent.notifications.append(message)
        assert "result" in replies[501] and "result" in replies[502]  # both succeed
        assert replies[502]["result"] == replies[501]["result"]
        user_chunks = [
            n for n in agent.notifications
            if n["params"]["update"]["sessionUpdate"] == "user_message_chunk"
        ]  # fmt: skip
        assert [c["params"]["update"]["content"]["text"] for c in user_chunks] == [long_text]
