"""One session's history file: records appended as they complete, nothing lost when a write fails.

Each record is one JSON line, written with `write` on a file opened for appending, so a killed
server loses at most the record in flight and concurrent sessions never interleave.

When a write fails (disk full, file too large, permissions: PROTOCOL.md, Storage), the records
not yet on disk stay queued in memory, in order, and `StorageError` says in plain words what
failed. Before every later append the tail of the file is repaired first: bytes of a record that
was only partly written are cut off (or, for a tail torn by an earlier process, ended with a
newline so that it is skipped alone on load), then the queued records are written ahead of the
new one. Once space returns, nothing is lost and no record is glued to a torn one.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from iac_code.core.conversation import Message
from iac_code.redact import Redactor


class StorageError(Exception):
    """Session storage could not be written; `str()` is the reason in plain words (path and cause)."""


def storage_error(what: str, path: Path, exc: OSError) -> StorageError:
    """A `StorageError` for `exc`, raised while doing `what` (e.g. "save the session history") on `path`."""
    cause = exc.strerror or str(exc)
    return StorageError(f"Could not {what} ({path}): {cause}.")


class SessionFile:
    """Appends one session's records (a `Journal` for its conversation); see the module docstring."""

    def __init__(self, path: Path, redact: Redactor) -> None:
        self.path = path
        self._redact = redact
        self._queued: list[bytes] = []
        self._good_size: int | None = None  # the file's size before a write that failed

    @property
    def pending(self) -> int:
        """How many records are queued because writing them failed."""
        return len(self._queued)

    def append(self, message: Message) -> None:
        """Persist one completed message. Raises `StorageError` (the record stays queued)."""
        self._write({"type": "message", "message": message.model_dump(mode="json")})

    def reset(self, messages: list[Message], reason: str) -> None:
        """Persist that the conversation was replaced by `messages`. Raises `StorageError` (queued)."""
        self._write({"type": "reset", "reason": reason, "messages": [m.model_dump(mode="json") for m in messages]})

    def flush(self) -> None:
        """Write the queued records, if any. Raises `StorageError` (they stay queued)."""
        if self._queued:
            self._write_queued()

    def _write(self, record: dict) -> None:
        line = self._redact(json.dumps(record, ensure_ascii=False, separators=(",", ":"))) + "\n"
        self._queued.append(line.encode("utf-8", errors="replace"))  # a lone surrogate must not lose it
        self._write_queued()

    def _write_queued(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise storage_error("save the session history", self.path, exc) from None
        size = None
        try:
            size = os.fstat(fd).st_size
            if self._good_size is not None and size > self._good_size:
                os.ftruncate(fd, self._good_size)  # the part of a record a failed write left
                size = self._good_size
            data = b"".join(self._queued)
            if size and os.pread(fd, 1, size - 1) != b"\n":
                # a server killed mid-write left a torn last line: end it, or the next record
                # would be glued to it and be lost with it on load
                data = b"\n" + data
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except OSError as exc:
            if size is not None:
                self._good_size = size
                with contextlib.suppress(OSError):  # cut the partial record now if the disk allows
                    os.ftruncate(fd, size)
            raise storage_error("save the session history", self.path, exc) from None
        finally:
            os.close(fd)
        self._queued.clear()
        self._good_size = None
