"""The permission question, docked above the prompt box while the agent waits for an answer.

It owns the keyboard while a request is pending and names what it is about (the tool's title,
its path or command, the diff's `+`/`-` line counts). Requests queue: one question at a time,
the next as soon as one is settled. A request is settled when its `PermissionAnswer` is
resolved, wherever that happens (a key here, a cancelled turn, a stopped agent): the question
watches the answer's future, so it is torn down in that one place.

Keys follow the option's *kind* (never its position): `a` allow once, `A` allow always, `r`
reject once, `R` reject always; the first option of each kind gets the key, and the hint names
exactly the keys offered. The highlight (what a bare enter picks) also starts by kind: on the
agent's `allow_once` option, else on a `reject_once` one, else on nothing; an "always" option is
never the default, wherever the agent lists it (`claude-agent-acp` lists "Always Allow" first).
An answer letter whose option the agent does not offer (`R` with no "reject always") is ignored:
not typed, and the question stays as it was. Text typed by accident must never answer:
- when a key that is not an option arrives while the question is shown, or the person was
  typing in the prompt box in the moment it appeared (a key within `TYPING_WINDOW` seconds),
  the single-letter answers are suspended for this question; it is then answered with the
  arrows and enter (enter only after an arrow, so a typed enter does not pick the first
  option), and the question says so;
- an answer letter is held for `LETTER_GRACE` seconds (enter confirms it at once): a next key
  in that time makes it the first letter of a word (`Are you…`, `rather…`), and nothing is answered.
Keys typed meanwhile are not lost: printable keys and the draft's editing keys (backspace,
ctrl+w, alt+backspace, ctrl+u, ...: `widgets/prompt.DRAFT_EDITS`) are posted as `Typed` for the
prompt box, which applies them to the end of the draft; so are those that arrive in the moment
after the last request was settled, before the prompt box has the keyboard back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalGroup
from textual.content import Content
from textual.message import Message
from textual.reactive import var
from textual.timer import Timer
from textual.widgets import Static

from iac_tui.answer_keys import ANSWER_LETTERS, KIND_KEYS, LETTER_GRACE
from iac_tui.display import project_relative, strip_root
from iac_tui.file_changes import FileChange, diff_counts, wants_review
from iac_tui.messages import PermissionRequested
from iac_tui.widgets.prompt import DRAFT_EDITS

if TYPE_CHECKING:  # the SDK loads after the first paint (iac_tui.sdk)
    from acp.schema import PermissionOption, ToolCallUpdate

DEFAULT_KINDS = ("allow_once", "reject_once")  # what a bare enter may pick, in this order of preference
QUESTIONS = {"edit": "Allow this edit?", "execute": "Allow this command?", "delete": "Allow this deletion?", "move": "Allow this move?"}
TYPING_WINDOW = 1.5  # seconds: a key in the prompt box this recent means the person was typing


def describe(tool_call: ToolCallUpdate, kind: str, title: str, root: Path) -> Content:
    """One line naming what a request is about: title, command or paths, and the diffs' counts.

    `tool_call` is the request's SDK `ToolCallUpdate`; `kind` and `title` are the panel's
    (merged from earlier updates); paths are shown relative to `root`.
    """
    parts = [Content(strip_root(title or "tool call", root)).stylize("bold")]
    raw_input = tool_call.raw_input
    command = raw_input.get("command") if isinstance(raw_input, dict) else None
    if isinstance(command, str) and command not in title:
        parts.append(Content("$ " + command.splitlines()[0] if command.strip() else command))
    diffs = [item for item in tool_call.content or [] if item.type == "diff"]
    if diffs:
        paths = {project_relative(d.path, root) for d in diffs}
        added = removed = 0
        for item in diffs:
            plus, minus = diff_counts(item.old_text, item.new_text)
            added += plus
            removed += minus
        if len(paths) > 1:
            if f"{len(paths)} files" not in title:
                parts.append(Content(f"{len(paths)} files"))
        elif not any(path in title for path in paths):
            parts.append(Content(next(iter(paths))))
        parts.append(Content.from_markup("[$text-success]+$added[/] [$text-error]-$removed[/]", added=str(added), removed=str(removed)))
    return Content("  ").join(parts)


def default_option(options: list[PermissionOption]) -> int | None:
    """The index of the option a bare enter picks: the first `allow_once`, else the first
    `reject_once`, else None (an "always" option is never the default, whatever its position)."""
    for kind in DEFAULT_KINDS:
        found = next((i for i, option in enumerate(options) if option.kind == kind), None)
        if found is not None:
            return found
    return None


def option_keys(options: list[PermissionOption]) -> dict[str, int]:
    """The answer letter of each option kind offered -> the index of that kind's first option."""
    keys: dict[str, int] = {}
    for index, option in enumerate(options):
        key = KIND_KEYS.get(option.kind)
        if key is not None and key not in keys:
            keys[key] = index
    return keys


