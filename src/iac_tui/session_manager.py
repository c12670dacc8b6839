"""Opening and switching the agent's sessions for the app: new, load (with replay), fork, resume.

`SessionManager` holds no widgets; it asks the agent and keeps `app.state` and the client's
session filter in step. It runs in workers, beside the app's message handlers, so it changes
the conversation only through messages, which the app handles in order with the agent's
updates: `SessionEntered` (clear it) before a session's replay, `SessionOpened` once the
session is ready, `Notice` for what it could not do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from textual.message import Message

from iac_tui import messages
from iac_tui.sdk import acp
from iac_tui.state import SessionState, Setting

if TYPE_CHECKING:  # the SDK loads after the first paint (iac_tui.sdk)
    from acp.interfaces import Agent
    from acp.schema import AgentCapabilities, SessionInfo

    from iac_tui.mcp_config import McpServer

MAX_SESSION_PAGES = 20


def error_text(exc: BaseException) -> str:
    """A one-line description of a failed request (the JSON-RPC error and its data)."""
    if isinstance(exc, acp.RequestError):
        data = exc.data
        if isinstance(data, dict) and data:
            detail = "; ".join(f"{k}: {v}" for k, v in data.items())
            return f"{exc} ({detail})"
        return str(exc)
    return str(exc) or type(exc).__name__


def sort_sessions(sessions: list[SessionInfo]) -> list[SessionInfo]:
    """Newest first by `updatedAt` (sessions without a time last), keeping the agent's order otherwise."""
    dated = [s for s in sessions if s.updated_at]
    undated = [s for s in sessions if not s.updated_at]
    return sorted(dated, key=lambda s: s.updated_at or "", reverse=True) + undated


@dataclass(frozen=True, slots=True)
class FirstSession:
    """What the command line asks of the first session: `--resume ID`, `--continue`, `--model`, `--mode`."""

    resume: str | None = None
    continue_last: bool = False
    model: str | None = None
    mode: str | None = None


