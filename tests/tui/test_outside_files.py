"""Files outside the project, through the app's fs/*: served for what the person approved, and
only while it is approved (the real agent asks for them; iac-tui serves its reads and writes)."""

from __future__ import annotations

import acp
import pytest
from acp.schema import ToolCallLocation, ToolCallUpdate

from iac_tui.approvals import OutsideApprovals
from iac_tui.client import TuiClient
from iac_tui.widgets.tool_call import ToolCallPanel
from tui_support import pending_question, ready, send, turn_done


def read_turns(*paths: str) -> list[dict]:
    turns: list[dict] = [{"blocks": [{"type": "tool_use", "name": "read_file", "input": {"path": p}}]} for p in paths]
    return [*turns, {"blocks": [{"type": "text", "text": "Read them."}]}]


async def test_an_approved_read_outside_the_project_is_served(ws):
    outside = ws.base / "shared"
    outside.mkdir()
    (outside / "vars.tf").write_text('variable "region" {}\n')
    app = ws.app(read_turns(str(outside / "vars.tf")))
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "read the shared vars")
        await pending_question(pilot)
        await pilot.press("a")
        await turn_done(pilot)
        panel = app.query_one(ToolCallPanel)
        assert panel.status == "completed", panel.output_text()
        assert 'variable "region"' in panel.output_text()
        assert "could not provide" not in panel.output_text()  # served by the app (else the agent reads the disk and says so)


async def test_always_allowing_reads_in_a_directory_serves_its_later_reads(ws):
    outside = ws.base / "shared"
    outside.mkdir()
    (outside / "a.tf").write_text("# a\n")
    (outside / "b.tf").write_text("# b\n")
    app = ws.app(read_turns(str(outside / "a.tf"), str(outside / "b.tf")))
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "read both")
        question = await pending_question(pilot)
        await pilot.press("A")  # always allow reads in that directory: the second read is not asked
        await turn_done(pilot)
        first, second = app.query(ToolCallPanel)
        assert question.current is None
        assert "# a" in first.output_text() and "# b" in second.output_text()
        assert second.status == "completed"
        assert "could not provide" not in first.output_text() + second.output_text()


async def test_an_approved_write_outside_the_project_is_written(ws):
    target = ws.base / "elsewhere" / "notes.tf"
    turns = [
        {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": str(target), "content": "# notes\n"}}]},
        {"blocks": [{"type": "text", "text": "Wrote it."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write outside")
        await pending_question(pilot)
        await pilot.press("a")
        await turn_done(pilot)
        assert target.read_text() == "# notes\n"


def call(call_id: str, kind: str, *paths: str) -> ToolCallUpdate:
    return ToolCallUpdate(tool_call_id=call_id, kind=kind, locations=[ToolCallLocation(path=p) for p in paths])


def test_approvals_last_as_long_as_their_call_and_writes_are_never_remembered(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    other = tmp_path / "other"
    other.mkdir()
    approvals = OutsideApprovals(root)
    approvals.approved(call("c1", "edit", str(other / "x.tf")), "reject_once")
    assert not approvals.allows(other / "x.tf", write=True)
    approvals.approved(call("c2", "edit", str(other / "x.tf")), "allow_always")
    assert approvals.allows(other / "x.tf", write=True) and approvals.allows(other / "x.tf", write=False)
    assert not approvals.allows(other / "y.tf", write=False)  # an edit's approval opens no directory
    approvals.finished("c2")
    assert not approvals.allows(other / "x.tf", write=True)
    approvals.approved(call("c3", "read", str(other / "x.tf")), "allow_always")
    approvals.finished("c3")
    assert approvals.allows(other / "y.tf", write=False)  # reads in that directory, as the agent's rule
    assert not approvals.allows(other / "y.tf", write=True)
    assert not approvals.allows(other / "deeper" / "z.tf", write=False)


async def test_unapproved_files_outside_the_project_are_refused(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("no\n")
    client = TuiClient(lambda message: None, root)
    for request in (
        client.read_text_file(session_id="s", path=str(tmp_path / "secret.txt")),
        client.write_text_file(session_id="s", path=str(tmp_path / "new.txt"), content="x"),
        client.read_text_file(session_id="s", path=str(root / ".." / "secret.txt")),
    ):
        with pytest.raises(acp.RequestError) as refused:
            await request
        assert refused.value.code == -32602
    assert not (tmp_path / "new.txt").exists()
