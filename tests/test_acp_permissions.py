"""Permission requests: options, decisions by kind, remembered answers, modes, paths outside cwd."""

from __future__ import annotations

import pytest
from harness import RecordingClient, serve_agent


def write(path: str, content: str) -> dict:
    return {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": path, "content": content}}]}


def say(text: str, match: str | None = None) -> dict:
    turn = {"blocks": [{"type": "text", "text": text}]}
    if match:
        turn["match"] = match
    return turn


async def test_allow_once_runs_the_tool_and_the_request_matches_the_call(tmp_path):
    async with serve_agent(tmp_path / "proj", script=[write("main.tf", "# vpc\n"), say("written")]) as agent:
        sid = await agent.new_session()
        result = await agent.prompt(sid, "write it")
        assert result.stop_reason == "end_turn"
        (request,) = agent.client.permissions
        assert [(o.option_id, o.kind) for o in request.options] == [
            ("allow_once", "allow_once"),
            ("allow_always", "allow_always"),
            ("reject_once", "reject_once"),
            ("reject_always", "reject_always"),
        ]
        (call_id,) = agent.tool_calls(sid)
        assert request.tool_call.tool_call_id == call_id
        assert request.tool_call.kind == "edit"
        assert request.tool_call.raw_input == {"path": "main.tf", "content": "# vpc\n"}
        assert agent.final_status(sid) == {call_id: "completed"}
    assert (tmp_path / "proj" / "main.tf").read_text() == "# vpc\n"


async def test_reject_once_tells_the_model_and_the_turn_goes_on(tmp_path):
    script = [write("main.tf", "x"), say("ok, I will not write", match="Permission denied.")]
    client = RecordingClient(answers=["reject_once"])
    async with serve_agent(tmp_path / "proj", script=script, client=client) as agent:
        sid = await agent.new_session()
        result = await agent.prompt(sid, "write it")
        assert result.stop_reason == "end_turn"
        assert agent.text(sid) == "ok, I will not write"
        (call_id,) = agent.tool_calls(sid)
        last = agent.tool_calls(sid)[call_id][-1]
        assert last.status == "failed" and last.raw_output == {"error": "Permission denied."}
    assert not (tmp_path / "proj" / "main.tf").exists()


@pytest.mark.parametrize(("answer", "written"), [("allow_always", True), ("reject_always", False)])
async def test_always_answers_hold_for_the_session(tmp_path, answer, written):
    script = [write("a.tf", "a"), write("b.tf", "b"), say("done")]
    client = RecordingClient(answers=[answer])
    async with serve_agent(tmp_path / "proj", script=script, client=client) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, "write both")
        assert len(agent.client.permissions) == 1
        statuses = list(agent.final_status(sid).values())
        assert statuses == (["completed", "completed"] if written else ["failed", "failed"])
    assert (tmp_path / "proj" / "b.tf").exists() is written


async def test_a_cancelled_answer_ends_the_turn_cancelled(tmp_path):
    script = [write("main.tf", "x"), say("never said")]
    client = RecordingClient(answers=["cancelled"])
    async with serve_agent(tmp_path / "proj", script=script, client=client) as agent:
        sid = await agent.new_session()
        result = await agent.prompt(sid, "write it")
        assert result.stop_reason == "cancelled"
        assert list(agent.final_status(sid).values()) == ["failed"]
        # no model request was made after the cancel: the next prompt gets the next turn
        assert (await agent.prompt(sid, "hello")).stop_reason == "end_turn"
        assert agent.text(sid) == "never said"
    assert not (tmp_path / "proj" / "main.tf").exists()


async def test_decision_follows_the_option_kind_not_its_position(tmp_path):
    # an option id the agent did not offer is treated as a rejection
    script = [write("main.tf", "x"), say("fine")]
    client = RecordingClient(answers=["approve_everything"])
    async with serve_agent(tmp_path / "proj", script=script, client=client) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, "write")
        # the client was asked, and its answer was read as a rejection (not as, say, the first option)
        assert len(agent.client.permissions) == 1
        (call_id,) = agent.tool_calls(sid)
        last = agent.tool_calls(sid)[call_id][-1]
        assert last.status == "failed" and last.raw_output == {"error": "Permission denied."}
    assert not (tmp_path / "proj" / "main.tf").exists()


async def test_accept_edits_mode_writes_inside_cwd_without_asking(tmp_path):
    script = [write("main.tf", "x"), say("done")]
    async with serve_agent(tmp_path / "proj", script=script, env={"IAC_CODE_PERMISSION_MODE": "accept_edits"}) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, "write")
        assert agent.client.permissions == []
    assert (tmp_path / "proj" / "main.tf").read_text() == "x"


@pytest.mark.parametrize("mode", ["default", "accept_edits", "bypass_permissions"])
async def test_writes_outside_cwd_always_ask(tmp_path, mode):
    outside = tmp_path / "elsewhere.tf"
    script = [write(str(outside), "x"), write(str(outside), "y"), say("done")]
    client = RecordingClient(answers=["allow_always", "reject_once"])
    async with serve_agent(tmp_path / "proj", script=script, client=client) as agent:
        sid = await agent.new_session()
        await agent.conn.set_session_mode(session_id=sid, mode_id=mode)
        await agent.prompt(sid, "write outside")
        # allow_always for the first call does not cover the second write outside cwd
        assert len(agent.client.permissions) == 2
    assert outside.read_text() == "x"


async def test_plan_mode_refuses_writes_without_running_or_asking(tmp_path):
    script = [write("main.tf", "x"), say("understood", match="Plan mode is read-only")]
    async with serve_agent(tmp_path / "proj", script=script) as agent:
        sid = await agent.new_session()
        await agent.conn.set_session_mode(session_id=sid, mode_id="plan")
        await agent.prompt(sid, "write")
        assert agent.client.permissions == []
        assert list(agent.final_status(sid).values()) == ["failed"]
        assert agent.text(sid) == "understood"
    assert not (tmp_path / "proj" / "main.tf").exists()


async def test_bash_asks_in_accept_edits_and_runs_in_bypass(tmp_path):
    cmd = {"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": "echo hi > out.txt"}}]}
    script = [cmd, say("one"), cmd, say("two")]
    async with serve_agent(tmp_path / "proj", script=script, client=RecordingClient(answers=["reject_once"])) as agent:
        sid = await agent.new_session()
        await agent.conn.set_session_mode(session_id=sid, mode_id="accept_edits")
        await agent.prompt(sid, "run")
        assert len(agent.client.permissions) == 1
        assert not (tmp_path / "proj" / "out.txt").exists()
        await agent.conn.set_session_mode(session_id=sid, mode_id="bypass_permissions")
        await agent.prompt(sid, "run again")
        assert len(agent.client.permissions) == 1
    assert (tmp_path / "proj" / "out.txt").read_text() == "hi\n"


async def test_reading_outside_cwd_asks(tmp_path):
    secret = tmp_path / "outside.txt"
    secret.write_text("outside\n")
    read = {"blocks": [{"type": "tool_use", "name": "read_file", "input": {"path": str(secret)}}]}
    inside = {"blocks": [{"type": "tool_use", "name": "read_file", "input": {"path": "main.tf"}}]}
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "main.tf").write_text("inside\n")
    client = RecordingClient(answers=["reject_once"])
    async with serve_agent(tmp_path / "proj", script=[inside, read, say("done")], client=client) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, "read both")
        assert len(agent.client.permissions) == 1
        assert agent.client.permissions[0].tool_call.raw_input == {"path": str(secret)}
        assert list(agent.final_status(sid).values()) == ["completed", "failed"]
