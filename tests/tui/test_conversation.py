"""The conversation against the real agent: streamed text, thoughts, tool panels, plans, stop reasons."""

from __future__ import annotations

from textual.widgets import Markdown, Static

from iac_tui.widgets.code import CodeBlock
from iac_tui.widgets.message import AgentMessage, UserMessage
from iac_tui.widgets.note import Note
from iac_tui.widgets.plan import PlanView
from iac_tui.widgets.thought import Thought
from iac_tui.widgets.tool_call import ToolCallPanel
from iac_tui.widgets.tool_output import ToolOutput
from tui_support import ready, send, turn_done, wait_until

ANSWER = "Hello from the scripted model.\n\nIt streams **word** by word."


async def test_prompt_streams_text_into_markdown(ws):
    app = ws.app([{"blocks": [{"type": "text", "text": ANSWER}]}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "say hello")
        await turn_done(pilot)
        users = list(app.query(UserMessage))
        assert [u.text for u in users] == ["say hello"]
        messages = list(app.query(AgentMessage))
        assert len(messages) == 1
        assert messages[0].source == ANSWER
        rendered = "".join(str(block.content) for block in messages[0].query("MarkdownParagraph"))
        assert "It streams word by word." in rendered.replace("**", "")
        assert not app.indicator.running
        assert not list(app.query(Note))  # end_turn: no stop-reason note


async def test_status_bar_shows_title_model_mode_and_usage(ws):
    app = ws.app([{"blocks": [{"type": "text", "text": "ok"}]}])
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "Describe the network module")
        await turn_done(pilot)
        text = {w.id: str(w.render()) for w in app.status.query(Static)}
        assert text["status-title"] == "Describe the network module"
        assert text["status-model"] == "Scripted (offline)"
        assert text["status-mode"] == "Default"
        assert text["status-usage"].startswith("ctx ") and "/200k" in text["status-usage"]
        assert "↑" in text["status-usage"] and "↓" in text["status-usage"]
        assert app.state.context_used and app.state.context_used > 0


async def test_thought_is_a_folded_block_that_ctrl_t_unfolds(ws):
    turns = [{"blocks": [{"type": "thinking", "thinking": "Weigh the options first."}, {"type": "text", "text": "Decided."}]}]
    app = ws.app(turns)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "think")
        await turn_done(pilot)
        thought = app.query_one(Thought)
        assert thought.body.source == "Weigh the options first."
        assert not thought.expanded
        assert not thought.body.display or not thought.has_class("-expanded")
        await pilot.press("ctrl+t")
        assert thought.expanded
        blocks = app.conversation.blocks
        assert blocks.index(thought) < blocks.index(app.query_one(AgentMessage))


async def test_tool_panel_is_updated_in_place(ws):
    ws.write("main.tf", 'resource "null_resource" "a" {}\n')
    turns = [
        {"blocks": [{"type": "tool_use", "name": "read_file", "input": {"path": "main.tf"}}]},
        {"blocks": [{"type": "text", "text": "Read it."}]},
    ]
    app = ws.app(turns)
    created = []
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "read main.tf")
        panel = await wait_until(pilot, lambda: next(iter(app.query(ToolCallPanel)), None), what="a tool panel")
        created.append((panel, panel.query_one(".tool-title", Static)))
        await turn_done(pilot)
        panels = list(app.query(ToolCallPanel))
        assert len(panels) == 1
        assert panels[0] is created[0][0]
        assert panels[0].query_one(".tool-title", Static) is created[0][1]
        assert panels[0].status == "completed"
        assert panels[0].kind == "read"
        assert str(panels[0].query_one(".tool-title", Static).render()) == "Read main.tf"
        output = panels[0].query_one(ToolOutput)
        assert 'null_resource' in output.text
        assert output.can_expand and not output.expanded  # a read is folded


async def test_bash_output_is_terminal_styled_and_ctrl_o_unfolds(ws):
    command = "for i in $(seq 1 30); do echo line-$i; done"
    turns = [
        {"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": command}}]},
        {"blocks": [{"type": "text", "text": "Ran it."}]},
    ]
    app = ws.app(turns, mode="bypass_permissions")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: app.state.setting("mode").current == "bypass_permissions", what="mode switch")
        await send(pilot, "count")
        await turn_done(pilot)
        panel = app.query_one(ToolCallPanel)
        assert panel.kind == "execute" and panel.status == "completed"
        output = panel.query_one(ToolOutput)
        assert output.has_class("-terminal")
        assert "line-30" in output.text
        shown = str(output.query_one(".output-text", Static).render())
        assert "line-30" in shown and "line-1\n" not in shown  # folded to the last lines
        await pilot.press("ctrl+o")
        assert output.expanded
        assert "line-1\n" in str(output.query_one(".output-text", Static).render())


async def test_plan_updates_in_place(ws):
    def plan(*statuses):
        names = ["Write main.tf", "Run terraform plan", "Apply"]
        return {"type": "tool_use", "name": "update_plan", "input": {"entries": [{"content": n, "status": s, "priority": "medium"} for n, s in zip(names, statuses)]}}

    turns = [
        {"blocks": [plan("in_progress", "pending", "pending")]},
        {"blocks": [{"type": "text", "text": "Step one done."}, plan("completed", "in_progress", "pending")]},
        {"blocks": [{"type": "text", "text": "Finished."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "plan it")
        first = await wait_until(pilot, lambda: next(iter(app.query(PlanView)), None), what="a plan")
        await turn_done(pilot)
        plans = list(app.query(PlanView))
        assert plans == [first]
        assert [e.status for e in first.entries] == ["completed", "in_progress", "pending"]
        assert first.done == 1
        assert app.conversation.blocks.index(first) > app.conversation.blocks.index(app.query(AgentMessage).first())


async def test_stop_reason_other_than_end_turn_is_shown(ws):
    app = ws.app([{"blocks": [{"type": "text", "text": "Cut"}], "stop_reason": "max_tokens"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "long answer please")
        await turn_done(pilot)
        notes = [n.text for n in app.query(Note)]
        assert any("max_tokens" in n for n in notes)


async def test_code_block_is_rendered_as_a_fence(ws):
    answer = "Use this:\n\n```hcl\nresource \"aws_s3_bucket\" \"b\" {}\n```\n\nDone."
    app = ws.app([{"blocks": [{"type": "text", "text": answer}]}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "code")
        await turn_done(pilot)
        fences = list(app.query(CodeBlock))
        assert len(fences) == 1
        assert fences[0].language == "hcl"
        assert fences[0].code == 'resource "aws_s3_bucket" "b" {}\n'
        assert 'resource "aws_s3_bucket"' in fences[0].code
        assert list(app.query(Markdown))
