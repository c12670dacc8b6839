"""A loaded session looks as it did live: edits as diffs, the plan as a checklist (real agent)."""

from __future__ import annotations

from harness import serve_agent
from tui_support import ready, send, turn_done, wait_until

from iac_tui.widgets.diff import EditDiff
from iac_tui.widgets.plan import PlanView
from iac_tui.widgets.tool_call import ToolCallPanel

MAIN_TF = 'resource "aws_s3_bucket" "logs" {\n  bucket = "acme-logs"\n}\n'
PLAN = [{"content": "Rename the bucket", "status": "in_progress", "priority": "high"}, {"content": "Validate", "status": "pending"}]
TURNS = [
    {
        "match": "rename",
        "blocks": [
            {"type": "text", "text": "Here is the plan."},
            {"type": "tool_use", "name": "update_plan", "input": {"entries": PLAN}},
            {"type": "tool_use", "name": "edit_file", "input": {"path": "main.tf", "old_string": '"acme-logs"', "new_string": '"acme-audit-logs"'}},
        ],
    },
    {"blocks": [{"type": "text", "text": "Renamed."}]},
]


def picture(app) -> dict:
    """What a person sees of the turn: the plan's entries, the diffs, the panels' statuses."""
    plan = app.query_one(PlanView)
    return {
        "plan": [(e.content, e.status) for e in plan.entries],
        "diffs": [(d.path, d.added, d.removed) for d in app.query(EditDiff)],
        "panels": [(p.title, p.status, p.folded_output) for p in app.query(ToolCallPanel)],
    }


async def live_session(ws) -> tuple[str, dict]:
    ws.write("main.tf", MAIN_TF)
    app = ws.app(TURNS, mode="accept_edits")
    async with app.run_test(size=(100, 40)) as pilot:
        session_id = await ready(pilot)
        await send(pilot, "rename the bucket")
        await turn_done(pilot)
        return session_id, picture(app)


async def test_a_loaded_session_shows_diffs_and_the_plan_as_live(ws):
    session_id, live = await live_session(ws)
    assert live["diffs"] and live["plan"]
    app = ws.app(TURNS, resume=session_id)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: app.query(PlanView) and app.query(EditDiff), what="the replayed plan and diff")
        await pilot.pause()
        assert picture(app) == live


async def stored_session(ws) -> str:
    """The session `live_session` makes, made by the agent served in this process (no app)."""
    ws.write("main.tf", MAIN_TF)
    async with serve_agent(ws.project, script=TURNS, env={"IAC_CODE_CONFIG_DIR": str(ws.config)}) as agent:
        session_id = await agent.new_session()
        await agent.conn.set_session_mode(mode_id="accept_edits", session_id=session_id)
        await agent.prompt(session_id, "rename the bucket")
    return session_id


def test_snapshot_replayed_session(snap_compare, ws):
    import asyncio

    session_id = asyncio.run(stored_session(ws))

    async def run(pilot):
        await ready(pilot)
        await wait_until(pilot, lambda: pilot.app.query(EditDiff), what="the replayed diff")
        await pilot.pause()

    app = ws.app(TURNS, resume=session_id, cwd_label="~/work/infra")
    assert snap_compare(app, terminal_size=(100, 40), run_before=run)
