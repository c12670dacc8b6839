"""Snapshot tests: one picture per visible state, against the real agent on the scripted model.

The SVGs live in `<repo>/snapshots/test_snapshots/` (see conftest.py). Pictures are
deterministic: fixed terminal sizes, no spinner or cursor blink (`animations=False`), a fixed
project label, UTC times from fixed session metadata, and every turn finished before the shot.
Two things that depend on the agent's internals rather than on this app are pinned: the token
counts in the status bar (they follow the agent's system prompt and tool descriptions) and the
agent's stderr log path (it holds a time and a process id).

Update with `pytest tests/tui/test_snapshots.py --snapshot-update`, then look at every picture.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import iac_tui.app
from iac_tui.screens.session_picker import SessionPicker
from iac_tui.widgets.agent_error import AgentError
from iac_tui.widgets.permission import PermissionQuestion
from iac_tui.widgets.plan import PlanView
from tui_support import hold_tool_calls, python_agent, ready, send, turn_done, wait_until

LABEL = "~/work/infra"

MAIN_TF = """\
terraform {
  required_version = ">= 1.6"
}

resource "aws_s3_bucket" "logs" {
  bucket = "acme-logs"
}
"""

ANSWER = """\
## Remote state

Store the state in **S3** with a DynamoDB lock table:

```hcl
terraform {
  backend "s3" {
    bucket         = "acme-tf-state"
    key            = "infra/terraform.tfstate"
    dynamodb_table = "tf-locks"
  }
}
```

