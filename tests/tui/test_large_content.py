"""Large content stays fast and readable: many diffs, a huge line, long command output.

A foreign agent (`scenario_agent.py`, the SDK's agent side) sends the content; the app is the
real one. Snapshots live in `<repo>/snapshots/test_large_content/`.
"""

from __future__ import annotations

from scenario_agent import served_scenario
from textual_diff_view import DiffView
from tui_support import ready, send, turn_done, wait_until

from iac_tui.answer_keys import LETTER_GRACE
from iac_tui.screens.diff_review import DiffReview
from iac_tui.screens.pager import Pager, find, location, plain_lines
from iac_tui.file_changes import FileChange, diff_counts, wants_review
from iac_tui.widgets.diff import EditDiff
from iac_tui.widgets.permission import PermissionQuestion
from iac_tui.widgets.tool_call import ToolCallPanel
from iac_tui.widgets.tool_output import ToolOutput, take_rows


async def pending_question(pilot):
    app = pilot.app
    return await wait_until(pilot, lambda: app.query_one(PermissionQuestion).current, what="the question")


async def test_fifty_diffs_lay_out_lazily_and_open_in_the_reviewer(ws):
    app = ws.app(served=served_scenario("diffs:50:21"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "edit everything")
        await pending_question(pilot)
        # fifty files: the reviewer opens by itself, one diff laid out at a time
        await wait_until(pilot, lambda: isinstance(app.screen, DiffReview), what="the reviewer")
        review = app.screen
        await pilot.pause()
        assert len(review.query(DiffView)) == 1
        await pilot.press("j", "j")
        await pilot.pause()
        assert review.index == 2 and review.query_one(DiffView).path_original.endswith("m02/main.tf")
        await pilot.press("k", "s")
        await pilot.pause()
        assert review.index == 1 and review.query_one(DiffView).split
        await pilot.press("escape")  # back to the conversation and the docked question
        await pilot.pause()
        assert not isinstance(app.screen, DiffReview)
        panel = app.query_one(ToolCallPanel)
        diffs = list(panel.query(EditDiff))
        assert len(diffs) == 50 and all(d.added == 4 and d.removed == 4 for d in diffs)
        # no diff is laid out in the conversation (the reviewer shows them): headers, most summed up in one line
        assert len(panel.query(DiffView)) == 0
        assert sum(1 for d in diffs if d.display) == 8
        assert "42 more files" in str(panel.query_one(".tool-more-files").render())
        assert panel.outer_size.height < 120  # the whole request was ~1,250 rows
        # ctrl+d opens the reviewer again; the question's letters answer from there
        await pilot.press("ctrl+d")
        await wait_until(pilot, lambda: isinstance(app.screen, DiffReview), what="the reviewer")
        await pilot.press("a")
        await turn_done(pilot)
        assert not isinstance(app.screen, DiffReview)
        assert panel.status == "completed"


async def test_typing_into_the_reviewer_does_not_answer(ws):
    app = ws.app(served=served_scenario("diffs:5:21"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "edit everything")
        await wait_until(pilot, lambda: isinstance(app.screen, DiffReview), what="the reviewer")
        review = app.screen
        await pilot.press(*"wait, what is")
        # timed windows on purpose: a held letter answers once the grace is over; past it, nothing was
        await pilot.pause(LETTER_GRACE + 0.3)
        assert isinstance(app.screen, DiffReview) and not review.letters
        question = app.query_one(PermissionQuestion)
        assert question.current is not None and not question.current.request.reply.done
        await pilot.press("a")
        await pilot.pause(LETTER_GRACE + 0.3)
        assert question.current is not None and not question.current.request.reply.done


async def test_a_300k_character_line_is_folded(ws):
    app = ws.app(served=served_scenario("bigline:300000"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "read the blob")
        await turn_done(pilot)
        output = app.query_one(ToolOutput)
        assert output.can_expand and not output.expanded
        assert output.query_one(".output-text").outer_size.height <= 10
        assert "300,000 characters" in str(output.query_one(".output-more").render())
        panel = app.query_one(ToolCallPanel)
        panel.focus()
        await pilot.press("enter")  # unfolded: still bounded, the rest is in the pager
        await pilot.pause()
        assert output.expanded and output.query_one(".output-text").outer_size.height <= 600
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, Pager), what="the pager")
        assert app.screen.text == output.text


async def test_long_command_output_shows_its_end_and_exit_status(ws):
    app = ws.app(served=served_scenario("output:100000"))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "build it")
        await turn_done(pilot)
        output = app.query_one(ToolOutput)
        shown = lambda: str(output.query_one(".output-text").render())  # noqa: E731
        assert "Exit code: 3" in shown()  # folded: the last lines
        panel = app.query_one(ToolCallPanel)
        panel.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert output.expanded
        assert "line 100000 of the build log" in shown() and "Exit code: 3" in shown()
        assert "line 1 of the build log\n" not in shown()
        assert "press p for the whole output" in str(output.query_one(".output-more").render())
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, Pager), what="the pager")
        pager = app.screen
        await pilot.pause()
        assert pager.view.is_vertical_scroll_end and pager.view.line_count == 100_002  # it opens at the end
        assert "Exit code: 3" in pager.view.lines[-1]
        await pilot.press("slash")
        await pilot.press(*"line 5000 ", "enter")
        await pilot.pause()
        assert pager.get_selected_text().lower() == "line 5000 "  # the match is selected (ctrl+c copies it)
        top = pager.view.scroll_offset.y
        assert top <= 4999 < top + pager.view.size.height  # and in view
        assert "at line 5,000" in str(pager.query_one("#pager-found").render())
        await pilot.press("backspace", "enter")  # the search box still has the keys: "line 5000", also the start of "line 50000"
        await pilot.pause()
        assert "at line 5,000" in str(pager.query_one("#pager-found").render())
        await pilot.press("escape", "n")
        await pilot.pause()
        assert "at line 50,000" in str(pager.query_one("#pager-found").render())
        assert pager.view.scroll_offset.y <= 49_999 < pager.view.scroll_offset.y + pager.view.size.height
        await pilot.press("N")
        await pilot.pause()
        assert "at line 5,000" in str(pager.query_one("#pager-found").render())
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, Pager)


