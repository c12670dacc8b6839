"""Parking on a bare Conversation: a layout pass walks what is near the view, not the whole session."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.widget import Widget

from iac_tui.widgets.conversation import Conversation
from iac_tui.widgets.message import AgentMessage, UserMessage
from iac_tui.widgets.parking import is_parked


class Host(App):
    def compose(self) -> ComposeResult:
        yield Conversation(Path("."), max_rows=10**8)


async def turn(conversation: Conversation, i: int) -> None:
    """A turn of ~12 rows at 80 columns. The answer's 6 points are one wrapped paragraph, not a
    list: the same rows with ~8 widgets a turn, not ~32 (each list item is 4), which made each
    of the test's ~30 layouts cost ~4x as much (the test alone 4.3-4.5 -> 1.7-2.1 s)."""
    await conversation.add_user(f"question {i}")
    points = " ".join(f"point {n} of answer {i}, " + "w" * 52 for n in range(6))
    await conversation.agent_text(f"Answer {i}.\n\n{points}\n\nThe end.\n")
    await conversation.close_open()


def laid_out(root: Widget) -> int:
    """The widgets Textual arranges under `root`: displayed, with every ancestor displayed."""
    count = 0
    stack = [root]
    while stack:
        widget = stack.pop()
        for child in widget.children:
            if child.display:
                count += 1
                stack.append(child)
    return count


async def test_a_layout_walks_as_many_widgets_at_32_blocks_as_at_16_and_a_parked_turn_comes_back_whole():
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        walked = {}
        for i in range(16):  # at 8 turns the view and the two screens around it are not yet filled
            await turn(conversation, i)
            if i + 1 in (8, 16):
                await pilot.pause()
                await pilot.pause()
                walked[len(conversation.blocks)] = laid_out(conversation)
        assert set(walked) == {16, 32}
        assert walked[32] < walked[16] * 1.3  # (without parking: x2, every block's widgets)
        first = conversation.query(UserMessage).first()
        height = conversation.virtual_size.height
        conversation.scroll_home(animate=False)
        await pilot.pause()
        await pilot.pause()
        assert first.region.height > 0 and first.region.y >= 0  # woken: drawn at the top
        answer = conversation.query(AgentMessage).first()
        assert laid_out(answer) > 0 and "point 5 of answer 0" in answer.source
        assert conversation.virtual_size.height == height  # parked pages kept their heights: nothing jumped
        assert [m.text for m in conversation.query(UserMessage)] == [f"question {i}" for i in range(16)]


async def test_a_long_answers_far_chapters_are_parked_whole_so_a_layout_walks_as_much_at_120_paragraphs_as_at_60(monkeypatch):
    """An answer still streaming keeps its documents in chapters (`widgets/streaming.py`); a
    chapter far from the view is parked as one widget, so what a layout arranges of the answer
    does not grow with it (each document parked on its own was one widget more per document).
    Scrolled back, the first chapter comes back whole."""
    from iac_tui.widgets import streaming
    from iac_tui.widgets.documents import Chapter, Segment

    monkeypatch.setattr(streaming, "SEGMENT_CHARS", 300)  # a segment per paragraph or two
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        await conversation.add_user("a long answer")
        walked = {}
        for i in range(120):
            await conversation.agent_text(f"Paragraph {i}: " + " ".join(f"w{i}x{k}" for k in range(50)) + "\n\n")
            if i + 1 in (60, 120):
                await pilot.pause()
                await pilot.pause()
                answer = conversation.query_one(AgentMessage)
                walked[i + 1] = laid_out(answer)
        chapters = list(answer.query(Chapter))
        assert len(answer.documents) >= 100 and len(chapters) >= 12
        assert sum(map(is_parked, chapters)) >= len(chapters) - 3  # far ones parked whole (the view and 2 screens above it hold ~2)
        assert walked[120] < walked[60] * 1.2  # (each document parked on its own: 73 -> 131 widgets)
        height = conversation.virtual_size.height
        conversation.scroll_home(animate=False)
        await pilot.pause()
        await pilot.pause()
        assert conversation.virtual_size.height == height  # parked chapters kept their heights: nothing jumped
        first = answer.documents[0]
        assert isinstance(first, Segment) and first.display and first.region.height > 0 and first.region.y >= 0
        assert all(block.display for block in first.children)  # woken with its chapter
        assert "Paragraph 0:" in first.source and answer.source.count("Paragraph") == 120


async def test_a_chapter_woken_by_a_layout_is_not_looked_into_before_the_next_one(monkeypatch):
    """A parked chapter whose end came near the view without a scroll (a taller terminal, a block
    above shrinking) is woken by `after_layout`; its documents were hidden in the layout just done
    and have no place yet (`virtual_region` empty): they are left for the next layout, not parked
    on that empty geometry (they were, the ones on screen included, and painted blank)."""
    from iac_tui.widgets import parking as parking_module
    from iac_tui.widgets import streaming
    from iac_tui.widgets.parking import Parking, park

    monkeypatch.setattr(streaming, "SEGMENT_CHARS", 1500)
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        await conversation.add_user("q")
        for i in range(200):
            await conversation.agent_text(f"Paragraph {i}: " + " ".join(f"w{i}x{k}" for k in range(50)) + "\n\n")
        await conversation.close_open()
        answer = conversation.query_one(AgentMessage)
        chapter = answer.parts[len(answer.parts) // 2]
        parking = conversation.parking
        parking.wake_all()
        for _ in range(3):
            await pilot.pause()
        page = answer.parent
        chapter_y = page.virtual_region.y + answer.virtual_region.y + answer.styles.gutter.top + chapter.virtual_region.y
        conversation.scroll_to(y=chapter_y + chapter.outer_size.height - 12, animate=False)  # its last lines in view
        for _ in range(3):
            await pilot.pause()
        monkeypatch.setattr(Parking, "after_layout", lambda self: None)
        for document in chapter.children:  # the chapter parked as a whole, and laid out so
            parking_module.wake(document)
            parking.parked.pop(document, None)
        assert park(chapter)
        parking.parked[chapter] = page
        for _ in range(3):
            await pilot.pause()
        monkeypatch.undo()
        parking.after_layout()  # wakes the chapter (near the view) in this pass
        assert not is_parked(chapter)
        assert not any(is_parked(document) for document in chapter.children)
        for _ in range(3):
            await pilot.pause()
        top, bottom = conversation.scroll_y, conversation.scroll_y + conversation.size.height
        in_view = [d for d in chapter.children if chapter_y + d.virtual_region.y < bottom and chapter_y + d.virtual_region.bottom > top]
        assert in_view and not any(is_parked(d) for d in in_view)  # the next layout parks only what is far
