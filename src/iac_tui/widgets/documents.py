"""What a streamed answer (`widgets/streaming.py`) is made of: Markdown `Segment`s, code blocks
(`widgets/code.py`), and the `Chapter`s that hold them.

An answer's outer lines are trimmed with inline styles (`trim_margin`), and its documents are
held in chapters, which parking (`widgets/parking.py`) parks as one once far from the view.
"""

from __future__ import annotations

from textual.await_complete import AwaitComplete
from textual.containers import VerticalGroup
from textual.geometry import Spacing
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from iac_tui.widgets.auto_height import AutoHeight


def trim_margin(widget: Widget, *, top: bool = False, bottom: bool = False) -> None:
    """Give `widget` its stylesheet margin without the top and/or bottom line (an inline style).

    Not a CSS rule: in Textual a rule's `margin-top: 0` sets the whole margin (the other sides
    0), so a rule cannot trim one side of blocks whose margins differ; and a class changed on a
    widget restyles it and all it holds, synchronously. An inline style only asks for a layout."""
    css = widget.styles.base.margin
    widget.styles.margin = Spacing(0 if top else css.top, css.right, 0 if bottom else css.bottom, css.left)


class Segment(AutoHeight, Markdown):
    """One Markdown document of a `StreamingMarkdown`. The outer lines of an answer go (see
    `trim_margin`), kept up to date as blocks are appended: the first block's top margin if the
    segment is the message's first document (`trim_top`), the last block's bottom margin while
    `trim_bottom` (the segment is the last document, or a code block follows it, whose own
    margin is the gap).

    Not `:first-child` / `:last-child` rules: Textual restyles every sibling (and all it holds) of
    a widget with such a rule on each mount into their parent, O(the segment) per appended block.
    """

    trim_top = False
    trim_bottom = False
    _trimmed: tuple[MarkdownBlock | None, MarkdownBlock | None] = (None, None)  # (first, last) as trimmed

    def append(self, markdown: str) -> AwaitComplete:
        appended = super().append(markdown)

        async def then() -> None:
            await appended
            self._trim()

        return AwaitComplete(then())

    def untrim_bottom(self) -> None:
        """Another segment follows: the last block gets its bottom margin back (no more appends)."""
        self.trim_bottom = False
        self._trim()

    def _trim(self) -> None:
        blocks = [child for child in self.children if isinstance(child, MarkdownBlock)]
        if not blocks:
            return
        first = blocks[0] if self.trim_top else None
        last = blocks[-1] if self.trim_bottom else None
        if (first, last) == self._trimmed:
            return
        # one append may mount several blocks: the old last one is then not blocks[-2]
        for old in self._trimmed:
            if old is not None and old not in (first, last):
                trim_margin(old)
        for block in {first, last} - {None}:
            assert block is not None
            trim_margin(block, top=block is first, bottom=block is last)
        self._trimmed = (first, last)


class Chapter(AutoHeight, VerticalGroup):
    """`streaming.CHAPTER_DOCUMENTS` documents of a `StreamingMarkdown` (more when code blocks
    follow each other at its end), in order: what parking parks as one (`parts`)."""

    DEFAULT_CSS = """
    Chapter { height: auto; }
    Chapter > Markdown { margin: 0; padding: 0; background: transparent; }
    """

    @property
    def parts(self) -> list[Widget]:
        """Its documents: what parking may park one by one where the chapter is near the view."""
        return list(self.children)
