"""A small foreign ACP agent on the Python SDK that behaves like the agents iac-tui meets in the wild.

Run as `python foreign_agent.py`. The first word of a prompt picks what it does:

- `ask`: a tool call and a permission request with the options in `claude-agent-acp`'s order
  ([allow_always, allow_once, reject_once, reject_always]); it answers `chose <option id>`.
- `ask-opencode`: a permission request as OpenCode sends one: no "reject always" option, and a
  raw input `{filepath, diff}` whose `diff` is a multi-line string beside the drawn diff.
- `console`: a completed command whose content is Markdown, a fenced ```` ```console ```` block
  (as Claude's adapter sends command output).
- `late`: ends the turn, then, once a file `late-go` appears (the test makes it when the app has
  seen the turn end), asks a permission for that turn's tool call (a bug seen with
  `claude-agent-acp`); the outcome it got is written to `late-answer.txt`.
- `image`: answers with the content blocks it received (`text`, `image image/png 1234 bytes`, ...).
- `cost`: a `usage_update` with a cost.
- `sleep`: starts `sleep 300.<its pid>` as its own child and in a client terminal, writes its
  own pid and theirs to `pids.txt`, then waits (forever).
- `die`: exits at once (status 1), mid-turn.
- anything else: reads line 2 of `notes.txt` with `fs/read_text_file`, writes `out.txt` with
  `fs/write_text_file`, runs a command in a client terminal shown in a tool call (it prints a red
  line and `step 1`, waits for a file `go` to appear, prints `step 2` and exits 4), and answers
  with what it read and the exit status.

After `session/new` it offers one slash command, `/review`, whose input hint is `<focus area>`.
It advertises `promptCapabilities.image`, `loadSession` (a load replays one user message and
answers) and `sessionCapabilities.list` (three sessions whose ids share their first 12
characters, as OpenCode's time-ordered ids do).
"""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import time

import iac_code.acp  # noqa: F401 - the SDK imported as iac-code imports it (acp/sdk_import.py: its models
# built at first use, ~0.9 s of CPU less per start as a process); what the agent sends is the same
import acp
from acp import PROTOCOL_VERSION, start_tool_call, text_block, tool_terminal_ref, update_agent_message, update_tool_call
from acp.helpers import tool_content, tool_diff_content, update_user_message_text
from acp.schema import (
    AgentCapabilities,
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    Cost,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PermissionOption,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    UnstructuredCommandInput,
    UsageUpdate,
)

