"""Draining the agent's stderr: a ring buffer of its last lines plus a log file.

The agent's stderr is a pipe; an agent that logs a lot would block on a full pipe if nobody read
it. `StderrLog.drain` reads it continuously for as long as the agent runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections import deque
from pathlib import Path
from typing import BinaryIO

KEEP_LOG_FILES = 20
READ_SIZE = 64 * 1024


def new_log_path(directory: Path, stem: str = "agent-stderr") -> Path:
    """A fresh log file name in `directory` (created), pruning all but the newest few old logs."""
    directory.mkdir(parents=True, exist_ok=True)
    old = sorted(directory.glob(f"{stem}-*.log"), key=lambda p: p.stat().st_mtime)
    for path in old[: max(0, len(old) - (KEEP_LOG_FILES - 1))]:
        with contextlib.suppress(OSError):
            path.unlink()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return directory / f"{stem}-{stamp}-{os.getpid()}.log"


class StderrLog:
    """The last `max_lines` lines of the agent's stderr, also written in full to `path`."""

    def __init__(self, path: Path | None, max_lines: int = 200) -> None:
        self.path = path
        self.bytes_read = 0
        self._lines: deque[str] = deque(maxlen=max_lines)
        self._partial = b""
        self._file: BinaryIO | None = None
        if path is not None:
            try:
                self._file = open(path, "ab")  # noqa: SIM115 - closed by drain()
            except OSError:
                self._file = None
                self.path = None

    def feed(self, data: bytes) -> None:
        """Take a piece of stderr output."""
        self.bytes_read += len(data)
        if self._file is not None:
            try:
                self._file.write(data)
                self._file.flush()
            except OSError:
                self._file = None
        *complete, self._partial = (self._partial + data).split(b"\n")
        for line in complete:
            self._lines.append(line.decode("utf-8", "replace").rstrip("\r"))
        if len(self._partial) > READ_SIZE:  # a huge line without newline: keep its end only
            self._partial = self._partial[-READ_SIZE:]

    async def drain(self, stream: asyncio.StreamReader) -> None:
        """Read `stream` until EOF (or cancellation), then close the log file."""
        try:
            while True:
                data = await stream.read(READ_SIZE)
                if not data:
                    break
                self.feed(data)
        finally:
            self.close()

    def close(self) -> None:
        """Close the log file (the ring buffer stays readable)."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    def tail(self, count: int = 20) -> list[str]:
        """The last `count` lines (including an unfinished last line)."""
        lines = list(self._lines)
        if self._partial:
            lines.append(self._partial.decode("utf-8", "replace"))
        return lines[-count:]
