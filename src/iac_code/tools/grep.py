"""`grep`: search file contents with a regular expression.

ripgrep does the searching when its binary is available (the `ripgrep` package's, else `rg` on
PATH), run as an asyncio subprocess that is killed on cancel; otherwise a Python search walks
the same files (`walk.walk_files`) and gives the same results. Both:

- search files in path order; skip `.git`, files ignored by `.gitignore`, symbolic links and
  binary files (a NUL byte; an explicitly named binary file is refused);
- filter by `glob` in Python (a glob without `/` matches file names at any depth), so the glob
  only narrows the search and never brings back ignored files;
- leave out sensitive files (`.env`, keys, cloud credentials; `paths.is_sensitive`) unless the
  search root itself is one the user approved;
- show at most `max_results` files or matching lines (default 100), each line clipped at 500
  characters, about 50,000 characters in all, and say how much was left out (`grep_results`).
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import shutil
import stat
import sysconfig
import threading
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path

from pydantic import Field

from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolResult
from iac_code.tools.files import (
    SNIFF_BYTES,
    ArgvStr,
    PathArg,
    binary_message,
    in_thread,
    shown,
    sniff_binary,
    stat_target,
)
from iac_code.tools.grep_results import MAX_LINE_CHARS, OutputMode, Results
from iac_code.tools.paths import is_sensitive, multi_linked
from iac_code.tools.walk import glob_regex, walk_files

Accept = Callable[[Path], bool]
"""Whether a found file may be reported (see `_filter`)."""

DEFAULT_RESULTS = 100
MAX_RESULTS = 1_000
_RG_COLUMNS = MAX_LINE_CHARS * 4  # bytes ripgrep prints of a long line: at least MAX_LINE_CHARS characters
_RG_LINE_LIMIT = 8 << 20


class GrepInput(ToolInput):
    pattern: ArgvStr = Field(
        min_length=1,
        description="Regular expression to search for (ripgrep/Rust syntax, e.g. `resource \"aws_s3_bucket\"` or `module\\s+\"vpc\"`).",
    )
    path: PathArg | None = Field(
        default=None, description="File or directory to search. Defaults to the working directory."
    )
    glob: str | None = Field(
        default=None,
        description="Only search files matching this glob, e.g. `*.tf` or `*.{tf,tfvars}`. Without a `/` it matches file names at any depth; with one, paths relative to `path`.",
    )
    case_insensitive: bool = Field(default=False, description="Ignore case when matching.")
    output_mode: OutputMode = Field(
        default="files_with_matches",
        description="`files_with_matches` (default): the files that match; `content`: the matching lines as `path:line:text`; `count`: matching lines per file.",
    )
    context: int | None = Field(
        default=None, ge=0, le=20, description="Lines of context to show before and after each match (content mode only)."
    )
    max_results: int = Field(
        default=DEFAULT_RESULTS,
        ge=1,
        le=MAX_RESULTS,
        description="Most files (files_with_matches, count) or matching lines (content) to show.",
    )


class GrepTool(Tool[GrepInput]):
    """Search file contents with a regular expression (ripgrep, or an equivalent Python search)."""

    name = "grep"
    description = (
        "Search file contents with a regular expression (ripgrep syntax). By default lists the files "
        "that match; set output_mode to `content` for the matching lines (with `context` lines around "
        "them) or `count` for counts per file. Narrow the search with `path` and `glob` (e.g. `*.tf`). "
        "Files ignored by .gitignore, binary files and secrets files such as .env are skipped. Results "
        "are capped by max_results."
    )
    input_model = GrepInput
    kind = "search"
    category = "read"

    def title(self, params: GrepInput | None) -> str:
        if params is None:
            return "Grep"
        title = f"Grep `{params.pattern}`"
        if params.path:
            title += f" in {params.path}"
        return title + (f" ({params.glob})" if params.glob else "")

    def paths(self, params: GrepInput, ctx: ToolContext) -> list[Path]:
        return [ctx.resolve(params.path)]

    async def run(self, params: GrepInput, ctx: ToolContext) -> ToolResult:
        root = ctx.resolve(params.path)
        found = stat_target(root, ctx.cwd, missing="Path not found")
        if isinstance(found, str):
            return ToolResult.error(found)
        name, st = found
        single = stat.S_ISREG(st.st_mode)
        if single:
            try:
                with open(root, "rb") as f:
                    kind = sniff_binary(f.read(SNIFF_BYTES))
            except OSError as exc:
                return ToolResult.error(f"Cannot read {name}: {exc.strerror or exc}.")
            if kind is not None:
                return ToolResult.error(binary_message(name, kind, st.st_size))
        elif not stat.S_ISDIR(st.st_mode):
            return ToolResult.error(f"{name} is not a file or directory.")
        try:
            accept = _filter(root, params.glob, ctx.config_dir, single)
        except re.error as exc:
            return ToolResult.error(f"Invalid glob {params.glob!r}: {exc}.")
        results, error = await _search(root, params, accept)
        if error:
            return ToolResult.error(error)
        return ToolResult(output=results.render(lambda p: shown(p, ctx.cwd), params.pattern, name))


async def _search(root: Path, params: GrepInput, accept: Accept) -> tuple[Results, str | None]:
    """Search with ripgrep, or in Python when it is missing or cannot start."""
    rg = ripgrep_binary()
    if rg is not None:
        results = Results(params.output_mode, params.max_results, params.context or 0)
        try:
            return results, await _search_rg(rg, root, params, results, accept)
        except OSError:
            pass
    results = Results(params.output_mode, params.max_results, params.context or 0)
    return results, await in_thread(search_python, root, params, results, accept)


@functools.cache
def ripgrep_binary() -> str | None:
    """The `rg` executable: the one installed beside this Python (the `ripgrep` package), else on PATH."""
    bundled = os.path.join(sysconfig.get_path("scripts"), "rg")
    if os.access(bundled, os.X_OK):
        return bundled
    return shutil.which("rg")


def _filter(root: Path, glob: str | None, config_dir: Path, single: bool) -> Accept:
    """Which found files may be reported: matching `glob`, and not sensitive (unless `root` is);
    everything when `single` (`root` is a file, named explicitly).

    Raises `re.error` for a malformed glob."""
    regex = glob_regex(glob) if glob else None
    by_name = glob is not None and "/" not in glob
    check_sensitive = not is_sensitive(root, config_dir)

    def accept(path: Path) -> bool:
        if single:
            return True
        if check_sensitive and (is_sensitive(path, config_dir) or multi_linked(path)):
            return False  # a multi-linked file may be another name of a file outside
        if regex is None:
            return True
        return regex.match(path.name if by_name else path.relative_to(root).as_posix()) is not None

    return accept


# ----- ripgrep -----


async def _search_rg(rg: str, root: Path, params: GrepInput, results: Results, accept: Accept) -> str | None:
    """Run ripgrep and feed `results`; returns an error message, or None. Raises OSError if `rg` cannot start."""
    args = [
        "--no-config", "--color=never", "--no-messages", "--null", "--with-filename", "--line-number",
        "--no-heading", "--sort=path", "--hidden", "--no-require-git", "--no-ignore-global",
        "--no-ignore-exclude", "--no-ignore-dot", "--glob=!.git", f"--max-columns={_RG_COLUMNS}",
        "--max-columns-preview",
    ]  # fmt: skip
    if params.case_insensitive:
        args.append("--ignore-case")
    if params.output_mode == "files_with_matches":
        args.append("--files-with-matches")
    elif params.output_mode == "count":
        args.append("--count")
    elif params.context:
        args.append(f"--context={params.context}")
    args += ["--regexp", params.pattern, "--", str(root)]
    proc = await asyncio.create_subprocess_exec(
        rg, *args, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, limit=_RG_LINE_LIMIT,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    stderr = asyncio.create_task(_read_capped(proc.stderr, 8192))
    try:
        separator = b"\0" if params.output_mode == "files_with_matches" else b"\n"
        while record := await _read_record(proc.stdout, separator):
            _take_rg_record(record, params.output_mode, results, accept)
        code = await proc.wait()
        message = (await stderr).decode("utf-8", "replace").strip()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        stderr.cancel()
    if code == 2 and results.total_files == 0 and message:
        return f"grep failed: {message}"
    return None


async def _read_record(stream: asyncio.StreamReader, separator: bytes) -> bytes:
    try:
        return (await stream.readuntil(separator))[:-1]
    except asyncio.IncompleteReadError as exc:
        return exc.partial


async def _read_capped(stream: asyncio.StreamReader, limit: int) -> bytes:
    kept = b""
    while chunk := await stream.read(65536):
        kept = (kept + chunk)[:limit]
    return kept


def _take_rg_record(record: bytes, mode: OutputMode, results: Results, accept: Accept) -> None:
    if mode == "files_with_matches":
        path = Path(os.fsdecode(record))
        if accept(path):
            results.add_file(path, 1)
        return
    raw_path, sep, rest = record.partition(b"\0")
    if not sep:  # the `--` between context groups
        return
    path = Path(os.fsdecode(raw_path))
    if not accept(path):
        return
    if mode == "count":
        results.add_file(path, int(rest))
        return
    match = re.match(rb"(\d+)([:-])", rest)
    if match is None:
        return
    text = rest[match.end() :].decode("utf-8", "replace")
    results.add_line(path, int(match[1]), match[2] == b":", text)


# ----- the Python search -----


def search_python(root: Path, params: GrepInput, results: Results, accept: Accept, stop: threading.Event) -> str | None:
    """Search like `_search_rg`, in Python (`re` syntax); returns an error message, or None."""
    try:
        regex = re.compile(params.pattern, re.IGNORECASE if params.case_insensitive else 0)
    except re.error as exc:
        return f"grep failed: invalid regular expression: {exc}"
    files: Iterable[Path]
    if os.path.isfile(root):
        files = [root]
    else:
        files = (e.path for e in walk_files(root, include_links=False, stop=stop))
    context = (params.context or 0) if params.output_mode == "content" else 0
    for path in files:
        if stop.is_set():
            break
        if not accept(path):
            continue
        try:
            _search_file(path, regex, params.output_mode, context, results, explicit=path == root)
        except OSError:
            continue
    return None


def _search_file(path: Path, regex: re.Pattern[str], mode: OutputMode, context: int, results: Results, explicit: bool) -> None:
    """Search one file; a NUL byte before the end of what must be read marks it binary (skipped)."""
    hits: list[tuple[int, bool, str]] = []
    matches = 0
    before: deque[tuple[int, str]] = deque(maxlen=context)
    after = 0
    with open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            if b"\0" in raw and not explicit:
                return
            text = raw.rstrip(b"\n").decode("utf-8", "replace")
            if regex.search(text):
                matches += 1
                if mode == "files_with_matches":
                    break
                if mode == "content":
                    hits.extend((n, False, t) for n, t in before)
                    before.clear()
                    hits.append((number, True, text))
                    after = context
            elif after:
                hits.append((number, False, text))
                after -= 1
            elif context:
                before.append((number, text))
    if not matches:
        return
    if mode == "content":
        for number, is_match, text in hits:
            results.add_line(path, number, is_match, text)
    else:
        results.add_file(path, matches)
