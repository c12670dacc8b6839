"""An edit's validation findings in the app: shown under the diff, error lines in the error colour."""

from __future__ import annotations

from textual.widgets import Static

from iac_tui.widgets.diff import EditDiff
from iac_tui.widgets.tool_call import ToolCallPanel
from iac_tui.widgets.tool_output import ToolOutput
from tui_support import ready, send, turn_done, wait_until

MAIN = 'variable "region" {\n  type = string\n}\n\noutput "region" {\n  value = var.region\n}\n'


async def test_new_problems_show_under_the_diff_marked_as_errors(ws):
    ws.write("main.tf", MAIN)
    edit = {"type": "tool_use", "name": "edit_file",
            "input": {"path": "main.tf", "old_string": "var.region", "new_string": "var.regoin"}}
    app = ws.app([{"blocks": [edit]}, {"blocks": [{"type": "text", "text": "edited"}]}], mode="accept_edits")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "rename")
        await turn_done(pilot)
        panel = app.query_one(ToolCallPanel)
        await wait_until(pilot, lambda: panel.query(ToolOutput), what="the findings under the diff")
        body = list(panel.body.children)
        assert isinstance(body[0], EditDiff) and isinstance(body[1], ToolOutput)
        content = body[1].query_one(".output-text", Static).content
        line = 'main.tf:6:11 error terraform.undeclared-variable undeclared variable "var.regoin"'
        start = content.plain.index(line)
        assert any(span.start <= start < span.end and span.style == "$text-error" for span in content.spans)