COMMAND = "printf '\\033[31mred alert\\033[0m\\n'; echo 'step 1'; while [ ! -e go ]; do sleep 0.05; done; echo 'step 2'; exit 4"
CLAUDE_OPTIONS = [  # claude-agent-acp's order: "Always Allow" comes first
    PermissionOption(option_id="allow_always", name="Always Allow", kind="allow_always"),
    PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
    PermissionOption(option_id="reject_always", name="Always Reject", kind="reject_always"),
]
OPENCODE_OPTIONS = [
    PermissionOption(option_id="once", name="Allow once", kind="allow_once"),
    PermissionOption(option_id="always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
]
OPENCODE_DIFF = "Index: main.tf\n===================================================================\n--- main.tf\n+++ main.tf\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
CONSOLE = "```console\n$ terraform fmt -check\nmain.tf\nvariables.tf\n```"
SESSION_IDS = ["ses_dccd3f1a2b01AAAA", "ses_dccd3f1a2b01BBBB", "ses_dccd3f1a2b01CCCC"]


def describe_block(block) -> str:  # noqa: ANN001 - an SDK content block
    if block.type == "image":
        size = len(base64.b64decode(block.data)) if block.data else 0
        return f"image {block.mime_type} {size} bytes" + (f" {block.uri}" if block.uri else "")
    if block.type == "resource_link":
        return f"resource_link {block.name}"
    if block.type == "resource":
        return f"resource {block.resource.uri}"
    return block.type


class ForeignAgent:
    def __init__(self) -> None:
        self.background: set[asyncio.Task] = set()

    def on_connect(self, conn: acp.AgentSideConnection) -> None:
        self.conn = conn
        self.cwd = os.getcwd()

    async def initialize(self, protocol_version: int, client_capabilities=None, **_):  # noqa: ANN001
        self.caps = client_capabilities
        capabilities = AgentCapabilities(
            load_session=True,
            prompt_capabilities=PromptCapabilities(image=True),
            session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
        )
        return InitializeResponse(protocol_version=PROTOCOL_VERSION, agent_capabilities=capabilities, agent_info=Implementation(name="foreign", version="1"))

    async def new_session(self, cwd: str, mcp_servers=None, **_):  # noqa: ANN001
        self.cwd = cwd

        async def commands() -> None:  # after the answer, as agents do
            await asyncio.sleep(0.05)
            command = AvailableCommand(name="review", description="Review the changes", input=AvailableCommandInput(root=UnstructuredCommandInput(hint="<focus area>")))
            await self.conn.session_update("foreign-1", AvailableCommandsUpdate(session_update="available_commands_update", available_commands=[command]))

        self.later(commands())
        return NewSessionResponse(session_id="foreign-1")

    def later(self, coro) -> None:  # noqa: ANN001
        task = asyncio.create_task(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def load_session(self, cwd: str, session_id: str, mcp_servers=None, **_):  # noqa: ANN001
        self.cwd = cwd
        await self.conn.session_update(session_id, update_user_message_text("(replayed by the foreign agent)"))
        return LoadSessionResponse()

    async def list_sessions(self, cwd=None, cursor=None, **_):  # noqa: ANN001
        return ListSessionsResponse(
            sessions=[
                SessionInfo(session_id=sid, cwd=self.cwd, title="Fix the module", updated_at=f"2026-05-0{i + 1}T10:00:00Z")
                for i, sid in enumerate(SESSION_IDS)
            ]
        )

    async def prompt(self, session_id: str, prompt, **_):  # noqa: ANN001
        text = " ".join(b.text for b in prompt if b.type == "text").strip()
        word = text.split()[0] if text else ""
        scenario = getattr(self, "play_" + word.replace("-", "_"), None) if word.isascii() else None
        if scenario is not None:
            return await scenario(session_id, prompt)
        return await self.files_and_terminal(session_id)

    async def say(self, session_id: str, text: str) -> None:
        await self.conn.session_update(session_id, update_agent_message(text_block(text)))

    async def ask(self, session_id: str, options: list[PermissionOption], **fields) -> str:  # noqa: ANN003
        tool_call = update_tool_call("call_ask", title="Run terraform plan", kind="execute", status="pending", **fields)
        await self.conn.session_update(session_id, start_tool_call("call_ask", "Run terraform plan", kind="execute", status="pending"))
        answer = await self.conn.request_permission(session_id=session_id, tool_call=tool_call, options=options)
        return getattr(answer.outcome, "option_id", None) or answer.outcome.outcome

    async def play_ask(self, session_id: str, prompt) -> PromptResponse:  # noqa: ANN001
        chosen = await self.ask(session_id, CLAUDE_OPTIONS, raw_input={"command": "terraform plan"})
        await self.conn.session_update(session_id, update_tool_call("call_ask", status="completed" if chosen.startswith("allow") else "failed"))
        await self.say(session_id, f"chose {chosen}")
        return PromptResponse(stop_reason="end_turn")

    async def play_ask_opencode(self, session_id: str, prompt) -> PromptResponse:  # noqa: ANN001
        path = os.path.join(self.cwd, "main.tf")
        chosen = await self.ask(
            session_id, OPENCODE_OPTIONS, raw_input={"filepath": path, "diff": OPENCODE_DIFF}, content=[tool_diff_content(path, "a = 2\n", "a = 1\n")]
        )
        await self.conn.session_update(session_id, update_tool_call("call_ask", status="completed" if chosen.startswith(("once", "always")) else "failed"))
        await self.say(session_id, f"chose {chosen}")
        return PromptResponse(stop_reason="end_turn")

    async def play_console(self, session_id: str, prompt) -> PromptResponse:  # noqa: ANN001
        await self.conn.session_update(
            session_id, start_tool_call("call_fmt", "`terraform fmt -check`", kind="execute", status="in_progress", raw_input={"command": "terraform fmt -check"})
        )
        await self.conn.session_update(session_id, update_tool_call("call_fmt", status="completed", content=[tool_content(text_block(CONSOLE))]))
        return PromptResponse(stop_reason="end_turn")

    async def play_late(self, session_id: str, prompt) -> PromptResponse:  # noqa: ANN001
        await self.conn.session_update(session_id, start_tool_call("call_late", "Write main.tf", kind="edit", status="pending"))

        async def late() -> None:
            while not os.path.exists(os.path.join(self.cwd, "late-go")):  # the app has seen the turn end
                await asyncio.sleep(0.01)
            answer = await self.conn.request_permission(
                session_id=session_id, tool_call=update_tool_call("call_late", title="Write main.tf", kind="edit", status="pending"), options=CLAUDE_OPTIONS
            )
            with open(os.path.join(self.cwd, "late-answer.txt"), "w") as out:
                out.write(getattr(answer.outcome, "option_id", None) or answer.outcome.outcome)

        self.later(late())
        return PromptResponse(stop_reason="end_turn")

    async def play_image(self, session_id: str, prompt) -> PromptResponse:  # noqa: ANN001
        await self.say(session_id, "got " + "; ".join(describe_block(b) for b in prompt))
        return PromptResponse(stop_reason="end_turn")

    async def play_cost(self, session_id: str, prompt) -> PromptResponse:  # noqa: ANN001
        update = UsageUpdate(session_update="usage_update", used=53000, size=200000, cost=Cost(amount=0.4213, currency="USD"))
        await self.conn.session_update(session_id, update)
        await self.say(session_id, "that cost something")
        return PromptResponse(stop_reason="end_turn")

    async def play_sleep(self, session_id: str, prompt) -> PromptResponse:  # noqa: ANN001
        tag = f"300.{os.getpid()}"  # GNU sleep takes fractions: the tag tells this agent's sleeps from others'
        child = subprocess.Popen(["sleep", tag])  # in the agent's own process group
        terminal = await self.conn.create_terminal(session_id=session_id, command="sleep", args=[tag], cwd=self.cwd)
        await self.conn.session_update(
            session_id, start_tool_call("call_sleep", "sleep 300", kind="execute", status="in_progress", content=[tool_terminal_ref(terminal.terminal_id)])
        )
        deadline = time.monotonic() + 30
        while True:  # until the terminal's sleep runs too (beside `child`)
            pids = subprocess.run(["pgrep", "-f", f"^sleep {tag}$"], capture_output=True, text=True).stdout.split()
            if len({str(child.pid), *pids}) >= 2 or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.01)
        with open(os.path.join(self.cwd, "pids.txt"), "w") as out:  # this agent's, then its sleeps'
            out.write("\n".join([str(os.getpid()), *sorted({str(child.pid), *pids})]) + "\n")
        await self.say(session_id, "sleeping")
        await asyncio.Event().wait()
        return PromptResponse(stop_reason="cancelled")

    async def play_die(self, session_id: str, prompt) -> PromptResponse:  # noqa: ANN001
        os._exit(1)

    async def files_and_terminal(self, session_id: str) -> PromptResponse:
        conn, caps = self.conn, self.caps
        if not (caps and caps.terminal and caps.fs.read_text_file and caps.fs.write_text_file):
            await self.say(session_id, "missing client capabilities")
            return PromptResponse(stop_reason="end_turn")
        read = await conn.read_text_file(session_id=session_id, path=os.path.join(self.cwd, "notes.txt"), line=2, limit=1)
        await conn.write_text_file(session_id=session_id, path=os.path.join(self.cwd, "out.txt"), content="written by the client\n")
        terminal = await conn.create_terminal(session_id=session_id, command="sh", args=["-c", COMMAND], cwd=self.cwd)
        ids = {"session_id": session_id, "terminal_id": terminal.terminal_id}
        await conn.session_update(
            session_id,
            start_tool_call("call_1", "Run the check", kind="execute", status="in_progress", content=[tool_terminal_ref(terminal.terminal_id)]),
        )
        done = await conn.wait_for_terminal_exit(**ids)
        output = await conn.terminal_output(**ids)
        await conn.session_update(session_id, update_tool_call("call_1", status="completed" if done.exit_code == 0 else "failed"))
        await conn.release_terminal(**ids)
        summary = f"read {read.content.strip()!r}; exit {done.exit_code}; saw step 2: {'step 2' in output.output}"
        await self.say(session_id, summary)
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **_) -> None:  # noqa: ANN001
        return None


if __name__ == "__main__":
    asyncio.run(acp.run_agent(ForeignAgent()))
