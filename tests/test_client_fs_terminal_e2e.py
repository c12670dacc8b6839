"""The editor's files and terminals, as the ACP client sees the agent use them (issue 12, agent side;
PROTOCOL.md, "What the server uses of clientCapabilities").

The client here behaves like an editor: it holds unsaved buffers (`fs/read_text_file` answers
from them, `fs/write_text_file` stores into them, the disk is left alone) and runs terminals as
subprocesses. With the capabilities advertised, the tools use them; without, disk and local
processes as before.
"""

from __future__ import annotations

import asyncio
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp.schema import (
    ClientCapabilities,
    CreateTerminalResponse,
    FileSystemCapabilities,
    Implementation,
    ReadTextFileResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    ToolCallProgress,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)
from harness import RecordingClient, serve_agent, wait_for

NEXT = {"blocks": [{"type": "text", "text": "done"}]}
ALL = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True)


def use(name: str, **input: Any) -> dict:
    return {"type": "tool_use", "name": name, "input": input}


@dataclass
class Terminal:
    proc: asyncio.subprocess.Process
    limit: int
    output: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    reader: asyncio.Task | None = None


@dataclass
class EditorClient(RecordingClient):
    """A `RecordingClient` with editor buffers and subprocess terminals; it logs every fs/terminal call."""

    buffers: dict[str, str] = field(default_factory=dict)
    calls: list[tuple[str, Any]] = field(default_factory=list)
    reads: list[tuple[str, int | None, int | None]] = field(default_factory=list)
    terminals: dict[str, Terminal] = field(default_factory=dict)
    fail_writes: bool = False

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **_: Any):
        self.calls.append(("read", path))
        self.reads.append((path, line, limit))
        if path not in self.buffers:
            raise acp.RequestError.resource_not_found(path)
        lines = self.buffers[path].splitlines(keepends=True)[(line or 1) - 1 :]
        return ReadTextFileResponse(content="".join(lines if limit is None else lines[:limit]))

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any):
        self.calls.append(("write", path))
        if self.fail_writes:
            raise acp.RequestError.invalid_params({"path": "the buffer is read-only"})
        self.buffers[path] = content
        return WriteTextFileResponse()

    async def create_terminal(self, session_id, command, args=None, env=None, cwd=None, output_byte_limit=None, **_: Any):
        env_vars = {e.name: e.value for e in env or []}
        self.calls.append(("create", {"command": command, "args": args, "cwd": cwd, "env": env_vars, "limit": output_byte_limit}))
        proc = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, env={**os.environ, **env_vars}, start_new_session=True,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        terminal = Terminal(proc, output_byte_limit or 1 << 20)
        terminal.reader = asyncio.create_task(self._read(terminal))
        terminal_id = f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = terminal
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def _read(self, terminal: Terminal) -> None:
        assert terminal.proc.stdout is not None
        while chunk := await terminal.proc.stdout.read(4096):
            terminal.output += chunk
            if len(terminal.output) > terminal.limit:
                del terminal.output[: len(terminal.output) - terminal.limit]
                terminal.truncated = True

    def _status(self, terminal: Terminal) -> TerminalExitStatus | None:
        rc = terminal.proc.returncode
        if rc is None:
            return None
        return TerminalExitStatus(exit_code=rc if rc >= 0 else None, signal=signal.Signals(-rc).name if rc < 0 else None)

    async def terminal_output(self, session_id, terminal_id, **_: Any):
        self.calls.append(("output", terminal_id))
        t = self.terminals[terminal_id]
        return TerminalOutputResponse(output=t.output.decode(errors="replace"), truncated=t.truncated, exit_status=self._status(t))

    async def wait_for_terminal_exit(self, session_id, terminal_id, **_: Any):
        self.calls.append(("wait", terminal_id))
        t = self.terminals[terminal_id]
        await t.proc.wait()
        if t.reader is not None:
            await t.reader
        status = self._status(t)
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(self, session_id, terminal_id, **_: Any):
        self.calls.append(("kill", terminal_id))
        await self._kill(terminal_id)

    async def release_terminal(self, session_id, terminal_id, **_: Any):
        self.calls.append(("release", terminal_id))
        await self._kill(terminal_id)

    async def _kill(self, terminal_id: str) -> None:
        proc = self.terminals[terminal_id].proc
        if proc.returncode is None:
            os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


async def start(agent, capabilities: ClientCapabilities, mode: str | None = None) -> str:
    await agent.conn.initialize(
        protocol_version=acp.PROTOCOL_VERSION,
        client_capabilities=capabilities,
        client_info=Implementation(name="editor-under-test", version="0"),
    )
    sid = await agent.new_session()
    if mode:
        await agent.conn.set_session_mode(session_id=sid, mode_id=mode)
    return sid


def final(agent, sid: str) -> ToolCallProgress:
    (updates,) = agent.tool_calls(sid).values()
    return [u for u in updates if getattr(u, "status", None) in ("completed", "failed")][-1]


