"""The app's session and setting actions: ctrl+s (the picker), ctrl+n (a new session), f2-f4
(model, mode, thinking level). Mixed into `IacTui`, whose bindings name them; the requests
themselves are `SessionManager`'s, run in workers so the UI never waits on the agent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.app import App

from iac_tui import messages
from iac_tui.sdk import acp
from iac_tui.screens.session_picker import SessionChoice, SessionPicker
from iac_tui.screens.settings import SettingPicker
from iac_tui.session_manager import error_text
from iac_tui.state import Setting

if TYPE_CHECKING:
    from acp.interfaces import Agent
    from textual.message import Message
    from textual.reactive import var

    from iac_tui.session_manager import SessionManager
    from iac_tui.state import SessionState

    _App = App[None]  # the type checker sees the mixin as the App it is mixed into
else:
    _App = object


class SessionActions(_App):
    """Actions of `IacTui` (see the module docstring); `self` is the app."""

    if TYPE_CHECKING:  # what these actions use of IacTui
        busy: var[bool]
        state: SessionState
        sessions: SessionManager

        @property
        def agent(self) -> Agent | None: ...
        def post_to_conversation(self, message: Message) -> None: ...

    def action_pick(self, category: str) -> None:
        setting = self.state.setting(category)
        if setting is None or self.agent is None:
            return

        def chosen(value: str | None) -> None:
            if value is not None and value != setting.current:
                self._change_setting_worker(setting, value)

        self.push_screen(SettingPicker(setting), chosen)

    @work(group="settings", exit_on_error=False)
    async def _change_setting_worker(self, setting: Setting, value: str) -> None:
        await self.sessions.change_setting(setting, value)

    def action_new_session(self) -> None:
        if self._refuse_while_busy():
            return
        self._switch_session(SessionChoice("new"))

    def _refuse_while_busy(self) -> bool:
        if self.busy:
            self.notify("The agent is working: wait, or press esc to cancel first.", severity="warning")
            return True
        if self.agent is None:
            self.notify("The agent is not running.", severity="warning")
            return True
        return False

    def action_sessions(self) -> None:
        if self._refuse_while_busy():
            return
        if not self.sessions.session_capability("list"):
            self.notify("This agent cannot list its sessions.", severity="warning")
            return
        self._open_picker()

    @work(group="sessions", exclusive=True, exit_on_error=False)
    async def _open_picker(self) -> None:
        try:
            sessions = await self.sessions.list()
        except (ConnectionError, acp.RequestError) as exc:
            self.notify(f"Could not list sessions: {error_text(exc)}", severity="error")
            return
        can_fork = self.sessions.session_capability("fork") and (self.sessions.can_load or self.sessions.session_capability("resume"))
        choice = await self.push_screen_wait(SessionPicker(sessions, self.state.session_id, can_fork))
        if choice is not None:
            await self._do_switch(choice)

    @work(group="sessions", exclusive=True, exit_on_error=False)
    async def _switch_session(self, choice: SessionChoice) -> None:
        await self._do_switch(choice)

    async def _do_switch(self, choice: SessionChoice) -> None:
        if self.busy or self.agent is None:
            return
        try:
            if choice.action == "new" or choice.session_id is None:
                await self.sessions.new()
            elif choice.action == "fork":
                await self.sessions.fork(choice.session_id)
            elif choice.session_id != self.state.session_id:
                await self.sessions.load(choice.session_id)
        except (ConnectionError, acp.RequestError) as exc:
            self.post_to_conversation(messages.Notice(f"Could not open the session: {error_text(exc)}", "error"))
