"""Markdown that grows as chunks arrive, at a cost linear in the text streamed.

Text reaches the Markdown through `Markdown.append`, which only re-parses the last block. It
still joins and splits the widget's whole source on every call, so a very long answer in one
`Markdown` would cost O(n) per append, O(n^2) in all; `StreamingMarkdown` therefore starts a fresh
`Markdown` segment at a paragraph break once the current one holds `SEGMENT_CHARS` characters
(never inside a code fence, a list or a table). The segments read as one document.

A fenced code block that starts at the beginning of a line (column 0, as an agent writes one
outside a list) does not go to the Markdown: `Markdown.append` would re-parse the open fence and
re-highlight and re-measure all of it on every append (an open 120-line fence cost O(its length)
per chunk). Its body streams into a `CodeBlock` instead (`iac_tui.widgets.code`), which only
re-highlights its last few lines; the Markdown text after it starts a new segment. A line that
may still turn out to be a fence line (it starts with a backtick or a tilde) is held back until
it is complete enough to tell.

The documents (segments and code blocks) are held in `Chapter`s of `CHAPTER_DOCUMENTS`, which
parking (`iac_tui.widgets.parking`) parks as one once far from the view: every layout pass arranges
and places each displayed widget, and a 5,000-line answer holds ~65 documents, so with each
parked on its own a layout cost grew along the answer (reflow 4.5 ms in its first fifth, 14 ms in
its last, `bench/tui_answer.py`).

Chunks are gathered for up to `FLUSH_INTERVAL` before they are written: one `append` and one
layout per flush, not per chunk (`bench/tui_stream.py`, 10,000 chunks, in-process agent, idle
2-core machine: 1.34 s with the gathering, 5.77 s without, `--flush-interval 0`). A flush awaits
its `append`s, so what was flushed has been rendered into the widgets when `_flush` returns
(Textual's `MarkdownStream` would render it later, in a task of its own, which had to be polled
until idle before a segment could end).

A key typed while text streams goes first. While a person types (a key within `TYPING_WINDOW`, by
the `typed_at` of a `KeyEchoApp`), streamed text is held until the screen has drawn the key (the app
publishes `key_drawn_signal` after that refresh), and the text held so far is flushed then, in the pause
before the next key, so that a key rarely waits behind a frame that lays out and draws more answer
(such a frame costs several times one that only changes the prompt box). Text is never held longer
than `MAX_HOLD`, so the answer keeps moving while a person types on; once they pause it streams at
`FLUSH_INTERVAL` again. Measured with `bench/tui_answer.py` (README "Performance").
"""

from __future__ import annotations

import asyncio
import re
import time

from textual.containers import VerticalGroup
from textual.timer import Timer
from textual.widget import MountError, Widget

from iac_tui.key_echo import KeyEchoApp
from iac_tui.widgets.auto_height import AutoHeight
from iac_tui.widgets.code import CodeBlock
from iac_tui.widgets.documents import Chapter, Segment, trim_margin

SEGMENT_CHARS = 4000
CHAPTER_DOCUMENTS = 8  # documents in a Chapter (more when code blocks follow each other at its end)
FLUSH_INTERVAL = 1 / 20
TYPING_WINDOW = 1 / 2  # seconds after a key during which the person counts as typing
MAX_HOLD = 1 / 2  # seconds: text waits no longer than this since the last flush
_PARAGRAPH_END = re.compile(r"(?<=\n\n)")
_CONTINUATION = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|\||>|\s)")
_OPENER = re.compile(r"(`{3,}|~{3,})([^\n]*)\n")  # a fence opener at column 0, its info string
_MAYBE_OPENER = re.compile(r"(`{1,2}|~{1,2}|`{3,}[^\n]*|~{3,}[^\n]*)")  # an incomplete line that may become one


class _Removed(Exception):
    """The message was removed while text was being written to it (a new session shown, the
    app closing): the rest of the flush is dropped."""


async def _mount(parent: Widget, child: Widget) -> None:
    """Mount `child` into `parent`; `_Removed` if Textual mounted nothing (it mounts nothing, and
    says nothing, into a widget being removed) or `parent` is gone."""
    if parent.is_attached:
        await parent.mount(child)
    if not child.is_mounted:
        raise _Removed


