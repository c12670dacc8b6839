"""The agent process: start failures, crashes, a chatty stderr, restart; the environment it gets."""

from __future__ import annotations

import sys

import pytest

from iac_tui.launch import AgentCommand, agent_environment, parse_agent_command
from iac_tui.widgets.agent_error import AgentError
from iac_tui.widgets.message import AgentMessage
from tui_support import python_agent, ready, send, turn_done, wait_until

pytestmark = pytest.mark.spawned_agent  # the agent process dies, restarts, writes stderr


def error_text(app) -> str:
    block = app.query_one(AgentError)
    return block.reason + "\n" + "\n".join(block.stderr_tail)


async def test_missing_program_is_reported_in_place(ws):
    app = ws.app([], agent=AgentCommand(("/nonexistent/acp-agent", "--stdio")))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.query(AgentError), what="the error")
        assert app.agents.state == "stopped"  # recorded before the error block is drawn
        assert "Could not start the agent" in app.query_one(AgentError).reason
        assert app.check_action("restart_agent", ()) is True


async def test_agent_exiting_with_an_error_shows_its_stderr(ws):
    code = "import sys; sys.stderr.write('config error: no such profile\\n'); sys.exit(3)"
    app = ws.app([], agent=python_agent(code))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.query(AgentError), what="the error")
        text = error_text(app)
        assert "exited with status 3" in text
        assert "config error: no such profile" in text
        log = app.query_one(AgentError).log_path
        assert log and "config error" in open(log).read()


async def test_agent_that_never_answers_initialize_does_not_hang(ws, monkeypatch):
    import iac_tui.connection as connection

    monkeypatch.setattr(connection, "INITIALIZE_TIMEOUT", 1.0)
    app = ws.app([], agent=python_agent("import time; time.sleep(60)"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.query(AgentError), what="the error")
        assert "did not answer initialize" in app.query_one(AgentError).reason


async def test_agent_killed_mid_turn_then_restarted(ws):
    long = " ".join(f"word{i}" for i in range(400))
    turns = [
        {"match": "long", "blocks": [{"type": "text", "text": long}], "chunk_delay_ms": 20},
        {"match": "again", "blocks": [{"type": "text", "text": "Back again."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(100, 30)) as pilot:
        session_id = await ready(pilot)
        await send(pilot, "long answer")
        await wait_until(pilot, lambda: app.query(AgentMessage) and len(app.query_one(AgentMessage).source) > 50, what="streaming")
        app.agents.connection.process.kill()
        await wait_until(pilot, lambda: app.query(AgentError), what="the error")
        assert "was killed by SIGKILL" in app.query_one(AgentError).reason
        assert not app.turns.busy
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.agents.state == "ready" and app.agents.agent is not None, what="the restart")
        await wait_until(pilot, lambda: any("Agent restarted" in n.text for n in app.query("Note")), what="the resume")
        assert app.state.session_id == session_id  # the same session goes on
        await send(pilot, "again please")
        await turn_done(pilot)
        assert app.query(AgentMessage).last().source == "Back again."


async def test_chatty_stderr_does_not_block_the_agent(ws):
    # 4 MB on stderr before the agent starts: far beyond a pipe buffer
    code = (
        "import os, sys\n"
        "sys.stderr.write(('x' * 1023 + '\\n') * 4096)\n"
        "sys.stderr.flush()\n"
        "os.execv(sys.executable, [sys.executable, '-m', 'iac_code', 'acp'])\n"
    )
    app = ws.app([{"blocks": [{"type": "text", "text": "Still here."}]}], agent=python_agent(code))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await turn_done(pilot)
        assert app.query_one(AgentMessage).source == "Still here."
        assert app.agents.connection.stderr.bytes_read >= 4 * 1024 * 1024
        assert app.agents.connection.stderr.path.stat().st_size >= 4 * 1024 * 1024


def test_agent_environment_passes_the_users_variables():
    env = agent_environment(
        {"ANTHROPIC_API_KEY": "sk-test", "IAC_CODE_MODEL": "scripted", "LANG": "C.UTF-8", "HTTPS_PROXY": "http://p", "BASH_FUNC_x%%": "() { :; }"},
        {"EXTRA": "1"},
    )
    assert env["ANTHROPIC_API_KEY"] == "sk-test"
    assert env["IAC_CODE_MODEL"] == "scripted"
    assert env["LANG"] == "C.UTF-8" and env["HTTPS_PROXY"] == "http://p"
    assert env["EXTRA"] == "1"
    assert "BASH_FUNC_x%%" not in env


def test_parse_agent_command():
    assert parse_agent_command('npx "@zed/claude-code-acp" --debug').argv == ("npx", "@zed/claude-code-acp", "--debug")
    assert str(AgentCommand((sys.executable, "-m", "iac_code", "acp"))).endswith("-m iac_code acp")
    for bad in ("", "   ", "'unterminated"):
        try:
            parse_agent_command(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} accepted")


def raw_agent(on_prompt: str = "", answer_new_session: bool = True) -> AgentCommand:
    """A bare-bones agent speaking JSON-RPC by hand: it answers initialize (and session/new), then
    runs `on_prompt` when a prompt comes."""
    code = (
        "import json, os, sys, time\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    method = msg.get('method')\n"
        "    if method == 'initialize':\n"
        "        result = {'protocolVersion': 1, 'agentCapabilities': {}}\n"
        f"    elif method == 'session/new' and {answer_new_session!r}:\n"
        "        result = {'sessionId': 'raw-1'}\n"
        "    elif method == 'session/prompt':\n"
        f"        {on_prompt or 'continue'}\n"
        "        continue\n"
        "    else:\n"
        "        continue\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': msg['id'], 'result': result}), flush=True)\n"
    )
    return python_agent(code)


async def test_agent_that_closes_its_output_but_lives_on_is_reported(ws):
    agent = raw_agent(on_prompt="sys.stderr.write('closing stdout\\n'); sys.stderr.flush(); os.close(1); time.sleep(60)")
    app = ws.app([], agent=agent)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.state.session_id == "raw-1", what="a session")
        app.prompt_box.load_text("hello")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.query(AgentError), timeout=10, what="the error")
        assert "closed its output" in app.query_one(AgentError).reason
        assert "closing stdout" in error_text(app)
        assert not app.turns.busy and app.check_action("restart_agent", ()) is True
        assert app.agents.connection.process.returncode is not None  # stopped, not left running


async def test_agent_that_never_opens_a_session_does_not_hang(ws, monkeypatch):
    import iac_tui.app

    monkeypatch.setattr(iac_tui.app, "SESSION_TIMEOUT", 1.0)
    app = ws.app([], agent=raw_agent(answer_new_session=False))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.query(AgentError), timeout=10, what="the error")
        assert "did not open a session" in app.query_one(AgentError).reason
        assert app.check_action("restart_agent", ()) is True


