"""The prompt editor: multi-line input with history and `/` and `@` completion.

`enter` sends, `shift+enter` or `ctrl+j` inserts a newline, `pageup`/`pagedown` scroll the
conversation, `up`/`down` on the first/last line walk the history (`up` in an empty box first
takes back the last prompt queued for the end of the turn, to edit it). Typing `/` at the start opens the agent's slash commands; `@` opens a fuzzy,
`.gitignore`-aware list of the project's files (`tab` or `enter` accepts, `esc` closes).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from textual import events
from textual.content import Content
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widgets import TextArea

from iac_tui.fuzzy import fuzzy_filter
from iac_tui.history import PromptHistory
from iac_tui.key_echo import KeyEchoApp
from iac_tui.mentions import escape_path
from iac_tui.widgets.completion import CompletionItem, CompletionList

DRAFT_EDITS: dict[str, str | None] = {
    "backspace": "delete_left",
    "delete": None,  # (at the end of the draft nothing lies right of the cursor)
    "ctrl+w": "delete_word_left",
    "ctrl+backspace": "delete_word_left",
    "alt+backspace": "delete_word_left",
    "ctrl+u": "delete_to_start_of_line",
    "super+backspace": "delete_to_start_of_line",
}
"""The editing keys a widget that holds the keyboard passes on to the draft (`PromptArea.type_at_end`),
by key: TextArea's action for it, as TextArea binds it."""

MAX_ITEMS = 8


@dataclass(slots=True)
class Command:
    """A slash command offered by the agent."""

    name: str
    description: str
    hint: str | None = None


def _highlight(text: str, positions: list[int]) -> Content:
    content = Content(text)
    for pos in positions:
        content = content.stylize("bold $text-accent", pos, pos + 1)
    return content


