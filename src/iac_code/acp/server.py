"""The ACP agent: every method of PROTOCOL.md, on top of the agent core's sessions.

`IacAgent` is an ACP `Agent` by its methods (the SDK's `Agent` protocol is not subclassed: its
stubs would answer unimplemented methods with `null` instead of -32601; mypy checks that the
methods match it where `acp.stdio` hands the agent to the SDK). Each method validates its
parameters, reaches the session, and answers with the SDK's response models. How requests fail
(before `initialize`, bad parameters, unexpected exceptions) is decided in `acp.errors`; what
`initialize` announces in `acp.capabilities`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from acp import Client, RequestError
from acp.helpers import update_current_mode
from acp.schema import (
    AudioContentBlock,
    AuthenticateResponse,
    ClientCapabilities,
    CloseSessionResponse,
    ConfigOptionUpdate,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    PromptResponse,
    ResourceContentBlock,
    SessionInfo,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    TextContentBlock,
    Usage,
)

from iac_code.acp.capabilities import AUTH_METHOD_ID, initialize_response
from iac_code.acp.client_tools import client_tools
from iac_code.acp.errors import check_cwd, guarded, invalid
from iac_code.acp.mcp_servers import McpServer, attach_mcp_servers
from iac_code.acp.options import (
    ForkSessionResult,
    LoadSessionResult,
    NewSessionResult,
    ResumeSessionResult,
    config_options,
    mode_state,
    model_state,
)
from iac_code.acp.permission_prompter import AcpPrompter
from iac_code.acp.prompt import to_user_content
from iac_code.acp.updates import commands_update, to_update
from iac_code.agent.replay import replay_events
from iac_code.agent.session import Session, SessionBusy, default_model
from iac_code.config import CREDENTIALS_HELP, SCRIPTED_MODEL, Settings
from iac_code.core.events import Event, Notice, TitleChanged
from iac_code.core.vocabulary import PERMISSION_MODES, is_permission_mode, is_thought_level
from iac_code.providers import available_models
from iac_code.session_store.journal import StorageError
from iac_code.session_store.store import (
    InvalidCursor,
    SessionInUse,
    SessionNotFound,
    SessionStore,
)

log = logging.getLogger(__name__)

TURN_STOP_SECONDS = 1.0
"""How long `shutdown` waits for a cancelled turn to settle (bash: SIGTERM, 0.5 s, SIGKILL)."""
SHUTDOWN_SECONDS = 1.7
"""How long `shutdown` waits for all sessions to close (PROTOCOL.md: the process ends within 2 s)."""

UNSAVED_KEPT = "The conversation is kept in memory and saved with the next message once this is fixed."

SessionResult = TypeVar("SessionResult", NewSessionResult, LoadSessionResult, ForkSessionResult, ResumeSessionResult)


def _check_session_cwd(session_cwd: str, cwd: str) -> None:
    """-32602 naming `cwd` unless `cwd` is the directory the session belongs to (a load never moves it)."""
    if os.path.realpath(session_cwd) != os.path.realpath(cwd):
        raise invalid("cwd", f"the session belongs to {session_cwd}; load or resume it with that cwd")


class IacAgent:
    """The iac-code ACP agent for one client connection."""

    def __init__(self, settings: Settings, store: SessionStore | None = None) -> None:
        self.settings = settings
        self.store = store or SessionStore(settings.sessions_dir, settings.secrets())
        self.sessions: dict[str, Session] = {}
        self._conn: Client | None = None
        self.initialized = False
        """Whether `initialize` was answered (checked by `acp.errors.guarded`)."""
        self._background: set[asyncio.Task[Any]] = set()
        self._loading: dict[str, asyncio.Future[Session | None]] = {}  # session/load under way, by session id: its outcome
        self._client_capabilities: ClientCapabilities | None = None
        self._shutting_down: asyncio.Future[None] | None = None  # the last `shutdown()`'s work

    def on_connect(self, conn: Client) -> None:
        """Keep the connection used to send updates and permission requests."""
        self._conn = conn

    # ----- helpers -----

    @property
    def _client(self) -> Client:
        """The client's side of the connection (`on_connect` gave it before any request)."""
        if self._conn is None:
            raise RuntimeError("IacAgent: a request came before on_connect")
        return self._conn

    def _session(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            if self.store.exists(session_id):
                raise invalid("sessionId", "Session not loaded: call session/load or session/resume first")
            raise invalid("sessionId", "Session not found")
        return session

    def _update_sink(self, session_id: str) -> Callable[[Event], Awaitable[None]]:
        """An `EventSink` sending each agent event of `session_id` to the client as a `session/update`."""

        async def emit(event: Event) -> None:
            await self._client.session_update(session_id=session_id, update=to_update(event))

        return emit

    def _after_answer(self, coro: Awaitable[Any]) -> None:
        """Run `coro` after the current response is sent (for updates that follow a result)."""

        async def run() -> None:
            await asyncio.sleep(0)
            try:
                await coro
            except Exception:
                log.debug("deferred update failed", exc_info=True)

        task = asyncio.create_task(run())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _opened(self, result: type[SessionResult], session: Session) -> SessionResult:
        """The answer to `session/new|load|fork|resume` for `session`: its modes, models and config
        options, and for a new session (new, fork) its id. The slash commands follow as an update."""
        self._after_answer(self._client.session_update(session_id=session.id, update=commands_update()))
        new = result in (NewSessionResult, ForkSessionResult)
        return result(
            modes=mode_state(session),
            models=model_state(session),
            config_options=config_options(session),
            **({"session_id": session.id} if new else {}),
        )

    def _check_model(self, model: str, field: str = "model") -> None:
        if model not in available_models():
            raise invalid(field, f"unknown model {model!r}")
        if model != SCRIPTED_MODEL and not self.settings.has_credentials:
            raise RequestError.auth_required({"message": CREDENTIALS_HELP})

    def _register(self, session: Session) -> Session:
        """Make `session` the live session of its id (requests reach it from now on), its tools
        using the files and terminals the client offered in `initialize`."""
        session.files, session.terminals = client_tools(self._client, session.id, self._client_capabilities)
        self.sessions[session.id] = session
        return session

    # ----- lifecycle -----

    @guarded
    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **_: Any,
    ) -> InitializeResponse:
        """Negotiate protocol version 1 and announce the capabilities of PROTOCOL.md; remember the
        client's, which decide whether tools use its files and terminals."""
        self.initialized = True
        self._client_capabilities = client_capabilities
        return initialize_response(self.settings)

    @guarded
    async def authenticate(self, method_id: str, **_: Any) -> AuthenticateResponse:
        """Credentials come from the environment; succeed only if they are there."""
        if method_id != AUTH_METHOD_ID:
            raise invalid("methodId", f"unknown authentication method {method_id!r}")
        if not self.settings.has_credentials:
            raise RequestError.auth_required({"message": CREDENTIALS_HELP})
        return AuthenticateResponse()

    @guarded
    async def new_session(
        self, cwd: str, additional_directories: list[str] | None = None, mcp_servers: list[McpServer] | None = None, **_: Any
    ) -> NewSessionResult:
        """Create a session in `cwd` (absolute, existing directory), connecting its `mcpServers`."""
        cwd = check_cwd(cwd)
        self._check_model(default_model(self.settings), "model")
        session = self._register(Session.create(cwd, self.settings, self.store))
        attach_mcp_servers(session, self._client, mcp_servers)
        return self._opened(NewSessionResult, session)

    def _load_from_disk(self, session_id: str, cwd: str) -> Session:
        """Restore `session_id` into this connection: -32602 if it is unknown, belongs to another
        cwd, or is live in another process or connection (PROTOCOL.md, Storage)."""
        try:
            _check_session_cwd(self.store.read_meta(session_id).cwd, cwd)
            return self._register(Session.restore(session_id, cwd, self.settings, self.store))
        except SessionNotFound:
            raise invalid("sessionId", "Session not found") from None
        except SessionInUse:
            log.warning("session %s is in use by another process or connection: not loaded", session_id)
            raise invalid("sessionId", "Session is in use by another iac-code process or connection") from None

    @guarded
    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[McpServer] | None = None,
        additional_directories: list[str] | None = None,
        **_: Any,
    ) -> LoadSessionResult:
        """Restore a session from disk and replay its whole history before answering.

        A load of a session whose load is under way on this connection waits for that one and
        answers with the session it loaded, without a second replay (the client already gets
        the one in progress); if that load failed, this one tries afresh."""
        cwd = check_cwd(cwd)
        pending = self._loading.get(session_id)
        if pending is not None:
            loaded = await asyncio.shield(pending)
            if loaded is not None and self.sessions.get(session_id) is loaded:
                _check_session_cwd(loaded.meta.cwd, cwd)
                return self._opened(LoadSessionResult, loaded)
            if session_id in self._loading:  # a third load got there first
                raise invalid("sessionId", "Session is already being loaded")
        live = self.sessions.get(session_id)
        if live is not None and live.running:
            raise invalid("sessionId", "Session is running a prompt; cancel it before loading")
        outcome: asyncio.Future[Session | None] = asyncio.get_running_loop().create_future()
        self._loading[session_id] = outcome
        session: Session | None = None
        try:
            if live is not None:  # replaced by the session read afresh from disk (its MCP servers stop)
                _check_session_cwd(live.meta.cwd, cwd)
                del self.sessions[session_id]
                await live.close()
            session = self._load_from_disk(session_id, cwd)
            attach_mcp_servers(session, self._client, mcp_servers)
            emit = self._update_sink(session_id)
            for event in replay_events(session.conversation.messages, session.tools, session.tool_context()):
                await emit(event)
            if session.meta.title:
                await emit(TitleChanged(session.meta.title))
        except BaseException:
            session = None
            raise
        finally:
            del self._loading[session_id]
            outcome.set_result(session)
        return self._opened(LoadSessionResult, session)

    @guarded
    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **_: Any,
    ) -> ForkSessionResult:
        """Branch `session_id` into a new session with the same history, persisted at once."""
        cwd = check_cwd(cwd)
        try:
            source = self.sessions[session_id].meta if session_id in self.sessions else self.store.read_meta(session_id)
        except SessionNotFound:
            raise invalid("sessionId", "Session not found") from None
        session = self._register(Session.fork(source, cwd, self.settings, self.store))
        attach_mcp_servers(session, self._client, mcp_servers)
        return self._opened(ForkSessionResult, session)

    @guarded
    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **_: Any,
    ) -> ResumeSessionResult:
        """Reattach to a live session, or load it from disk without replay."""
        cwd = check_cwd(cwd)
        live = self.sessions.get(session_id)
        if live is not None:  # a live session keeps the MCP servers it has
            _check_session_cwd(live.meta.cwd, cwd)
            session = live
        else:
            session = self._load_from_disk(session_id, cwd)
            attach_mcp_servers(session, self._client, mcp_servers)
        if session.meta.title:
            self._after_answer(self._update_sink(session_id)(TitleChanged(session.meta.title)))
        return self._opened(ResumeSessionResult, session)

    @guarded
    async def close_session(self, session_id: str, **_: Any) -> CloseSessionResponse:
        """Cancel any running prompt and drop the session from memory (its history stays on disk)."""
        session = self._session(session_id)
        del self.sessions[session_id]  # before any await: later requests no longer reach it
        await session.close()
        return CloseSessionResponse()

    @guarded
    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **_: Any) -> ListSessionsResponse:
        """Persisted sessions of `cwd` (all when omitted), newest first, paged by `nextCursor`."""
        if cwd is not None:
            cwd = check_cwd(cwd, must_exist=False)
        try:
            page = await asyncio.to_thread(self.store.list, cwd, cursor)
        except InvalidCursor:
            raise invalid("cursor", "not a cursor returned by session/list") from None
        return ListSessionsResponse(
            sessions=[
                SessionInfo(session_id=m.session_id, cwd=m.cwd, title=m.title, updated_at=m.updated_at.isoformat())
                for m in page.sessions
            ],
            next_cursor=page.next_cursor,
        )

    # ----- configuration -----

    @guarded
    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> SetSessionModeResponse:
        """Switch the permission mode (same effect as the `mode` config option)."""
        session = self._session(session_id)
        if not is_permission_mode(mode_id):
            raise invalid("modeId", f"unknown mode {mode_id!r}; one of {sorted(PERMISSION_MODES)}")
        session.set_mode(mode_id)
        self._after_answer(
            self._client.session_update(
                session_id=session_id,
                update=ConfigOptionUpdate(session_update="config_option_update", config_options=config_options(session)),
            )
        )
        return SetSessionModeResponse()

    @guarded
    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **_: Any
    ) -> SetSessionConfigOptionResponse:
        """Set `mode`, `model` or `thought_level`; anything else is -32602."""
        session = self._session(session_id)
        if not isinstance(value, str):
            raise invalid("value", "must be a string")
        if config_id == "mode":
            if not is_permission_mode(value):
                raise invalid("value", f"unknown mode {value!r}")
            session.set_mode(value)
            self._after_answer(self._client.session_update(session_id=session_id, update=update_current_mode(value)))
        elif config_id == "model":
            self._check_model(value, "value")
            session.set_model(value)
        elif config_id == "thought_level":
            if not is_thought_level(value):
                raise invalid("value", f"unknown thought level {value!r}")
            session.set_thought_level(value)
        else:
            raise invalid("configId", f"unknown config option {config_id!r}")
        return SetSessionConfigOptionResponse(config_options=config_options(session))

    # ----- prompt turns -----

    @guarded
    async def prompt(
        self,
        session_id: str,
        prompt: list[
            TextContentBlock | ImageContentBlock | AudioContentBlock | ResourceContentBlock | EmbeddedResourceContentBlock
        ],
        **_: Any,
    ) -> PromptResponse:
        """Run one prompt turn; every update of it is sent before this returns."""
        session = self._session(session_id)
        content = to_user_content(prompt, session.cwd)
        if not content:
            raise invalid("prompt", "no usable content blocks")
        try:  # the session's turn lock is claimed before this handler first yields
            result = await session.prompt(content, self._update_sink(session_id), AcpPrompter(self._client, session_id))
        except SessionBusy:
            raise invalid("sessionId", "A prompt is already running in this session; wait for it or cancel it") from None
        except StorageError as exc:  # answered -32603 with the reason by `guarded`
            await self._update_sink(session_id)(Notice(f"\n\n**Error:** {exc} {UNSAVED_KEPT}\n"))
            raise
        u = result.usage
        return PromptResponse(
            stop_reason=result.stop_reason,
            usage=Usage(
                input_tokens=u.input_tokens,
                output_tokens=u.output_tokens,
                total_tokens=u.total_tokens,
                cached_read_tokens=u.cache_read_tokens,
                cached_write_tokens=u.cache_write_tokens,
            ),
        )

    async def cancel(self, session_id: str, **_: Any) -> None:
        """Cancel the running prompt of `session_id` (a notification: unknown sessions are ignored)."""
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """No extension methods: -32601, as the SDK answers an agent that has no `ext_method`."""
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        """Extension notifications are ignored, as the SDK does for an agent that has no `ext_notification`."""

    async def shutdown(self) -> None:
        """End everything this connection runs (PROTOCOL.md, Process lifetime). A call while a
        shutdown runs waits for that one (a caller cancelled meanwhile does not cut it short:
        with the stdin and signal paths both awaiting it, the second returned at once and its
        caller could close the connection under the first); once it is over, a call does nothing
        unless sessions were opened since.

        Running turns are cancelled (their tools stopped: bash process groups killed, client
        terminals released) and given up to `TURN_STOP_SECONDS` to settle, and every live
        session is closed concurrently (`Session.close()`: history written, session lock
        released, its MCP servers stopped), all within `SHUTDOWN_SECONDS`. Every exit path
        awaits this: stdin closed, SIGTERM/SIGINT/SIGHUP, an HTTP connection deleted or expired,
        the HTTP server stopping.
        """
        running = self._shutting_down
        if running is None or (running.done() and self.sessions):
            running = self._shutting_down = asyncio.ensure_future(self._shut_down())
        await asyncio.shield(running)

    async def _shut_down(self) -> None:
        sessions = list(self.sessions.values())
        self.sessions.clear()
        started = time.monotonic()
        for session in sessions:
            session.cancel()  # all at once: they settle concurrently
        closing = [asyncio.ensure_future(self._close_quietly(session)) for session in sessions]
        if closing:
            _, late = await asyncio.wait(closing, timeout=SHUTDOWN_SECONDS)
            for task in late:  # its `finally` still writes what it can and releases the claim
                task.cancel()
            if late:
                log.warning("%d session(s) did not close within %.1f s", len(late), SHUTDOWN_SECONDS)
                await asyncio.wait(late, timeout=0.2)
            log.info("closed %d session(s) in %.2f s", len(sessions), time.monotonic() - started)

    @staticmethod
    async def _close_quietly(session: Session) -> None:
        try:
            await session.close(timeout=TURN_STOP_SECONDS)
        except Exception:
            log.exception("closing session %s failed", session.id)
