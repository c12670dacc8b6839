"""The project's files for `@path` completion: the files the agent's `glob` and `grep` see.

They are listed by ripgrep (`rg --files`, the binary of the `ripgrep` package this one depends
on, else `rg` on PATH) with the flags under which it lists exactly what the agent's search tools
walk (docs/DEVELOPING.md, "Which files the search tools see"; `tests/tools/test_walk.py` compares
the two): every `.gitignore` applies, `.git` is skipped, hidden files are listed, directory links
are not followed. Without ripgrep there is no listing (and no completion of paths).
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

MAX_FILES = 50_000
FILE_INDEX_TTL = 10.0  # seconds a listing is reused
RG_FILES = ("--files", "--hidden", "--no-require-git", "--no-ignore-global", "--no-ignore-exclude", "--no-ignore-dot", "--glob=!.git", "--null", "--no-messages")


def ripgrep() -> str | None:
    """The `rg` executable: the one installed beside this Python (the `ripgrep` package), else on PATH."""
    bundled = os.path.join(sysconfig.get_path("scripts"), "rg")
    if os.access(bundled, os.X_OK):
        return bundled
    return shutil.which("rg")


def list_project_files(root: Path, max_files: int = MAX_FILES) -> list[str]:
    """Relative paths (with `/`) of the files under `root` that the agent's search tools see, sorted;
    at most `max_files` of them. Empty when ripgrep is missing or fails to start."""
    rg = ripgrep()
    if rg is None:
        log.warning("ripgrep (rg) not found: no @ completion of paths")
        return []
    try:
        process = subprocess.Popen([rg, *RG_FILES], cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError as exc:
        log.warning("could not run %s: %s", rg, exc)
        return []
    files: list[str] = []
    assert process.stdout is not None
    with process:
        pending = b""
        while len(files) < max_files and (block := process.stdout.read(1 << 16)):
            *names, pending = (pending + block).split(b"\0")
            files.extend(os.fsdecode(name).replace(os.sep, "/") for name in names)
        if len(files) >= max_files:
            process.kill()
    return sorted(files[:max_files])


class ProjectFiles:
    """The project's files for `@` completion: `list()` answers at once with the last listing
    and, when it is older than `ttl` seconds (or `stale()` was called), lists them again in a
    thread; `on_first()` runs when the first listing arrives (the completion can then show)."""

    def __init__(self, root: Path, on_first: Callable[[], None], ttl: float = FILE_INDEX_TTL) -> None:
        self.root = root
        self.on_first = on_first
        self.ttl = ttl
        self._files: list[str] = []
        self._at = 0.0
        self._task: asyncio.Task[None] | None = None

    def list(self) -> list[str]:
        """The files known now (relative paths with `/`), refreshed in the background when old."""
        if self._task is None and time.monotonic() - self._at > self.ttl:
            self._task = asyncio.get_running_loop().create_task(self._index())
        return self._files

    def stale(self) -> None:
        """The files may have changed: list them again on the next `list()`."""
        self._at = 0.0

    async def _index(self) -> None:
        try:
            files = await asyncio.to_thread(list_project_files, self.root)
        except OSError:
            files = self._files
        finally:
            self._task = None
        first = not self._files
        self._files = files
        self._at = time.monotonic()
        if first:
            self.on_first()
