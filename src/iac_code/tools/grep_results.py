"""What a grep search found, kept within the output limits, and the text the model sees.

Both searches (ripgrep and the Python one) report in path order into one `Results`: at most
`limit` files or matching lines, each line clipped at `MAX_LINE_CHARS` characters, about
`MAX_OUTPUT_CHARS` in all; the rendering says how much was left out.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

OutputMode = Literal["files_with_matches", "content", "count"]

MAX_LINE_CHARS = 500
MAX_OUTPUT_CHARS = 50_000


class Results:
    """What a search found, kept within the output limits, with counts of what was left out.

    Searches report in path order: `add_file` (files and count modes) or `add_line` (content mode,
    matching and context lines of one file in line order).
    """

    def __init__(self, mode: OutputMode, limit: int, context: int) -> None:
        self.mode, self.limit, self.context = mode, limit, context
        self.files: list[tuple[Path, int]] = []
        self.lines: list[tuple[Path, int, bool, str]] = []
        self.total_files = self.total_matches = self.shown_matches = 0
        self._chars = 0
        self._full = False
        self._last_match: tuple[Path, int] | None = None  # the last shown match
        self._last_file: Path | None = None

    def add_file(self, path: Path, count: int) -> None:
        """A file with `count` matching lines (files_with_matches: count 1)."""
        self.total_files += 1
        self.total_matches += count
        if len(self.files) < self.limit and self._chars < MAX_OUTPUT_CHARS:
            self.files.append((path, count))
            self._chars += len(str(path)) + 8

    def add_line(self, path: Path, number: int, is_match: bool, text: str) -> None:
        """A matching or context line (`number` 1-based) of `path`."""
        if is_match:
            self.total_matches += 1
            if path != self._last_file:
                self.total_files += 1
                self._last_file = path
            if self._full:
                return
            self.shown_matches += 1
            self._last_match = (path, number)
            self._full = self.shown_matches >= self.limit or self._chars >= MAX_OUTPUT_CHARS
        elif self._full:
            last = self._last_match
            if last is None or path != last[0] or not last[1] < number <= last[1] + self.context:
                return
        text = text[:-1] if text.endswith("\r") else text
        if len(text) > MAX_LINE_CHARS:
            text = text[:MAX_LINE_CHARS] + " [... line clipped]"
        self.lines.append((path, number, is_match, text))
        self._chars += len(text) + len(str(path)) + 10

    def render(self, name_of: Callable[[Path], str], pattern: str, where: str) -> str:
        """The text the model sees; `name_of` turns a found path into its display name."""
        if self.total_files == 0:
            return f"No matches for `{pattern}` (searched {where})."
        if self.mode == "content":
            out = self._render_lines(name_of)
            left = self.total_matches - self.shown_matches
            if left:
                out.append(
                    f"[{left:,} more matching lines not shown ({self.total_matches:,} in {self.total_files:,} files "
                    "in all). Narrow the search (path, glob, pattern) or raise max_results.]"
                )
            return "\n".join(out)
        if self.mode == "count":
            out = [f"{name_of(p)}:{n}" for p, n in self.files]
            summary = f"[{self.total_matches:,} matching lines in {self.total_files:,} files"
        else:
            out = [name_of(p) for p, _ in self.files]
            summary = f"[{self.total_files:,} files match"
        left = self.total_files - len(self.files)
        if left:
            out.append(f"{summary}; {left:,} not shown. Narrow the search (path, glob, pattern) or raise max_results.]")
        elif self.mode == "count":
            out.append(summary + ".]")
        return "\n".join(out)

    def _render_lines(self, name_of: Callable[[Path], str]) -> list[str]:
        out: list[str] = []
        previous: tuple[Path, int] | None = None
        for path, number, is_match, text in self.lines:
            if previous is not None and (previous[0] != path or previous[1] + 1 != number) and self.context:
                out.append("--")
            out.append(f"{name_of(path)}{':' if is_match else '-'}{number}{':' if is_match else '-'}{text}")
            previous = (path, number)
        return out
