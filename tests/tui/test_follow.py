"""The conversation follows its bottom, and the permission question is always in view.

Against the real agent: a question that arrives while the person reads further up (the demo's
every question in view at 80x24 and 120x40, and after a rejection: tests/tui/test_demo.py).
"""

from __future__ import annotations

import pytest

from iac_tui.widgets.badge import FollowBadge
from tui_support import assert_question_in_view, hold_tool_calls, pending_question, ready, send, turn_done, visible_rows, wait_until


SLOW_TEXT = "\n\n".join(f"Paragraph {i}: checking the configuration before writing." for i in range(30))


async def test_a_question_arriving_while_scrolled_up_is_docked_and_badged(ws, monkeypatch):
    turns = [
        {"blocks": [{"type": "text", "text": SLOW_TEXT}, {"type": "tool_use", "name": "write_file", "input": {"path": "notes.tf", "content": "# n\n"}}]},
        {"blocks": [{"type": "text", "text": "Written."}]},
    ]
    call = hold_tool_calls(monkeypatch)  # the turn runs on, its tool call held until the person has scrolled up
    app = ws.app(turns)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "write notes")
        conversation = app.conversation
        await wait_until(pilot, lambda: conversation.max_scroll_y > 5, what="more text than the screen holds")
        assert conversation.following and app.turns.busy
        conversation.scroll_home(animate=False)  # the person scrolls up to read
        await pilot.pause()
        assert not conversation.following
        call.set()
        question = await pending_question(pilot)
        await pilot.pause()
        badge = app.query_one(FollowBadge)
        assert question.display and visible_rows(question) == question.outer_size.height
        assert badge.display and visible_rows(badge) == 1
        assert "↓ 1 new · permission needed" in str(badge.render())  # the tool panel came below
        assert conversation.scroll_y == 0  # no jump: the person reads on
        await pilot.press("end")
        await pilot.pause()
        assert conversation.following and not badge.display
        assert conversation.scroll_y == conversation.max_scroll_y
        assert_question_in_view(app, question)
        await pilot.press("a")
        await turn_done(pilot)
        assert (ws.project / "notes.tf").exists()
        assert conversation.following and conversation.scroll_y == conversation.max_scroll_y


async def test_new_blocks_below_are_counted_while_scrolled_up(ws):
    turns = [
        {"blocks": [{"type": "text", "text": SLOW_TEXT}, {"type": "tool_use", "name": "glob", "input": {"pattern": "*.tf"}}]},
        {"blocks": [{"type": "text", "text": "Listed."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "first")
        await turn_done(pilot)
        conversation = app.conversation
        conversation.scroll_home(animate=False)
        await pilot.pause()
        app.prompt_box.load_text("second")
        app.prompt_box.focus()
        await pilot.press("enter")  # sending a prompt follows again
        await turn_done(pilot)
        assert conversation.following
        conversation.scroll_home(animate=False)
        await pilot.pause()
        badge = app.query_one(FollowBadge)
        assert badge.display and "newer output below" in str(badge.render())
        await pilot.press("end")
        await pilot.pause()
        assert conversation.following and not badge.display
        assert app.prompt_box.text == ""  # `end` went to the conversation, not the prompt box


async def test_page_keys_in_the_prompt_box_scroll_the_conversation(ws):
    """Page up/down from the prompt box (where the focus stays) scroll the conversation, not the
    draft: up leaves the bottom (no longer followed), down back to the bottom follows again."""
    app = ws.app([{"blocks": [{"type": "text", "text": SLOW_TEXT}]}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "first")
        await turn_done(pilot)
        conversation = app.conversation
        assert conversation.following and conversation.max_scroll_y > 10
        app.prompt_box.load_text("a draft")
        app.prompt_box.focus()
        bottom = conversation.scroll_y
        await pilot.press("pageup")
        await pilot.pause()
        assert conversation.scroll_y < bottom and not conversation.following
        await pilot.press("pageup")
        await pilot.pause()
        assert app.query_one(FollowBadge).display
        while conversation.scroll_y < conversation.max_scroll_y:
            await pilot.press("pagedown")
            await pilot.pause()
        assert conversation.following and not app.query_one(FollowBadge).display
        assert app.prompt_box.text == "a draft" and app.prompt_box.has_focus
