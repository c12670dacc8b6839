"""`list_files`: one directory level, sorted, directories marked with `/`.

At most 1,000 entries are shown (the first by name, found without holding a huge directory's
listing in memory); the footer counts the rest. Symbolic links show their target, and broken
ones say so instead of failing the listing.
"""

from __future__ import annotations

import heapq
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from pydantic import Field

from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolResult
from iac_code.tools.files import PathArg, in_thread, stat_target

MAX_ENTRIES = 1_000


class ListFilesInput(ToolInput):
    path: PathArg | None = Field(
        default=None,
        description="The directory to list, relative to the working directory or absolute. Defaults to the working directory.",
    )


class ListFilesTool(Tool[ListFilesInput]):
    """List one directory level: names sorted, directories ending in `/`, links with their targets."""

    name = "list_files"
    description = (
        "List the entries of one directory (not recursive), sorted by name. Directories end with "
        "`/`; symbolic links show `-> target`. Shows up to 1,000 entries. Use glob to find files "
        "by pattern across subdirectories."
    )
    input_model = ListFilesInput
    kind = "read"
    category = "read"

    def title(self, params: ListFilesInput | None) -> str:
        if params is None:
            return "List files"
        path = params.path or "."
        return f"List {path if path.endswith('/') else path + '/'}"

    def paths(self, params: ListFilesInput, ctx: ToolContext) -> list[Path]:
        return [ctx.resolve(params.path)]

    async def run(self, params: ListFilesInput, ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(params.path)
        found = stat_target(path, ctx.cwd, missing="Directory not found", not_dir=". Use read_file to read it")
        if isinstance(found, str):
            return ToolResult.error(found)
        name = found[0]
        try:
            entries, total = await in_thread(_first_entries, path)
        except OSError as exc:
            return ToolResult.error(f"Cannot list {name}: {exc.strerror or exc}.")
        header = name if name.endswith("/") else name + "/"
        if total == 0:
            return ToolResult(output=f"{header} is empty.")
        lines = [f"{header} ({total:,} {'entry' if total == 1 else 'entries'})"] + [_describe(e) for e in entries]
        if total > len(entries):
            lines.append(f"[... and {total - len(entries):,} more entries not shown (the first {len(entries):,} by name are listed).]")
        return ToolResult(output="\n".join(lines))


def _first_entries(path: Path, stop: threading.Event) -> tuple[list[os.DirEntry[str]], int]:
    """The first `MAX_ENTRIES` entries of `path` by name, and how many there are in all."""
    total = 0

    def counted(it: Iterator[os.DirEntry[str]]) -> Iterator[os.DirEntry[str]]:
        nonlocal total
        for entry in it:
            if stop.is_set():
                return
            total += 1
            yield entry

    with os.scandir(path) as it:
        first = heapq.nsmallest(MAX_ENTRIES, counted(it), key=lambda e: e.name)
    return first, total


def _describe(entry: os.DirEntry[str]) -> str:
    """One listing line: `name`, `name/`, `name -> target` or a broken link."""
    if not entry.is_symlink():
        return entry.name + ("/" if entry.is_dir(follow_symlinks=False) else "")
    try:
        target = os.readlink(entry.path)
    except OSError:
        target = "?"
    if not os.path.exists(entry.path):
        return f"{entry.name} -> {target} (broken link: its target is missing or loops)"
    return f"{entry.name}{'/' if entry.is_dir() else ''} -> {target}"
