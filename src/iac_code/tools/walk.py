"""Walking a directory tree the way `glob` and `grep` search it, and glob patterns.

The walk (`walk_files`):

- honours `.gitignore` files in the tree and in every directory above it, with git's precedence
  (a deeper file overrides a shallower one; within a file the last matching pattern wins). An
  ancestor's `.gitignore` that ignores the walk root itself is disregarded: the caller asked for
  that directory. This is what ripgrep does with `--no-require-git`.
- skips `.git`; includes hidden files;
- never follows directory symbolic links, so it stays in the tree and ends on link loops;
- visits a directory's entries in byte order of their names, depth first (ripgrep's `--sort path`).

Glob patterns (`glob_regex`): `*` and `?` stay within one path segment, `**` as a whole segment
spans any number of directories (also none), `[...]` is a character class, `{a,b}` alternatives.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    """The `.gitignore` files in force: (directory, patterns) from the outermost to the deepest."""

    def __init__(self) -> None:
        self._stack: list[tuple[Path, list[Any]]] = []

    def push(self, directory: Path) -> bool:
        """Add `directory`'s `.gitignore` if it has one; returns whether something was added."""
        patterns = _load(directory)
        if patterns:
            self._stack.append((directory, patterns))
        return bool(patterns)

    def push_ancestor(self, directory: Path, root: Path) -> None:
        """Add an ancestor's `.gitignore` unless it ignores `root` itself."""
        patterns = _load(directory)
        if patterns and not _decide(patterns, root.relative_to(directory).as_posix() + "/"):
            self._stack.append((directory, patterns))

    def pop(self) -> None:
        self._stack.pop()

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """Whether `path` (below every directory on the stack) is ignored."""
        for base, patterns in reversed(self._stack):
            decision = _decide(patterns, path.relative_to(base).as_posix() + ("/" if is_dir else ""))
            if decision is not None:
                return decision
        return False


def _load(directory: Path) -> list[Any]:
    """The patterns of `directory/.gitignore` (empty if it has none or it cannot be read)."""
    try:
        text = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    import pathspec  # deferred: costs ~80 ms to import

    return [p for p in pathspec.GitIgnoreSpec.from_lines(text.splitlines()).patterns if p.include is not None]


def _decide(patterns: list[Any], rel: str) -> bool | None:
    """True (ignored), False (re-included by `!`) or None (no pattern matches) for `rel`."""
    decision = None
    for pattern in patterns:
        if pattern.match_file(rel) is not None:
            decision = pattern.include
    return decision


def expand_braces(pattern: str) -> list[str]:
    """`a.{tf,tfvars}` -> `["a.tf", "a.tfvars"]` (nested braces allowed; unbalanced ones are literal)."""
    depth, start = 0, -1
    for i, c in enumerate(pattern):
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                head, body, tail = pattern[:start], pattern[start + 1 : i], pattern[i + 1 :]
                return [x for alt in _split_top(body) for x in expand_braces(head + alt + tail)]
    return [pattern]


def _split_top(body: str) -> list[str]:
    parts, depth, current = [], 0, []
    for c in body:
        if c == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += (c == "{") - (c == "}")
        current.append(c)
    parts.append("".join(current))
    return parts


def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob over '/'-separated relative paths (rules in the module docstring)."""
    return re.compile("|".join(f"(?:{_translate(p)})" for p in expand_braces(pattern)), re.DOTALL)


def _translate(pattern: str) -> str:
    segments = [s for s in pattern.split("/") if s not in ("", ".")]
    out = []
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if segment == "**":
            out.append(".*" if last else "(?:[^/]*/)*")
        else:
            out.append(_translate_segment(segment) + ("" if last else "/"))
    return "".join(out) + r"\Z"


def _translate_segment(segment: str) -> str:
    out, i = [], 0
    while i < len(segment):
        c = segment[i]
        if c == "*":
            while i + 1 < len(segment) and segment[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and (end := segment.find("]", i + 2)) != -1:
            body = segment[i + 1 : end]
            if body[0] in "!^":
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


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
