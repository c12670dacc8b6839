"""Sessions on disk: an append-only JSONL history and a small metadata file per session.

Layout under `<config dir>/sessions/` (appending, and what happens when a write fails, is
`sessions/journal.py`)::

    <session id>.jsonl   one record per line, appended as each message completes:
                         {"type": "message", "message": {...}}
                         {"type": "reset", "reason": "compaction|clear", "messages": [...]}
    <session id>.json    metadata (cwd, title, times, model, mode), replaced atomically

A history is the messages after the last `reset` record; a torn last line is skipped on load.
Listing reads only the metadata files. A write that fails raises `StorageError`, whose text says
what failed in plain words. Known secret values are
replaced by `[REDACTED]` before anything is written.

A session is live in at most one process (PROTOCOL.md, Storage): whoever runs it holds a
`SessionClaim`, an advisory lock (`flock`) on its history file, released when the session closes
or the process ends, however it ends.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import logging
import os
import re
import shutil
import tempfile
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError, field_validator

from iac_code.core.conversation import Message, repair
from iac_code.redact import Redactor
from iac_code.session_store.journal import SessionFile, storage_error

log = logging.getLogger(__name__)

_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TITLE_CHARS = 80


def now() -> datetime:
    """The current time in UTC."""
    return datetime.now(UTC)


class SessionMeta(BaseModel):
    """What is known about a session without reading its history."""

    session_id: str
    cwd: str
    title: str | None = None
    created_at: datetime = Field(default_factory=now)
    updated_at: datetime = Field(default_factory=now)
    parent_id: str | None = None
    model: str | None = None
    mode: str | None = None
    thought_level: str | None = None

    @field_validator("created_at", "updated_at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        """A time without a timezone (a hand-written file) is taken as UTC, so all times compare."""
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value


class _MessageRecord(BaseModel):
    type: Literal["message"]
    message: Message


class _ResetRecord(BaseModel):
    type: Literal["reset"]
    reason: str
    messages: list[Message]


_RECORD = TypeAdapter(Annotated[_MessageRecord | _ResetRecord, Field(discriminator="type")])


def title_from(text: str) -> str | None:
    """A session title from the first user text: its first non-empty line, at most 80 characters."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"
    return None


def new_session_id() -> str:
    """A fresh random session id (32 hex digits)."""
    return uuid.uuid4().hex


@dataclass(slots=True)
class SessionPage:
    """One page of `SessionStore.list`; `next_cursor` is None on the last page."""

    sessions: list[SessionMeta]
    next_cursor: str | None


class SessionNotFound(LookupError):
    """No session with that id exists on disk (or the id is malformed)."""


class SessionInUse(RuntimeError):
    """The session is live elsewhere: another iac-code process (or connection) holds its claim."""