Then run `terraform init -migrate-state`.
"""


LOG = Path("/tmp/iac-tui-snapshots/agent-stderr.log")  # shown in the crashed state: a fixed path
# the token figures follow the agent's system prompt and tool descriptions, not this app: fixed labels
PINNED = {"usage_labels": ("ctx 5.2k/200k 2%", "↑10.4k ↓212"), "log_file": LOG}


@pytest.fixture(autouse=True)
def _fresh_log():
    LOG.parent.mkdir(exist_ok=True)
    LOG.unlink(missing_ok=True)  # it is opened for appending: do not let it grow run after run


def steps(*prompts, then=None):
    """A `run_before` that waits for the session, sends each prompt and waits for its turn."""

    async def run(pilot):
        await ready(pilot)
        for prompt in prompts:
            await send(pilot, prompt)
            await turn_done(pilot)
        if then is not None:
            await then(pilot)
        await pilot.pause()

    return run


def test_empty_start(snap_compare, ws):
    app = ws.app([], cwd_label=LABEL, **PINNED)
    assert snap_compare(app, terminal_size=(100, 30), run_before=steps())


def test_streamed_answer_with_code_block(snap_compare, ws):
    app = ws.app([{"blocks": [{"type": "text", "text": ANSWER}]}], cwd_label=LABEL, **PINNED)
    assert snap_compare(app, terminal_size=(100, 34), run_before=steps("How should I store state?"))


def test_export_done(snap_compare, ws):
    """`/export FILE` after an answer: the note says where the conversation went."""

    async def export(pilot):
        pilot.app.prompt_box.load_text("/export state-notes.md")
        await pilot.press("enter")
        await wait_until(pilot, lambda: (ws.project / "state-notes.md").exists(), what="the export")

    app = ws.app([{"blocks": [{"type": "text", "text": ANSWER}]}], cwd_label=LABEL, **PINNED)
    assert snap_compare(app, terminal_size=(100, 34), run_before=steps("How should I store state?", then=export))


def test_thought_block(snap_compare, ws):
    turns = [
        {
            "blocks": [
                {"type": "thinking", "thinking": "The bucket needs versioning so that a bad apply can be rolled back. Encryption at rest is cheap."},
                {"type": "text", "text": "Enable **versioning** and **SSE-S3 encryption** on the bucket."},
            ]
        }
    ]

    async def expand(pilot):
        await pilot.press("ctrl+t")

    app = ws.app(turns, cwd_label=LABEL, **PINNED)
    assert snap_compare(app, terminal_size=(100, 24), run_before=steps("Harden the logs bucket", then=expand))


def tool_turns():
    return [
        {"blocks": [{"type": "text", "text": "Let me read the configuration."}, {"type": "tool_use", "name": "read_file", "input": {"path": "main.tf"}}]},
        {"blocks": [{"type": "tool_use", "name": "edit_file", "input": {"path": "main.tf", "old_string": '  bucket = "acme-logs"\n', "new_string": '  bucket = "acme-logs"\n\n  tags = {\n    team = "platform"\n  }\n'}}]},
        {"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": "printf 'Success! The configuration is valid.\\n'"}}]},
        {"blocks": [{"type": "text", "text": "Tagged the bucket; `terraform validate` passes."}]},
    ]


def test_tool_panels(snap_compare, ws):
    ws.write("main.tf", MAIN_TF)
    app = ws.app(tool_turns(), mode="bypass_permissions", cwd_label=LABEL, **PINNED)
    assert snap_compare(app, terminal_size=(100, 50), run_before=steps("Tag the logs bucket and validate"))


def test_wide_terminal(snap_compare, ws):
    ws.write("main.tf", MAIN_TF)
    app = ws.app(tool_turns(), mode="bypass_permissions", cwd_label=LABEL, **PINNED)
    assert snap_compare(app, terminal_size=(160, 45), run_before=steps("Tag the logs bucket and validate"))


def test_narrow_terminal(snap_compare, ws):
    turns = [
        {
            "blocks": [
                {"type": "thinking", "thinking": "Short answer with an example."},
                {"type": "text", "text": "Use a variable:\n\n```hcl\nvariable \"region\" {\n  default = \"eu-west-1\"\n}\n```\n"},
            ]
        }
    ]
    app = ws.app(turns, cwd_label=LABEL, **PINNED)
    assert snap_compare(app, terminal_size=(60, 20), run_before=steps("Make the region configurable"))


def write_turns():
    return [
        {"blocks": [{"type": "text", "text": "I will add an outputs file."}, {"type": "tool_use", "name": "write_file", "input": {"path": "outputs.tf", "content": 'output "bucket_arn" {\n  value = aws_s3_bucket.logs.arn\n}\n'}}]},
        {"blocks": [{"type": "text", "text": "Understood: I left `outputs.tf` alone."}]},
    ]


async def wait_for_permission(pilot):
    """Wait for a pending permission prompt that has the keyboard focus."""
    app = pilot.app
    question = app.query_one(PermissionQuestion)
    await wait_until(pilot, lambda: question.current is not None and app.focused is question, what="the question to take the keys")


def test_pending_permission(snap_compare, ws):
    async def run(pilot):
        await ready(pilot)
        await send(pilot, "Export the bucket ARN")
        await wait_for_permission(pilot)
        await pilot.pause()

    app = ws.app(write_turns(), cwd_label=LABEL, **PINNED)
    assert snap_compare(app, terminal_size=(100, 32), run_before=run)


def test_after_rejection(snap_compare, ws):
    async def run(pilot):
        await ready(pilot)
        await send(pilot, "Export the bucket ARN")
        await wait_for_permission(pilot)
        await pilot.press("r")
        await turn_done(pilot)
        await pilot.pause()

    app = ws.app(write_turns(), cwd_label=LABEL, **PINNED)
    assert snap_compare(app, terminal_size=(100, 28), run_before=run)
    assert not (ws.project / "outputs.tf").exists()


def test_plan(snap_compare, ws):
    def plan(*statuses):
        steps_ = [("Add remote state backend", "high"), ("Tag every bucket", "medium"), ("Run terraform validate", "medium"), ("Write a README section", "low")]
        return {"type": "tool_use", "name": "update_plan", "input": {"entries": [{"content": c, "priority": p, "status": s} for (c, p), s in zip(steps_, statuses)]}}

    turns = [
        {"blocks": [{"type": "text", "text": "Here is the plan."}, plan("in_progress", "pending", "pending", "pending")]},
        {"blocks": [{"type": "text", "text": "Backend added."}, plan("completed", "completed", "in_progress", "pending")]},
        {"blocks": [{"type": "text", "text": "Validating next."}]},
    ]
    app = ws.app(turns, cwd_label=LABEL, **PINNED)

    async def check(pilot):
        assert len(pilot.app.query(PlanView)) == 1

    assert snap_compare(app, terminal_size=(100, 32), run_before=steps("Prepare the repo for a team", then=check))


def fixed_sessions(ws) -> list[str]:
    """Three sessions made by the agent (served in process), renamed to fixed ids with fixed times."""
    from harness import serve_agent

    prompts = ["Add a remote state backend", "Why does terraform plan want to replace the VPC?", "Tag every bucket with its team"]
    times = ["2026-01-05T09:12:00+00:00", "2026-01-07T16:45:00+00:00", "2026-01-09T11:03:00+00:00"]
    ids = ["a1b2c3d4e5f60718293a4b5c6d7e8f90", "b2c3d4e5f60718293a4b5c6d7e8f90a1", "c3d4e5f60718293a4b5c6d7e8f90a1b2"]

    async def make() -> list[str]:
        turns = [{"blocks": [{"type": "text", "text": f"Answer to: {p}"}]} for p in prompts]
        made = []
        async with serve_agent(ws.project, script=turns, env={"IAC_CODE_CONFIG_DIR": str(ws.config)}) as agent:
            for prompt in prompts:
                session = await agent.new_session()
                await agent.prompt(session, prompt)
                made.append(session)
        return made

    made = asyncio.run(make())
    sessions = ws.sessions_dir()
    for old, new, when in zip(made, ids, times):
        meta_path = sessions / f"{old}.json"
        assert meta_path.exists() and (sessions / f"{old}.jsonl").exists(), "session store layout changed"
        meta = json.loads(meta_path.read_text())
        meta["session_id"], meta["created_at"], meta["updated_at"] = new, when, when
        (sessions / f"{new}.json").write_text(json.dumps(meta))
        (sessions / f"{old}.jsonl").rename(sessions / f"{new}.jsonl")
        meta_path.unlink()
    return ids


def test_session_picker(snap_compare, ws):
    ids = fixed_sessions(ws)

    async def run(pilot):
        await ready(pilot)
        await wait_until(pilot, lambda: pilot.app.state.title, what="the session's title (session/list)")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, SessionPicker), what="the picker")
        await pilot.pause()

    app = ws.app([], resume=ids[1], cwd_label=LABEL, **PINNED)
    assert snap_compare(app, terminal_size=(100, 30), run_before=run)


def test_agent_crashed(snap_compare, ws):
    code = (
        "import sys\n"
        "sys.stderr.write('iac-code: reading ~/.iac-code/config.json\\n')\n"
        "sys.stderr.write('Traceback (most recent call last):\\n  File \"cli.py\", line 12, in main\\n')\n"
        "sys.stderr.write('ValueError: permission_mode must be one of default, plan\\n')\n"
        "sys.exit(2)\n"
    )

    async def run(pilot):
        await wait_until(pilot, lambda: pilot.app.query(AgentError), what="the error")
        await pilot.pause()

    app = ws.app([], agent=python_agent(code), cwd_label=LABEL, **PINNED)
    assert snap_compare(app, terminal_size=(100, 24), run_before=run)


def test_demo_edit_awaiting_permission(snap_compare, tmp_path, monkeypatch):
    """The demo's first edit, its diff awaiting approval (also the README's screenshot)."""
    from iac_code.demo import DEMO_PROMPT, prepare

    project, env = prepare(tmp_path / "demo")
    monkeypatch.setenv("PATH", env.pop("PATH"))
    env["IAC_CODE_SCRIPT_CHUNK_DELAY_MS"] = "0"  # the script's pauses are for people watching; the picture is the same
    app = iac_tui.app.IacTui(
        project,
        env=env,
        animations=False,
        log_dir=tmp_path / "logs",
        history_file=None,
        cwd_label="~/work/alicloud-network", **PINNED,
        initial_prompt=DEMO_PROMPT,
    )

    async def run(pilot):
        await ready(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.query_one(PermissionQuestion).current is not None, timeout=60)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 44), run_before=run)


def test_question_with_letters_suspended(snap_compare, ws):
    """Typing while the question is pending: the letters are off, the typed text is in the draft."""

    async def run(pilot):
        await ready(pilot)
        await send(pilot, "Export the bucket ARN")
        await wait_for_permission(pilot)
        await pilot.press("w", "a", "i", "t")
        await pilot.pause()

    app = ws.app(write_turns(), cwd_label=LABEL, **PINNED)
    assert snap_compare(app, terminal_size=(80, 30), run_before=run)  # all of it fits: no scrollbar to race with
    assert not (ws.project / "outputs.tf").exists()


def test_question_while_scrolled_up(snap_compare, ws, monkeypatch):
    """A question that arrives while the person reads further up: docked, with the badge."""
    long_text = "\n\n".join(f"Step {i}: looking at the bucket's configuration." for i in range(25))
    turns = [
        {"blocks": [{"type": "text", "text": long_text}, write_turns()[0]["blocks"][1]]},
        write_turns()[1],
    ]
    call = hold_tool_calls(monkeypatch)  # the tool call comes once the person has scrolled up

    async def run(pilot):
        await ready(pilot)
        await send(pilot, "Export the bucket ARN")
        conversation = pilot.app.conversation
        await wait_until(pilot, lambda: conversation.max_scroll_y > 5, what="a long answer")
        conversation.scroll_home(animate=False)
        await pilot.pause()
        call.set()
        await wait_for_permission(pilot)
        await pilot.pause()

    app = ws.app(turns, cwd_label=LABEL, **PINNED)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run)


def test_demo_question_at_80x24(snap_compare, tmp_path, monkeypatch):
    """The demo's first edit at 80x24: the plan stays above the call awaiting approval."""
    from iac_code.demo import DEMO_PROMPT, prepare

    project, env = prepare(tmp_path / "demo")
    monkeypatch.setenv("PATH", env.pop("PATH"))
    env["IAC_CODE_SCRIPT_CHUNK_DELAY_MS"] = "0"  # the script's pauses are for people watching; the picture is the same
    app = iac_tui.app.IacTui(
        project, env=env, animations=False, log_dir=tmp_path / "logs", history_file=None, cwd_label="~/work/alicloud-network", **PINNED, initial_prompt=DEMO_PROMPT
    )

    async def run(pilot):
        await ready(pilot)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.query_one(PermissionQuestion).current is not None, timeout=60)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run)
