"""What is far out of view is parked: it keeps its height, but its widgets leave the layout.

Textual lays out a screen as a whole: every layout pass (each append to a streamed answer makes
one) arranges and places every displayed widget of the screen, and a long conversation holds
thousands (each Markdown block, code piece, tool-call part is one). That cost grew with the
conversation: a 5,000-line answer placed ~400 widgets per update, a 300-block session ~1,400
per layout (several a turn). So the conversation keeps its blocks in `Page`s (whole turns, about
`PAGE_BLOCKS` blocks each), and `Parking` parks what lies more than `PARK_SCREENS` screens above
or below the view: a page as a whole, or, in a page still in view, a chapter of an agent
message (`widgets/documents.py`) or, in a chapter near the view, a finished document (Markdown
segment, code block). A parked widget gets its current height as a
fixed height and the class `-parked`, and its children are hidden (`display: none`, so Textual neither
arranges, places nor paints them); it looks the same from afar, and costs one widget. Whatever
comes within `WAKE_SCREENS` screens of the view (a scroll, a jump, a new block) is woken first:
the class and the fixed height go, its children come back as they were.

A parked widget's children may still change (a finished tool call's terminal output); its
height is then stale until it is woken, when it takes its true height again, as any change
above the view would. A change of width wakes everything (every height changes).
"""

from __future__ import annotations

from collections.abc import Callable
from weakref import WeakKeyDictionary

from textual.containers import ScrollableContainer, VerticalGroup
from textual.widget import Widget

from iac_tui.widgets.auto_height import AutoHeight

PAGE_BLOCKS = 12  # a new page starts at a turn once the last page holds this many blocks
PARK_SCREENS = 2  # parked when this many view heights above or below the view
WAKE_SCREENS = 1  # woken when within this many view heights of the view
PARKED = "-parked"


class Page(AutoHeight, VerticalGroup):
    """A run of the conversation's blocks (whole turns): what is parked as one."""

    DEFAULT_CSS = """
    Page { height: auto; }
    """


def is_parked(widget: Widget) -> bool:
    """Whether `widget` is parked."""
    return widget.has_class(PARKED)


_hidden: WeakKeyDictionary[Widget, list[tuple[Widget, object]]] = WeakKeyDictionary()  # a parked widget's children hidden, with their inline `display`


def park(widget: Widget) -> bool:
    """Park `widget` at its current height (lines, border and padding included); False if it has
    no children (nothing to gain) or is parked already.

    Inline styles, not a CSS rule: a class changed on a widget restyles it and all it holds,
    synchronously (a parked document's restyle was ~3% of the app's CPU in `bench/tui_answer.py`);
    the class `-parked` only marks it (`update=False`)."""
    if not widget.children or is_parked(widget):
        return False
    widget.styles.height = widget.outer_size.height
    hidden = [(child, child.styles.inline.get_rule("display", None)) for child in widget.children if child.display]
    for child, _display in hidden:
        child.display = False
    _hidden[widget] = hidden
    widget.add_class(PARKED, update=False)
    return True


def wake(widget: Widget) -> None:
    """Undo `park`: the height its CSS gives it, its children as they were."""
    if is_parked(widget):
        widget.remove_class(PARKED, update=False)
        for child, display in _hidden.pop(widget, []):
            child.styles.display = display  # type: ignore[assignment]  # what it was inline (None: the stylesheet's)
        widget.styles.height = None  # the inline height goes; the stylesheet's applies


def parts(widget: Widget) -> list[Widget]:
    """What of `widget` may be parked one by one, in order (its `parts`: an agent message's
    chapters, a chapter's documents), or []."""
    found = getattr(widget, "parts", None)
    return list(found) if isinstance(found, list) else []


