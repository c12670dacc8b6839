"""The ACP client side of the app: what the agent may call on us.

`TuiClient` is a duck-typed ACP `Client` (the SDK's `Client` protocol is not subclassed: its
stubs would answer unimplemented methods with `null` instead of -32601). It imports no widgets:
each `session/update` becomes a message from `iac_tui.messages`, posted synchronously so the
app sees updates in arrival order; a permission request is posted with a future that the UI
resolves. File access (`fs/*`) is confined to the project directory, beyond which only what the
person approved is served (`iac_tui.approvals`); terminals (`terminal/*`) run in
pseudo-terminals started in it (`iac_tui.terminals`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import acp
from acp.schema import (
    AgentMessageChunk,
    AgentPlanContentUpdate,
    AgentPlanRemovedUpdate,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AllowedOutcome,
    AudioContentBlock,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    CreateTerminalResponse,
    CurrentModeUpdate,
    DeniedOutcome,
    EmbeddedResourceContentBlock,
    EnvVariable,
    ImageContentBlock,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    ResourceContentBlock,
    SessionInfoUpdate,
    TerminalExitStatus,
    TerminalOutputResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    UsageUpdate,
    UserMessageChunk,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)
from textual.message import Message

from iac_tui import messages
from iac_tui.approvals import OutsideApprovals
from iac_tui.state import SessionState
from iac_tui.terminals import Terminal, Terminals

# What `session/update` may carry (the SDK's `SessionNotification.update` union) and a content block.
Update = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | AgentPlanContentUpdate
    | AgentPlanRemovedUpdate
    | AvailableCommandsUpdate
    | CurrentModeUpdate
    | ConfigOptionUpdate
    | SessionInfoUpdate
    | UsageUpdate
)
ContentBlock = TextContentBlock | ImageContentBlock | AudioContentBlock | ResourceContentBlock | EmbeddedResourceContentBlock

MAX_READ_BYTES = 10 * 1024 * 1024
TERMINAL_REFRESH = 0.05
"""Seconds between two reports of a client terminal's new output to the app."""


def content_text(block: ContentBlock) -> str:
    """The text of one ACP content block; non-text blocks become a short marker."""
    if isinstance(block, TextContentBlock):
        return block.text
    if isinstance(block, ImageContentBlock):
        return f"[image: {block.mime_type}]"
    if isinstance(block, AudioContentBlock):
        return f"[audio: {block.mime_type}]"
    if isinstance(block, ResourceContentBlock):
        return f"[{block.name or block.uri}]"
    return f"[{block.resource.uri}]"


def attachment_name(block: ContentBlock) -> str | None:
    """The file name of a `resource` / `resource_link` / `image` content block (None for other
    blocks; an image without a `file://` URI is named after its type, `image/png`)."""
    if isinstance(block, ImageContentBlock):
        uri = block.uri or ""
        return unquote(urlparse(uri).path).rsplit("/", 1)[-1] if uri.startswith("file://") else block.mime_type
    if isinstance(block, ResourceContentBlock):
        return block.name or block.uri
    if isinstance(block, EmbeddedResourceContentBlock):
        uri = block.resource.uri or "resource"
        parsed = urlparse(uri)
        return unquote(parsed.path).rsplit("/", 1)[-1] if parsed.scheme == "file" else uri
    return None


