"""A tool call's diff on a bare panel: composed once per look, not once per style pass.

textual-diff-view's `DiffView` recomposes itself on every style pass that reaches it; the
panel's state classes (pending, awaiting, running, done) made one per change, and a pass over a
diff being recomposed leaked a started scrollbar in Textual (widgets/diff.py, `_DiffView`).
"""

from __future__ import annotations

from pathlib import Path

from acp.schema import FileEditToolCallContent, ToolCallProgress, ToolCallStart
from textual.app import App, ComposeResult
from textual.widget import Widget

from iac_tui.widgets.diff import EditDiff
from iac_tui.widgets.tool_call import ToolCallPanel
from textual_diff_view import DiffView

# lines too long for side by side at 100 columns: DiffView's auto split keeps it unified at
# every width it gets, so the only composes are the ones the test is about
OLD = 'variable "region" {\n  description = "The region every resource of this module is created in"\n  default = "cn-hangzhou"\n}\n'
NEW = OLD.replace("cn-hangzhou", "cn-shanghai")


SHORT = 'name = "a value of thirty chars 1"\n'  # side by side needs 80 columns (DiffView's rule)


class Host(App):
    def compose(self) -> ComposeResult:
        yield ToolCallPanel("call-1", Path("/project"))


def drawn(view: DiffView) -> list[Widget]:
    """The widgets a compose of the diff made (all of them are replaced by the next one)."""
    return list(view.walk_children())


async def test_a_panel_changing_state_keeps_its_diff_and_a_theme_change_redraws_it():
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.query_one(ToolCallPanel)
        edit = FileEditToolCallContent(type="diff", path="/project/variables.tf", old_text=OLD, new_text=NEW)
        await panel.apply(ToolCallStart(session_update="tool_call", tool_call_id="call-1", title="Edit variables.tf", kind="edit", status="pending", content=[edit]))
        await pilot.pause()
        view = panel.query_one(EditDiff).query_one(DiffView)
        before = drawn(view)
        assert before and not view.split
        for waiting, status in ((True, None), (False, "in_progress"), (False, "completed")):
            if waiting:
                panel.set_awaiting_permission(True)
            else:
                panel.set_awaiting_permission(False)
                await panel.apply(ToolCallProgress(session_update="tool_call_update", tool_call_id="call-1", status=status))
            await pilot.pause()
            await pilot.pause()
        assert panel.has_class("-completed") and not panel.has_class("-awaiting")
        assert drawn(view) == before  # the same widgets: four state changes, no compose
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        await pilot.pause()
        after = drawn(view)
        assert after and not set(map(id, after)) & set(map(id, before))  # composed again in the new theme's colours


async def test_a_diff_that_fits_side_by_side_is_composed_once_as_it_mounts():
    """Split up front from the width it will get, then judged again at its first real width
    only (DiffView judged it at mount, at width 0: unified, then split again: two composes)."""
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.query_one(ToolCallPanel)
        edit = FileEditToolCallContent(type="diff", path="/project/main.tf", old_text=SHORT, new_text=SHORT.replace("1", "2"))
        await panel.apply(ToolCallStart(session_update="tool_call", tool_call_id="call-1", title="Edit main.tf", kind="edit", status="completed", content=[edit]))
        view = panel.query_one(EditDiff).query_one(DiffView)
        first = drawn(view)
        await pilot.pause()
        await pilot.pause()
        assert view.split and view.size.width > 0
        assert drawn(view) == first  # laid out and judged at its width: still the first compose
        await pilot.resize_terminal(60, 30)  # too narrow for side by side: judged again
        await pilot.pause()
        await pilot.pause()
        assert not view.split