def texts(update) -> str:
    return "\n".join(c.content.text for c in update.content or [] if c.type == "content")


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "main.tf").write_text('region = "on-disk"\n')
    return root


async def test_read_file_sees_the_unsaved_buffer_and_the_model_quotes_it(tmp_path):
    root = project(tmp_path)
    path = str(root / "main.tf")
    client = EditorClient(buffers={path: 'region = "UNSAVED-BUFFER"\n'})
    script = [
        {"blocks": [use("read_file", path="main.tf")]},
        {"match": 'region = "UNSAVED-BUFFER"', "blocks": [{"type": "text", "text": 'The file sets region = "UNSAVED-BUFFER".'}]},
    ]
    async with serve_agent(root, script=script, client=client, initialize=False) as agent:
        sid = await start(agent, ALL)
        assert (await agent.prompt(sid, "what region?")).stop_reason == "end_turn"
        assert ("read", path) in client.calls
        assert 'UNSAVED-BUFFER' in texts(final(agent, sid))
        assert agent.text(sid) == 'The file sets region = "UNSAVED-BUFFER".'


async def test_an_approved_edit_arrives_as_fs_write_and_the_disk_is_untouched(tmp_path):
    root = project(tmp_path)
    path = str(root / "main.tf")
    client = EditorClient(buffers={path: 'region = "UNSAVED-BUFFER"\n'})
    edit = use("edit_file", path="main.tf", old_string="UNSAVED-BUFFER", new_string="eu-central-1")
    script = [{"blocks": [edit]}, {"blocks": [use("write_file", path="new/vars.tf", content="x = 1\n")]}, NEXT]
    async with serve_agent(root, script=script, client=client, initialize=False) as agent:
        sid = await start(agent, ALL)
        assert (await agent.prompt(sid, "edit")).stop_reason == "end_turn"
        assert len(client.permissions) == 2  # both asked first (default mode)
        statuses = [u.status for ups in agent.tool_calls(sid).values() for u in ups if getattr(u, "status", None) in ("completed", "failed")]
        assert statuses == ["completed", "completed"]
    assert client.buffers[path] == 'region = "eu-central-1"\n'
    assert client.buffers[str(root / "new" / "vars.tf")] == "x = 1\n"
    assert ("write", path) in client.calls
    assert (root / "main.tf").read_text() == 'region = "on-disk"\n'  # behind the editor's back: nothing
    assert not (root / "new" / "vars.tf").exists()


async def test_a_write_the_editor_refuses_is_a_tool_error_and_the_disk_stays(tmp_path):
    root = project(tmp_path)
    client = EditorClient(buffers={str(root / "main.tf"): "old\n"}, fail_writes=True)
    script = [{"blocks": [use("write_file", path="main.tf", content="new\n")]}, NEXT]
    async with serve_agent(root, script=script, client=client, initialize=False) as agent:
        sid = await start(agent, ALL, mode="accept_edits")
        assert (await agent.prompt(sid, "write")).stop_reason == "end_turn"
        last = final(agent, sid)
    assert last.status == "failed"
    assert "The editor could not write main.tf" in texts(last) and "read-only" in texts(last)
    assert (root / "main.tf").read_text() == 'region = "on-disk"\n'


async def test_a_read_the_editor_cannot_serve_falls_back_to_the_disk_and_says_so(tmp_path):
    root = project(tmp_path)
    client = EditorClient()  # no buffer: the editor answers "resource not found"
    async with serve_agent(root, script=[{"blocks": [use("read_file", path="main.tf")]}, NEXT], client=client, initialize=False) as agent:
        sid = await start(agent, ALL)
        assert (await agent.prompt(sid, "read")).stop_reason == "end_turn"
        shown = texts(final(agent, sid))
    assert 'region = "on-disk"' in shown and "The editor could not provide main.tf" in shown


async def test_bash_runs_in_a_client_terminal_shown_in_its_tool_call_and_released(tmp_path):
    root = project(tmp_path)
    client = EditorClient()
    script = [{"blocks": [use("bash", command="echo hello-from-terminal; echo $GIT_EDITOR | cut -c1-8; exit 3")]}, NEXT]
    env = {"ANTHROPIC_API_KEY": "sk-ant-terminal-test-key-123", "IAC_CODE_SANDBOX": "off"}  # sandboxed: test_sandbox_e2e
    async with serve_agent(root, script=script, client=client, initialize=False, env=env) as agent:
        sid = await start(agent, ALL, mode="bypass_permissions")
        assert (await agent.prompt(sid, "run")).stop_reason == "end_turn"
        last = final(agent, sid)
        updates = agent.tool_calls(sid)
    (create,) = [c for name, c in client.calls if name == "create"]
    assert create["command"] == "/bin/bash" and create["args"][0] == "-c" and create["cwd"] == str(root)
    assert create["env"]["GIT_TERMINAL_PROMPT"] == "0" and create["env"]["ANTHROPIC_API_KEY"] == ""
    assert create["limit"] and create["limit"] > 0
    # the terminal is embedded in the call while it runs and stays in its final update
    (call_updates,) = updates.values()
    embedded = [c.terminal_id for u in call_updates for c in u.content or [] if c.type == "terminal"]
    assert embedded and set(embedded) == {"term-1"}
    assert last.status == "failed"  # exit code 3
    assert last.raw_output["output"] == "hello-from-terminal\necho 'ia"  # GIT_EDITOR: the failing one
    assert last.raw_output["exit_code"] == 3
    assert client.names().count("release") == 1 and client.names()[-1] == "release"


