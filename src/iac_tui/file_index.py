"""The project's files for `@path` completion, honouring `.gitignore` files (via pathspec)."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path

import pathspec

ALWAYS_SKIP = {".git", ".hg", ".svn", "__pycache__", ".terraform", "node_modules", ".venv", ".mypy_cache", ".pytest_cache"}
MAX_FILES = 50_000
FILE_INDEX_TTL = 10.0  # seconds a listing is reused


def _load_ignore(directory: Path) -> pathspec.PathSpec | None:
    try:
        lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def list_project_files(root: Path, max_files: int = MAX_FILES) -> list[str]:
    """Relative paths (with `/`) of the files under `root` that no `.gitignore` excludes, sorted.

    Every `.gitignore` applies to its own directory and below, as git does. Version-control and
    cache directories are always skipped.
    """
    root = Path(root)
    specs: list[tuple[str, pathspec.PathSpec]] = []  # (relative dir prefix, spec)
    files: list[str] = []

    def ignored(rel: str, is_dir: bool) -> bool:
        for prefix, spec in specs:
            if prefix and not rel.startswith(prefix):
                continue
            sub = rel[len(prefix) :]
            if spec.match_file(sub + "/" if is_dir else sub):
                return True
        return False

    for current, dirs, names in os.walk(root):
        rel_dir = os.path.relpath(current, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        spec = _load_ignore(Path(current))
        if spec is not None:
            specs.append((rel_dir, spec))
        dirs[:] = sorted(d for d in dirs if d not in ALWAYS_SKIP and not ignored(rel_dir + d, True))
        for name in sorted(names):
            rel = rel_dir + name
            if not ignored(rel, False):
                files.append(rel)
                if len(files) >= max_files:
                    return sorted(files)
    return sorted(files)


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