class Parking:
    """Parks and wakes the pages of `view` (a scrolling column of `Page`s) and, in a page still
    near the view, the parts of the blocks in it (`parts`: an agent message's chapters and, in a
    chapter near the view, its documents). `live(block)` says whether a block may still change
    its height (streaming, a running tool call, a question awaiting an answer): a live block is
    never parked, nor its page, nor the last part of a message still being written.

    Call `after_layout()` once the screen is laid out (parks), `near_view()` when the view
    scrolls (wakes before the next paint), `wake_all()` before changing many blocks at once.
    """

    def __init__(self, view: ScrollableContainer, live: Callable[[Widget], bool]) -> None:
        self.view = view
        self.live = live
        self.awake: dict[Page, None] = {}  # pages with something that may be parked
        self.parked: dict[Widget, Page] = {}  # parked pages and parts, with their page
        self._width = 0

    def watch(self, page: Page) -> None:
        """A page (new, or with a new block): check it after the next layout."""
        wake(page)
        self.parked.pop(page, None)
        self.awake[page] = None

    def forget(self) -> None:
        """Every page went (a new conversation)."""
        self.awake.clear()
        self.parked.clear()

    def after_layout(self) -> None:
        """Park what is far from the view (and wake what a change of layout brought near it)."""
        view = self.view
        if not view.is_attached or not view.size.height:
            return
        if view.size.width != self._width:  # every height changed: wake everything, park afresh
            self._width = view.size.width
            self.wake_all()
            return
        woken = self.near_view()
        top, bottom = self._window(PARK_SCREENS)
        focused = view.screen.focused
        for page in list(self.awake):
            if page.parent is not view:
                del self.awake[page]
                continue
            if page in woken:
                continue  # what it holds was hidden in the layout just done: no geometry until the next
            y = self._top(page)
            height = page.outer_size.height
            blocks = list(page.children)
            if self._far(y, y + height, top, bottom) and not self._holds(page, focused) and not any(map(self.live, blocks)):
                if park(page):
                    self.parked[page] = page
                    del self.awake[page]
                    continue
            for block in blocks:  # the page stays awake: checked again
                self._park_parts(block, page, top, bottom, focused, woken, open_last=not getattr(block, "finished", True))

    def _park_parts(
        self, widget: Widget, page: Page, top: int, bottom: int, focused: Widget | None, woken: set[Widget], open_last: bool
    ) -> None:
        """Park the far parts of `widget` (in `page`); look into those near the view. With
        `open_last`, the last part is being written: not parked (but looked into). A part in
        `woken` (by this pass) is left for the next layout, which gives what it holds a place."""
        found = parts(widget)
        for index, part in enumerate(found):
            if is_parked(part) or part in woken:
                continue
            writing = open_last and index == len(found) - 1
            y = self._y(part, page)
            far = self._far(y, y + part.outer_size.height, top, bottom)
            if far and not writing and not self._holds(part, focused) and park(part):
                self.parked[part] = page
            else:
                self._park_parts(part, page, top, bottom, focused, woken, open_last=writing)

    def near_view(self) -> set[Widget]:
        """Wake what the view has come near (it scrolled); returns what was woken (and, within
        it, what had been parked)."""
        woken: set[Widget] = set()
        if not self.parked or not self.view.size.height:
            return woken
        top, bottom = self._window(WAKE_SCREENS)
        for widget, page in list(self.parked.items()):
            if widget not in self.parked:
                continue  # woken meanwhile, with what holds it
            if widget.parent is None:  # gone (pruned, cleared)
                del self.parked[widget]
                continue
            if self._in_parked(widget, page):
                continue  # woken with what holds it
            y = self._y(widget, page)
            if not self._far(y, y + widget.outer_size.height, top, bottom):
                woken |= self._wake(widget, page)
        return woken

    def wake_all(self) -> None:
        """Wake everything (before a change to many blocks, or a resize); parked again later."""
        for widget, page in self.parked.items():
            wake(widget)
            self.awake[page] = None
        self.parked.clear()

    def _wake(self, widget: Widget, page: Page) -> set[Widget]:
        """Wake `widget` and what is parked within it (it is in view with it; what is far is
        parked again after the next layout); returns them."""
        wake(widget)
        self.parked.pop(widget, None)
        woken = {widget}
        for part, part_page in list(self.parked.items()):
            if part_page is page and widget in part.ancestors:
                wake(part)
                del self.parked[part]
                woken.add(part)
        self.awake[page] = None
        return woken

    def _in_parked(self, widget: Widget, page: Page) -> bool:
        """Whether something that holds `widget` (up to its page) is parked."""
        node = widget
        while node is not page and isinstance(node.parent, Widget):
            node = node.parent
            if node in self.parked:
                return True
        return False

    def _window(self, screens: int) -> tuple[int, int]:
        """The lines of the view's virtual space within `screens` view heights of the view."""
        view = self.view
        height = view.size.height
        return round(view.scroll_y) - screens * height, round(view.scroll_y) + height + screens * height

    def _top(self, page: Page) -> int:
        return page.virtual_region.y

    def _y(self, widget: Widget, page: Page) -> int:
        """The line of the view's virtual space where `widget` (`page` or within it) begins: a
        widget's `virtual_region` is relative to its parent's content, inside its gutter."""
        y = self._top(page)
        node = widget
        while node is not page:
            parent = node.parent
            assert isinstance(parent, Widget)
            y += node.virtual_region.y + parent.styles.gutter.top
            node = parent
        return y

    @staticmethod
    def _far(y: int, end: int, top: int, bottom: int) -> bool:
        return end < top or y > bottom

    @staticmethod
    def _holds(widget: Widget, focused: Widget | None) -> bool:
        return focused is not None and widget in focused.ancestors_with_self
