"""The client's files and terminals for the tools (PROTOCOL.md, "What the server uses of
clientCapabilities"): `ClientFiles` over `fs/read_text_file` / `fs/write_text_file` and
`ClientTerminals` over `terminal/*`, for one session of one connection.

Which of them a session gets is decided once, from the `clientCapabilities` of `initialize`
(`offered`): the SDK itself never checks them. Every failure of a request (an error answer, a
malformed answer, a closed connection, no answer in time) becomes `ClientError` with a reason the
model can act on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

from acp import Client, RequestError
from acp.schema import ClientCapabilities, EnvVariable
from pydantic import ValidationError

from iac_code.tools.client_interfaces import (
    ClientError,
    ClientFiles,
    ClientTerminals,
    TerminalExit,
    TerminalOutput,
)

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 60.0
"""Seconds to wait for the client's answer to a file or terminal request (not `wait_for_exit`)."""

T = TypeVar("T")


def offered(client_capabilities: ClientCapabilities | None) -> tuple[bool, bool, bool]:
    """(`fs.readTextFile`, `fs.writeTextFile`, `terminal`) as the client advertised them; all False
    for a client that sent no capabilities."""
    if client_capabilities is None:
        return False, False, False
    fs = client_capabilities.fs
    read = bool(fs is not None and fs.read_text_file)
    write = bool(fs is not None and fs.write_text_file)
    return read, write, bool(client_capabilities.terminal)


async def _ask(what: str, request: Awaitable[T], timeout: float | None = REQUEST_TIMEOUT) -> T:
    """Await the client's answer to `request`; any failure becomes `ClientError` naming `what`."""
    try:
        async with asyncio.timeout(timeout):
            return await request
    except RequestError as exc:
        raise ClientError(f"{what} failed: {_reason(exc)}") from None
    except TimeoutError:
        raise ClientError(f"{what} got no answer within {timeout:g} s") from None
    except ValidationError:  # e.g. a client without the terminal methods answers null
        raise ClientError(f"{what} got an answer that is not what ACP specifies") from None
    except ConnectionError:
        raise ClientError(f"{what} failed: the client is gone") from None


def _reason(exc: RequestError) -> str:
    """The client's error message with its `data` (a string, or a dict's values), e.g.
    "Invalid params (path: the buffer is read-only)"."""
    data = exc.data
    if isinstance(data, dict):
        detail = data.get("details") or data.get("message") or "; ".join(f"{k}: {v}" for k, v in data.items())
    else:
        detail = data or ""
    detail = str(detail)
    return f"{exc}" + (f" ({detail})" if detail and detail not in str(exc) else "")


class AcpFiles:
    """`ClientFiles` of one session, through `fs/read_text_file` and `fs/write_text_file`."""

    def __init__(self, conn: Client, session_id: str, can_read: bool, can_write: bool) -> None:
        self._conn = conn
        self._session_id = session_id
        self.can_read = can_read
        self.can_write = can_write

    async def read_text(self, path: Path, line: int | None = None, limit: int | None = None) -> str:
        """The editor's text of `path` (`fs/read_text_file`). Raises `ClientError`."""
        response = await _ask(
            "fs/read_text_file",
            self._conn.read_text_file(session_id=self._session_id, path=str(path), line=line, limit=limit),
        )
        return response.content

    async def write_text(self, path: Path, content: str) -> None:
        """Replace `path`'s text in the editor (`fs/write_text_file`). Raises `ClientError`."""
        await _ask(
            "fs/write_text_file",
            self._conn.write_text_file(session_id=self._session_id, path=str(path), content=content),
        )


class AcpTerminals:
    """`ClientTerminals` of one session, through `terminal/*`."""

    def __init__(self, conn: Client, session_id: str) -> None:
        self._conn = conn
        self._session_id = session_id

    async def create(self, command: str, args: list[str], env: dict[str, str], cwd: Path, output_byte_limit: int) -> str:
        """`terminal/create`; the new terminal's id. Raises `ClientError`."""
        response = await _ask(
            "terminal/create",
            self._conn.create_terminal(
                session_id=self._session_id,
                command=command,
                args=args,
                env=[EnvVariable(name=k, value=v) for k, v in env.items()],
                cwd=str(cwd),
                output_byte_limit=output_byte_limit,
            ),
        )
        return response.terminal_id

    async def output(self, terminal_id: str) -> TerminalOutput:
        """`terminal/output`. Raises `ClientError`."""
        response = await _ask("terminal/output", self._conn.terminal_output(session_id=self._session_id, terminal_id=terminal_id))
        status = response.exit_status
        ended = None if status is None else TerminalExit(status.exit_code, status.signal)
        return TerminalOutput(response.output, bool(response.truncated), ended)

    async def wait_for_exit(self, terminal_id: str) -> TerminalExit:
        """`terminal/wait_for_exit`, without a time limit. Raises `ClientError`."""
        response = await _ask(
            "terminal/wait_for_exit",
            self._conn.wait_for_terminal_exit(session_id=self._session_id, terminal_id=terminal_id),
            timeout=None,
        )
        return TerminalExit(response.exit_code, response.signal)

    async def kill(self, terminal_id: str) -> None:
        """`terminal/kill`. Raises `ClientError`."""
        await _ask("terminal/kill", self._conn.kill_terminal(session_id=self._session_id, terminal_id=terminal_id))

    async def release(self, terminal_id: str) -> None:
        """`terminal/release`. Raises `ClientError`."""
        await _ask("terminal/release", self._conn.release_terminal(session_id=self._session_id, terminal_id=terminal_id))


def client_tools(
    conn: Client, session_id: str, client_capabilities: ClientCapabilities | None
) -> tuple[ClientFiles | None, ClientTerminals | None]:
    """The files and terminals the client offers to the tools of `session_id` (None where it offers none)."""
    read, write, terminal = offered(client_capabilities)
    files = AcpFiles(conn, session_id, read, write) if read or write else None
    return files, (AcpTerminals(conn, session_id) if terminal else None)