async def test_a_cancelled_terminal_command_is_killed_released_and_keeps_its_output(tmp_path):
    root = project(tmp_path)
    client = EditorClient()
    script = [{"blocks": [use("bash", command="echo started-in-terminal; sleep 60")]}, NEXT]
    async with serve_agent(root, script=script, client=client, initialize=False) as agent:
        sid = await start(agent, ALL, mode="bypass_permissions")
        prompt = asyncio.create_task(agent.prompt(sid, "run"))
        await wait_for(lambda: any(b"started-in-terminal" in t.output for t in client.terminals.values()), timeout=30)
        await agent.conn.cancel(session_id=sid)
        assert (await asyncio.wait_for(prompt, 10)).stop_reason == "cancelled"
        last = final(agent, sid)
        (terminal,) = client.terminals.values()
        assert terminal.proc.returncode is not None  # killed, not left running
    names = client.names()
    assert "kill" in names and names.count("release") == 1 and names.index("kill") < names.index("release")
    assert last.status == "failed" and "started-in-terminal" in last.raw_output["output"]
    assert any(c.type == "terminal" for c in last.content)


async def test_without_the_capabilities_the_disk_and_local_processes_are_used(tmp_path):
    root = project(tmp_path)
    client = EditorClient(buffers={str(root / "main.tf"): "UNSAVED-BUFFER\n"})
    script = [
        {"blocks": [use("read_file", path="main.tf")]},
        {"blocks": [use("edit_file", path="main.tf", old_string="on-disk", new_string="edited-on-disk")]},
        {"blocks": [use("bash", command="echo local-$$")]},
        NEXT,
    ]
    async with serve_agent(root, script=script, client=client, initialize=False) as agent:
        sid = await start(agent, ClientCapabilities(), mode="bypass_permissions")
        assert (await agent.prompt(sid, "go")).stop_reason == "end_turn"
        shown = [texts(u) for u in (ups[-1] for ups in agent.tool_calls(sid).values())]
    assert client.calls == []
    assert 'region = "on-disk"' in shown[0]
    assert (root / "main.tf").read_text() == 'region = "edited-on-disk"\n'
    assert "local-" in shown[2]


async def test_a_terminal_command_over_its_timeout_is_killed_and_released(tmp_path):
    root = project(tmp_path)
    client = EditorClient()
    script = [{"blocks": [use("bash", command="echo before-timeout; sleep 60", timeout=1)]}, NEXT]
    async with serve_agent(root, script=script, client=client, initialize=False) as agent:
        sid = await start(agent, ALL, mode="bypass_permissions")
        assert (await agent.prompt(sid, "run")).stop_reason == "end_turn"
        last = final(agent, sid)
        (terminal,) = client.terminals.values()
        assert terminal.proc.returncode is not None
    names = client.names()
    assert names.count("kill") >= 1 and names.count("release") == 1 and names[-1] == "release"
    assert last.status == "failed" and last.raw_output["timed_out"] is True
    assert last.raw_output["output"] == "before-timeout"


async def test_a_big_file_is_asked_of_the_editor_only_in_the_lines_shown(tmp_path):
    root = project(tmp_path)
    big = root / "big.tf"
    big.write_text("# filler\n" * 600_000)  # over 4 MiB on disk
    path = str(big)
    client = EditorClient(buffers={path: "".join(f"line {n}\n" for n in range(1, 10_001))})
    script = [
        {"blocks": [use("read_file", path="big.tf", start_line=3, end_line=4)]},
        {"blocks": [use("read_file", path="big.tf", start_line=9_999)]},
        {"blocks": [use("read_file", path="big.tf", start_line=20_000)]},
        NEXT,
    ]
    async with serve_agent(root, script=script, client=client, initialize=False) as agent:
        sid = await start(agent, ALL)
        assert (await agent.prompt(sid, "read")).stop_reason == "end_turn"
        shown = [texts([u for u in ups if getattr(u, "status", None) in ("completed", "failed")][-1]) for ups in agent.tool_calls(sid).values()]
    assert client.reads == [(path, 3, 3), (path, 9_999, 2_001), (path, 20_000, 2_001)]
    assert shown[0] == "     3\tline 3\n     4\tline 4\n[Showing lines 3-4.]"
    assert shown[1] == "  9999\tline 9999\n 10000\tline 10000\n[Showing lines 9999-10000 of 10,000.]"
    assert shown[2] == "start_line 20000 is past the end of big.tf."
