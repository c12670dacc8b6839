"""Walking a directory tree the way `glob` and `grep` search it, and glob patterns.

The walk (`walk_files`) sees the files that `rg --files --hidden --no-require-git
--no-ignore-global --no-ignore-exclude --no-ignore-dot --glob=!.git` lists (tests/tools/test_walk.py
compares the two):

- every `.gitignore` in the tree and in each directory above it applies to its own directory
  and below, with git's precedence (a deeper file overrides a shallower one; within a file the
  last matching pattern wins, `!` re-includes). Each file is read with `pathspec`'s
  `GitIgnoreSpec`, git's own pattern syntax. An ancestor's `.gitignore` that ignores the walk
  root itself is disregarded: the caller asked for that directory. `.git/info/exclude`, the
  global excludes file and `.ignore`/`.rgignore` files are not read;
- `.git` is skipped; hidden files are included (nothing else is skipped by name);
- directory symbolic links are never followed, so the walk stays in the tree and ends on link
  loops;
- a directory's entries are visited in byte order of their names, depth first (ripgrep's
  `--sort path`).

Glob patterns (`glob_regex`) are `wcmatch` globs: `*` and `?` stay within one path segment and
match leading dots too, `**` as a whole segment spans any number of directories (also none),
`[...]`/`[!...]` are character classes, `{a,b}` alternatives (nested, `bracex`'s expansion).
Empty and `.` segments are dropped, so `./x/*.tf` and `x//*.tf` mean `x/*.tf`.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

GLOB_CHARS = frozenset("*?[{")


@dataclass(slots=True)
class WalkEntry:
    """A file found by `walk_files`: its path as reached (not resolved) and relative to the root."""

    path: Path
    rel: str


def walk_files(root: Path, *, include_links: bool, stop: threading.Event) -> Iterator[WalkEntry]:
    """Yield the files below the directory `root` (see the module docstring for the rules).

    With `include_links`, symbolic links that do not point to a directory (links to files,
    dangling links) are yielded too; otherwise every link is skipped.
    Unreadable directories are skipped. Stops early once `stop` is set.
    """
    rules = _Rules()
    for parent in reversed(root.parents):
        rules.push_ancestor(parent, root)
    yield from _walk(root, "", rules, include_links, stop)


def _walk(directory: Path, prefix: str, rules: _Rules, include_links: bool, stop: threading.Event) -> Iterator[WalkEntry]:
    if stop.is_set():
        return
    try:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: os.fsencode(e.name))
    except OSError:
        return
    pushed = rules.push(directory)
    try:
        for entry in entries:
            if entry.name == ".git":
                continue
            path = directory / entry.name
            if entry.is_symlink():
                if include_links and not _points_to_dir(entry) and not rules.ignored(path, False):
                    yield WalkEntry(path, prefix + entry.name)
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if rules.ignored(path, is_dir):
                continue
            if is_dir:
                yield from _walk(path, f"{prefix}{entry.name}/", rules, include_links, stop)
            else:
                yield WalkEntry(path, prefix + entry.name)
    finally:
        if pushed:
            rules.pop()


def _points_to_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a link loop
        return False


class _Rules:
    """The `.gitignore` files in force: (directory, spec) from the outermost to the deepest."""

    def __init__(self) -> None:
        self._stack: list[tuple[Path, GitIgnoreSpec]] = []

    def push(self, directory: Path) -> bool:
        """Add `directory`'s `.gitignore` if it has one; returns whether something was added."""
        spec = _load(directory)
        if spec is not None:
            self._stack.append((directory, spec))
        return spec is not None

    def push_ancestor(self, directory: Path, root: Path) -> None:
        """Add an ancestor's `.gitignore` unless it ignores `root` itself."""
        spec = _load(directory)
        if spec is not None and not spec.check_file(root.relative_to(directory).as_posix() + "/").include:
            self._stack.append((directory, spec))

    def pop(self) -> None:
        self._stack.pop()

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """Whether `path` (below every directory on the stack) is ignored: the deepest `.gitignore`
        with a matching pattern decides (its last match: ignored, or re-included by `!`)."""
        for base, spec in reversed(self._stack):
            decision = spec.check_file(path.relative_to(base).as_posix() + ("/" if is_dir else "")).include
            if decision is not None:
                return decision
        return False


def _load(directory: Path) -> GitIgnoreSpec | None:
    """`directory/.gitignore` as a spec; None if it has no pattern or cannot be read."""
    try:
        text = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    import pathspec  # deferred: costs ~80 ms to import

    spec = pathspec.GitIgnoreSpec.from_lines(text.splitlines())
    return spec if any(p.include is not None for p in spec.patterns) else None


def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob over '/'-separated relative paths (rules in the module docstring) into a
    regular expression that matches a whole path.

    Raises `re.error` when the pattern expands to more than 1,000 alternatives.
    """
    from wcmatch import glob as wcglob  # deferred: only a search with a glob needs it

    relative = "/".join(s for s in pattern.split("/") if s not in ("", ".")) or "."
    try:
        include, _ = wcglob.translate(relative, flags=wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTGLOB)
    except Exception as exc:  # past 1,000 alternatives: wcmatch's PatternLimitException, not exported
        raise re.error(str(exc)) from None
    return re.compile("|".join(include))


def split_literal_prefix(pattern: str) -> tuple[str, str]:
    """Split off the leading directories that hold no glob characters: `modules/vpc/*.tf` ->
    (`modules/vpc`, `*.tf`). The last segment always stays in the pattern."""
    segments = pattern.split("/")
    n = 0
    while n < len(segments) - 1 and not (GLOB_CHARS & set(segments[n])):
        n += 1
    prefix = "/".join(segments[:n])
    if pattern.startswith("/") and not prefix:
        prefix = "/"
    return prefix, "/".join(segments[n:])
