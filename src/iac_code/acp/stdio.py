"""`iac-code acp` on stdin/stdout: newline-delimited JSON-RPC, size-limited, until input ends or a signal.

Framing is ours (the SDK's reader buffers a whole line however long it is): a line is read in
chunks, and one longer than `Settings.max_message_bytes` is discarded as it arrives, never held
whole, then answered -32600; a line that is not JSON gets -32700 and one that is JSON but not an
object gets -32600 (PROTOCOL.md, Errors). No input line ends the server: it ends when stdin
closes or on SIGTERM, SIGINT or SIGHUP, after `IacAgent.shutdown()` (PROTOCOL.md, Process lifetime).
The JSON-RPC connection itself is the SDK's (`acp.run_agent` over a message transport).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import stat
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import acp

from iac_code.acp.lifetime import let_cleanups_finish, shutdown_signals
from iac_code.acp.server import IacAgent
from iac_code.acp.transport import ParseError, WireTransport, error_reply, parse_message
from iac_code.config import Settings

log = logging.getLogger(__name__)

CHUNK_BYTES = 256 * 1024
CLEANUP_SECONDS = 0.8
"""After the agent's shutdown, how long cancelled tools may take to stop their processes."""


@dataclass(frozen=True, slots=True)
class Oversized:
    """A line longer than the limit, already discarded; `size` is its length in bytes."""

    size: int


class LineReader:
    """Lines from a byte source, each at most `limit` bytes (newline excluded); longer ones are skipped.

    `read(n)` returns up to n bytes, b"" at the end. Memory held: at most `limit` plus one chunk.
    """

    def __init__(self, read: Callable[[int], Awaitable[bytes]], limit: int) -> None:
        self._read = read
        self._limit = limit
        self._buf = bytearray()
        self._eof = False

    async def next(self) -> bytes | Oversized | None:
        """The next line without its newline, an `Oversized` marker, or None at the end of input."""
        discarded = 0
        scanned = 0
        while True:
            i = self._buf.find(b"\n", scanned)
            if i >= 0:
                if discarded or i > self._limit:
                    del self._buf[: i + 1]
                    return Oversized(discarded + i)
                line = bytes(memoryview(self._buf)[:i])
                if i > CHUNK_BYTES:  # a long line: give its buffer back rather than keep the capacity
                    self._buf = bytearray(memoryview(self._buf)[i + 1 :])
                else:
                    del self._buf[: i + 1]
                return line
            if len(self._buf) > self._limit:
                discarded += len(self._buf)
                self._buf = bytearray()
            scanned = len(self._buf)
            chunk = b"" if self._eof else await self._read(CHUNK_BYTES)
            if not chunk:
                self._eof = True
                if discarded:
                    discarded, self._buf = discarded + len(self._buf), bytearray()
                    return Oversized(discarded)
                if self._buf:  # a last line without its newline
                    line, self._buf = bytes(self._buf), bytearray()
                    return line
                return None
            self._buf += chunk


class StdioTransport:
    """NDJSON over the process's stdin/stdout (see the module docstring); hands on JSON objects only."""

    def __init__(self, lines: LineReader, write: Callable[[bytes], Awaitable[None]], limit: int) -> None:
        self._lines = lines
        self._write = write
        self._limit = limit
        self._ended = asyncio.Event()
        self._write_lock = asyncio.Lock()
        self._broken = False

    def end_input(self) -> None:
        """Make `receive` report the end of input now (used on a shutdown signal)."""
        self._ended.set()

    async def receive(self) -> dict[str, Any] | None:
        """The next JSON object from stdin, None when input ends; other lines are answered here."""
        while True:
            line = await self._next_line()
            if line is None:
                return None
            if isinstance(line, Oversized):
                log.warning("discarded an input line of %d bytes (limit %d)", line.size, self._limit)
                await self.send(error_reply(None, -32600, "Invalid request", {
                    "details": f"the line is {line.size} bytes, over the limit of {self._limit} bytes (max_message_bytes)"
                }))  # fmt: skip
                continue
            if not line.strip():
                continue
            try:
                message = parse_message(line)
            except ParseError as exc:
                log.warning("received a line that is not JSON (%d bytes)", len(line))
                await self.send(error_reply(None, -32700, "Parse error", {"details": str(exc)}))
                continue
            if not isinstance(message, dict):
                details = "a JSON-RPC message must be an object (batches are not supported)"
                await self.send(error_reply(None, -32600, "Invalid request", {"details": details}))
                continue
            return message

    async def _next_line(self) -> bytes | Oversized | None:
        if self._ended.is_set():
            return None
        reading = asyncio.ensure_future(self._lines.next())
        ended = asyncio.ensure_future(self._ended.wait())
        await asyncio.wait({reading, ended}, return_when=asyncio.FIRST_COMPLETED)
        ended.cancel()
        if reading.done():
            return reading.result()
        reading.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reading
        return None

    async def send(self, message: dict[str, Any]) -> None:
        """Write one message as a line (a client that stopped reading loses it, with one warning)."""
        data = (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8", "replace")
        async with self._write_lock:
            if self._broken:
                return
            try:
                await self._write(data)
            except (OSError, RuntimeError) as exc:
                self._broken = True
                log.warning("cannot write to stdout any more: %s", exc)

    async def close(self) -> None:
        """Nothing to release: stdin and stdout belong to the process."""


async def _stdin_reader() -> Callable[[int], Awaitable[bytes]]:
    """`read(n)` on stdin: a non-blocking pipe reader, or reads in a thread for what epoll cannot
    poll: a regular file, a character device other than a terminal (`/dev/null`: the server must
    still see the end of its input and exit)."""
    fd = sys.stdin.fileno()
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode) or (stat.S_ISCHR(mode) and not os.isatty(fd)):
        return lambda n: asyncio.to_thread(os.read, fd, n)
    reader = asyncio.StreamReader(limit=CHUNK_BYTES)
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0, closefd=False))
    return reader.read


async def _stdout_writer() -> Callable[[bytes], Awaitable[None]]:
    """`write(data)` on stdout: a non-blocking pipe writer, or blocking writes for a regular file."""
    fd = sys.stdout.fileno()
    if stat.S_ISREG(os.fstat(fd).st_mode):

        async def write_file(data: bytes) -> None:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]

        return write_file
    loop = asyncio.get_running_loop()
    protocol = asyncio.streams.FlowControlMixin()
    transport, _ = await loop.connect_write_pipe(lambda: protocol, os.fdopen(fd, "wb", buffering=0, closefd=False))
    writer = asyncio.StreamWriter(transport, protocol, None, loop)

    async def write_pipe(data: bytes) -> None:
        writer.write(data)
        await writer.drain()

    return write_pipe


async def serve_stdio(settings: Settings) -> int | None:
    """Serve ACP on stdin/stdout until stdin closes or a shutdown signal; returns that signal's number."""
    limit = settings.max_message_bytes
    stdio = StdioTransport(LineReader(await _stdin_reader(), limit), await _stdout_writer(), limit)
    agent = IacAgent(settings)
    with shutdown_signals(lambda signum: stdio.end_input()) as received:
        try:
            await acp.run_agent(agent, WireTransport(stdio, on_end=agent.shutdown), use_unstable_protocol=True)
        finally:
            await agent.shutdown()  # a second time is a no-op; here for an exception out of the SDK
            await let_cleanups_finish(CLEANUP_SECONDS)
    return received[0] if received else None