@dataclass(eq=False)
class Ask:
    """One pending request as the question shows it."""

    request: PermissionRequested
    question: str
    subject: Content


class PermissionQuestion(VerticalGroup, can_focus=True):
    """The docked question (hidden while nothing is pending); `last_typed()` is the monotonic
    time of the latest key typed in the prompt box (to tell a typing burst)."""

    BINDINGS = [Binding("ctrl+d", "review", "Review diffs")]

    letters: var[bool] = var(True, toggle_class="-letters")

    @dataclass
    class Changed(Message):
        """The question shown changed; `pending` requests wait (0: the dock is closed)."""

        question: PermissionQuestion
        pending: int

        @property
        def control(self) -> PermissionQuestion:
            """The question that changed."""
            return self.question

    @dataclass
    class Typed(Message):
        """Keys typed while the question owned the keyboard, for the prompt box's draft: each a
        character or a key of `DRAFT_EDITS` (`backspace`, `ctrl+w`, ...)."""

        keys: list[str]

    def __init__(self, last_typed: Callable[[], float]) -> None:
        super().__init__(id="question")
        self.last_typed = last_typed
        self.queue: list[Ask] = []
        self.keys: dict[str, int] = {}
        self.highlighted: int | None = 0
        self._held: tuple[str, Timer] | None = None  # an answer letter waiting out LETTER_GRACE

    def compose(self) -> ComposeResult:
        yield Static(classes="question-title")
        yield Static(classes="question-options")
        yield Static(classes="question-hint")

    def on_mount(self) -> None:
        self.display = False

    @property
    def current(self) -> Ask | None:
        """The request shown (None when nothing is pending)."""
        return self.queue[0] if self.queue else None

    @property
    def options(self) -> list[PermissionOption]:
        """The options of the request shown."""
        return self.queue[0].request.options if self.queue else []

    def ask(self, request: PermissionRequested, kind: str, subject: Content) -> None:
        """Queue a request (`kind` is the tool call's kind, `subject` from `describe`)."""
        if request.reply.done:
            return
        self.queue.append(Ask(request, QUESTIONS.get(kind, "Allow this?"), subject))
        request.reply.future.add_done_callback(lambda _: self._settled(request))
        if len(self.queue) == 1:
            self._show()
        else:
            self._redraw()
        self.post_message(self.Changed(self, len(self.queue)))

    def _show(self) -> None:
        """Show the first request: letters armed unless the person was typing just now."""
        self._drop_held()
        ask = self.current
        if ask is None:
            self.display = False
            return
        self.keys = option_keys(ask.request.options)
        typing = time.monotonic() - self.last_typed() < TYPING_WINDOW
        self.letters = not typing
        self.highlighted = default_option(ask.request.options) if self.letters else None
        self.display = True
        self._redraw()
        self.focus()
        if self.letters and self.diff_only() and wants_review(self.changes()):
            self.action_review()  # several files or a long diff: full screen

    # ----- the full-screen diff reviewer -----

    def changes(self) -> list[FileChange]:
        """The file changes of the request shown (its diff content)."""
        ask = self.current
        items = (ask.request.tool_call.content or []) if ask is not None else []
        root = getattr(self.app, "project", Path("/"))  # IacTui's (this widget does not import the app)
        return [
            FileChange(project_relative(item.path, root), item.old_text, item.new_text)
            for item in items
            if item.type == "diff"
        ]

    def diff_only(self) -> bool:
        """The request shown carries diffs and nothing else."""
        ask = self.current
        items = (ask.request.tool_call.content or []) if ask is not None else []
        return bool(items) and all(item.type == "diff" for item in items)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "review":
            return bool(self.changes())
        return True

    def action_review(self) -> None:
        """Open the request's diffs full screen (`DiffReview`); an answer chosen there answers the request."""
        ask = self.current
        changes = self.changes()
        if ask is None or not changes:
            return
        from iac_tui.screens.diff_review import DiffReview

        request = ask.request
        title = strip_root(request.tool_call.title or ask.question, getattr(self.app, "project", Path("/")))
        screen = DiffReview(changes, title=title, options=request.options, letters=self.letters)

        def answered(option_id: str | None) -> None:
            if option_id is not None:
                request.reply.answer(option_id)

        def settled(_: object) -> None:  # answered or cancelled elsewhere: the reviewer has nothing left to ask
            if screen.is_attached and self.app.screen is screen:
                screen.dismiss(None)

        request.reply.future.add_done_callback(settled)
        self.app.push_screen(screen, answered)

    def _settled(self, request: PermissionRequested) -> None:
        if not self.is_attached:
            return
        shown = self.current is not None and self.current.request is request
        self.queue = [a for a in self.queue if a.request is not request]
        if shown:
            self._show()
        else:
            self._redraw()
        self.post_message(self.Changed(self, len(self.queue)))

    def key_of(self, index: int) -> str | None:
        """The key that picks option `index`, if any (None while letters are suspended)."""
        if not self.letters:
            return None
        return next((k for k, i in self.keys.items() if i == index), None)

    def _redraw(self) -> None:
        ask = self.current
        if ask is None or not self.is_mounted:
            return
        more = f"  [dim](1 of {len(self.queue)})[/dim]" if len(self.queue) > 1 else ""
        title = Content.assemble(Content.from_markup(f"[b $accent]?[/] [b]$question[/b]{more}  ", question=ask.question), ask.subject)
        self.query_one(".question-title", Static).update(title)
        parts = []
        for index, option in enumerate(ask.request.options):
            key = self.key_of(index) or " "
            colour = "$text-error" if option.kind.startswith("reject") else "$text-success"
            if index == self.highlighted:
                parts.append(Content.from_markup(f"[b $accent]❯[/] [reverse] $key [/reverse] [b {colour}]$name[/]", key=key, name=option.name))
            else:
                parts.append(Content.from_markup("  [dim] $key [/dim] $name", key=key, name=option.name))
        self.query_one(".question-options", Static).update(Content("\n").join(parts))
        review = " · ctrl+d full screen" if self.changes() else ""
        if self.letters:
            letters = "/".join(key for key in KIND_KEYS.values() if key in self.keys)
            pick = f"{letters}, or ↑↓ and enter" if letters else "↑↓ and enter"
            hint = f"[dim]{pick} · esc cancels the turn{review}[/dim]"
        else:
            hint = f"[$text-warning]Letters off (you were typing): pick with ↑↓, then enter[/] [dim]· esc cancels{review}[/dim]"
        self.query_one(".question-hint", Static).update(Content.from_markup(hint))

    # ----- keys -----

    @staticmethod
    def _edit(event: events.Key) -> str | None:
        """What a key does to a draft: its character, one of `DRAFT_EDITS`, or None."""
        if event.is_printable and event.character:
            return event.character
        return event.key if event.key in DRAFT_EDITS else None

    async def _on_key(self, event: events.Key) -> None:
        if self.current is None:  # settled a moment ago: the prompt box takes the keys back next
            edit = self._edit(event)
            if edit is not None:
                self._consume(event)
                self.post_message(self.Typed([edit]))
            return
        key = event.key
        if key == "enter":
            self._consume(event)
            self._drop_held()
            if self.highlighted is not None:
                self.choose(self.highlighted)
            return
        held = self._drop_held()
        if key in ("up", "down"):
            self._consume(event)
            self.move(-1 if key == "up" else 1)
        elif self.letters and held is None and event.character in self.keys:
            self._consume(event)
            self.highlighted = self.keys[event.character]
            self._held = (event.character, self.set_timer(LETTER_GRACE, self._commit_held))
            self._redraw()
        elif self.letters and held is None and event.character in ANSWER_LETTERS:
            self._consume(event)  # an answer letter without its option: nothing to answer, nothing typed
        elif (edit := self._edit(event)) is not None:
            self._consume(event)
            self.suspend_letters()
            self.post_message(self.Typed([held, edit] if held else [edit]))

    def _drop_held(self) -> str | None:
        """Forget a held answer letter; returns it."""
        if self._held is None:
            return None
        letter, timer = self._held
        self._held = None
        timer.stop()
        return letter

    def _commit_held(self) -> None:
        """No key followed the answer letter: it was an answer."""
        if self._held is not None:
            letter = self._drop_held()
            if letter in self.keys and self.letters:
                self.choose(self.keys[letter])

    @staticmethod
    def _consume(event: events.Key) -> None:
        event.stop()
        event.prevent_default()

    def suspend_letters(self) -> None:
        """Stop single-letter answers for this question (and forget the highlight: enter then needs an arrow first)."""
        self.letters = False
        self.highlighted = None
        self._redraw()

    def move(self, delta: int) -> None:
        """Move the highlight by `delta`. From nothing (letters off), the first arrow shows the
        option a bare enter picks with letters on (`default_option`: "Allow once", else "Reject
        once"), never an end of the list: an `up` from nothing used to land on "Always reject …".

        It stops at either end instead of wrapping: one `up` too many on "Allow once" must not
        land on "Always reject …" (nor `down` on the last option come back to "Allow once").
        """
        count = len(self.options)
        if not count:
            return
        if self.highlighted is None:
            default = default_option(self.options)
            self.highlighted = default if default is not None else (0 if delta > 0 else count - 1)
        else:
            self.highlighted = max(0, min(count - 1, self.highlighted + delta))
        self._redraw()

    def choose(self, index: int) -> None:
        """Answer the shown request with option `index` (the question then moves on by itself)."""
        ask = self.current
        if ask is None or ask.request.reply.done:
            return
        ask.request.reply.answer(ask.request.options[index].option_id)

    def on_click(self, event: events.Click) -> None:
        widget = event.widget
        if widget is not None and widget.has_class("question-options"):
            offset = event.get_content_offset(widget)
            if offset is not None and 0 <= offset.y < len(self.options):
                self.highlighted = offset.y
                self.choose(offset.y)
