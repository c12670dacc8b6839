"""The session picker: the project's sessions (`session/list`), newest first, to load or fork.

Each row shows the title, the time and as much of the id as tells the rows apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from iac_tui.display import format_time
from iac_tui.session_manager import sort_sessions

if TYPE_CHECKING:  # the SDK loads after the first paint (iac_tui.sdk)
    from acp.schema import SessionInfo


SHORT_ID = 8  # characters of an id shown when they tell the sessions apart


def id_length(session_ids: list[str]) -> int:
    """How many leading characters of each id the picker shows: `SHORT_ID`, or more until no two
    ids look the same (OpenCode's time-ordered ids share their first dozen characters)."""
    length = SHORT_ID
    longest = max((len(i) for i in session_ids), default=0)
    while length < longest and len({i[:length] for i in session_ids}) < len(set(session_ids)):
        length += 1
    return length


@dataclass(slots=True)
class SessionChoice:
    """What the user picked: `action` is `load`, `fork` or `new` (`session_id` None for new)."""

    action: str
    session_id: str | None = None


class SessionPicker(ModalScreen[SessionChoice | None]):
    """Pick a session: `enter` loads it, `f` forks it, `n` starts a new one, `esc` closes."""

    BINDINGS = [
        Binding("enter", "pick('load')", "Load", priority=True),
        Binding("f", "pick('fork')", "Fork"),
        Binding("n", "new", "New session"),
        Binding("escape", "dismiss(None)", "Close"),
    ]

    def __init__(self, sessions: list[SessionInfo], current: str | None, can_fork: bool = True) -> None:
        super().__init__()
        self.sessions = sort_sessions(sessions)
        self.current = current
        self.can_fork = can_fork
        self.id_length = id_length([s.session_id for s in self.sessions])

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("Sessions", classes="picker-title")
            if self.sessions:
                yield OptionList(*[self._option(s) for s in self.sessions], id="session-list")
            else:
                yield Static("No saved sessions for this project yet.", classes="picker-empty")
            keys = "[b]enter[/b] load  " + ("[b]f[/b] fork  " if self.can_fork else "") + "[b]n[/b] new  [b]esc[/b] close"
            yield Static(Content.from_markup(keys), classes="picker-keys")

    def _option(self, session: SessionInfo) -> Option:
        title = session.title or "(untitled)"
        when = format_time(session.updated_at)
        marker = "● " if session.session_id == self.current else "  "
        label = Content.assemble(
            (marker, "bold $accent"),
            (title, "bold" if session.session_id == self.current else ""),
            "\n  ",
            (f"{when}  ·  {session.session_id[: self.id_length]}", "dim"),
        )
        return Option(label, id=session.session_id)

    def action_pick(self, action: str) -> None:
        if action == "fork" and not self.can_fork:
            return
        if not self.sessions:
            return
        options = self.query_one("#session-list", OptionList)
        if options.highlighted is None:
            return
        option = options.get_option_at_index(options.highlighted)
        self.dismiss(SessionChoice(action, option.id))

    def action_new(self) -> None:
        self.dismiss(SessionChoice("new"))
