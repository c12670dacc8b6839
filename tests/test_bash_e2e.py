"""bash through the real `iac-code acp`: credentials stay out of commands and results, nothing
waits for a person, and a cancelled command keeps what it printed (issue 10, holes 5, 10, 12)."""

from __future__ import annotations

import asyncio
import json
import subprocess

from acp.schema import ToolCallProgress
from harness import spawn_agent, wait_for

BYPASS = {"IAC_CODE_PERMISSION_MODE": "bypass_permissions"}
KEY = "sk-ant-test-KEY-0123456789abcdef"
TOKEN = "auth-TOKEN-fedcba9876543210"
HTTP_TOKEN = "http-TOKEN-a1b2c3d4e5f6"
NEXT = {"blocks": [{"type": "text", "text": "done"}]}


def bash(command: str, **extra) -> dict:
    return {"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": command, **extra}}]}


def final_update(agent, sid: str) -> ToolCallProgress:
    (updates,) = agent.tool_calls(sid).values()
    return [u for u in updates if getattr(u, "status", None) in ("completed", "failed")][-1]


def shown_text(update: ToolCallProgress) -> str:
    return "\n".join(c.content.text for c in update.content or [] if c.type == "content")


CLOUD_SECRET = "cloud-SECRET-00112233445566"


async def test_credentials_are_neither_in_the_environment_nor_in_any_result(tmp_path):
    # `env` shows the command's own environment; /proc/$PPID/environ is the agent's environment
    # block: the credentials were moved out of it at start (iac_code.handoff), sandbox or not
    command = "env; echo ---; tr '\\0' '\\n' < /proc/$PPID/environ; echo; echo MINE=$ANTHROPIC_API_KEY"
    env = {**BYPASS, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_AUTH_TOKEN": TOKEN, "IAC_CODE_HTTP_TOKEN": HTTP_TOKEN,
           "AWS_SECRET_ACCESS_KEY": CLOUD_SECRET, "IAC_CODE_SANDBOX": "off"}  # sandboxed: test_sandbox_escapes
    async with spawn_agent(tmp_path / "proj", script=[bash(command), NEXT], env=env) as agent:
        with open(f"/proc/{agent.proc.pid}/environ", "rb") as f:
            block = f.read().decode(errors="replace")
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "show the environment")).stop_reason == "end_turn"
        final = final_update(agent, sid)
        shown = shown_text(final)
        raw = json.dumps(final.raw_output)
        wire = json.dumps(agent.raw)
    own_env, _, parent_env = shown.partition("---")
    # the command's environment has none of the agent's credential variables
    for name in ("ANTHROPIC_API_KEY=", "ANTHROPIC_AUTH_TOKEN=", "IAC_CODE_HTTP_TOKEN="):
        assert name not in own_env
    assert "MINE=\n" in shown  # the variable is empty in the command
    assert f"AWS_SECRET_ACCESS_KEY={CLOUD_SECRET}" in own_env  # outside the sandbox: the person's cloud credentials
    # the agent's environment block was read: it holds no credential
    assert "PATH=" in parent_env and "ANTHROPIC_API_KEY" not in parent_env and "AWS_SECRET_ACCESS_KEY" not in parent_env
    for secret in (KEY, TOKEN, HTTP_TOKEN, CLOUD_SECRET):
        assert secret not in block
    for secret in (KEY, TOKEN, HTTP_TOKEN):
        assert secret not in shown and secret not in raw and secret not in wire
    history = (agent.config_dir / "sessions" / f"{sid}.jsonl").read_text()
    for secret in (KEY, TOKEN, HTTP_TOKEN):
        assert secret not in history
    logs = "".join(p.read_text() for p in (agent.config_dir / "logs").glob("*.log"))
    assert KEY not in logs


async def test_a_key_a_command_prints_is_redacted_also_reversed_or_encoded(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "notes.txt").write_text(f"the key: {KEY}\n")
    command = "cat notes.txt; rev notes.txt; base64 notes.txt; xxd -p notes.txt; od -An -tx1 notes.txt"
    env = {**BYPASS, "ANTHROPIC_API_KEY": KEY}
    async with spawn_agent(project, script=[bash(command), NEXT], env=env) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "show")).stop_reason == "end_turn"
        final = final_update(agent, sid)
        wire = json.dumps(agent.raw)
    assert shown_text(final).count("[REDACTED]") == 5
    history = (agent.config_dir / "sessions" / f"{sid}.jsonl").read_text()
    encoded = [KEY, KEY[::-1], KEY.encode().hex()]
    for text in (wire, history):
        assert not any(form in text for form in encoded)


async def test_git_commit_without_a_message_fails_at_once_with_advice(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    for args in (["init", "-q"], ["config", "user.email", "t@example.com"], ["config", "user.name", "t"]):
        subprocess.run(["git", *args], cwd=root, check=True)
    (root / "main.tf").write_text("# x\n")
    subprocess.run(["git", "add", "main.tf"], cwd=root, check=True)
    commit = bash("git commit", timeout=60, sandbox=False, reason="commit the change (.git is read-only in the sandbox)")
    async with spawn_agent(root, script=[commit, NEXT], env=BYPASS) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "commit")).stop_reason == "end_turn"
        final = final_update(agent, sid)
    assert final.status == "failed"
    shown = shown_text(final)
    assert "Pass the text as an argument" in shown and 'git commit -m "message"' in shown
    assert final.raw_output["timed_out"] is False


async def test_a_cancelled_command_keeps_its_output_in_the_final_update(tmp_path):
    command = "echo first-line; sleep 1; echo second-line; sleep 60"
    async with spawn_agent(tmp_path / "proj", script=[bash(command), NEXT], env=BYPASS) as agent:
        sid = await agent.new_session()
        prompt = asyncio.create_task(agent.prompt(sid, "run"))

        def printed_twice() -> bool:
            return any("second-line" in shown_text(u) for ups in agent.tool_calls(sid).values() for u in ups[1:])

        await wait_for(printed_twice, timeout=30)
        await agent.conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(prompt, 10)).stop_reason == "cancelled"
        final = final_update(agent, sid)
        assert final.status == "failed"
        shown = shown_text(final)
        assert "first-line\nsecond-line" in shown and "Cancelled" in shown
        assert final.raw_output["output"] == "first-line\nsecond-line"
        # the model is told too, in the history's tool result
        assert (await agent.prompt(sid, "next")).stop_reason == "end_turn"
    records = [json.loads(line) for line in (agent.config_dir / "sessions" / f"{sid}.jsonl").read_text().splitlines()]
    results = [b for r in records for b in r["message"]["content"] if b.get("type") == "tool_result"]
    assert "second-line" in json.dumps(results)
