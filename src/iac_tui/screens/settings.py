"""Picking the value of a session setting (model, mode, thinking level) offered by the agent."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from iac_tui.state import Setting


class SettingPicker(ModalScreen[str | None]):
    """Choose one of a `Setting`'s values; dismisses with the value, or None."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Close")]

    def __init__(self, setting: Setting) -> None:
        super().__init__()
        self.setting = setting

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static(self.setting.name, classes="picker-title")
            options = []
            for choice in self.setting.choices:
                current = choice.value == self.setting.current
                label = Content.assemble(("● " if current else "  ", "bold $accent"), (choice.name, "bold" if current else ""))
                if choice.description:
                    label = Content.assemble(label, "\n  ", (choice.description, "dim"))
                options.append(Option(label, id=choice.value))
            yield OptionList(*options, id="setting-list")
            yield Static(Content.from_markup("[b]enter[/b] choose  [b]esc[/b] close"), classes="picker-keys")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        values = [c.value for c in self.setting.choices]
        if self.setting.current in values:
            options.highlighted = values.index(self.setting.current)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
