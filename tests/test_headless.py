"""Headless mode (`iac-code -p`) and `iac-code demo --headless`, run as real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from harness import write_script
from iac_code.providers.models import default_claude_model  # a Claude model the installed SDK lists

REPO = Path(__file__).resolve().parents[1]


def run(args: list[str], cwd: Path, script: list | None = None, stdin: str | None = None, **env: str):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "IAC_CODE_"))}
    full_env.update({"IAC_CODE_MODEL": "scripted", "IAC_CODE_CONFIG_DIR": str(cwd.parent / "cfg")})
    if script is not None:
        full_env["IAC_CODE_SCRIPT"] = str(write_script(cwd.parent / "script.json", script))
    full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "iac_code", *args],
        cwd=cwd,
        env=full_env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def project(tmp_path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    (path / "main.tf").write_text('resource "null_resource" "x" {}\n')
    return path


WRITE = {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": "out.tf", "content": "# new\n"}}]}


def say(text: str, match: str | None = None) -> dict:
    return {"blocks": [{"type": "text", "text": text}], **({"match": match} if match else {})}


def test_text_output_streams_the_answer(project):
    result = run(["-p", "Describe main.tf"], project, [say("It declares one null resource.")])
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It declares one null resource.\n"


def test_prompt_from_stdin_and_json_output(project):
    result = run(["-p", "-", "--output-format", "json"], project, [say("piped", match="from stdin")], stdin="question from stdin")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["type"] == "result" and summary["result"] == "piped"
    assert summary["stop_reason"] == "end_turn" and summary["usage"]["total_tokens"] > 0
    assert summary["is_error"] is False and summary["session_id"]


def test_writes_are_refused_without_permission_and_the_model_is_told(project):
    result = run(["-p", "write it", "--output-format", "stream-json"], project, [WRITE, say("refused", match="Permission denied.")])
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[-1]["result"] == "refused"
    assert any(e["type"] == "tool_call_updated" and e["status"] == "failed" for e in events)
    assert not (project / "out.tf").exists()


@pytest.mark.parametrize("flags", [["--permission-mode", "accept_edits"], ["--allow", "write_file,bash"]])
def test_writes_run_when_allowed(project, flags):
    result = run(["-p", "write it", *flags], project, [WRITE, say("written")])
    assert result.returncode == 0, result.stderr
    assert (project / "out.tf").read_text() == "# new\n"
    assert "[done] Write out.tf" in result.stderr


def test_turn_limit_exits_2_and_errors_exit_1(project):
    loop = {"blocks": [{"type": "tool_use", "name": "update_plan", "input": {"entries": []}}]}
    assert run(["-p", "loop", "--max-turns", "2"], project, [loop] * 3).returncode == 2
    failing = [{"blocks": [{"type": "error", "kind": "overloaded", "message": "busy"}]}]
    result = run(["-p", "fail"], project, failing)
    assert result.returncode == 1 and "overloaded" in result.stderr
    result = run(["-p", "hello"], project, None, IAC_CODE_MODEL=default_claude_model())
    assert result.returncode == 1 and "ANTHROPIC_API_KEY" in result.stderr


def test_continue_and_resume_reuse_the_session(project):
    script = [say("first"), say("second", match="again"), say("third", match="once more")]
    first = json.loads(run(["-p", "hello", "--output-format", "json"], project, script).stdout)
    second = json.loads(run(["-p", "again", "--continue", "--output-format", "json"], project, script).stdout)
    assert second["session_id"] == first["session_id"]
    third = run(["-p", "once more", "--resume", first["session_id"], "--output-format", "json"], project, script)
    assert json.loads(third.stdout)["session_id"] == first["session_id"]
    missing = run(["-p", "x", "--resume", "nope"], project, script)
    assert missing.returncode == 1 and "session not found" in missing.stderr


def test_demo_headless_lands_and_validates_the_edits(tmp_path):
    result = run(["demo", "--headless"], tmp_path, None, IAC_CODE_SCRIPT_CHUNK_DELAY_MS="0")  # its script's pauses are for people
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Demo verified" in result.stdout
    for title in ("List terraform", "Read terraform/variables.tf", "Edit terraform/main.tf", "Run `"):
        assert title in result.stdout, title


def test_a_failed_command_is_reported_in_text_mode(project):
    fail = {"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": "echo oops; exit 3"}}]}
    result = run(["-p", "run it", "--allow", "bash"], project, [fail, say("it failed")])
    assert result.returncode == 0, result.stderr
    assert result.stdout == "it failed\n"
    assert "[failed] Run `echo oops; exit 3`: exit code 3" in result.stderr


def test_a_bad_max_turns_is_a_usage_error(project):
    result = run(["-p", "hi", "--max-turns", "0"], project, [say("never")])
    assert result.returncode == 2
    assert "--max-turns" in result.stderr and "Traceback" not in result.stderr
