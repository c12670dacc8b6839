"""A fenced code block that grows line by line at a cost independent of its length.

Textual's `Markdown.append` re-parses the open fence and `MarkdownFence` re-highlights it whole
and re-measures one `Label` holding all of it on every append: an open 120-line fence costs
O(its length) per chunk. `CodeBlock` keeps the code in pieces of `PIECE_LINES` lines, each a
`Static`; an append re-highlights only the last, unfinished piece. Pieces are highlighted on
their own while the block streams (a multi-line string that crosses a piece boundary may be
coloured as code for a moment); `finish()` highlights the whole code once, redraws the pieces
whose colours changed, and so shows what `MarkdownFence` would. It looks like `MarkdownFence` (same margins, padding, background and
highlight theme), follows theme changes, and keeps `code` (the body, byte for byte),
`language` (the fence's info word) and `source` (the block as written, fence lines included).
"""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import VerticalGroup
from textual.content import Content
from textual.widgets import Static
from textual.widgets.markdown import MarkdownFence

from iac_tui.widgets.auto_height import AutoHeight

PIECE_LINES = 16


class CodeBlock(AutoHeight, VerticalGroup, can_focus=True):
    """The body of one fenced code block: `append(text)` adds code, `finish()` ends it; `c`
    (focused: a click) copies the body."""

    BINDINGS = [Binding("c", "copy", "Copy code")]

    DEFAULT_CSS = """
    CodeBlock {
        margin: 1 0;
        padding: 1 2;
        width: 1fr;
        height: auto;
        overflow: scroll hidden;
        scrollbar-size-horizontal: 0;
        scrollbar-size-vertical: 0;
        color: rgb(210,210,210);
        background: black 10%;
        &:light { background: white 30%; }
        &:focus { background-tint: $foreground 5%; }
        & > .code-piece { width: auto; height: auto; }
    }
    """

    def __init__(self, language: str = "", code: str = "", *, opener: str = "", classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.language = language
        self.opener = opener or f"```{language}\n"  # the fence line that opened it, as written
        self.closer = ""  # the fence line that closed it, once it did
        self.code = code  # the body so far, exactly as written
        self.finished = False
        self._pieces: list[Static] = []
        self._contents: list[Content] = []  # what each piece shows
        self._complete = 0  # pieces that hold PIECE_LINES lines and will not change while streaming
        self._done = 0  # characters of `code` in those pieces

    @property
    def source(self) -> str:
        """The block as Markdown, exactly as it was written: opener, body, closer."""
        return self.opener + self.code + self.closer

    @property
    def allow_horizontal_scroll(self) -> bool:
        return True

    def _highlight(self, code: str) -> Content:
        app = self.app
        return MarkdownFence.highlight(code, self.language, ansi=app.native_ansi_color, dark=app.current_theme.dark)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.code)
        self.app.notify(f"Copied the code ({len(self.code):,} characters).")

    async def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.call_later(self._restyle))
        await self._restyle()

    async def _restyle(self) -> None:
        """Highlight everything again (mounted, or the theme changed)."""
        if self.finished:
            await self._show_whole()
        else:
            self._complete = self._done = 0
            await self.append("")

    async def append(self, text: str) -> None:
        """Add code (any fragment; lines end with "\\n")."""
        self.code += text
        if not self.is_mounted:
            return  # shown once mounted
        while (cut := _nth_newline(self.code, PIECE_LINES, self._done)) >= 0:
            await self._show_piece(self._complete, self.code[self._done : cut])
            self._complete += 1
            self._done = cut + 1
        if self._done < len(self.code):
            await self._show_piece(self._complete, self.code[self._done :].removesuffix("\n"))

    async def _show_piece(self, index: int, content: Content | str) -> None:
        """Show `content` (or code, highlighted on its own) as piece `index`; a piece whose
        content is unchanged is left alone (rendering highlighted lines is the costly part)."""
        if isinstance(content, str):
            content = self._highlight(content)
        if index < len(self._pieces):
            old = self._contents[index]
            if old.plain != content.plain or old.spans != content.spans:
                self._contents[index] = content
                self._pieces[index].update(content)
        else:
            piece = Static(content, classes="code-piece")
            self._pieces.append(piece)
            self._contents.append(content)
            await self.mount(piece)

    async def finish(self, closer: str = "") -> None:
        """The fence closed (or the message ended): highlight the whole code at once, as
        `MarkdownFence` does (trailing blank lines dropped); only the pieces whose colours
        change are drawn again."""
        self.finished = True
        self.closer = closer
        if self.is_mounted:
            await self._show_whole()

    async def _show_whole(self) -> None:
        lines = self._highlight(self.code.rstrip()).split("\n", allow_blank=True)
        parts = [Content("\n").join(lines[i : i + PIECE_LINES]) for i in range(0, len(lines), PIECE_LINES)]
        for index, part in enumerate(parts):
            await self._show_piece(index, part)
        extra = self._pieces[len(parts) :]
        if extra:
            del self._pieces[len(parts) :], self._contents[len(parts) :]
            await self.remove_children(extra)


def _nth_newline(text: str, n: int, start: int) -> int:
    """The index of the `n`th "\\n" in `text` from `start`, or -1."""
    index = start - 1
    for _ in range(n):
        index = text.find("\n", index + 1)
        if index < 0:
            return -1
    return index
