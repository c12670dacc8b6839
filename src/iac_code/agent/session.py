"""A session: one conversation with its working directory, mode, model and permission memory.

The session owns its provider (its own model connection), its tool registry, its
conversation (persisted through the session store) and its commands' sandbox (`tools.sandbox`:
the backend found here and a private temp dir, removed when the session closes). `prompt` runs one prompt turn or a slash
command; the session's turn lock is the one owner of "a turn is running".
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from iac_code.agent import attachments, subagent
from iac_code.agent.commands import COMMANDS, run_command
from iac_code.agent.loop import INTERRUPTED, AgentLoop, LoopConfig, TurnResult
from iac_code.agent.permissions import PermissionGate, PermissionPolicy, PermissionPrompter
from iac_code.agent.project_mcp import approved_servers
from iac_code.agent.system_prompt import build_system_prompt
from iac_code.config import Settings
from iac_code.core.conversation import Conversation, ImageBlock, Message, TextBlock
from iac_code.core.events import EventSink, Notice, TitleChanged
from iac_code.core.provider import Provider, Usage
from iac_code.core.vocabulary import PermissionMode, ThoughtLevel, is_permission_mode, is_thought_level
from iac_code.mcp_client.hub import McpHub
from iac_code.mcp_client.servers import McpServerSpec
from iac_code.providers import available_models, create_provider
from iac_code.providers.models import default_claude_model
from iac_code.redact import Redactor
from iac_code.session_store.journal import StorageError
from iac_code.session_store.store import (
    SessionClaim,
    SessionMeta,
    SessionStore,
    new_session_id,
    now,
    title_from,
)
from iac_code.tools.base import ProgressSink, SubagentRunner, ToolContext
from iac_code.tools.client_interfaces import ClientFiles, ClientTerminals
from iac_code.tools.registry import ToolRegistry, default_registry
from iac_code.tools.sandbox import Sandbox, detect, private_space, remove_space

log = logging.getLogger(__name__)

THINKING_BUDGETS: dict[str, int | None] = {"off": None, "low": 2_048, "medium": 8_192, "high": 24_576}
"""Extended-thinking budget in tokens for each `thought_level`."""


def default_model(settings: Settings) -> str:
    """The model of new sessions: `IAC_CODE_MODEL`/the config file, else the newest Claude Sonnet."""
    return settings.model or default_claude_model()


class SessionBusy(RuntimeError):
    """A prompt is already running in this session (and was not cancelled)."""


class Session:
    """One live session (see the module docstring)."""

    def __init__(
        self,
        meta: SessionMeta,
        settings: Settings,
        store: SessionStore,
        messages: list[Message] | None = None,
        tools: ToolRegistry | None = None,
        provider_factory: Callable[[str, Settings], Provider] = create_provider,
        claim: SessionClaim | None = None,
    ) -> None:
        self.meta = meta
        self.claim = claim
        """This process's lock on the session (`SessionStore.claim`), released by `close()`."""
        self.settings = settings
        self.store = store
        self.cwd = Path(os.path.realpath(meta.cwd))
        self.tools = tools or default_registry()
        self.journal = store.journal(meta.session_id)
        self.conversation = Conversation(messages, self.journal)
        self.sandboxing = detect(settings.sandbox)
        """Which sandbox backend runs this session's commands (`backend` "none": no sandbox)."""
        self._sandbox_space: Path | None = None  # the commands' private TMPDIR and blank file, made on first use
        # say once that commands are not sandboxed, unless the person turned the sandbox off
        self._sandbox_notice = self.sandboxing.backend == "none" and self.sandboxing.setting != "off"
        self.policy = PermissionPolicy(
            meta.mode if is_permission_mode(meta.mode) else settings.permission_mode,
            sandboxed=self.sandboxing.backend != "none",
        )
        self._provider_factory = provider_factory
        self._provider: Provider | None = None
        self._provider_model: str | None = None
        self._lock = asyncio.Lock()  # held for the whole of a turn
        self._turn: asyncio.Task[TurnResult] | None = None
        self._cancels = 0  # `cancel` calls so far
        self._handover = False  # the running turn was cancelled and no prompt waits for it yet
        self._interrupted = False  # the last turn was cancelled mid-response (its text kept)
        self.secrets = Redactor(settings.secrets())
        self.files: ClientFiles | None = None
        """The client's text files, when it offers them (set by the ACP adapter)."""
        self.terminals: ClientTerminals | None = None
        """The client's terminals, when it offers them (set by the ACP adapter)."""
        self.mcp = McpHub(self.cwd, settings.mcp_connect_timeout, settings.mcp_call_timeout)
        """The session's MCP servers; their tools join `tools` in every turn."""
        self._mcp_start: asyncio.Task[None] | None = None
        self._project_mcp_checked = False

    @classmethod
    def create(cls, cwd: str, settings: Settings, store: SessionStore) -> Session:
        """Start a new session in `cwd`, persisted at once, with the settings' mode and thought level."""
        meta = SessionMeta(
            session_id=new_session_id(),
            cwd=cwd,
            model=default_model(settings),
            mode=settings.permission_mode,
            thought_level=settings.thought_level,
        )
        store.create(meta)
        return cls(meta, settings, store, claim=store.claim(meta.session_id))

    @classmethod
    def restore(cls, session_id: str, cwd: str, settings: Settings, store: SessionStore) -> Session:
        """Reopen a stored session (history repaired) to run in `cwd`, claimed for this process.

        Raises `SessionNotFound`, or `SessionInUse` when another process (or connection) runs it.
        """
        claim = store.claim(session_id)
        try:
            meta, messages = store.load(session_id)
        except BaseException:
            claim.release()
            raise
        meta.cwd = cwd
        if meta.model not in available_models():
            meta.model = default_model(settings)
        return cls(meta, settings, store, messages, claim=claim)

    @classmethod
    def fork(cls, source: SessionMeta, cwd: str, settings: Settings, store: SessionStore) -> Session:
        """Branch the stored session `source` into a new one with a copy of its history, persisted at once.

        Raises `SessionNotFound` when `source` is not on disk (no metadata file).
        """
        meta = SessionMeta(
            session_id=new_session_id(),
            cwd=cwd,
            title=source.title,
            parent_id=source.session_id,
            model=source.model,
            mode=source.mode,
            thought_level=source.thought_level,
        )
        store.fork(source.session_id, meta)
        return cls.restore(meta.session_id, cwd, settings, store)

    # ----- state -----

    @property
    def id(self) -> str:
        """The session id."""
        return self.meta.session_id

    @property
    def mode(self) -> PermissionMode:
        """The permission mode (`default`, `accept_edits`, `sandboxed_commands`, `plan`, `bypass_permissions`)."""
        return self.policy.mode

    @property
    def model(self) -> str:
        """The model id in use."""
        return self.meta.model or ""

    @property
    def thought_level(self) -> ThoughtLevel:
        """`off`, `low`, `medium` or `high`."""
        level = self.meta.thought_level
        return level if is_thought_level(level) else "off"

    def set_mode(self, mode: PermissionMode) -> None:
        """Switch the permission mode."""
        self.policy.mode = mode
        self.meta.mode = mode
        self._save_meta()

    def set_model(self, model: str) -> None:
        """Switch the model; the next request uses it (a new provider connection if needed)."""
        self.meta.model = model
        self._save_meta()

    def set_thought_level(self, level: ThoughtLevel) -> None:
        """Switch the extended-thinking level."""
        self.meta.thought_level = level
        self._save_meta()

    def _save_meta(self, touch: bool = False) -> None:
        if touch:
            self.meta.updated_at = now()
        self.store.write_meta(self.meta)

    async def provider(self) -> Provider:
        """The provider of the current model, created on first use."""
        if self._provider is None or self._provider_model != self.model:
            if self._provider is not None:
                await self._provider.aclose()
            self._provider = self._provider_factory(self.model, self.settings)
            self._provider_model = self.model
        return self._provider

    def context_window(self) -> int:
        """The current model's context window in tokens (without creating a provider)."""
        if self._provider is not None:
            return self._provider.context_window(self.model)
        return self.settings.context_window or 200_000

    def tool_context(
        self, *, progress: ProgressSink | None = None, emit: EventSink | None = None, run_subagent: SubagentRunner | None = None
    ) -> ToolContext:
        """A fresh context for one tool call (a `ToolContextFactory`): the session's directory,
        secrets, client parts and sandbox, with the call's `progress`, `emit` and `run_subagent`."""
        return ToolContext(
            cwd=self.cwd,
            config_dir=self.settings.config_dir,
            allow_private_fetch=self.settings.allow_private_fetch,
            secrets=self.secrets,
            files=self.files,
            terminals=self.terminals,
            sandbox=self.sandbox(),
            progress=progress,
            emit=emit,
            run_subagent=run_subagent,
        )

    def sandbox(self) -> Sandbox | None:
        """How a command run now is sandboxed (the project read-only in `plan` mode), or None."""
        if self.sandboxing.backend == "none":
            return None
        if self._sandbox_space is None:
            self._sandbox_space = private_space()
        return Sandbox(self.sandboxing.backend, self._sandbox_space, project_writable=self.mode != "plan")

    # ----- MCP servers -----

    def start_mcp(self, specs: Iterable[McpServerSpec], problems: Iterable[str] = ()) -> None:
        """Start connecting the MCP servers `specs` in the background (reporting `problems` first).

        The next prompt turn waits for them (each within the connect timeout); set
        `mcp.report`/`mcp.on_status` before calling this to hear about failures.
        """
        previous = self._mcp_start
        specs, problems = list(specs), list(problems)

        async def start() -> None:
            if previous is not None:
                await asyncio.shield(previous)
            await self.mcp.start(specs, problems)

        self._mcp_start = asyncio.create_task(start(), name=f"mcp-start:{self.id}")

    async def mcp_ready(self) -> None:
        """Wait until the MCP servers started so far are connected or have failed."""
        if self._mcp_start is not None:
            await asyncio.shield(self._mcp_start)

    def turn_tools(self) -> ToolRegistry:
        """The tools of a turn: the built-in ones, then those of the connected MCP servers."""
        mcp_tools = self.mcp.tools()
        if not mcp_tools:
            return self.tools
        builtin = [self.tools.get(name) for name in self.tools.names()]
        return ToolRegistry([t for t in builtin if t is not None] + mcp_tools)

    # ----- prompt turns -----

    @property
    def running(self) -> bool:
        """Whether a turn (or slash command) is running."""
        return self._lock.locked()

    def cancel(self) -> None:
        """Cancel the running turn (PROTOCOL.md, Cancel) and any prompt waiting to run after it."""
        self._cancels += 1
        if self._turn is not None and not self._turn.done():
            self._turn.cancel()
            self._handover = True

    async def prompt(
        self, content: list[TextBlock | ImageBlock], emit: EventSink, prompter: PermissionPrompter | None
    ) -> TurnResult:
        """Run one prompt turn (or a slash command) for the user's `content`.

        The turn lock is claimed before the first await. While a turn runs, another prompt raises
        `SessionBusy`, except one prompt sent after `cancel`: it waits for the cancelled turn to
        answer, then runs (PROTOCOL.md, Cancel: "the next prompt works"). A turn cancelled before
        it started answers `cancelled` with no usage.
        """
        if self._lock.locked():
            if not self._handover:
                raise SessionBusy(self.id)
            self._handover = False
        cancels = self._cancels
        async with self._lock:
            if self._cancels != cancels:  # cancelled while it waited for the previous turn
                return TurnResult("cancelled", Usage())
            turn = self._turn = asyncio.create_task(self._run(content, emit, prompter))
            try:
                return await asyncio.shield(turn)
            except asyncio.CancelledError:
                me = asyncio.current_task()
                if turn.cancelled() and not (me is not None and me.cancelling()):
                    return TurnResult("cancelled", Usage())  # cancelled before the loop ran
                turn.cancel()  # our caller is going away: stop the turn before releasing the lock
                await asyncio.wait([turn], timeout=5)
                raise
            finally:
                self._turn, self._handover = None, False

    async def _run(self, content: list[TextBlock | ImageBlock], emit: EventSink, prompter: PermissionPrompter | None) -> TurnResult:
        try:
            texts = [b.text for b in content if isinstance(b, TextBlock)]
            text = "".join(texts).strip()
            if text.startswith("/"):
                name, _, args = text[1:].partition(" ")
                if any(c.name == name for c in COMMANDS):
                    return await run_command(self, name, args.strip(), emit)
            if self.meta.title is None:
                title = title_from("\n".join(t for t in texts if attachments.parse(t) is None))
                if title:
                    self.meta.title = title
                    await emit(TitleChanged(title))
            if self._sandbox_notice:
                self._sandbox_notice = False
                said = self.sandboxing.describe()
                await emit(Notice(f"*{said[:1].upper()}{said[1:]}. See iac-code doctor.*\n\n"))
            if not self._project_mcp_checked:
                self._project_mcp_checked = True
                found = await approved_servers(self.cwd, self.settings.config_dir, emit, prompter)
                if found == "cancelled":
                    return TurnResult("cancelled", Usage())
                if found is not None:
                    self.start_mcp(found.specs, found.problems)
            loop = await self._loop(emit, prompter)
            note = [TextBlock(text=INTERRUPTED)] if self._interrupted else []
            result = await loop.run(Message(role="user", content=[*content, *note]))
            self._interrupted = result.interrupted
            return result
        finally:
            self._save_meta(touch=True)

    async def _loop(self, emit: EventSink, prompter: PermissionPrompter | None) -> AgentLoop:
        provider = await self.provider()
        await self.mcp_ready()
        budget = THINKING_BUDGETS[self.thought_level] if provider.supports_thinking(self.model) else None
        max_tokens = max(self.settings.max_output_tokens, (budget or 0) + 4_096)
        return AgentLoop(
            provider=provider,
            tools=self.turn_tools(),
            conversation=self.conversation,
            gate=PermissionGate(self.policy, prompter),
            emit=emit,
            context=self.tool_context,
            subagents=subagent.starter,
            config=LoopConfig(
                model=self.model,
                system_prompt=build_system_prompt(self.cwd),
                max_requests=self.settings.max_turns,
                max_tokens=max_tokens,
                thinking_budget=budget,
            ),
        )

    async def close(self, timeout: float = 5.0) -> None:
        """End the session's life in this process: cancel the running turn and wait (up to `timeout`
        seconds) for it to answer, stop its MCP servers, release the provider connection, then the claim.

        Awaited on every exit path (`IacAgent.shutdown`, `session/close`, a reload); what a session
        must stop or flush when it ends belongs here.
        """
        try:
            turn = self._turn
            if turn is not None:
                self.cancel()
                await asyncio.wait([turn], timeout=timeout)
            start, self._mcp_start = self._mcp_start, None
            if start is not None and not start.done():
                start.cancel()
            await self.mcp.close()
            if self._provider is not None:
                await self._provider.aclose()
                self._provider = None
        finally:
            try:
                self.journal.flush()  # records a failed write left queued, if the disk allows now
            except StorageError as exc:
                log.error("session %s closes with %d unsaved records: %s", self.id, self.journal.pending, exc)
            if self._sandbox_space is not None:
                remove_space(self._sandbox_space)
                self._sandbox_space = None
            if self.claim is not None:
                self.claim.release()
