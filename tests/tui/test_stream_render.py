"""What a screen update costs while an answer streams: counted, not timed.

A long answer must cost per update what changed on screen, not what it holds: the containers
around it (conversation, page, message, segments, code blocks) draw no lines of their own, and a
finished block is not rendered again when text streams below it and the view scrolls. A key typed
meanwhile is echoed before more of the answer is laid out; the spinner repaints one cell without
a layout.
"""

from __future__ import annotations

import gc
from collections import Counter
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets.markdown import MarkdownBlock

from iac_tui.history import PromptHistory
from iac_tui.key_echo import KeyEchoApp
from iac_tui.widgets.code import CodeBlock
from iac_tui.widgets.conversation import Conversation
from iac_tui.widgets.message import AgentMessage
from iac_tui.widgets.parking import Page
from iac_tui.widgets.prompt import PromptArea
from iac_tui.widgets import streaming
from iac_tui.widgets.documents import Segment
from iac_tui.widgets.streaming import StreamingMarkdown
from iac_tui.widgets.working import WorkingIndicator
from tui_support import wait_until


LONG_ANSWER = "\n\n".join(f"Paragraph {i}: " + " ".join(f"w{i}x{k}" for k in range(40)) for i in range(60))


class Host(App):
    def compose(self) -> ComposeResult:
        yield Conversation(Path("."))


def counting_render_lines(monkeypatch) -> Counter[Widget]:
    """Count `Widget.render_line` calls per widget (every line Textual renders goes through it)."""
    calls: Counter[Widget] = Counter()
    original = Widget.render_line

    def render_line(self: Widget, y: int) -> Strip:
        calls[self] += 1
        return original(self, y)

    monkeypatch.setattr(Widget, "render_line", render_line)
    return calls


async def stream(pilot, conversation: Conversation, text: str, chunk: int = 20) -> None:
    """Stream `text` as an agent would, a screen update drawn after each chunk; returns once all
    of it is in the answer's documents (the last flush is on a timer) and laid out.

    `pause(0)`: the app handles what is queued and draws, without Pilot's wait for the process to
    look idle (sleeps of 20 ms until a slice uses <1 ms of CPU: 2.1 s of this module's 4.5 s, all
    of it asleep)."""
    for i in range(0, len(text), chunk):
        await conversation.agent_text(text[i : i + chunk])
        await pilot.pause(0)
    answer = conversation.query(StreamingMarkdown).last()
    await wait_until(pilot, lambda: "".join(d.source for d in answer.documents) == answer.source, what="the last flush")
    await pilot.pause()


async def test_containers_of_a_streaming_answer_render_no_lines_and_finished_blocks_are_not_rendered_again(monkeypatch):
    monkeypatch.setattr(streaming, "FLUSH_INTERVAL", 0)  # each chunk flushed and drawn on its own: every state of the stream
    calls = counting_render_lines(monkeypatch)
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        conversation = app.query_one(Conversation)
        await conversation.add_user("question")
        head = "".join(f"Paragraph {n} of the answer.\n\n" for n in range(30))
        head += "```python\n" + "".join(f"x = {n}\n" for n in range(6)) + "```\n\nA finished paragraph.\n\nMore.\n\n"
        await stream(pilot, conversation, head)
        message = conversation.query_one(AgentMessage)
        finished = [block for block in message.query(MarkdownBlock) if block.region.height and "finished" in str(block.source or "")]
        assert finished, "the finished paragraph is in view"
        block = finished[0]
        before = calls[block]
        assert before > 0  # it was drawn
        # more text below it (no longer the last block): the view scrolls a line at a time, the
        # paragraph stays in view
        await stream(pilot, conversation, "".join(f"More {n}.\n\n" for n in range(4)))
        assert block.region.height, "still in view"
        assert block.region.y < 20  # it moved up
        assert calls[block] == before  # moved on screen, not rendered again
        containers = [w for w in calls if isinstance(w, (Conversation, Page, AgentMessage, Segment, CodeBlock))]
        assert containers == []
        await conversation.close_open()


class TypingHost(KeyEchoApp):
    """iac-tui's prompt box and a streaming answer, in an App that notes keys as iac-tui's does."""

    def compose(self) -> ComposeResult:
        yield PromptArea(PromptHistory(None, "."), cursor_blink=False)
        yield StreamingMarkdown()


