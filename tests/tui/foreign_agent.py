"""A small foreign ACP agent on the Python SDK that works through its client's files and terminals.

Run as `python foreign_agent.py`. On each prompt it reads line 2 of `notes.txt` with
`fs/read_text_file`, writes `out.txt` with `fs/write_text_file`, runs a command in a client
terminal shown in a tool call (it prints a red line and `step 1`, waits for a file `go` to appear,
prints `step 2` and exits 4), and answers with what it read and the exit status.
"""

from __future__ import annotations

import asyncio
import os

import acp
from acp import PROTOCOL_VERSION, start_tool_call, text_block, tool_terminal_ref, update_agent_message, update_tool_call
from acp.schema import AgentCapabilities, InitializeResponse, NewSessionResponse, PromptResponse

COMMAND = "printf '\\033[31mred alert\\033[0m\\n'; echo 'step 1'; while [ ! -e go ]; do sleep 0.05; done; echo 'step 2'; exit 4"


class ForeignAgent:
    def on_connect(self, conn: acp.AgentSideConnection) -> None:
        self.conn = conn
        self.cwd = os.getcwd()

    async def initialize(self, protocol_version: int, client_capabilities=None, **_):  # noqa: ANN001
        self.caps = client_capabilities
        return InitializeResponse(protocol_version=PROTOCOL_VERSION, agent_capabilities=AgentCapabilities())

    async def new_session(self, cwd: str, mcp_servers=None, **_):  # noqa: ANN001
        self.cwd = cwd
        return NewSessionResponse(session_id="foreign-1")

    async def prompt(self, session_id: str, prompt, **_):  # noqa: ANN001
        conn, caps = self.conn, self.caps
        if not (caps and caps.terminal and caps.fs.read_text_file and caps.fs.write_text_file):
            await conn.session_update(session_id, update_agent_message(text_block("missing client capabilities")))
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
        await conn.session_update(session_id, update_agent_message(text_block(summary)))
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **_) -> None:  # noqa: ANN001
        return None


if __name__ == "__main__":
    asyncio.run(acp.run_agent(ForeignAgent()))
