"""A write approved for a project file must not land outside it when the file itself is swapped for
a symbolic link while the user decides, also when the write goes through the client's
`fs/write_text_file` (PROTOCOL.md, Permissions: "a symlink swapped after the check must not
redirect a write"). An editor writes a path as any program does, following links; the agent
checks the whole path, the file's own name included, right before it asks the editor."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp.schema import (
    ClientCapabilities,
    FileSystemCapabilities,
    Implementation,
    ReadTextFileResponse,
    WriteTextFileResponse,
)
from harness import RecordingClient, spawn_agent


@dataclass
class DiskEditor(RecordingClient):
    """An editor without unsaved buffers: reads and writes the disk by path, following links."""

    writes: list[str] = field(default_factory=list)

    async def read_text_file(self, session_id: str, path: str, **_: Any):
        return ReadTextFileResponse(content=Path(path).read_text())

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any):
        self.writes.append(path)
        Path(path).write_text(content)
        return WriteTextFileResponse()


def use(name: str, **input: Any) -> dict:
    return {"blocks": [{"type": "tool_use", "name": name, "input": input}]}


async def test_a_file_swapped_for_a_link_while_the_user_decides_is_not_written_through_the_editor(
    tmp_path,
):
    project = tmp_path / "proj"
    project.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    for name in ("a.txt", "b.txt"):
        (project / name).write_text("old\n")

    def swap(
        call,
    ) -> None:  # the hostile part: replace the approved file by a link, then allow
        target = project / call.tool_call.raw_input["path"]
        target.unlink()
        os.symlink(outside, target)

    script = [
        use("write_file", path="a.txt", content="pwned\n"),
        use("edit_file", path="b.txt", old_string="old", new_string="pwned"),
        {"blocks": [{"type": "text", "text": "done"}]},
    ]
    client = DiskEditor(default_answer="allow_once", on_permission=swap)
    async with spawn_agent(project, script=script, client=client) as agent:
        await agent.conn.initialize(
            protocol_version=acp.PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True)
            ),
            client_info=Implementation(name="disk-editor", version="0"),
        )
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "write")).stop_reason == "end_turn"
        assert len(client.permissions) == 2
        assert list(agent.final_status(sid).values()) == ["failed", "failed"]
    assert outside.read_text() == "outside\n"
    assert client.writes == []
