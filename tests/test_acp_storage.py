"""Storage that cannot be written (PROTOCOL.md, Storage): the reason in plain words, nothing lost after."""

from __future__ import annotations

import json
import os
import resource
import subprocess
from pathlib import Path

import pytest
from harness import spawn_raw

SCRIPT = [{"blocks": [{"type": "text", "text": "noted"}]}] * 6


def _set_writable(path: Path, writable: bool) -> None:
    """Make `path` unwritable or writable again, also for root (who ignores permission bits)."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i" if writable else "+i", str(path)], check=True)
    else:
        path.chmod(0o700 if path.is_dir() else 0o600) if writable else path.chmod(0o500 if path.is_dir() else 0o400)


@pytest.fixture
def unwritable():
    """`unwritable(path)` for the test's duration; made writable again afterwards whatever happens."""
    made: list[Path] = []

    def make(path: Path) -> None:
        _set_writable(path, False)
        made.append(path)

    yield make
    for path in made:
        _set_writable(path, True)


def _prompt(sid: str, text: str) -> dict:
    return {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}


def _chunks(agent, sid: str) -> str:
    return "".join(
        n["params"]["update"]["content"]["text"]
        for n in agent.notifications
        if n["params"]["sessionId"] == sid and n["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    )


def _user_texts(history: Path) -> list[str]:
    texts = []
    for line in history.read_text().splitlines():
        record = json.loads(line)  # every line is a whole record: nothing torn or glued
        if record["type"] == "message" and record["message"]["role"] == "user":
            texts.append(record["message"]["content"][0]["text"])
    return texts


async def test_an_unwritable_sessions_dir_is_reported_in_plain_words(tmp_path, unwritable):
    project = tmp_path / "proj"
    sessions = tmp_path / "iac-config" / "sessions"
    async with spawn_raw(project, script=SCRIPT) as agent:
        await agent.initialize()
        sid = (await agent.request("session/new", {"cwd": str(project), "mcpServers": []}))["result"]["sessionId"]
        unwritable(sessions)
        reply = await agent.request("session/new", {"cwd": str(project), "mcpServers": []})
        assert reply["error"]["code"] == -32603
        reason = reply["error"]["data"]["reason"]
        assert str(sessions) in reason and ("not permitted" in reason or "Permission denied" in reason)
        reply = await agent.request("session/set_mode", {"sessionId": sid, "modeId": "plan"})
        assert reply["error"]["code"] == -32603 and "metadata" in reply["error"]["data"]["reason"]
        assert "Traceback" not in agent.stderr()
        assert "result" in await agent.request("session/list", {})


async def test_a_prompt_whose_history_cannot_be_written_is_reported_and_kept(tmp_path, unwritable):
    project = tmp_path / "proj"
    async with spawn_raw(project, script=SCRIPT) as agent:
        await agent.initialize()
        sid = (await agent.request("session/new", {"cwd": str(project), "mcpServers": []}))["result"]["sessionId"]
        history = tmp_path / "iac-config" / "sessions" / f"{sid}.jsonl"
        assert (await agent.request("session/prompt", _prompt(sid, "first")))["result"]["stopReason"] == "end_turn"

        unwritable(history)
        reply = await agent.request("session/prompt", _prompt(sid, "second"))
        assert reply["error"]["code"] == -32603
        reason = reply["error"]["data"]["reason"]
        assert reason.startswith("Could not save the session history") and str(history) in reason
        assert reason in _chunks(agent, sid)  # the client is told in the conversation too

        _set_writable(history, True)
        assert (await agent.request("session/prompt", _prompt(sid, "third")))["result"]["stopReason"] == "end_turn"
    assert _user_texts(history) == ["first", "second", "third"]


async def test_a_full_disk_mid_record_loses_nothing_once_space_returns(tmp_path):
    project = tmp_path / "proj"
    async with spawn_raw(project, script=SCRIPT) as agent:
        await agent.initialize()
        sid = (await agent.request("session/new", {"cwd": str(project), "mcpServers": []}))["result"]["sessionId"]
        history = tmp_path / "iac-config" / "sessions" / f"{sid}.jsonl"
        assert (await agent.request("session/prompt", _prompt(sid, "first")))["result"]["stopReason"] == "end_turn"

        # a file-size limit stands in for a full disk: the next record is written only in part
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.prlimit(agent.proc.pid, resource.RLIMIT_FSIZE, (history.stat().st_size + 100, hard))
        reply = await agent.request("session/prompt", _prompt(sid, "second " + "x" * 5000))
        assert reply["error"]["code"] == -32603
        assert "File too large" in reply["error"]["data"]["reason"]

        resource.prlimit(agent.proc.pid, resource.RLIMIT_FSIZE, (hard, hard))
        assert (await agent.request("session/prompt", _prompt(sid, "third")))["result"]["stopReason"] == "end_turn"
        assert "result" in await agent.request("session/close", {"sessionId": sid})
    texts = _user_texts(history)
    assert [t[:6] for t in texts] == ["first", "second", "third"]
    assert texts[1] == "second " + "x" * 5000
    # a new process reads the whole history back
    async with spawn_raw(project, script=SCRIPT) as agent:
        await agent.initialize()
        assert "result" in await agent.request("session/load", {"sessionId": sid, "cwd": str(project), "mcpServers": []})
        replayed = [
            n["params"]["update"]["content"]["text"]
            for n in agent.notifications
            if n["params"]["update"]["sessionUpdate"] == "user_message_chunk"
        ]
        assert [t[:6] for t in replayed] == ["first", "second", "third"]


def test_headless_says_why_it_cannot_save(tmp_path, unwritable):
    import sys

    project, config = tmp_path / "proj", tmp_path / "iac-config"
    (config / "sessions").mkdir(parents=True)
    project.mkdir()
    unwritable(config / "sessions")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "IAC_CODE_"))}
    env.update(IAC_CODE_MODEL="scripted", IAC_CODE_CONFIG_DIR=str(config))
    done = subprocess.run([sys.executable, "-m", "iac_code", "-p", "hi"], cwd=project, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "Could not create the session" in done.stderr and "Traceback" not in done.stderr
