"""A container measured without its own container's height, so that its children's layouts stay cached.

Textual's `Layout.get_content_height` arranges a container whose children all have a dynamic
height (`auto`, `fr`, `%`) at its *container's* height, for the sake of `fr` and `%` children.
A block of an answer that is still growing (the message being streamed) changes that height on
every append, so each of the message's segments and code blocks missed its cached arrangement
and was laid out again: a 5,000-line answer re-arranged every block it held on every append
(`bench/tui_answer.py`). Our containers' children have `height: auto`, which does not depend on
the container's height, so `AutoHeight` measures them at height 0, a size that never changes.

Such a container is also drawn as `BLANK` (Textual's switch for a widget with no border and no
content of its own: its lines are its background, not rendered). Without it, every frame in which
the container grew re-rendered it whole: Textual renders a widget's content for all its lines at
once, so a growing 5,000-line answer (and the `Page` and `Segment` around it) built a Strip per
line of its height on each screen update (`bench/tui_answer.py`; see README).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.geometry import Size
from textual.widget import Widget

if TYPE_CHECKING:
    _Widget = Widget  # the type checker sees the mixin as the widget it is mixed into
else:
    _Widget = object


class AutoHeight(_Widget):
    """Mixin (before the widget class) for a container whose children all have `height: auto`
    and that has no border: it is drawn as its background (`BLANK`)."""

    BLANK = True

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The height of the children arranged at `width` (lines); `container` is not used."""
        if not self.children:
            return 0
        return self.arrange(Size(width, 0)).total_region.height