class TuiClient:
    """Receives the agent's notifications and requests for the app.

    `post` delivers a message to the app (its conversation's `post_message`). `state` is the
    app's `SessionState`: updates for a session other than `state.session_id` (once set) are
    dropped here, the one place that filters them (they belong to a session the app left).
    """

    def __init__(self, post: Callable[[Message], object], root: Path, state: SessionState | None = None) -> None:
        self._post = post
        self.root = Path(os.path.realpath(root))
        self.state = state if state is not None else SessionState()
        self._permissions: set[messages.PermissionAnswer] = set()
        self.outside = OutsideApprovals(self.root)
        self.terminals = Terminals(self._terminal_changed)
        self._terminals_changed: set[Terminal] = set()

    # ----- session/update -----

    @property
    def session_id(self) -> str | None:
        """The session the app shows (kept in the app's `SessionState`)."""
        return self.state.session_id

    def _wanted(self, session_id: str) -> bool:
        return self.session_id is None or session_id == self.session_id

    async def session_update(self, session_id: str, update: Update, **_: Any) -> None:
        """Turn one update into a message. No await before posting: arrival order is kept."""
        if not self._wanted(session_id):
            return
        if isinstance(update, ToolCallProgress) and update.status in ("completed", "failed"):
            self.outside.finished(update.tool_call_id)
        message = self.to_message(session_id, update)
        if message is not None:
            self._post(message)

    async def ext_notification(self, method: str, params: dict[str, Any], **_: Any) -> None:
        """Extension notifications: iac-code's `_iac-code/mcp_status` (MCP server states); others are ignored."""
        if method != "iac-code/mcp_status" or not isinstance(params, dict):
            return
        session_id, servers = params.get("sessionId"), params.get("servers")
        if isinstance(session_id, str) and isinstance(servers, list) and self._wanted(session_id):
            self._post(messages.McpStatusChanged(session_id, [s for s in servers if isinstance(s, dict)]))

    @staticmethod
    def to_message(session_id: str, update: Update) -> Message | None:
        """The app message for one `session/update` payload (None for kinds the app ignores)."""
        if isinstance(update, AgentMessageChunk):
            return messages.MessageChunk(session_id, content_text(update.content), "agent")
        if isinstance(update, UserMessageChunk):
            name = attachment_name(update.content)
            if name is not None:
                return messages.MessageChunk(session_id, "", "user", attachment=name)
            return messages.MessageChunk(session_id, content_text(update.content), "user")
        if isinstance(update, AgentThoughtChunk):
            return messages.ThoughtChunk(session_id, content_text(update.content))
        if isinstance(update, ToolCallStart | ToolCallProgress):
            return messages.ToolCall(session_id, update)
        if isinstance(update, AgentPlanUpdate):
            return messages.PlanChanged(session_id, list(update.entries))
        if isinstance(update, UsageUpdate):
            return messages.UsageChanged(session_id, update.used, update.size, update.cost)
        if isinstance(update, AvailableCommandsUpdate):
            return messages.CommandsChanged(session_id, list(update.available_commands))
        if isinstance(update, CurrentModeUpdate):
            return messages.ModeChanged(session_id, update.current_mode_id)
        if isinstance(update, ConfigOptionUpdate):
            return messages.ConfigChanged(session_id, list(update.config_options))
        if isinstance(update, SessionInfoUpdate):
            return messages.SessionInfoChanged(session_id, update.title)
        return None  # plan content/removal updates (unstable) and kinds this app does not show

    # ----- session/request_permission -----

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **_: Any
    ) -> RequestPermissionResponse:
        """Ask the user; answer with the chosen option's id, or `cancelled`."""
        reply = messages.PermissionAnswer(asyncio.get_running_loop().create_future())
        if not self._wanted(session_id) or not options:
            reply.answer(None)
        else:
            self._permissions.add(reply)
            self._post(messages.PermissionRequested(session_id, tool_call, list(options), reply))
        try:
            option_id = await reply.future
        finally:
            self._permissions.discard(reply)
        if option_id is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        chosen = next((o for o in options if o.option_id == option_id), None)
        if chosen is not None:
            self.outside.approved(tool_call, chosen.kind)
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option_id))

    def cancel_permissions(self) -> int:
        """Answer every pending permission request `cancelled`; returns how many there were."""
        pending = [p for p in self._permissions if not p.done]
        for reply in pending:
            reply.answer(None)
        return len(pending)

    # ----- fs/* (confined to the project directory and what the person approved) -----

    def confine(self, path: str, write: bool = False, approved: bool = True) -> Path:
        """`path` (absolute, symlinks resolved) if it lies inside the project, or (with `approved`)
        outside it where the person approved a tool call using it (`OutsideApprovals`); else -32602."""
        if not os.path.isabs(path):
            raise acp.RequestError.invalid_params({"path": f"must be absolute, got {path!r}"})
        real = Path(os.path.realpath(path))
        if self.outside.outside(real) and not (approved and self.outside.allows(real, write)):
            raise acp.RequestError.invalid_params({"path": f"outside the project directory {self.root}, and no approved tool call uses it"})
        return real

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **_: Any
    ) -> ReadTextFileResponse:
        """Read a text file of the project (optionally from 1-based `line`, at most `limit` lines)."""
        real = self.confine(path)

        def read() -> str:
            if not real.is_file():
                raise acp.RequestError.resource_not_found(f"file://{real}")
            if real.stat().st_size > MAX_READ_BYTES:
                raise acp.RequestError.invalid_params({"path": f"larger than {MAX_READ_BYTES} bytes"})
            return real.read_text(encoding="utf-8", errors="replace")

        text = await asyncio.to_thread(read)
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((line or 1) - 1, 0)
            end = start + limit if limit is not None else None
            text = "".join(lines[start:end])
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any) -> WriteTextFileResponse:
        """Write a text file of the project (or an approved one outside) atomically (parent
        directories are created). An existing file keeps its mode; a new one gets the usual
        `0o666 & ~umask`.
        """
        real = self.confine(path, write=True)

        def write() -> None:
            real.parent.mkdir(parents=True, exist_ok=True)
            tmp = real.parent / f".{real.name}.{secrets.token_hex(6)}.tmp"
            # not mkstemp: its file is 0o600, which a new file would keep
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(content)
                if real.exists():
                    os.chmod(tmp, real.stat().st_mode & 0o7777)
                os.replace(tmp, real)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise

        await asyncio.to_thread(write)
        return WriteTextFileResponse()


    # ----- terminal/* (commands started inside the project directory) -----

    def _terminal_changed(self, terminal: Terminal) -> None:
        """Post `TerminalOutput` for `terminal` at most every `TERMINAL_REFRESH` seconds."""
        if not self._terminals_changed:
            asyncio.get_running_loop().call_later(TERMINAL_REFRESH, self._post_terminals)
        self._terminals_changed.add(terminal)

    def _post_terminals(self) -> None:
        changed, self._terminals_changed = self._terminals_changed, set()
        for terminal in changed:
            self._post(messages.TerminalOutput(terminal))

    def _terminal(self, terminal_id: str) -> Terminal:
        try:
            return self.terminals.get(terminal_id)
        except KeyError:
            raise acp.RequestError.resource_not_found(terminal_id) from None

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[EnvVariable] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **_: Any,
    ) -> CreateTerminalResponse:
        """Start `command` in a pseudo-terminal, in `cwd` (inside the project; default its root).

        -32602 for a `cwd` outside the project or a command that cannot start.
        """
        directory = self.confine(cwd, approved=False) if cwd else self.root
        variables = {v.name: v.value for v in env or []}
        try:
            terminal = await self.terminals.create(command, list(args or []), directory, variables, output_byte_limit)
        except OSError as exc:
            raise acp.RequestError.invalid_params({"command": f"cannot start {command!r}: {exc.strerror or exc}"}) from None
        return CreateTerminalResponse(terminal_id=terminal.id)

    async def terminal_output(self, session_id: str, terminal_id: str, **_: Any) -> TerminalOutputResponse:
        """The output so far, whether its front was cut, and the exit status once it exited."""
        terminal = self._terminal(terminal_id)
        status = terminal.exit_status
        return TerminalOutputResponse(
            output=terminal.output,
            truncated=terminal.truncated,
            exit_status=TerminalExitStatus(exit_code=status.exit_code, signal=status.signal) if status else None,
        )

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **_: Any) -> WaitForTerminalExitResponse:
        """Answer once the command has exited."""
        status = await self._terminal(terminal_id).wait_for_exit()
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> KillTerminalResponse:
        """Kill the command's process group; the terminal and its output stay until released."""
        self._terminal(terminal_id).kill()
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **_: Any) -> ReleaseTerminalResponse:
        """Kill the command if it still runs and forget the terminal."""
        self._terminal(terminal_id)
        await self.terminals.release(terminal_id)
        return ReleaseTerminalResponse()
