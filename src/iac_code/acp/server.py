"""The ACP agent: every method of PROTOCOL.md, on top of the agent core's sessions.

`IacAgent` is a duck-typed ACP `Agent` (the SDK's `Agent` protocol is not subclassed: its stubs
would answer unimplemented methods with `null` instead of -32601). Each method validates its
parameters, reaches the session, and answers with the SDK's response models. Unexpected failures
become -32603 with a short error id that is also in the log, never a traceback.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import acp
from acp import RequestError
from acp.helpers import update_available_commands, update_current_mode
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    AuthEnvVar,
    AvailableCommand,
    AvailableCommandInput,
    CloseSessionResponse,
    ConfigOptionUpdate,
    EnvVarAuthMethod,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionForkCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    UnstructuredCommandInput,
    Usage,
)

from iac_code import __version__
from iac_code.acp.options import (
    MODE_IDS,
    THOUGHT_LEVEL_IDS,
    ForkSessionResult,
    LoadSessionResult,
    NewSessionResult,
    ResumeSessionResult,
    config_options,
    mode_state,
    model_state,
)
from iac_code.acp.permissions import AcpPrompter
from iac_code.acp.prompt import to_user_content
from iac_code.acp.updates import to_update
from iac_code.agent.commands import COMMANDS
from iac_code.agent.replay import replay_events
from iac_code.agent.session import Session, SessionBusy, default_model
from iac_code.config import CREDENTIALS_HELP, SCRIPTED_MODEL, Settings
from iac_code.core.events import Event, TitleChanged
from iac_code.providers import available_models
from iac_code.sessions.store import InvalidCursor, SessionNotFound, SessionStore

log = logging.getLogger(__name__)

AUTH_METHOD_ID = "anthropic-api-key"
TURN_STOP_SECONDS = 1.5
"""How long `shutdown` waits for cancelled turns to settle (the process must end within 2 s)."""

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


def guarded(method: F) -> F:
    """Turn an unexpected exception into -32603 with a short error id (logged with its traceback)."""

    @functools.wraps(method)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return await method(*args, **kwargs)
        except (RequestError, asyncio.CancelledError):
            raise
        except Exception:
            error_id = uuid.uuid4().hex[:8]
            log.exception("internal error %s in %s", error_id, method.__name__)
            raise RequestError.internal_error({"errorId": error_id}) from None

    return wrapper  # type: ignore[return-value]


def _invalid(field: str, message: str) -> RequestError:
    return RequestError.invalid_params({field: message})


def _check_cwd(cwd: str) -> str:
    """The normalised `cwd`; -32602 naming `cwd` unless it is an absolute, existing directory."""
    if not os.path.isabs(cwd):
        raise _invalid("cwd", f"must be an absolute path, got {cwd!r}")
    if not os.path.isdir(cwd):
        raise _invalid("cwd", f"no such directory: {cwd}")
    return os.path.normpath(cwd)


class IacAgent:
    """The iac-code ACP agent for one client connection."""

    def __init__(self, settings: Settings, store: SessionStore | None = None) -> None:
        self.settings = settings
        self.store = store or SessionStore(settings.sessions_dir, settings.secrets())
        self.sessions: dict[str, Session] = {}
        self._turns: dict[str, asyncio.Task[Any]] = {}
        self._conn: Any = None
        self._initialized = False
        self._background: set[asyncio.Task[Any]] = set()

    def on_connect(self, conn: Any) -> None:
        """Keep the connection used to send updates and permission requests."""
        self._conn = conn

    # ----- helpers -----

    def _require_init(self) -> None:
        if not self._initialized:
            raise RequestError.invalid_request({"details": "initialize must be the first call on a connection"})

    def _session(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            if self.store.exists(session_id):
                raise _invalid("sessionId", "Session not loaded: call session/load or session/resume first")
            raise _invalid("sessionId", "Session not found")
        return session

    def _emitter(self, session_id: str) -> Callable[[Event], Awaitable[None]]:
        async def emit(event: Event) -> None:
            await self._conn.session_update(session_id=session_id, update=to_update(event))

        return emit

    def _later(self, coro: Awaitable[Any]) -> None:
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

    def _announce_commands(self, session_id: str) -> None:
        commands = [
            AvailableCommand(
                name=c.name,
                description=c.description,
                input=AvailableCommandInput(root=UnstructuredCommandInput(hint=c.hint)) if c.hint else None,
            )
            for c in COMMANDS
        ]
        self._later(self._conn.session_update(session_id=session_id, update=update_available_commands(commands)))

    def _check_model(self, model: str, field: str = "model") -> None:
        if model not in available_models():
            raise _invalid(field, f"unknown model {model!r}")
        if model != SCRIPTED_MODEL and not self.settings.has_credentials:
            raise RequestError.auth_required({"message": CREDENTIALS_HELP})

    def _open(self, session: Session) -> Session:
        self.sessions[session.id] = session
        return session

    # ----- lifecycle -----

    @guarded
    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None, **_: Any) -> InitializeResponse:
        """Negotiate protocol version 1 and announce the capabilities of PROTOCOL.md."""
        self._initialized = True
        auth_methods = []
        if not self.settings.has_credentials:
            auth_methods.append(
                EnvVarAuthMethod(
                    type="env_var",
                    id=AUTH_METHOD_ID,
                    name="Anthropic API key",
                    description=CREDENTIALS_HELP,
                    vars=[AuthEnvVar(name="ANTHROPIC_API_KEY", label="Anthropic API key", secret=True)],
                    link="https://console.anthropic.com/settings/keys",
                )
            )
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=False, audio=False, embedded_context=True),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(),
                    close=SessionCloseCapabilities(),
                    fork=SessionForkCapabilities(),
                    resume=SessionResumeCapabilities(),
                ),
            ),
            agent_info=Implementation(name="iac-code", title="iac-code", version=__version__),
            auth_methods=auth_methods,
        )

    @guarded
    async def authenticate(self, method_id: str, **_: Any) -> AuthenticateResponse:
        """Credentials come from the environment; succeed only if they are there."""
        self._require_init()
        if method_id != AUTH_METHOD_ID:
            raise _invalid("methodId", f"unknown authentication method {method_id!r}")
        if not self.settings.has_credentials:
            raise RequestError.auth_required({"message": CREDENTIALS_HELP})
        return AuthenticateResponse()

    @guarded
    async def new_session(self, cwd: str, mcp_servers: Any = None, **_: Any) -> NewSessionResult:
        """Create a session in `cwd` (absolute, existing directory)."""
        self._require_init()
        cwd = _check_cwd(cwd)
        self._check_model(default_model(self.settings), "model")
        session = self._open(Session.create(cwd, self.settings, self.store))
        self._announce_commands(session.id)
        return NewSessionResult(
            session_id=session.id,
            modes=mode_state(session),
            models=model_state(session),
            config_options=config_options(session),
        )

    def _load_from_disk(self, session_id: str, cwd: str) -> Session:
        try:
            return self._open(Session.restore(session_id, cwd, self.settings, self.store))
        except SessionNotFound:
            raise _invalid("sessionId", "Session not found") from None

    @guarded
    async def load_session(self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any) -> LoadSessionResult:
        """Restore a session from disk and replay its whole history before answering."""
        self._require_init()
        cwd = _check_cwd(cwd)
        live = self.sessions.get(session_id)
        if live is not None and (session_id in self._turns or live.busy):
            raise _invalid("sessionId", "Session is running a prompt; cancel it before loading")
        session = self._load_from_disk(session_id, cwd)
        if live is not None:
            await live.close()  # replaced by the session just read from disk
        emit = self._emitter(session_id)
        for event in replay_events(session.conversation.messages, session.tools, session.tool_context()):
            await emit(event)
        if session.meta.title:
            await emit(TitleChanged(session.meta.title))
        self._announce_commands(session_id)
        return LoadSessionResult(modes=mode_state(session), models=model_state(session), config_options=config_options(session))

    @guarded
    async def fork_session(self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any) -> ForkSessionResult:
        """Branch `session_id` into a new session with the same history, persisted at once."""
        self._require_init()
        cwd = _check_cwd(cwd)
        try:
            source = self.sessions[session_id].meta if session_id in self.sessions else self.store.read_meta(session_id)
        except SessionNotFound:
            raise _invalid("sessionId", "Session not found") from None
        session = self._open(Session.fork(source, cwd, self.settings, self.store))
        self._announce_commands(session.id)
        return ForkSessionResult(
            session_id=session.id,
            modes=mode_state(session),
            models=model_state(session),
            config_options=config_options(session),
        )

    @guarded
    async def resume_session(self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any) -> ResumeSessionResult:
        """Reattach to a live session, or load it from disk without replay."""
        self._require_init()
        cwd = _check_cwd(cwd)
        session = self.sessions.get(session_id) or self._load_from_disk(session_id, cwd)
        if session.meta.title:
            self._later(self._emitter(session_id)(TitleChanged(session.meta.title)))
        self._announce_commands(session_id)
        return ResumeSessionResult(modes=mode_state(session), models=model_state(session), config_options=config_options(session))

    @guarded
    async def close_session(self, session_id: str, **_: Any) -> CloseSessionResponse:
        """Cancel any running prompt and drop the session from memory (its history stays on disk)."""
        self._require_init()
        session = self._session(session_id)
        del self.sessions[session_id]  # before any await: later requests no longer reach it
        turn = self._turns.get(session_id)
        if turn is not None:
            turn.cancel()
            await asyncio.wait([turn], timeout=5)
        await session.close()
        return CloseSessionResponse()

    @guarded
    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **_: Any) -> ListSessionsResponse:
        """Persisted sessions of `cwd` (all when omitted), newest first, paged by `nextCursor`."""
        self._require_init()
        if cwd is not None:
            if not os.path.isabs(cwd):
                raise _invalid("cwd", f"must be an absolute path, got {cwd!r}")
            cwd = os.path.normpath(cwd)
        try:
            page = await asyncio.to_thread(self.store.list, cwd, cursor)
        except InvalidCursor:
            raise _invalid("cursor", "not a cursor returned by session/list") from None
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
        self._require_init()
        session = self._session(session_id)
        if mode_id not in MODE_IDS:
            raise _invalid("modeId", f"unknown mode {mode_id!r}; one of {sorted(MODE_IDS)}")
        session.set_mode(mode_id)  # type: ignore[arg-type]
        self._later(
            self._conn.session_update(
                session_id=session_id,
                update=ConfigOptionUpdate(session_update="config_option_update", config_options=config_options(session)),
            )
        )
        return SetSessionModeResponse()

    @guarded
    async def set_config_option(self, config_id: str, session_id: str, value: Any, **_: Any) -> SetSessionConfigOptionResponse:
        """Set `mode`, `model` or `thought_level`; anything else is -32602."""
        self._require_init()
        session = self._session(session_id)
        if not isinstance(value, str):
            raise _invalid("value", "must be a string")
        if config_id == "mode":
            if value not in MODE_IDS:
                raise _invalid("value", f"unknown mode {value!r}")
            session.set_mode(value)  # type: ignore[arg-type]
            self._later(self._conn.session_update(session_id=session_id, update=update_current_mode(value)))
        elif config_id == "model":
            self._check_model(value, "value")
            session.set_model(value)
        elif config_id == "thought_level":
            if value not in THOUGHT_LEVEL_IDS:
                raise _invalid("value", f"unknown thought level {value!r}")
            session.set_thought_level(value)  # type: ignore[arg-type]
        else:
            raise _invalid("configId", f"unknown config option {config_id!r}")
        return SetSessionConfigOptionResponse(config_options=config_options(session))

    # ----- prompt turns -----

    @guarded
    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        """Run one prompt turn; every update of it is sent before this returns."""
        self._require_init()
        session = self._session(session_id)
        # `_turns` is claimed below before this handler first yields; `session.busy` is only set
        # once the turn task runs, so a second prompt sent right behind the first must be caught here
        if session_id in self._turns or session.busy:
            raise _invalid("sessionId", "A prompt is already running in this session; wait for it or cancel it")
        content = to_user_content(prompt)
        if not content:
            raise _invalid("prompt", "no usable content blocks")
        turn = asyncio.create_task(
            session.prompt(content, self._emitter(session_id), AcpPrompter(self._conn, session_id))
        )
        self._turns[session_id] = turn
        try:
            result = await asyncio.shield(turn)
        except SessionBusy:
            raise _invalid("sessionId", "A prompt is already running in this session") from None
        except asyncio.CancelledError:
            me = asyncio.current_task()
            if turn.cancelled() and me is not None and not me.cancelling():
                # session/cancel arrived before the loop was running: nothing was started
                return PromptResponse(stop_reason="cancelled", usage=Usage(input_tokens=0, output_tokens=0, total_tokens=0))
            turn.cancel()  # the connection is going away
            raise
        finally:
            if self._turns.get(session_id) is turn:
                del self._turns[session_id]
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
        turn = self._turns.get(session_id)
        if turn is not None and not turn.done():
            turn.cancel()

    async def shutdown(self) -> None:
        """End everything this connection runs (PROTOCOL.md, Process lifetime); a second call does nothing.

        Running turns are cancelled (their tools stopped: bash process groups killed, client
        terminals released) and given up to `TURN_STOP_SECONDS` to settle, then every live
        session is closed (`Session.close()`: history written, session lock released, its MCP
        servers stopped). Every exit path awaits this: stdin closed, SIGTERM/SIGINT/SIGHUP, an
        HTTP connection deleted or expired, the HTTP server stopping.
        """
        turns = [turn for turn in self._turns.values() if not turn.done()]
        for turn in turns:
            turn.cancel()
        if turns:
            await asyncio.wait(turns, timeout=TURN_STOP_SECONDS)
        sessions = list(self.sessions.values())
        self.sessions.clear()
        for session in sessions:
            try:
                await session.close()
            except Exception:
                log.exception("closing session %s failed", session.id)
