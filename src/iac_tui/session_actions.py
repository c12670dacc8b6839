"""The person's session and setting actions: ctrl+s (the picker), ctrl+n (a new session), f2-f4
(model, mode, thinking level).

`SessionActions` is owned by the app, whose bindings name these actions and call it; the
requests themselves are `SessionManager`'s, run in workers so the UI never waits on the agent.
A session is not switched while a turn runs, nor without an agent.
"""

from __future__ import annotations

from collections.abc import Callable
from textual.message import Message

from iac_tui import messages
from iac_tui.app_protocols import Notify, RunWorker, Screens
from iac_tui.sdk import acp
from iac_tui.screens.session_picker import SessionChoice, SessionPicker
from iac_tui.screens.settings import SettingPicker
from iac_tui.session_manager import SessionManager, error_text

class SessionActions:
    """The session and setting actions of one app (see the module docstring).

    `sessions` sends the requests (and keeps the app's `SessionState`; its `agent` is None
    while the agent is down); `busy()` says whether a turn runs; `screens` pushes the pickers,
    `notify` shows a toast, `post` delivers messages to the conversation, `run` runs the
    requests in workers.
    """

    def __init__(
        self,
        sessions: SessionManager,
        *,
        busy: Callable[[], bool],
        screens: Screens,
        notify: Notify,
        post: Callable[[Message], None],
        run: RunWorker,
    ) -> None:
        self.sessions = sessions
        self._busy = busy
        self._screens = screens
        self._notify = notify
        self._post = post
        self._run = run

    def pick(self, category: str) -> None:
        """f2-f4: pick a value of the setting of `category` (model, mode, thought_level) and set it."""
        setting = self.sessions.state.setting(category)
        if setting is None or self.sessions.agent is None:
            return

        def chosen(value: str | None) -> None:
            if value is not None and value != setting.current:
                self._run(self.sessions.change_setting(setting, value), group="settings", exit_on_error=False)

        self._screens.push_screen(SettingPicker(setting), chosen)

    def new_session(self) -> None:
        """ctrl+n: open a new session (not while a turn runs)."""
        if self._refuse_while_busy():
            return
        self._run(self._switch(SessionChoice("new")), group="sessions", exit_on_error=False, exclusive=True)

    def open_picker(self) -> None:
        """ctrl+s: list the project's sessions in a picker, and open (or fork) the one chosen."""
        if self._refuse_while_busy():
            return
        if not self.sessions.session_capability("list"):
            self._notify("This agent cannot list its sessions.", severity="warning")
            return
        self._run(self._pick_session(), group="sessions", exit_on_error=False, exclusive=True)

    def _refuse_while_busy(self) -> bool:
        if self._busy():
            self._notify("The agent is working: wait, or press esc to cancel first.", severity="warning")
            return True
        if self.sessions.agent is None:
            self._notify("The agent is not running.", severity="warning")
            return True
        return False

    async def _pick_session(self) -> None:
        sessions = self.sessions
        try:
            listed = await sessions.list()
        except (ConnectionError, acp.RequestError) as exc:
            self._notify(f"Could not list sessions: {error_text(exc)}", severity="error")
            return
        can_fork = sessions.session_capability("fork") and (sessions.can_load or sessions.session_capability("resume"))
        choice = await self._screens.push_screen_wait(SessionPicker(listed, sessions.state.session_id, can_fork))
        if choice is not None:
            await self._switch(choice)

    async def _switch(self, choice: SessionChoice) -> None:
        if self._busy() or self.sessions.agent is None:
            return
        sessions = self.sessions
        try:
            if choice.action == "new" or choice.session_id is None:
                await sessions.new()
            elif choice.action == "fork":
                await sessions.fork(choice.session_id)
            elif choice.session_id != sessions.state.session_id:
                await sessions.load(choice.session_id)
        except (ConnectionError, acp.RequestError) as exc:
            self._post(messages.Notice(f"Could not open the session: {error_text(exc)}", "error"))
