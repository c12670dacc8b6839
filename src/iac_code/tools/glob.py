"""`glob`: find files by path pattern, newest first.

The tree is walked by `walk.walk_files` (`.gitignore` honoured, `.git` skipped, directory links
never followed, so the walk stays in the tree and ends on link loops). At most 200 paths are
shown, the most recently modified first; the footer counts the rest.
"""

from __future__ import annotations

import heapq
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path

from pydantic import Field

from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolResult
from iac_code.tools.files import PathArg, in_thread, shown, stat_target
from iac_code.tools.walk import glob_regex, split_literal_prefix, walk_files

MAX_RESULTS = 200


class GlobInput(ToolInput):
    pattern: PathArg = Field(
        description=(
            "Glob pattern for paths relative to `path`, e.g. `**/*.tf`, `modules/*/variables.tf` or "
            "`**/*.{tf,tfvars}`. `*` and `?` match within one directory level, `**` any number of levels."
        )
    )
    path: PathArg | None = Field(
        default=None, description="Directory to search in. Defaults to the working directory."
    )


class GlobTool(Tool[GlobInput]):
    """Find files whose path matches a glob pattern, most recently modified first."""

    name = "glob"
    description = (
        "Find files by path pattern (glob), e.g. `**/*.tf` for every Terraform file. Returns paths, "
        f"most recently modified first, up to {MAX_RESULTS}. Files ignored by .gitignore and the "
        ".git directory are skipped. Use grep to search file contents."
    )
    input_model = GlobInput
    kind = "search"
    category = "read"

    def title(self, params: GlobInput | None) -> str:
        if params is None:
            return "Glob"
        return f"Glob {params.pattern}" + (f" in {params.path}" if params.path else "")

    def paths(self, params: GlobInput, ctx: ToolContext) -> list[Path]:
        return [self._target(params, ctx)[0]]

    @staticmethod
    def _target(params: GlobInput, ctx: ToolContext) -> tuple[Path, str]:
        """The directory to walk (the pattern's literal leading directories moved into it) and the rest."""
        prefix, rest = split_literal_prefix(params.pattern)
        base = params.path or "."
        return ctx.resolve(os.path.join(base, prefix) if prefix else base), rest

    async def run(self, params: GlobInput, ctx: ToolContext) -> ToolResult:
        root, pattern = self._target(params, ctx)
        found = stat_target(root, ctx.cwd, missing="Directory not found", not_dir="; give a directory as `path`")
        if isinstance(found, str):
            return ToolResult.error(found)
        name = found[0]
        try:
            regex = glob_regex(pattern)
        except re.error as exc:
            return ToolResult.error(f"Invalid glob pattern {params.pattern!r}: {exc}.")
        newest, total = await in_thread(_newest_matches, root, regex)
        if total == 0:
            return ToolResult(output=f"No files match {params.pattern} (searched {name}).")
        lines = [shown(path, ctx.cwd) for path in newest]
        if total > len(newest):
            lines.append(
                f"[Showing the {len(newest)} most recently modified of {total:,} matches. "
                "Narrow the pattern or path to see the others.]"
            )
        return ToolResult(output="\n".join(lines))


def _newest_matches(root: Path, regex: re.Pattern[str], stop: threading.Event) -> tuple[list[Path], int]:
    """The `MAX_RESULTS` most recently modified matching files (ties in walk order) and the total."""
    total = 0

    def matches() -> Iterator[tuple[float, Path]]:
        nonlocal total
        for entry in walk_files(root, include_links=True, stop=stop):
            if regex.match(entry.rel):
                try:
                    mtime = os.lstat(entry.path).st_mtime
                except OSError:
                    continue
                total += 1
                yield mtime, entry.path

    newest = heapq.nlargest(MAX_RESULTS, matches(), key=lambda m: m[0])
    return [path for _, path in newest], total
