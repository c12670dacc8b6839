"""The file tools operate on exactly the file that was checked, through the real `iac-code acp`
(issue 10, holes 1 and 13): a symlink swapped in after the check (during the permission prompt,
or racing writes in accept_edits) never redirects a write, an edit or a sensitive read; a name
typed in one Unicode normal form finds the file stored in the other."""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
import time
import unicodedata
from pathlib import Path

from acp.schema import ToolCallProgress
from harness import RecordingClient, spawn_agent

NEXT = {"blocks": [{"type": "text", "text": "done"}]}


def use(name: str, **input) -> dict:
    return {"type": "tool_use", "name": name, "input": input}


def finals(agent, sid: str) -> list[ToolCallProgress]:
    out = []
    for updates in agent.tool_calls(sid).values():
        out.append([u for u in updates if getattr(u, "status", None) in ("completed", "failed")][-1])
    return out


def shown(update: ToolCallProgress) -> str:
    return "\n".join(c.content.text for c in update.content or [] if c.type == "content")


def layout(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "proj", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    return root, outside


def swap_for_link(directory: Path, target: Path) -> None:
    """Move `directory` aside and put a symbolic link to `target` in its place."""
    directory.rename(directory.with_name(directory.name + ".moved"))
    directory.symlink_to(target, target_is_directory=True)


async def test_a_write_approved_before_its_directory_became_a_link_lands_nowhere_else(tmp_path):
    root, outside = layout(tmp_path)
    client = RecordingClient(on_permission=lambda call: swap_for_link(root / "sub", outside))
    script = [{"blocks": [use("write_file", path="sub/x.txt", content="payload\n")]}, NEXT]
    async with spawn_agent(root, script=script, client=client) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "write")).stop_reason == "end_turn"
        (final,) = finals(agent, sid)
    assert len(client.permissions) == 1  # it was approved, for sub/x.txt inside the project
    assert list(outside.iterdir()) == []
    assert final.status == "failed" and "changed after it was checked" in shown(final)


async def test_an_approved_edit_does_not_follow_a_swapped_in_link(tmp_path):
    root, outside = layout(tmp_path)
    (root / "sub" / "main.tf").write_text("a = 1\n")
    (outside / "main.tf").write_text("a = 1\n")
    client = RecordingClient(on_permission=lambda call: swap_for_link(root / "sub", outside))
    script = [{"blocks": [use("edit_file", path="sub/main.tf", old_string="a = 1", new_string="a = 2")]}, NEXT]
    async with spawn_agent(root, script=script, client=client) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "edit")).stop_reason == "end_turn"
        (final,) = finals(agent, sid)
    assert (outside / "main.tf").read_text() == "a = 1\n"
    assert final.status == "failed" and "changed after it was checked" in shown(final)


async def test_an_approved_sensitive_read_does_not_follow_a_swapped_in_link(tmp_path):
    root, outside = layout(tmp_path)
    (root / ".env").write_text("HARMLESS=1\n")
    (outside / "secret").write_text("TOP-SECRET-VALUE\n")

    def swap(call) -> None:
        (root / ".env").unlink()
        (root / ".env").symlink_to(outside / "secret")

    client = RecordingClient(on_permission=swap)
    async with spawn_agent(root, script=[{"blocks": [use("read_file", path=".env")]}, NEXT], client=client) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "read")).stop_reason == "end_turn"
        (final,) = finals(agent, sid)
    assert len(client.permissions) == 1  # .env is sensitive: asked, approved
    assert "TOP-SECRET-VALUE" not in shown(final) and final.status == "failed"


async def test_racing_writes_in_accept_edits_never_land_outside(tmp_path):
    root, outside = layout(tmp_path)
    sub, aside = root / "sub", root / "sub.real"
    stop = threading.Event()

    def flip() -> None:  # sub: a real directory, then a link to outside, and so on
        while not stop.is_set():
            with contextlib.suppress(OSError):
                sub.rename(aside)
                sub.symlink_to(outside, target_is_directory=True)
            time.sleep(0.0005)
            with contextlib.suppress(OSError):
                sub.unlink()
            try:
                aside.rename(sub)
            except OSError:  # the agent made a new `sub` meanwhile (write_file creates parents)
                shutil.rmtree(sub, ignore_errors=True)
            time.sleep(0.0005)

    writes = [use("write_file", path=f"sub/x{i}.txt", content=f"{i}\n") for i in range(40)]
    script = [{"blocks": writes}, NEXT]
    # a write checked while `sub` is the link resolves outside the project and asks: rejected here
    client = RecordingClient(default_answer="reject_once")
    flipper = threading.Thread(target=flip)
    env = {"IAC_CODE_PERMISSION_MODE": "accept_edits"}
    async with spawn_agent(root, script=script, client=client, env=env) as agent:
        sid = await agent.new_session()
        flipper.start()
        try:
            assert (await agent.prompt(sid, "write forty files")).stop_reason == "end_turn"
        finally:
            stop.set()
            flipper.join()
        ended = finals(agent, sid)
    assert len(ended) == 40
    assert sorted(os.listdir(outside)) == []


async def test_a_name_typed_in_nfc_finds_the_file_stored_in_nfd_and_back(tmp_path):
    root = tmp_path / "proj"
    nfc, nfd = unicodedata.normalize("NFC", "résumé"), unicodedata.normalize("NFD", "résumé")
    (root / nfd).mkdir(parents=True)
    (root / nfd / f"{nfd}.tf").write_text("stored = \"nfd\"\n")
    (root / f"{nfc}.txt").write_text("stored in nfc\n")
    script = [
        {"blocks": [use("read_file", path=f"{nfc}/{nfc}.tf"), use("read_file", path=f"{nfd}.txt")]},
        {"blocks": [use("edit_file", path=f"{nfc}/{nfc}.tf", old_string='"nfd"', new_string='"edited"')]},
        NEXT,
    ]
    env = {"IAC_CODE_PERMISSION_MODE": "accept_edits"}
    async with spawn_agent(root, script=script, env=env) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "read")).stop_reason == "end_turn"
        ended = finals(agent, sid)
    assert [u.status for u in ended] == ["completed"] * 3
    assert 'stored = "nfd"' in shown(ended[0]) and "stored in nfc" in shown(ended[1])
    assert (root / nfd / f"{nfd}.tf").read_text() == 'stored = "edited"\n'
    assert sorted(os.listdir(root)) == sorted([nfd, f"{nfc}.txt"])  # no second file in the other form