class StreamingMarkdown(AutoHeight, VerticalGroup):
    """A Markdown document fed by `write(chunk)`; `finish()` flushes and stops the stream.
    A subclass with `TRIM_OUTER_MARGINS` has no blank line above its first block nor below its
    last (see `Segment`)."""

    TRIM_OUTER_MARGINS = False

    DEFAULT_CSS = """
    StreamingMarkdown { height: auto; }
    """

    def __init__(self, text: str = "", *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._initial = text
        self._documents: list[Segment | CodeBlock] = []
        self._chapters: list[Chapter] = []
        self._segment: Segment | None = None  # the segment being written, if the text is not in a code block
        self._segment_chars = 0
        self._in_fence = False
        self._line_head = ""  # the first characters of the line being written
        self._trailing_newlines = 0
        self._parts: list[str] = []
        self._buffer: list[str] = []
        self._last_flush = 0.0
        self._timer: Timer | None = None
        self._lock = asyncio.Lock()
        self._code: CodeBlock | None = None  # the fenced code block being streamed
        self._fence = ""  # its fence ("```", "~~~~", ...)
        self._held = ""  # the start of a line that may be a fence line
        self._line_start = True  # the next character begins a line
        self.finished = False

    @property
    def documents(self) -> list[Segment | CodeBlock]:
        """What shows the text, in order: Markdown segments and code blocks (their `source`s
        joined are `source`, once everything written has been flushed)."""
        return list(self._documents)

    @property
    def parts(self) -> list[Widget]:
        """Its chapters: what parking may park one by one (`iac_tui.widgets.parking`)."""
        return list(self._chapters)

    @property
    def source(self) -> str:
        """All the text written so far."""
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    async def write(self, text: str) -> None:
        """Append `text` (a Markdown fragment).

        Text reaches the Markdown at most `FLUSH_INTERVAL` apart (the first chunk at once): each
        flush re-lays out the screen, so flushing per chunk would cost a layout per chunk.
        """
        if not text:
            return
        if self.finished:
            raise RuntimeError("write() after finish()")
        self._parts.append(text)
        self._buffer.append(text)
        wait = self._wait()
        if wait <= 0:
            await self._flush()
        elif self._timer is None:
            self._timer = self.set_timer(wait, self._timed_flush)

    def _wait(self) -> float:
        """Seconds until the buffered text should be flushed (<= 0: now): `FLUSH_INTERVAL` after
        the last flush; while the person types, `MAX_HOLD` after it or when they stop (the end of
        `TYPING_WINDOW`), whichever comes first (a drawn key flushes sooner: `_key_drawn`)."""
        now = time.monotonic()
        since_flush = now - self._last_flush
        app = self.app
        since_key = now - app.typed_at if isinstance(app, KeyEchoApp) else float("inf")
        if since_key < TYPING_WINDOW:
            return min(MAX_HOLD - since_flush, TYPING_WINDOW - since_key)
        return FLUSH_INTERVAL - since_flush

    async def _key_drawn(self, typed_at: float) -> None:
        """The screen has drawn a key: flush what was held for it (see the module's docstring)."""
        if self._buffer and not self.finished and not self._lock.locked():
            await self._flush()

    async def finish(self) -> None:
        """Render what is pending and stop streaming (idempotent)."""
        if isinstance(app := self.app, KeyEchoApp):
            app.key_drawn_signal.unsubscribe(self)
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        await self._flush(final=True)
        self.finished = True
        async with self._lock:
            if self._code is not None:
                await self._close_code()

    async def _timed_flush(self) -> None:
        self._timer = None
        if self.finished:
            return
        wait = self._wait()
        if wait > 0:  # a key came meanwhile
            self._timer = self.set_timer(wait, self._timed_flush)
        else:
            await self._flush()

    async def _flush(self, final: bool = False) -> None:
        async with self._lock:
            if not self._buffer and not (final and self._held):
                return
            # one screen update for the whole flush: between its awaited appends Textual would
            # otherwise lay out and draw the screen once per frame (a key typed meanwhile waited)
            with self.app.batch_update():
                try:
                    await self._write_buffer(final)
                except _Removed:
                    return  # nothing to draw into any more
                except MountError:
                    if self.is_attached:
                        raise
                    return  # removed meanwhile
            # the screen's idle check ran during the batch (and found nothing to do then); the
            # batch's end prompts only the App, so prompt the screen to lay out what was written
            self.screen.check_idle()

    async def _write_buffer(self, final: bool) -> None:
        """Write the buffered text (and what was held) to the code block or the Markdown."""
        text = self._held + "".join(self._buffer)
        self._held = ""
        self._buffer.clear()
        self._last_flush = time.monotonic()
        run = ""  # text for the current target (the code block or the Markdown), written in one go
        pos = 0
        while pos < len(text):
            if self._line_start:
                end = text.find("\n", pos) + 1 or len(text)
                line = text[pos:end]
                kind = self._fence_line(line)
                if kind == "maybe" and not final:
                    self._held = text[pos:]
                    break
                if kind in ("open", "close"):
                    await self._emit(run)
                    run = ""
                    if kind == "open":
                        await self._open_code(line)
                    else:
                        await self._close_code(line)
                    pos = end
                    continue
            end = text.find("\n", pos) + 1 or len(text)
            run += text[pos:end]
            self._line_start = text[end - 1] == "\n"
            pos = end
        await self._emit(run)

    def _fence_line(self, line: str) -> str:
        """What the line (complete with its "\\n", or its start) is: "open" (a fence opener, outside
        a code block), "close" (the fence of the open code block), "maybe" (too short to tell) or
        "text"."""
        if self._code is None:
            if fence := _OPENER.fullmatch(line):
                return "text" if fence.group(1)[0] == "`" and "`" in fence.group(2) else "open"
            return "maybe" if "\n" not in line and _MAYBE_OPENER.fullmatch(line) else "text"
        char = re.escape(self._fence[0])
        if "\n" in line:
            return "close" if re.fullmatch(rf" {{0,3}}{char}{{{len(self._fence)},}}[ \t]*\n", line) else "text"
        return "maybe" if re.fullmatch(rf" {{0,3}}{char}*[ \t]*", line) else "text"

    async def _open_code(self, opener: str) -> None:
        fence = _OPENER.fullmatch(opener)
        assert fence is not None
        self._segment = None
        self._fence = fence.group(1)
        info = fence.group(2).strip()
        self._code = CodeBlock(info.split()[0] if info else "", opener=opener)
        await self._mount_document(self._code)

    async def _close_code(self, closer: str = "") -> None:
        code, self._code = self._code, None
        assert code is not None
        await code.finish(closer)
        self._trailing_newlines = 2  # what follows starts a block of its own

    async def _emit(self, text: str) -> None:
        """Write `text` to the open code block, or to the Markdown (in segments)."""
        if not text:
            return
        if self._code is not None:
            await self._code.append(text)
            return
        # the text may hold paragraph breaks: consider starting a new segment at each one, and
        # append what goes to one segment at once (each `Markdown.append` re-parses its last
        # block, mounts and restyles; one per paragraph cost ~6 ms each in `bench/tui_answer.py`)
        pieces = _PARAGRAPH_END.split(text) if "\n\n" in text else (text,)
        run = ""
        for piece in pieces:
            if not piece:
                continue
            if self._segment is None or self._should_split(piece):
                if run:
                    assert self._segment is not None
                    await self._segment.append(run)
                    run = ""
                await self._new_segment()
            self._segment_chars += len(piece)
            self._track(piece)
            run += piece
        if run:
            assert self._segment is not None
            await self._segment.append(run)

    def _should_split(self, text: str) -> bool:
        return (
            self._segment_chars >= SEGMENT_CHARS
            and not self._in_fence
            and self._trailing_newlines >= 2
            and not _CONTINUATION.match(text)
        )

    async def _new_segment(self) -> None:
        segment = Segment()
        await self._mount_document(segment)
        self._segment = segment
        self._segment_chars = 0

    async def _mount_document(self, document: Segment | CodeBlock) -> None:
        """Mount the next document in the last chapter (a new one when it is full), trimming the
        answer's outer margins (see `Segment`): a code block has no bottom margin while it is the
        last document."""
        documents = self._documents
        if self.TRIM_OUTER_MARGINS:
            if documents:
                previous = documents[-1]
                if isinstance(previous, CodeBlock):
                    trim_margin(previous)
                elif isinstance(document, Segment):
                    previous.untrim_bottom()
            if isinstance(document, Segment):
                document.trim_top = not documents
                document.trim_bottom = True
        chapter = self._chapters[-1] if self._chapters else None
        # a new chapter starts at a Markdown segment: Textual merges the margins of siblings only,
        # so two code blocks in a row on either side of a chapter's end would stand 2 lines apart
        if chapter is None or (len(chapter.children) >= CHAPTER_DOCUMENTS and isinstance(document, Segment)):
            chapter = Chapter()
            self._chapters.append(chapter)
            await _mount(self, chapter)
        documents.append(document)
        await _mount(chapter, document)
        if self.TRIM_OUTER_MARGINS and isinstance(document, CodeBlock):
            trim_margin(document, bottom=True)

    def _track(self, text: str) -> None:
        """Follow code fences and blank lines without re-reading earlier text."""
        lines = text.split("\n")
        if len(self._line_head) < 8:
            self._line_head += lines[0][: 8 - len(self._line_head)]
        for line in lines[1:]:
            self._close_line()
            self._line_head = line[:8]
        stripped = text.rstrip("\n")
        if stripped.strip(" \t") == "":
            self._trailing_newlines += text.count("\n")
        else:
            self._trailing_newlines = len(text) - len(stripped)

    def _close_line(self) -> None:
        head = self._line_head.lstrip(" ")
        if head.startswith("```") or head.startswith("~~~"):
            self._in_fence = not self._in_fence

    async def on_mount(self) -> None:
        if isinstance(app := self.app, KeyEchoApp):
            app.key_drawn_signal.subscribe(self, self._key_drawn)
        if self._initial:
            text, self._initial = self._initial, ""
            await self.write(text)