class SessionClaim:
    """The right to run one session: an exclusive `flock` on its history file until `release()`.

    The descriptor is not inherited by child processes (Python's default), so a command left
    running by a tool cannot keep a session locked after the server is gone.
    """

    def __init__(self, session_id: str, fd: int) -> None:
        self.session_id = session_id
        self._fd: int | None = fd

    def release(self) -> None:
        """Give the session up (closing the descriptor drops the lock); a second call does nothing."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


class SessionStore:
    """All sessions under one directory."""

    def __init__(self, root: Path, secrets: list[str] | None = None) -> None:
        self.root = root
        self._redact = Redactor(secrets or [])
        self._meta_cache: dict[str, tuple[tuple[int, int, int], SessionMeta]] = {}

    # ----- paths -----

    def _history(self, session_id: str) -> Path:
        return self.root / f"{session_id}.jsonl"

    def _meta(self, session_id: str) -> Path:
        return self.root / f"{session_id}.json"

    def exists(self, session_id: str) -> bool:
        """Whether `session_id` is well-formed and has metadata on disk."""
        return bool(_ID.match(session_id)) and self._meta(session_id).is_file()

    def claim(self, session_id: str) -> SessionClaim:
        """Lock `session_id` for this process. Raises `SessionInUse`, or `SessionNotFound` for a bad id."""
        if not _ID.match(session_id):
            raise SessionNotFound(session_id)
        path = self._history(session_id)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:  # a session without history yet
            try:
                self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
                fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError as exc:
                raise storage_error("create the session history", path, exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise SessionInUse(session_id) from None
        except BaseException:
            os.close(fd)
            raise
        return SessionClaim(session_id, fd)

    # ----- writing -----

    def create(self, meta: SessionMeta) -> SessionFile:
        """Start a new, empty session on disk. Raises `StorageError`."""
        path = self._history(meta.session_id)
        try:
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
            path.touch(mode=0o600)
        except OSError as exc:
            raise storage_error("create the session", path, exc) from None
        self.write_meta(meta)
        return self.journal(meta.session_id)

    def journal(self, session_id: str) -> SessionFile:
        """The appender of an existing session's history."""
        return SessionFile(self._history(session_id), self._redact)

    def write_meta(self, meta: SessionMeta) -> None:
        """Replace a session's metadata atomically. Raises `StorageError` (the old file stays)."""
        path = self._meta(meta.session_id)
        data = self._redact(meta.model_dump_json()).encode("utf-8")
        try:
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".meta-", suffix=".tmp")
        except OSError as exc:
            raise storage_error("save the session's metadata", path, exc) from None
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException as exc:
            Path(tmp).unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise storage_error("save the session's metadata", path, exc) from None
            raise

    def fork(self, session_id: str, meta: SessionMeta) -> SessionFile:
        """Copy `session_id`'s history into the new session described by `meta`."""
        if not self.exists(session_id):
            raise SessionNotFound(session_id)
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        src = self._history(session_id)
        dst = self._history(meta.session_id)
        try:
            if src.exists():
                shutil.copyfile(src, dst)
                os.chmod(dst, 0o600)
            else:
                dst.touch(mode=0o600)
        except OSError as exc:
            raise storage_error("copy the session history", dst, exc) from None
        self.write_meta(meta)
        return self.journal(meta.session_id)

    # ----- reading -----

    def read_meta(self, session_id: str) -> SessionMeta:
        """A session's metadata. Raises `SessionNotFound`."""
        if not _ID.match(session_id):
            raise SessionNotFound(session_id)
        try:
            return SessionMeta.model_validate_json(self._meta(session_id).read_bytes())
        except (OSError, ValidationError) as exc:
            raise SessionNotFound(session_id) from exc

    def load(self, session_id: str) -> tuple[SessionMeta, list[Message]]:
        """A session's metadata and history, repaired (dangling tool uses answered). Raises `SessionNotFound`."""
        meta = self.read_meta(session_id)
        messages: list[Message] = []
        try:
            f = open(self._history(session_id), "rb")  # noqa: SIM115
        except FileNotFoundError:
            return meta, []
        with f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    record = _RECORD.validate_json(line)
                except ValidationError as exc:
                    log.warning("session %s line %d is unreadable, skipped: %s", session_id, number, exc.errors()[0]["msg"])
                    continue
                if isinstance(record, _MessageRecord):
                    messages.append(record.message)
                else:
                    messages = list(record.messages)
        return meta, repair(messages)

    def list(self, cwd: str | None = None, cursor: str | None = None, limit: int = 50) -> SessionPage:
        """Sessions of `cwd` (all when None), newest first, `limit` per page after `cursor`."""
        metas: list[SessionMeta] = []
        try:
            entries = list(os.scandir(self.root))
        except FileNotFoundError:
            entries = []
        for entry in entries:
            if not entry.name.endswith(".json") or entry.name.startswith("."):
                continue
            meta = self._cached_meta(entry)
            if meta is not None and (cwd is None or meta.cwd == cwd):
                metas.append(meta)
        metas.sort(key=lambda m: (m.updated_at, m.session_id), reverse=True)
        start = 0
        if cursor:
            after = _decode_cursor(cursor)
            start = next(
                (i for i, m in enumerate(metas) if (m.updated_at, m.session_id) < after), len(metas)
            )
        page = metas[start : start + limit]
        more = start + limit < len(metas)
        next_cursor = _encode_cursor(page[-1]) if more and page else None
        return SessionPage(page, next_cursor)

    def _cached_meta(self, entry: os.DirEntry[str]) -> SessionMeta | None:
        """A metadata file's content, parsed again only when its file, mtime or size changed.

        The inode is part of the key because each write replaces the file: two writes within one
        tick of a coarse file system clock can leave mtime and size unchanged.
        """
        try:
            stat = entry.stat()
            key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
            cached = self._meta_cache.get(entry.name)
            if cached is not None and cached[0] == key:
                return cached[1]
            meta = SessionMeta.model_validate_json(Path(entry.path).read_bytes())
        except (OSError, ValidationError):
            return None
        self._meta_cache[entry.name] = (key, meta)
        return meta


def _encode_cursor(meta: SessionMeta) -> str:
    raw = json.dumps([meta.updated_at.isoformat(), meta.session_id])
    return base64.urlsafe_b64encode(raw.encode()).decode()


class InvalidCursor(ValueError):
    """A `session/list` cursor this store did not produce."""


def _decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        updated, session_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        after = datetime.fromisoformat(updated)
    except (ValueError, TypeError) as exc:
        raise InvalidCursor(cursor) from exc
    if after.tzinfo is None:  # not one of ours, and not comparable with the sessions' times
        raise InvalidCursor(cursor)
    return after, str(session_id)
