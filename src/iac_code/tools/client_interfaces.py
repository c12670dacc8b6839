"""What the client (the editor) offers the tools: its view of text files and its terminals.

PROTOCOL.md, "What the server uses of clientCapabilities": when the client advertised
`fs.readTextFile` / `fs.writeTextFile` / `terminal` in `initialize`, the file tools read and write
text through the editor (so unsaved buffers are seen and edits are tracked) and `bash` runs in an
editor terminal. The tools floor knows these only as the protocols below; the ACP adapter
(`iac_code.acp.client_tools`) implements them and the session hands them to each call's `ToolContext`.
Paths are absolute and have already passed the permission checks when a tool calls these.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class ClientError(Exception):
    """The client refused or failed a request (file not open, permission denied, gone...).

    `str(error)` is the client's reason, fit to show the model.
    """


class ClientFiles(Protocol):
    """The editor's text files (`fs/read_text_file`, `fs/write_text_file`).

    `can_read`/`can_write` say which half the client advertised; a method whose half is not
    advertised is never called. Both methods raise `ClientError`.
    """

    can_read: bool
    can_write: bool

    async def read_text(self, path: Path, line: int | None = None, limit: int | None = None) -> str:
        """The text of `path` as the editor has it, from the 1-based `line`, at most `limit` lines."""
        ...

    async def write_text(self, path: Path, content: str) -> None:
        """Replace the whole text of `path` with `content` (the editor creates a missing file)."""
        ...


@dataclass(slots=True)
class TerminalExit:
    """How a terminal's command ended: its exit code, or the name of the signal that killed it."""

    exit_code: int | None = None
    signal: str | None = None


@dataclass(slots=True)
class TerminalOutput:
    """What a terminal printed so far (the client keeps at most `output_byte_limit` bytes, dropping
    the oldest: `truncated`), and how it ended if it has."""

    output: str
    truncated: bool = False
    exit: TerminalExit | None = None


class ClientTerminals(Protocol):
    """The editor's terminals (`terminal/create`, `/output`, `/wait_for_exit`, `/kill`, `/release`).

    Every method raises `ClientError`; a created terminal must be released exactly once.
    """

    async def create(
        self, command: str, args: list[str], env: dict[str, str], cwd: Path, output_byte_limit: int
    ) -> str:
        """Start `command args` in `cwd` with `env` added to the client's environment; the terminal id."""
        ...

    async def output(self, terminal_id: str) -> TerminalOutput:
        """The output kept so far and the exit status if the command ended."""
        ...

    async def wait_for_exit(self, terminal_id: str) -> TerminalExit:
        """Wait until the command ends (no timeout: the caller bounds it)."""
        ...

    async def kill(self, terminal_id: str) -> None:
        """Kill the command; the terminal stays readable until released."""
        ...

    async def release(self, terminal_id: str) -> None:
        """Kill the command if it still runs and free the terminal."""
        ...