class SessionManager:
    """The session requests of one app.

    `state` is the app's `SessionState` (the one place the current session id is kept),
    `project` the directory sessions are opened in, `post` delivers messages to the
    conversation, `agent()` is the agent to send requests to (None while the agent is down),
    `capabilities()` the agent's `agentCapabilities` (None before `initialize`), `changed()`
    redraws the status, and `notify(text)` shows an error that belongs to no session.
    """

    def __init__(
        self,
        state: SessionState,
        project: Path,
        post: Callable[[Message], None],
        agent: Callable[[], Agent | None],
        capabilities: Callable[[], AgentCapabilities | None],
        changed: Callable[[], None],
        notify: Callable[[str], None],
    ) -> None:
        self.state = state
        self.project = project
        self.post = post
        self._agent = agent
        self._capabilities = capabilities
        self.changed = changed
        self.notify = notify
        self._mcp_problems: list[str] = []
        self._mcp_problems_told = False

    def mcp_servers(self) -> list[McpServer]:
        """The config file's MCP servers for the agent; its problems are told once, after the
        session opens (`tell_mcp_problems`), so that entering the session does not clear them."""
        from iac_tui.mcp_config import configured_servers  # imports the SDK's schema (iac_tui.sdk)

        servers, problems = configured_servers(self.capabilities)
        if problems and not self._mcp_problems_told:
            self._mcp_problems = problems
        return servers

    def tell_mcp_problems(self) -> None:
        """Show the config file's unusable MCP entries, once per app."""
        if self._mcp_problems and not self._mcp_problems_told:
            self._mcp_problems_told = True
            self.post(messages.Notice("MCP servers not passed to the agent: " + "; ".join(self._mcp_problems) + ".", "warning"))

    @property
    def agent(self) -> Agent | None:
        """The agent to send requests to (the SDK's side of the live ACP connection; None while the agent is down)."""
        return self._agent()

    def live_agent(self) -> Agent:
        """The agent, for a request now; ConnectionError while it is down (as a request to a
        closed connection raises)."""
        agent = self._agent()
        if agent is None:
            raise ConnectionError("the agent is not running")
        return agent

    @property
    def capabilities(self) -> AgentCapabilities | None:
        """The agent's `agentCapabilities` (None before initialize)."""
        return self._capabilities()

    def session_capability(self, name: Literal["list", "fork", "resume", "close"]) -> bool:
        """The agent announced `sessionCapabilities.<name>`."""
        caps = self.capabilities.session_capabilities if self.capabilities is not None else None
        if caps is None:
            return False
        return {"list": caps.list, "fork": caps.fork, "resume": caps.resume, "close": caps.close}[name] is not None

    @property
    def can_load(self) -> bool:
        """The agent supports `session/load`."""
        return bool(self.capabilities is not None and self.capabilities.load_session)

    async def open_first(self, first: FirstSession) -> None:
        """The first session: `--resume`, `--continue`, or a new one; then `--model`/`--mode`."""
        if first.resume:
            await self.load(first.resume)
        elif first.continue_last:
            sessions = await self.list()
            if sessions:
                await self.load(sessions[0].session_id)
            else:
                await self.new(note="No earlier session in this project: started a new one.")
        else:
            await self.new()
        await self.apply_initial_settings(first.model, first.mode)

    async def enter(self, session_id: str, clear: bool = True) -> None:
        """Show `session_id` from now on: fresh state, and an empty conversation unless `clear` is False."""
        await self.close_current()
        if clear:
            self.post(messages.SessionEntered(session_id))
        self.state.reset(session_id)
        self.changed()

    async def close_current(self) -> None:
        """Close the session being left, if the agent supports `session/close`."""
        old, agent = self.state.session_id, self.agent
        if old and agent is not None and self.session_capability("close"):
            try:
                await agent.close_session(session_id=old)
            except Exception:  # the agent may have forgotten it; nothing to do
                pass

    async def new(self, note: str | None = None, clear: bool = True) -> None:
        """Create a session in the project and show it (below the conversation shown, if not `clear`)."""
        response = await self.live_agent().new_session(cwd=str(self.project), mcp_servers=self.mcp_servers())
        await self.enter(response.session_id, clear=clear)
        self.state.apply_session_response(response)
        self.post(messages.SessionOpened(response.session_id, "new", note))
        self.tell_mcp_problems()

    async def load(self, session_id: str, note: str | None = None) -> None:
        """Show a stored session: `session/load` (its replay draws the conversation), else resume."""
        if not self.can_load:
            if self.session_capability("resume"):
                await self.enter(session_id)
                resumed = await self.live_agent().resume_session(session_id=session_id, cwd=str(self.project))
                self.state.apply_session_response(resumed)
                self.post(messages.SessionOpened(session_id, "resume", "Resumed the session (this agent cannot replay its history)."))
                return
            raise acp.RequestError.method_not_found("session/load")
        await self.enter(session_id)
        response = await self.live_agent().load_session(cwd=str(self.project), session_id=session_id, mcp_servers=self.mcp_servers())
        self.state.apply_session_response(response)
        await self.fetch_title(session_id)
        self.post(messages.SessionOpened(session_id, "load", note))
        self.tell_mcp_problems()

    async def fetch_title(self, session_id: str) -> None:
        """A loaded session's title comes from `session/list` (load itself does not tell it)."""
        if self.state.title or not self.session_capability("list"):
            return
        try:
            sessions = await self.list()
        except (ConnectionError, acp.RequestError):
            return
        found = next((s for s in sessions if s.session_id == session_id), None)
        if found is not None and found.title and self.state.session_id == session_id and not self.state.title:
            self.state.title = found.title

    async def reattach(self, session_id: str) -> None:
        """After a restart: resume the session without replay if possible, else reload it."""
        if self.session_capability("resume"):
            response = await self.live_agent().resume_session(session_id=session_id, cwd=str(self.project))
            self.state.apply_session_response(response)
            self.post(messages.SessionOpened(session_id, "resume", "Agent restarted; the session goes on."))
        elif self.can_load:
            await self.load(session_id, "Agent restarted; the session was reloaded.")
        else:
            # the old conversation stays on screen, for reading: only the agent forgot it
            await self.new(note="Agent restarted in a new session (it cannot restore the old one; what is above is not in its context).", clear=False)

    async def list(self) -> list[SessionInfo]:
        """The project's sessions (every page of `session/list`), newest first."""
        sessions: list[SessionInfo] = []
        cursor = None
        for _ in range(MAX_SESSION_PAGES):
            page = await self.live_agent().list_sessions(cwd=str(self.project), cursor=cursor)
            sessions.extend(page.sessions)
            cursor = page.next_cursor
            if not cursor:
                break
        return sort_sessions(sessions)

    async def apply_initial_settings(self, model: str | None, mode: str | None) -> None:
        """Apply `--model` and `--mode` (by value or name), noting what cannot be applied."""
        for category, value in (("model", model), ("mode", mode)):
            if not value:
                continue
            setting = self.state.setting(category)
            if setting is None:
                self.post(messages.Notice(f"The agent offers no {category} setting; --{category} {value} ignored.", "warning"))
                continue
            choice = next((c for c in setting.choices if value in (c.value, c.name) or value.lower() == c.name.lower()), None)
            if choice is None:
                names = ", ".join(c.value for c in setting.choices)
                self.post(messages.Notice(f"Unknown {category} {value!r}; one of: {names}.", "warning"))
                continue
            await self.change_setting(setting, choice.value)

    async def change_setting(self, setting: Setting, value: str) -> None:
        """Set a config option (or the mode through `session/set_mode`) and record the result."""
        session_id, agent = self.state.session_id, self.agent
        if agent is None or session_id is None:
            return
        try:
            if setting.via_modes:
                await agent.set_session_mode(session_id=session_id, mode_id=value)
                self.state.set_mode(value)
            else:
                response = await agent.set_config_option(config_id=setting.id, session_id=session_id, value=value)
                if response is not None and response.config_options is not None:
                    self.state.config_options = list(response.config_options)
                if setting.category == "mode":
                    self.state.set_mode(value)
        except (ConnectionError, acp.RequestError) as exc:
            self.notify(f"Could not change {setting.name}: {error_text(exc)}")
        self.changed()


    async def fork(self, session_id: str) -> None:
        """Branch a session (`session/fork`) and show the branch (loaded, so its history shows)."""
        response = await self.live_agent().fork_session(session_id=session_id, cwd=str(self.project), mcp_servers=self.mcp_servers())
        await self.load(response.session_id, "Forked: this is a new branch of the session.")