def test_rows_not_newlines_decide_the_fold():
    shown, left_out = take_rows(["x" * 1000], 5, 100, from_end=False)
    assert len(shown) == 1 and len(shown[0]) == 500 and left_out == 1
    shown, left_out = take_rows([f"l{i}" for i in range(10)], 3, 100, from_end=True)
    assert shown == ["l7", "l8", "l9"] and left_out == 7


def test_review_wanted_for_several_files_or_a_long_diff():
    small = FileChange("a.tf", "x\n", "y\n")
    assert not wants_review([small])
    assert wants_review([small, small, small])
    assert wants_review([FileChange("b.tf", None, "line\n" * 50)])
    assert diff_counts("a\nb\n", "a\nc\nd\n") == (2, 1)


def test_pager_search_wraps_and_goes_back():
    text = "alpha\nbeta\nalpha beta"
    assert find(text, "BETA", 0) == 6
    assert find(text, "beta", 7) == 17
    assert find(text, "beta", 18) == 6  # wraps
    assert find(text, "alpha", 17, backwards=True) == 11
    assert location(text, 17) == (2, 6)


def test_the_pager_shows_plain_lines():
    assert plain_lines("\x1b[1;31merror\x1b[0m: x\r\n\tat a.tf\n\n\x1b]0;title\x07done") == ["error: x", "        at a.tf", "", "done"]
    assert plain_lines("") == [""]


async def test_blank_lines_keep_their_place_in_the_pager():
    from textual.app import App

    class One(App):
        def on_mount(self) -> None:
            self.push_screen(Pager("first\n\n\nfourth\tmatch"))

    app = One()
    async with app.run_test(size=(80, 20)) as pilot:
        pager = app.screen
        await pilot.pause()
        assert pager.view.line_count == 4
        await pilot.press("slash", *"MATCH", "enter")
        await pilot.pause()
        assert pager.get_selected_text() == "match"
        assert "at line 4" in str(pager.query_one("#pager-found").render())


# ----- pictures -----


async def _question(pilot):
    await ready(pilot)
    await send(pilot, "edit everything")
    await pending_question(pilot)
    await pilot.pause()


def test_snapshot_fifty_diff_question(snap_compare, ws):
    async def run(pilot):
        await _question(pilot)
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, DiffReview), what="the reviewer")
        await pilot.press("escape")
        await pilot.pause()

    app = ws.app(served=served_scenario("diffs:50:21"), cwd_label="~/work/infra")
    assert snap_compare(app, terminal_size=(120, 40), run_before=run)


def test_snapshot_fifty_diff_reviewer(snap_compare, ws):
    async def run(pilot):
        await _question(pilot)
        await pilot.press("j", "j")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, DiffReview) and pilot.app.screen.index == 2, what="the reviewer")
        await pilot.pause()

    app = ws.app(served=served_scenario("diffs:50:21"), cwd_label="~/work/infra")
    assert snap_compare(app, terminal_size=(120, 40), run_before=run)


def test_snapshot_folded_long_line(snap_compare, ws):
    async def run(pilot):
        await ready(pilot)
        await send(pilot, "read the blob")
        await turn_done(pilot)

    app = ws.app(served=served_scenario("bigline:300000"), cwd_label="~/work/infra")
    assert snap_compare(app, terminal_size=(100, 30), run_before=run)


def test_snapshot_output_tail_with_exit_status(snap_compare, ws):
    async def run(pilot):
        await ready(pilot)
        await send(pilot, "build it")
        await turn_done(pilot)
        pilot.app.query_one(ToolCallPanel).focus()
        await pilot.press("enter")
        await pilot.pause()

    app = ws.app(served=served_scenario("output:100000"), cwd_label="~/work/infra")
    assert snap_compare(app, terminal_size=(100, 30), run_before=run)


def test_snapshot_pager_searching_the_output(snap_compare, ws):
    async def run(pilot):
        await ready(pilot)
        await send(pilot, "build it")
        await turn_done(pilot)
        pilot.app.query_one(ToolCallPanel).focus()
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, Pager), what="the pager")
        await pilot.press("slash", *"line 9999", "enter")
        await pilot.pause()

    app = ws.app(served=served_scenario("output:100000"), cwd_label="~/work/infra")
    assert snap_compare(app, terminal_size=(100, 30), run_before=run)
