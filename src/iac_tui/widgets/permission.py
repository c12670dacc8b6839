"""An inline permission prompt: the agent's options, chosen by key or with arrows and enter.

Keys follow the option's *kind* (never its position): `a` allow once, `A` allow always,
`r` reject once, `R` reject always; the first option of each kind gets the key. The answer is
the option's id.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalGroup
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from iac_tui.messages import PermissionAnswer

KIND_KEYS = {"allow_once": "a", "allow_always": "A", "reject_once": "r", "reject_always": "R"}


class PermissionPrompt(VerticalGroup, can_focus=True):
    """Asks the user to pick one of `options` (SDK `PermissionOption`s) for a tool call."""

    BINDINGS = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("enter", "choose", "Choose"),
        Binding("a", "key('a')", "Allow once", show=False),
        Binding("A", "key('A')", "Allow always", show=False),
        Binding("r", "key('r')", "Reject once", show=False),
        Binding("R", "key('R')", "Reject always", show=False),
    ]

    highlighted: reactive[int] = reactive(0)

    class Answered(Message):
        """The user answered (`option_id`), for the app to move focus back."""

        def __init__(self, prompt: PermissionPrompt, option_id: str) -> None:
            super().__init__()
            self.prompt = prompt
            self.option_id = option_id

    def __init__(self, tool_call_id: str, question: str, options: list[Any], reply: PermissionAnswer) -> None:
        super().__init__()
        self.tool_call_id = tool_call_id
        self.question = question
        self.options = list(options)
        self.reply = reply
        self.keys: dict[str, int] = {}
        for index, option in enumerate(self.options):
            key = KIND_KEYS.get(option.kind)
            if key is not None and key not in self.keys:
                self.keys[key] = index

    def compose(self) -> ComposeResult:
        yield Static(Content.from_markup("[b]$question[/b]", question=self.question), classes="permission-question")
        yield Static(classes="permission-options")

    def on_mount(self) -> None:
        self._render_options(force=True)

    def watch_highlighted(self) -> None:
        self._render_options()

    def key_of(self, index: int) -> str | None:
        """The key that picks option `index`, if any."""
        return next((k for k, i in self.keys.items() if i == index), None)

    def _render_options(self, force: bool = False) -> None:
        if not (force or self.is_mounted):
            return
        parts = []
        for index, option in enumerate(self.options):
            key = self.key_of(index) or " "
            style = "reject" if option.kind.startswith("reject") else "allow"
            if index == self.highlighted:
                parts.append(Content.from_markup(f"[b $accent]❯[/] [reverse] $key [/reverse] [b {'$text-error' if style == 'reject' else '$text-success'}]$name[/]", key=key, name=option.name))
            else:
                parts.append(Content.from_markup("  [dim]$key[/dim]   $name", key=key, name=option.name))
        self.query_one(".permission-options", Static).update(Content("\n").join(parts))

    def action_move(self, delta: int) -> None:
        self.highlighted = (self.highlighted + delta) % len(self.options)

    def action_choose(self) -> None:
        self.choose(self.highlighted)

    def action_key(self, key: str) -> None:
        if key in self.keys:
            self.choose(self.keys[key])

    def choose(self, index: int) -> None:
        """Answer with option `index` (once)."""
        if self.reply.done:
            return
        option = self.options[index]
        self.reply.answer(option.option_id)
        self.post_message(self.Answered(self, option.option_id))

    def on_click(self, event: events.Click) -> None:
        if event.widget is not None and event.widget.has_class("permission-options"):
            row = event.get_content_offset(event.widget)
            if row is not None and 0 <= row.y < len(self.options):
                self.highlighted = row.y
                self.choose(row.y)
