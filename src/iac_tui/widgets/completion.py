"""The completion list shown above the prompt for `/commands` and `@paths`."""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option


@dataclass(slots=True)
class CompletionItem:
    """One candidate: `value` replaces the word being completed; `label` is what the list shows."""

    value: str
    label: Content


class CompletionList(OptionList, can_focus=False):
    """A passive list: the prompt moves the highlight and asks for the selected item."""

    def __init__(self) -> None:
        super().__init__(id="completion")
        self.items: list[CompletionItem] = []

    def on_mount(self) -> None:
        self.display = False

    def show(self, items: list[CompletionItem]) -> None:
        """Show `items` (hide when empty), highlighting the first."""
        self.items = items
        self.clear_options()
        if not items:
            self.display = False
            return
        self.add_options([Option(item.label) for item in items])
        self.highlighted = 0
        self.display = True

    def hide(self) -> None:
        """Hide the list."""
        self.items = []
        self.display = False

    @property
    def open(self) -> bool:
        """True while shown."""
        return bool(self.display) and bool(self.items)

    def move(self, delta: int) -> None:
        """Move the highlight up or down (wrapping)."""
        if self.items:
            self.highlighted = ((self.highlighted or 0) + delta) % len(self.items)

    @property
    def selected(self) -> CompletionItem | None:
        """The highlighted item."""
        if not self.open or self.highlighted is None:
            return None
        return self.items[self.highlighted]
