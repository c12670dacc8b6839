"""Pruning on a bare Conversation: the last two turns stay whole, what went stays reachable."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult

from iac_tui.screens.pager import Pager
from iac_tui.widgets.conversation import Conversation
from iac_tui.widgets.message import AgentMessage, UserMessage
from iac_tui.widgets.note import PrunedNote


class Host(App):
    def __init__(self, max_rows: int | None) -> None:
        super().__init__()
        self.max_rows = max_rows

    def compose(self) -> ComposeResult:
        yield Conversation(Path("."), max_rows=self.max_rows)


def answer(i: int, lines: int) -> str:
    return f"Answer {i}.\n\n" + "".join(f"line {n} of answer {i}\n\n" for n in range(lines))


async def turn(pilot, conversation: Conversation, i: int, lines: int = 3) -> None:
    """A turn streamed word by word, then drawn (`pause(0)`: what is queued handled and a screen
    update, without Pilot's wait for the process to look idle, 20-ms sleeps while the app works);
    a test pauses fully before it reads what pruning did."""
    await conversation.add_user(f"question {i}")
    for piece in answer(i, lines).split(" "):
        await conversation.agent_text(piece + " ")
    await conversation.close_open()
    await pilot.pause(0)


async def test_the_last_two_turns_are_never_pruned_however_long():
    app = Host(max_rows=24)
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        for i in range(4):
            await turn(pilot, conversation, i)
        await pilot.pause()
        before = conversation.pruned
        await turn(pilot, conversation, 4, lines=24)  # twice the rows of max_rows, in one answer
        await pilot.pause()
        assert conversation.pruned > before  # the long answer made more go
        users = [b.text for b in conversation.query(UserMessage)]
        assert users[-1] == "question 4"
        assert "question 3" in users  # the turn before the last one stays too
        answers = [b.source for b in conversation.query(AgentMessage)]
        assert answers[-1] == answer(4, 24) + " "
        await turn(pilot, conversation, 5, lines=24)
        await pilot.pause()
        users = [b.text for b in conversation.query(UserMessage)]
        assert users[-2:] == ["question 4", "question 5"]
        assert [b.source for b in conversation.query(AgentMessage)][-2:] == [answer(4, 24) + " ", answer(5, 24) + " "]


async def test_what_was_pruned_opens_in_the_pager_and_stays_in_the_transcript():
    app = Host(max_rows=40)
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        for i in range(8):
            await turn(pilot, conversation, i)
        await pilot.pause()
        assert conversation.pruned > 0
        assert "question 0" not in [b.text for b in conversation.query(UserMessage)]
        note = conversation.children[0]
        assert isinstance(note, PrunedNote)
        whole = conversation.transcript()
        for i in range(8):  # everything, pruned or not, in order
            assert f"## You\n\nquestion {i}\n" in whole
            assert answer(i, 3) in whole
        assert whole.index("question 0") < whole.index("question 7")
        conversation.scroll_home(animate=False)
        await pilot.pause()
        note.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, Pager)
        assert "line 0 of answer 0" in app.screen.text
        assert "question 0" in app.screen.text


async def test_old_blocks_are_pruned_past_the_row_limit(monkeypatch):
    """`$IAC_TUI_MAX_ROWS` sets the limit; fourteen turns (~280 rows) stay within it (at least 200: the floor), the newest kept.

    Each answer is one paragraph of 16 wrapped lines (19 rows with its heading; 9 one-line
    paragraphs made 18): the rows pruning counts, with 2 widgets a turn instead of 9, each of
    which Textual mounts, styles and lays out (the test 3.5 -> 1.8-2.0 s)."""
    monkeypatch.setenv("IAC_TUI_MAX_ROWS", "200")
    app = Host(max_rows=None)
    async with app.run_test(size=(100, 30)) as pilot:
        conversation = app.query_one(Conversation)
        for i in range(14):  # each answer in one chunk (streaming is the other tests' subject)
            await conversation.add_user(f"question {i}")
            await conversation.agent_text(f"Answer {i}.\n\n" + " ".join(f"line {n} of answer {i} " + "w" * 76 for n in range(16)) + "\n")
            await conversation.close_open()
            await pilot.pause(0)
        await pilot.pause()
        rows = sum(b.outer_size.height for b in conversation.children)
        assert conversation.pruned > 0
        assert rows <= 200 + 40  # bounded (one last block may overshoot)
        texts = [b.source for b in conversation.query(AgentMessage)]
        assert any(t.startswith("Answer 13.") for t in texts)  # the newest stays
        assert not any(t.startswith("Answer 0.") for t in texts)  # the oldest went
        note = conversation.children[0]
        assert isinstance(note, PrunedNote) and "were pruned" in note.text