class PromptArea(TextArea):
    """The multi-line prompt (see the module docstring)."""

    class Tabbed(Message):
        """The user pressed tab (nothing to complete): the app moves the focus to the newest block."""

    class Paged(Message):
        """The user pressed page up or page down: the app scrolls the conversation a page (a
        prompt is rarely a page long, so the keys are the conversation's, as in other agents' TUIs)."""

        def __init__(self, up: bool) -> None:
            super().__init__()
            self.up = up

    class Submitted(Message):
        """The user sent `text`."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, history: PromptHistory, *, cursor_blink: bool = True, placeholder: str = "") -> None:
        super().__init__(id="prompt", soft_wrap=True, show_line_numbers=False, tab_behavior="focus", placeholder=placeholder)
        self.cursor_blink = cursor_blink
        self.prompt_history = history
        self.completion: CompletionList | None = None
        self.commands: list[Command] = []
        self.files: Callable[[], list[str]] = list
        self.take_queued: Callable[[], str | None] = lambda: None  # the app's: the last queued prompt, removed from the queue
        self._word: tuple[int, int, int] | None = None  # (row, start col, end col) being completed
        self.last_key_at = float("-inf")  # monotonic time of the latest key typed here (since the last send)
        self._drawn_key_at = float("-inf")  # the latest key whose echo a frame has drawn

    def render_lines(self, crop: Region) -> list[Strip]:
        """Textual's, then tell a `KeyEchoApp` that a key's echo is being drawn (once per key)."""
        lines = super().render_lines(crop)
        if self.last_key_at > self._drawn_key_at:
            self._drawn_key_at = self.last_key_at
            if isinstance(app := self.app, KeyEchoApp):
                app.echo_drawn(self.last_key_at)
        return lines

    # ----- keys -----

    async def _on_key(self, event: events.Key) -> None:
        self.last_key_at = time.monotonic()
        key = event.key
        completion = self.completion
        if completion is not None and completion.open:
            if key in ("up", "down"):
                self._consume(event)
                completion.move(-1 if key == "up" else 1)
                return
            if key in ("tab", "enter"):
                self._consume(event)
                self.accept_completion()
                return
            if key == "escape":
                self._consume(event)
                completion.hide()
                return
        if key == "enter":
            self._consume(event)
            self.submit()
            return
        if key == "tab":
            self._consume(event)
            self.post_message(self.Tabbed())
            return
        if key in ("pageup", "pagedown"):
            self._consume(event)
            self.post_message(self.Paged(up=key == "pageup"))
            return
        if key in ("shift+enter", "ctrl+j"):
            self._consume(event)
            self.insert("\n")
            return
        if key == "up" and not self.text:
            queued = self.take_queued()
            if queued is not None:
                self._consume(event)
                self.set_draft(queued)
                return
        if key == "up" and self.cursor_location[0] == 0:
            text = self.prompt_history.previous(self.text)
            if text is not None:
                self._consume(event)
                self.set_draft(text)
            return await super()._on_key(event)
        if key == "down" and self.cursor_location[0] == self.document.line_count - 1:
            text = self.prompt_history.next()
            if text is not None:
                self._consume(event)
                self.set_draft(text)
            return await super()._on_key(event)
        await super()._on_key(event)

    @staticmethod
    def _consume(event: events.Key) -> None:
        event.stop()
        event.prevent_default()

    def set_draft(self, text: str) -> None:
        """Replace the draft with `text`, the cursor at its end (where a person goes on typing:
        `load_text` alone leaves it at the start, where backspace deletes nothing)."""
        self.load_text(text)
        self.move_cursor(self.document.end)

    def submit(self) -> None:
        """Send the text (if any) and clear the editor."""
        text = self.text
        if not text.strip():
            return
        self.prompt_history.add(text)
        self.load_text("")
        self.last_key_at = float("-inf")  # a sent message ends the typing
        if self.completion is not None:
            self.completion.hide()
        self.post_message(self.Submitted(text))

    def type_at_end(self, keys: list[str]) -> None:
        """Keys typed while something else owned the keyboard, applied at the end of the draft:
        each is a character, or a key of `DRAFT_EDITS` (as the box itself binds it)."""
        self.move_cursor(self.document.end)
        for key in keys:
            if key not in DRAFT_EDITS:
                self.insert(key)
            elif action := DRAFT_EDITS[key]:
                getattr(self, f"action_{action}")()

    # ----- completion -----

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.update_completion()

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        if self.completion is not None and self.completion.open:
            self.update_completion()

    def _current_word(self) -> tuple[int, int, int, str] | None:
        row, col = self.cursor_location
        line = self.document.get_line(row)
        start = col
        while start > 0 and not line[start - 1].isspace():
            start -= 1
        word = line[start:col]
        return (row, start, col, word) if word else None

    def update_completion(self) -> None:
        """Show the candidates for the word at the cursor (or hide the list)."""
        if self.completion is None:
            return
        found = self._current_word()
        items: list[CompletionItem] = []
        self._word = None
        if found is not None:
            row, start, end, word = found
            if word.startswith("/") and row == 0 and start == 0 and self.commands:
                items = self._command_items(word[1:])
            elif word.startswith("@"):
                items = self._path_items(word[1:])
            if items:
                self._word = (row, start, end)
        self.completion.show(items)

    def _command_items(self, query: str) -> list[CompletionItem]:
        names = [c.name for c in self.commands]
        by_name = {c.name: c for c in self.commands}
        items = []
        for name, positions in fuzzy_filter(query, names, MAX_ITEMS):
            command = by_name[name]
            label = Content.assemble(
                _highlight("/" + name, [p + 1 for p in positions]),
                ("  " + (f"{command.hint}  " if command.hint else ""), "dim"),  # as the agent wrote it
                (command.description, "dim italic"),
            )
            items.append(CompletionItem("/" + name + " ", label))
        return items

    def _path_items(self, query: str) -> list[CompletionItem]:
        query = query.replace("\\ ", " ")
        return [
            CompletionItem("@" + escape_path(path) + " ", _highlight("@" + path, [p + 1 for p in positions]))
            for path, positions in fuzzy_filter(query, self.files(), MAX_ITEMS)
        ]

    def accept_completion(self) -> None:
        """Replace the word being completed with the highlighted candidate."""
        if self.completion is None:
            return
        item = self.completion.selected
        word = self._word
        self.completion.hide()
        if item is None or word is None:
            return
        row, start, end = word
        self.replace(item.value, (row, start), (row, end))
        self.completion.hide()