async def test_junk_on_stdout_and_a_hang_give_a_clear_error_within_the_timeout(ws, monkeypatch):
    import os

    import iac_tui.connection as connection

    monkeypatch.setattr(connection, "INITIALIZE_TIMEOUT", 1.5)
    app = ws.app([], agent=AgentCommand(("sh", "-c", "echo hello not json; sleep 100")))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.indicator.running, what="the spinner")
        assert app.indicator.label == "Starting the agent…"
        # a sleeping child of the shell must not keep the app waiting for 100 s
        await wait_until(pilot, lambda: app.query(AgentError), timeout=10, what="the error")
        reason = app.query_one(AgentError).reason
        assert "did not answer initialize within" in reason
        assert "hello not json" in reason
        assert not app.indicator.running
        group = app.agents.connection.process.pid
        await wait_until(pilot, lambda: _group_gone(group), timeout=5, what="the process group to end")
        assert os.getpgid(os.getpid()) != group


def _group_gone(pgid: int) -> bool:
    import os

    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_unfinished_tool_calls_are_marked_interrupted_when_the_turn_ends(ws):
    from iac_tui.widgets.tool_call import ToolCallPanel
    from scenario_agent import scenario_command

    app = ws.app(agent=scenario_command("unfinished"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await turn_done(pilot)
        panels = list(app.query(ToolCallPanel))
        assert [p.status for p in panels] == ["interrupted", "interrupted"]
        assert all("interrupted" in str(p.query_one(".tool-status").render()) for p in panels)


async def test_a_dying_agent_interrupts_its_tool_calls_and_a_restart_keeps_the_conversation(ws):
    from iac_tui.widgets.tool_call import ToolCallPanel
    from scenario_agent import scenario_command

    app = ws.app(agent=scenario_command("dies"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "apply it")
        await wait_until(pilot, lambda: app.query(AgentError), what="the error")
        panel = app.query_one(ToolCallPanel)
        assert panel.status == "interrupted"
        assert "exited with status 1" in app.query_one(AgentError).reason
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: app.agents.state == "ready" and app.state.session_id, what="the restart")
        await wait_until(pilot, lambda: any("Agent restarted" in n.text for n in app.query("Note")), what="the note")
        # this agent cannot resume or load: the old conversation stays on screen above the new session
        assert panel.is_attached and app.query_one(AgentError).is_attached
        assert any(m.text == "apply it" for m in app.query("UserMessage"))
