"""A small foreign ACP agent (the SDK's agent side) that plays one scenario per prompt.

Run as `python scenario_agent.py SCENARIO` (stdio), or in-process by the benchmarks. Scenarios:

- `diffs:N:L`: one edit tool call whose permission request carries N diffs of about L lines each;
  answered allow -> the call completes, else it fails.
- `bigline:N`: a completed tool call whose output is one line of N characters.
- `output:N`: a completed `execute` call with N lines of output and exit status 3.
- `unfinished`: a tool call left in progress and one left pending, then the turn ends.
- `chunks:N`: N agent text chunks.
- `dies`: a tool call left running, then the agent process exits with status 1.
- `stream:N`: N agent text chunks, paced (about one per millisecond), for typing while they stream.
- `turn`: a short answer and a completed tool call with a few lines of output (long sessions).

Every prompt plays the scenario once more. Used by the large-content tests (served in the app's
process: `served_scenario`), the agent-process tests and bench/.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import iac_code.acp  # noqa: F401 - the SDK imported as iac-code imports it (acp/sdk_import.py: its models
# built at first use, ~0.9 s of CPU less per start as a process); what the agent sends is the same
from acp import helpers
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
)

OPTIONS = [
    PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Allow always", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
    PermissionOption(option_id="reject_always", name="Reject always", kind="reject_always"),
]


def diff_files(count: int, lines: int, root: str = "/project") -> list[tuple[str, str, str]]:
    """`count` (path under `root`, old, new) triples: files of `lines` lines with every 5th line changed."""
    out = []
    for f in range(count):
        old = [f'  setting_{i:02d} = "value-{f}-{i}"' for i in range(lines)]
        new = [line.replace("value", "changed") if i % 5 == 2 else line for i, line in enumerate(old)]
        out.append((f"{root}/modules/m{f:02d}/main.tf", "\n".join(old) + "\n", "\n".join(new) + "\n"))
    return out


class ScenarioAgent:
    """An ACP agent (duck-typed) playing `scenario` on every prompt."""

    def __init__(self, scenario: str) -> None:
        self.scenario = scenario
        self.conn: Any = None
        self.calls = 0
        self.cwd = "/project"

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=1, agent_capabilities=AgentCapabilities(), agent_info=Implementation(name="scenario-agent", version="0"))

    async def new_session(self, cwd: str, **_: Any) -> NewSessionResponse:
        self.cwd = cwd
        option = SessionConfigOptionSelect(
            type="select", id="model", name="Model", category="model", current_value="m",
            options=[SessionConfigSelectOption(value="m", name="Scenario")],
        )
        return NewSessionResponse(session_id="scenario-1", config_options=[option])

    async def cancel(self, session_id: str, **_: Any) -> None:
        return None

    async def _update(self, session_id: str, update: Any) -> None:
        await self.conn.session_update(session_id=session_id, update=update)

    async def prompt(self, session_id: str, prompt: Any, **_: Any) -> PromptResponse:
        self.calls += 1
        name, _, arg = self.scenario.partition(":")
        call_id = f"call-{self.calls}"
        if name == "diffs":
            count, _, lines = arg.partition(":")
            diffs = [helpers.tool_diff_content(p, new, old) for p, old, new in diff_files(int(count), int(lines or 21), self.cwd)]
            await self._update(session_id, helpers.start_tool_call(call_id, f"Edit {count} files", kind="edit", status="pending"))
            tool_call = helpers.update_tool_call(call_id, title=f"Edit {count} files", kind="edit", status="pending", content=diffs)
            answer = await self.conn.request_permission(session_id=session_id, tool_call=tool_call, options=OPTIONS)
            allowed = getattr(answer.outcome, "option_id", "").startswith("allow")
            status = "completed" if allowed else "failed"
            text = f"Edited {count} files." if allowed else "Permission denied."
            await self._update(session_id, helpers.update_tool_call(call_id, status=status, content=diffs if allowed else [helpers.tool_content(helpers.text_block(text))]))
        elif name == "bigline":
            line = "".join(chr(ord("a") + i % 26) for i in range(int(arg)))
            await self._update(session_id, helpers.start_tool_call(call_id, "Read blob.txt", kind="other", status="in_progress"))
            await self._update(session_id, helpers.update_tool_call(call_id, status="completed", content=[helpers.tool_content(helpers.text_block(line))]))
        elif name == "output":
            text = "\n".join(f"line {i + 1} of the build log" for i in range(int(arg)))
            await self._update(session_id, helpers.start_tool_call(call_id, "make build", kind="execute", status="in_progress", raw_input={"command": "make build"}))
            output = text + "\n\nExit code: 3"
            await self._update(
                session_id,
                helpers.update_tool_call(
                    call_id, status="failed", content=[helpers.tool_content(helpers.text_block(output))],
                    raw_output={"output": text, "exit_code": 3, "timed_out": False},
                ),
            )
        elif name == "unfinished":
            await self._update(session_id, helpers.start_tool_call(call_id + "a", "make test", kind="execute", status="in_progress", raw_input={"command": "make test"}))
            await self._update(session_id, helpers.start_tool_call(call_id + "b", "Read main.tf", kind="read", status="pending"))
        elif name == "dies":
            await self._update(session_id, helpers.start_tool_call(call_id, "terraform apply", kind="execute", status="in_progress", raw_input={"command": "terraform apply"}))
            await asyncio.sleep(0.2)
            import os

            os._exit(1)
        elif name == "stream":
            for i in range(int(arg)):
                await self._update(session_id, helpers.update_agent_message_text(f"word{i} " + ("\n\n" if i % 60 == 59 else "")))
                await asyncio.sleep(0.001)
        elif name == "turn":
            await self._update(session_id, helpers.update_agent_message_text(f"Turn {self.calls}: I read the file and it looks fine.\n\nNothing to change."))
            output = "\n".join(f'resource "null_resource" "r{i}" {{}}' for i in range(8))
            await self._update(session_id, helpers.start_tool_call(call_id, "Read main.tf", kind="read", status="in_progress"))
            await self._update(session_id, helpers.update_tool_call(call_id, status="completed", content=[helpers.tool_content(helpers.text_block(output))]))
        elif name == "chunks":
            for i in range(int(arg)):
                await self._update(session_id, helpers.update_agent_message_text(f"word{i} " + ("\n\n" if i % 60 == 59 else "")))
        return PromptResponse(stop_reason="end_turn")


def main() -> None:
    import acp

    asyncio.run(acp.run_agent(ScenarioAgent(sys.argv[1])))


if __name__ == "__main__":
    main()


def scenario_command(scenario: str) -> Any:
    """The `AgentCommand` running this agent on `scenario` (for the app's `agent=`)."""
    from pathlib import Path

    from iac_tui.launch import AgentCommand

    return AgentCommand((sys.executable, str(Path(__file__).resolve()), scenario))


def served_scenario(scenario: str) -> Any:
    """A maker of this agent on `scenario` for `Workspace.app(served=...)`: the agent is served in
    the app's process (no interpreter to start; for tests whose promise is not its process)."""
    return lambda: ScenarioAgent(scenario)
