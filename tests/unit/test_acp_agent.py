"""The ACP agent (`IacAgent`) in process, with a recording stand-in for the client connection:
races between requests that the process-level tests cannot time precisely."""

from __future__ import annotations

import asyncio
import json
import os
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import acp
import pytest
from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
)

from iac_code.acp.server import IacAgent
from iac_code.config import Settings
from iac_code.providers.scripted import ScriptedProvider

SLOW = {"blocks": [{"type": "text", "text": " ".join(f"w{i}" for i in range(100))}], "chunk_delay_ms": 50}
QUICK = {"blocks": [{"type": "text", "text": "quick"}]}


class FakeConn:
    """Records updates and answers permission requests with `answer` (an option id or `cancelled`).

    `on_update` (optional) is awaited after each update is recorded, like a client reacting to it.
    """

    def __init__(self) -> None:
        self.updates: dict[str, list[Any]] = defaultdict(list)
        self.answer = "allow_once"
        self.on_update: Callable[[str, Any], Awaitable[None]] | None = None

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates[session_id].append(update)
        if self.on_update is not None:
            await self.on_update(session_id, update)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
        if self.answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=self.answer))


@pytest.fixture
def conn() -> FakeConn:
    """The client side of the agent's connection."""
    return FakeConn()


@pytest.fixture
async def agent(conn: FakeConn, tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    for name in list(os.environ):
        if name.startswith(("IAC_CODE_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("IAC_CODE_CONFIG_DIR", str(tmp_path / "cfg"))  # config.json is read from there
    turns = getattr(request, "param", [SLOW, QUICK])
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": turns}))
    settings = Settings(config_dir=tmp_path / "cfg", model="scripted", script=script, permission_mode="default")
    agent = IacAgent(settings)
    agent.on_connect(conn)
    await agent.initialize(protocol_version=1)
    (tmp_path / "proj").mkdir()
    agent.cwd = str(tmp_path / "proj")  # type: ignore[attr-defined]
    yield agent
    await agent.shutdown()


async def _new(agent: IacAgent) -> str:
    return (await agent.new_session(cwd=agent.cwd, mcp_servers=[])).session_id  # type: ignore[attr-defined]


def _prompt(agent: IacAgent, sid: str, text: str):
    return agent.prompt(session_id=sid, prompt=[acp.text_block(text)])


async def test_two_prompts_sent_together_leave_the_running_one_cancellable(agent):
    sid = await _new(agent)
    first = asyncio.create_task(_prompt(agent, sid, "one"))
    second = asyncio.create_task(_prompt(agent, sid, "two"))
    with pytest.raises(RequestError) as err:
        await second
    assert err.value.code == -32602 and "sessionId" in err.value.data
    await agent.cancel(session_id=sid)
    result = await asyncio.wait_for(first, 2)
    assert result.stop_reason == "cancelled"


async def test_close_during_a_turn_shuts_the_session_to_every_later_request(agent):
    sid = await _new(agent)
    turn = asyncio.create_task(_prompt(agent, sid, "one"))
    await asyncio.sleep(0.2)
    closes = [asyncio.create_task(agent.close_session(session_id=sid)) for _ in range(2)]
    late = asyncio.create_task(_prompt(agent, sid, "two"))
    assert (await asyncio.wait_for(turn, 2)).stop_reason == "cancelled"
    outcomes = await asyncio.gather(*closes, late, return_exceptions=True)
    errors = [o for o in outcomes if isinstance(o, RequestError)]
    assert len(errors) == 2, outcomes  # the second close and the late prompt
    assert all(e.code == -32602 and "sessionId" in e.data for e in errors)
    assert sid not in agent.sessions


@pytest.mark.parametrize("agent", [[QUICK]], indirect=True)  # (the default first turn streams for 5 s)
async def test_loading_a_live_idle_session_releases_the_old_one(agent, monkeypatch):
    closed: list[ScriptedProvider] = []

    async def aclose(provider: ScriptedProvider) -> None:
        closed.append(provider)

    monkeypatch.setattr(ScriptedProvider, "aclose", aclose)
    sid = await _new(agent)
    assert (await _prompt(agent, sid, "one")).stop_reason == "end_turn"
    old = agent.sessions[sid]
    assert closed == []  # the turn's model connection is open
    await agent.load_session(cwd=agent.cwd, session_id=sid, mcp_servers=[])
    assert agent.sessions[sid] is not old
    assert len(closed) == 1  # its model connection was closed


def _write(path: str) -> dict:
    return {"type": "tool_use", "name": "write_file", "input": {"path": path, "content": "x"}}


@pytest.mark.parametrize("agent", [[{"blocks": [_write("a.tf"), _write("b.tf"), _write("c.tf")]}]], indirect=True)
async def test_a_second_cancel_while_the_first_is_settled_still_ends_every_call(agent, conn):
    sid = await _new(agent)
    conn.answer = "cancelled"  # the first cancel: the client cancels the permission prompt

    async def cancel_again(session_id: str, update: Any) -> None:
        if isinstance(update, ToolCallProgress) and update.status == "failed":
            await agent.cancel(session_id=session_id)  # e.g. the user presses Esc twice
            await asyncio.sleep(0)

    conn.on_update = cancel_again
    result = await asyncio.wait_for(_prompt(agent, sid, "write three"), 2)
    assert result.stop_reason == "cancelled"
    final: dict[str, str] = {}
    for u in conn.updates[sid]:
        if isinstance(u, ToolCallStart | ToolCallProgress) and u.status:
            final[u.tool_call_id] = u.status
    assert list(final.values()) == ["failed"] * 3


@pytest.mark.parametrize("agent", [[QUICK]], indirect=True)
async def test_a_cancel_at_the_usage_update_keeps_the_answer_in_the_history(agent, conn):
    sid = await _new(agent)

    async def cancel_at_usage(session_id: str, update: Any) -> None:
        if isinstance(update, UsageUpdate):
            await agent.cancel(session_id=session_id)
            await asyncio.sleep(0)

    conn.on_update = cancel_at_usage
    assert (await _prompt(agent, sid, "hi")).stop_reason == "cancelled"
    history = agent.sessions[sid].conversation.messages
    assert [(m.role, m.text()) for m in history] == [("user", "hi"), ("assistant", "quick")]


@pytest.mark.parametrize("agent", [[{"blocks": [_write("a.tf")]}, {"blocks": [{"type": "text", "text": "not written"}]}]], indirect=True)
async def test_a_client_that_fails_the_permission_request_gets_a_rejection_not_an_internal_error(agent, conn):
    sid = await _new(agent)

    async def broken(**_: Any) -> Any:
        raise RequestError.method_not_found("session/request_permission")

    conn.request_permission = broken
    result = await _prompt(agent, sid, "write it")
    assert result.stop_reason == "end_turn"
    final = [u for u in conn.updates[sid] if isinstance(u, ToolCallProgress) and u.status]
    assert final[-1].status == "failed" and final[-1].raw_output == {"error": "Permission denied."}
    assert not (Path(agent.cwd) / "a.tf").exists()


SUBAGENT_FAILS = [
    {"blocks": [{"type": "tool_use", "name": "agent", "input": {"prompt": "survey the modules"}}]},
    {"blocks": [{"type": "error", "kind": "overloaded", "message": "try later"}]},  # the sub-agent's request
    {"match": "The sub-agent failed", "blocks": [{"type": "text", "text": "told of the failure"}]},
    {"blocks": [{"type": "text", "text": "told nothing"}]},
]


@pytest.mark.parametrize("agent", [SUBAGENT_FAILS], indirect=True)
async def test_a_sub_agent_whose_model_request_fails_fails_its_tool_call(agent, conn):
    sid = await _new(agent)
    assert (await _prompt(agent, sid, "use a sub-agent")).stop_reason == "end_turn"
    updates = conn.updates[sid]
    final = [u for u in updates if isinstance(u, ToolCallProgress) and u.status in ("completed", "failed")]
    assert [u.status for u in final] == ["failed"]
    assert "overloaded" in final[0].raw_output["error"] and "try later" in final[0].raw_output["error"]
    assert "".join(u.content.text for u in updates if type(u).__name__ == "AgentMessageChunk") == "told of the failure"


@pytest.mark.parametrize("agent", [[QUICK]], indirect=True)
async def test_a_second_shutdown_waits_for_the_first_and_a_cancelled_caller_does_not_cut_it_short(agent, monkeypatch):
    """stdin's end and a signal (or a test's teardown) both await `shutdown()`: the second must
    not return while the first still stops the sessions, nor a cancelled first caller stop them short."""
    entered, release = asyncio.Event(), asyncio.Event()
    closed: list[ScriptedProvider] = []

    async def aclose(provider: ScriptedProvider) -> None:  # the last step of a session's close
        entered.set()
        await release.wait()
        closed.append(provider)

    monkeypatch.setattr(ScriptedProvider, "aclose", aclose)
    sid = await _new(agent)
    assert (await _prompt(agent, sid, "one")).stop_reason == "end_turn"
    first = asyncio.create_task(agent.shutdown())
    await asyncio.wait_for(entered.wait(), 5)
    second = asyncio.create_task(agent.shutdown())
    await asyncio.wait([second], timeout=0.1)
    assert not second.done()  # it cannot end before the session's close does
    first.cancel()
    await asyncio.wait([first])
    release.set()
    await asyncio.wait_for(second, 5)
    assert len(closed) == 1 and not agent.sessions