async def test_text_streamed_while_typing_waits_for_the_next_drawn_key_and_ends_whole(monkeypatch):
    monkeypatch.setattr(streaming, "FLUSH_INTERVAL", 0)  # only the typing can hold the text
    monkeypatch.setattr(streaming, "TYPING_WINDOW", 60.0)  # the person types on for a minute
    monkeypatch.setattr(streaming, "MAX_HOLD", 120.0)
    app = TypingHost()
    async with app.run_test(size=(80, 24)) as pilot:
        answer = app.query_one(StreamingMarkdown)
        prompt = app.query_one(PromptArea)
        prompt.focus()
        drawn: list[tuple[float, str]] = []  # (the key's time, the prompt's text) when a key is drawn
        app.key_drawn_signal.subscribe(app, lambda typed_at: drawn.append((typed_at, prompt.text)), immediate=True)

        def shown() -> str:
            return "".join(d.source for d in answer.documents)

        await answer.write("Before the key.\n\n")
        await pilot.pause()
        assert shown() == "Before the key.\n\n"  # nobody typed: written at once
        await pilot.press("x")
        await answer.write("After the key.\n\n")
        await pilot.pause()
        assert drawn == [(prompt.last_key_at, "x")]  # published once the prompt was drawn with the key
        assert shown() == "Before the key.\n\n"  # held: the person is typing
        await pilot.press("y")
        await wait_until(pilot, lambda: shown() == "Before the key.\n\nAfter the key.\n\n", what="the held text")  # written once "y" was drawn
        assert [value for _, value in drawn] == ["x", "xy"]
        await answer.write("Last.\n\n")
        await answer.finish()
        assert shown() == "Before the key.\n\nAfter the key.\n\nLast.\n\n"


async def test_the_spinner_repaints_without_laying_out_the_screen(monkeypatch):
    layouts: Counter[str] = Counter()
    original = Widget.refresh

    def refresh(self: Widget, *regions, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Widget:  # noqa: ANN002
        if layout:
            layouts[type(self).__name__] += 1
        return original(self, *regions, repaint=repaint, layout=layout, recompose=recompose)

    monkeypatch.setattr(Widget, "refresh", refresh)

    class Spinning(App):
        def compose(self) -> ComposeResult:
            yield WorkingIndicator(animate=True)

    app = Spinning()
    async with app.run_test(size=(80, 24)) as pilot:
        indicator = app.query_one(WorkingIndicator)
        ticks: list[int] = []
        tick = indicator._tick  # (its frame number wraps round: count the ticks)
        indicator._tick = lambda: (ticks.append(indicator._frame), tick())
        indicator.start("Working…")
        await pilot.pause()  # shown: the one layout of its start
        frames, layouts_before = len(ticks), layouts["WorkingIndicator"]
        await wait_until(pilot, lambda: len(ticks) >= frames + 4, what="four frames")  # it spun
        assert layouts["WorkingIndicator"] == layouts_before


async def test_the_pacer_has_the_collector_before_the_first_screen_mounts(ws):
    """The pacer takes over before the first paint (`IacTui.on_load`), so no automatic full
    collection runs during it, and it collects nothing then (a whole collection at launch held
    the interpreter before the first key's echo was written: `bench/tui_large.py --only launch`)."""
    from textual import events

    from tui_support import ready

    app = ws.app(gc_pacing=True)
    if not app.gc_pacer.applies:
        pytest.skip("the pacer applies before Python 3.14")
    at_mount: list[tuple[bool, int, int]] = []

    def hook(message) -> None:  # noqa: ANN001
        if isinstance(message, events.Mount) and not at_mount:  # the first widget mounted, before the first paint
            at_mount.append((app.gc_pacer.active, gc.get_threshold()[2], app.gc_pacer.whole_runs))

    try:
        async with app.run_test(size=(100, 30), message_hook=hook) as pilot:
            await ready(pilot)
            assert at_mount and at_mount[0][0] and at_mount[0][1] > 10**6
            assert at_mount[0][2] == 0  # started by freezing, not collecting
    finally:
        app.gc_pacer.stop()


async def test_while_an_answer_streams_and_keys_are_typed_every_full_collection_is_the_apps_own(ws):
    """Python's automatic full (generation-2) collections, which walk the whole heap, are off
    while the app runs (`iac_tui.gc_pacing`): every one that runs is the pacer's, its recent
    collections among them; at exit Python has its thresholds back and nothing stays frozen."""
    from tui_support import ready, send, turn_done

    before = gc.get_threshold()
    third = "\n\n".join(LONG_ANSWER.split("\n\n")[:20])  # ~3 s of stream here: two keys fit in it
    app = ws.app([{"blocks": [{"type": "text", "text": third}], "chunk_delay_ms": 1}], gc_pacing=True)
    full: list[dict] = []

    def seen(phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2 and app.gc_pacer.active:
            full.append(info)

    gc.callbacks.append(seen)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            pacer = app.gc_pacer
            if not pacer.applies:
                pytest.skip("the pacer applies before Python 3.14")
            assert pacer.active and gc.get_threshold()[2] > 10**6
            await send(pilot, "a long answer")
            await wait_until(pilot, lambda: app.query(AgentMessage), what="the answer")
            # objects that survive young collections, as a long answer's widgets do: enough for
            # Python to consider a full collection (the stream alone may make too few, batched)
            survivors = [[] for _ in range(200_000)]
            for _ in range(2):  # a press waits for the app to be idle: 1-2 s while it streams
                await pilot.press("x")
            await turn_done(pilot)
            await wait_until(pilot, lambda: pacer.recent_runs >= 1, what="a recent collection")
            assert app.prompt_box.text == "x" * 2
            assert len(full) == pacer.recent_runs + pacer.whole_runs
            del survivors
    finally:
        gc.callbacks.remove(seen)
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
