"""A loaded session's replay sends what the live turn sent: diffs for edits, `plan` updates.

Live: one turn that publishes a plan, edits a file, creates a file and is refused an edit. Then
a new agent process loads the session, and the replayed updates are compared with the live ones.
"""

from __future__ import annotations

from acp.schema import AgentPlanUpdate, ToolCallProgress, ToolCallStart
from harness import serve_agent

PLAN_ENTRIES = [
    {"content": "Tag the bucket", "status": "in_progress", "priority": "high"},
    {"content": "Validate", "status": "pending", "priority": "medium"},
]
SCRIPT = [
    {
        "match": "tag",
        "blocks": [
            {"type": "tool_use", "name": "update_plan", "input": {"entries": PLAN_ENTRIES}},
            {"type": "tool_use", "name": "edit_file", "input": {"path": "main.tf", "old_string": '"logs"', "new_string": '"audit-logs"'}},
            {"type": "tool_use", "name": "write_file", "input": {"path": "outputs.tf", "content": 'output "arn" {}\n'}},
            {"type": "tool_use", "name": "edit_file", "input": {"path": "main.tf", "old_string": "bucket", "new_string": "b"}},
        ],
    },
    {"blocks": [{"type": "text", "text": "Done."}]},
]
MAIN_TF = 'resource "aws_s3_bucket" "logs" {\n  tags = {}\n}\n'


def finals(updates: list) -> dict[str, ToolCallProgress]:
    """The last update of each tool call with content, by tool call id."""
    out: dict[str, ToolCallProgress] = {}
    for update in updates:
        if isinstance(update, ToolCallProgress) and update.content is not None:
            out[update.tool_call_id] = update
    return out


def diffs(update: ToolCallProgress) -> list[tuple[str, str | None, str]]:
    return [(c.path.rsplit("/", 1)[-1], c.old_text, c.new_text) for c in update.content or [] if c.type == "diff"]


async def test_replay_sends_diffs_and_the_plan_as_live(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "main.tf").write_text(MAIN_TF)
    async with serve_agent(project, script=SCRIPT) as agent:
        agent.client.answers = ["allow_once", "allow_once", "reject_once"]
        sid = await agent.new_session()
        await agent.prompt(sid, "tag the bucket")
        live = agent.updates(sid)
    async with serve_agent(project, script=SCRIPT) as agent:
        await agent.conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[])
        replayed = agent.updates(sid)

    starts = [u for u in replayed if isinstance(u, ToolCallStart)]
    assert [s.title for s in starts][:1] == ["Update plan (0/2 done)"]
    plan_id, edit_id, write_id, refused_id = (s.tool_call_id for s in starts)
    # the plan: a plan update with the live entries, between the call's start and its end
    live_plans = [[(e.content, e.status, e.priority) for e in u.entries] for u in live if isinstance(u, AgentPlanUpdate)]
    replay_plans = [[(e.content, e.status, e.priority) for e in u.entries] for u in replayed if isinstance(u, AgentPlanUpdate)]
    assert replay_plans == live_plans == [[(e["content"], e["status"], e["priority"]) for e in PLAN_ENTRIES]]
    order = ["plan" if isinstance(u, AgentPlanUpdate) else getattr(u, "tool_call_id", "-") for u in replayed]
    assert order.index(plan_id) < order.index("plan") < max(i for i, x in enumerate(order) if x == plan_id)
    final = finals(replayed)
    live_final = finals(live)
    # the edit: a diff, as live (live had the whole file; the replay has the replaced text)
    assert diffs(final[edit_id]) == [("main.tf", '"logs"', '"audit-logs"')]
    live_edit = [d for u in live_final.values() for d in diffs(u) if d[0] == "main.tf"]
    assert live_edit and '"logs"' in live_edit[0][1] and '"audit-logs"' in live_edit[0][2]
    # the new file: a diff from nothing, as live
    assert diffs(final[write_id]) == [("outputs.tf", None, 'output "arn" {}\n')]
    assert ("outputs.tf", None, 'output "arn" {}\n') in [d for u in live_final.values() for d in diffs(u)]
    # the refused edit ended as text, live and replayed
    assert final[refused_id].status == "failed" and diffs(final[refused_id]) == []
    assert "Permission denied" in final[refused_id].content[0].content.text
