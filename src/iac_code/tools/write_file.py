"""`write_file`: create or overwrite a file with exactly the given text.

The content is written as UTF-8 with no newline translation, atomically (a temp file in the same
directory, then a rename), keeping an existing file's permission bits; parent directories are
created. The call carries a diff against the old content, also in the permission request.
The path is the one permissions checked, reached without following links (`tools.nofollow`);
when the client offers `fs.writeTextFile`, the text goes through the editor instead
(`tools.textio`), and the diff's old text is the editor's when it offers reads.
"""

from __future__ import annotations

import contextlib
import stat
from pathlib import Path

from pydantic import Field

from iac_code.core.events import DiffContent, Location
from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolPreview, ToolReplay, ToolResult
from iac_code.tools.client_interfaces import ClientError
from iac_code.tools.feedback import with_feedback
from iac_code.tools.files import (
    SNIFF_BYTES,
    PathArg,
    access_error,
    count_lines,
    decode_text,
    is_missing,
    printable,
    shown,
    sniff_binary,
    try_stat,
    unencodable,
)
from iac_code.tools.nofollow import ParentDir, PathChanged, changed_message
from iac_code.tools.textio import editor_text, write_text

MAX_DIFF_BYTES = 2 << 20
"""Old content larger than this is not put in the diff (a placeholder stands for it)."""


class WriteFileInput(ToolInput):
    path: PathArg = Field(description="The file to write, relative to the working directory or absolute. Missing parent directories are created.")
    content: str = Field(description="The complete new content of the file, written exactly as given (include the final newline if the file should end with one).")


class WriteFileTool(Tool[WriteFileInput]):
    """Create or overwrite a file; the call shows a diff against the previous content."""

    name = "write_file"
    description = (
        "Create a file, or replace an existing file's whole content, with exactly the text given. "
        "Parent directories are created. To change part of an existing file, prefer edit_file; read "
        "a file before overwriting it."
    )
    input_model = WriteFileInput
    kind = "edit"
    category = "write"

    def title(self, params: WriteFileInput | None) -> str:
        return "Write file" if params is None else f"Write {params.path}"

    def paths(self, params: WriteFileInput, ctx: ToolContext) -> list[Path]:
        return [ctx.resolve(params.path)]

    async def preview(self, params: WriteFileInput, ctx: ToolContext) -> ToolPreview:
        if error := unencodable(params.content, "content"):
            return ToolPreview(error=error)
        path = ctx.resolve(params.path)
        old = await _current_text(path, shown(path, ctx.cwd), ctx)
        if isinstance(old, _Problem):
            return ToolPreview(error=old.message)
        return ToolPreview(content=[DiffContent(str(path), params.content, old)], locations=[Location(str(path))])

    def replay(self, params: WriteFileInput, ctx: ToolContext, output: str) -> ToolReplay | None:
        """A file it created as a diff from nothing; an overwrite as its result text (the old content is not stored)."""
        if not output.startswith("Created "):
            return None
        return ToolReplay(content=[DiffContent(str(ctx.resolve(params.path)), params.content, None)])

    async def run(self, params: WriteFileInput, ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(params.path)
        name = shown(path, ctx.cwd)
        if error := unencodable(params.content, "content"):
            return ToolResult.error(error)
        old = await _current_text(path, name, ctx)
        if isinstance(old, _Problem):
            return ToolResult.error(old.message)
        data = params.content.encode("utf-8")
        if problem := await write_text(path, name, params.content, ctx):
            return ToolResult.error(problem)
        lines = count_lines(params.content)
        if old is None:
            summary = f"Created {name} ({lines:,} lines, {len(data):,} bytes)."
        else:
            summary = f"Wrote {name} ({lines:,} lines, {len(data):,} bytes), replacing its previous content."
        result = ToolResult(
            output=summary,
            content=[DiffContent(str(path), params.content, old)],
            locations=[Location(str(path))],
        )
        return await with_feedback(result, path, old, params.content, ctx)


class _Problem:
    """Why the file cannot be written (a message for the model)."""

    def __init__(self, message: str) -> None:
        self.message = message


async def _current_text(path: Path, name: str, ctx: ToolContext) -> str | None | _Problem:
    """The text `path` has now, for the diff: the editor's (unsaved changes included) when the
    client offers reads and the file exists, else the disk's; None if it does not exist."""
    old = _old_text(path, name, ctx.multi_linked(path))
    if isinstance(old, str) and not old.startswith("[previous content:"):
        with contextlib.suppress(ClientError, PathChanged):  # else the disk's copy makes a fair diff
            text = await editor_text(path, ctx)
            if text is not None:
                return printable(text)
    return old


def _old_text(path: Path, name: str, linked: bool) -> str | None | _Problem:
    """The current text of `path` on disk for the diff: None if it does not exist, or a `_Problem`."""
    st = try_stat(path)
    if is_missing(st):
        for parent in path.parents:
            parent_st = try_stat(parent)
            if is_missing(parent_st):
                continue
            if isinstance(parent_st, OSError):
                return _Problem(access_error(str(parent), parent_st))
            if not stat.S_ISDIR(parent_st.st_mode):
                return _Problem(f"Cannot create {name}: {parent} is a file, not a directory.")
            break
        return None
    if isinstance(st, OSError):
        return _Problem(access_error(name, st))
    if stat.S_ISDIR(st.st_mode):
        return _Problem(f"{name} is a directory; give a file path.")
    if not stat.S_ISREG(st.st_mode):
        return _Problem(f"{name} is not a regular file (a device, FIFO or socket); it cannot be written.")
    try:
        with ParentDir(path, linked=linked) as opened:
            data = opened.read_capped(MAX_DIFF_BYTES)
    except PathChanged as exc:
        return _Problem(changed_message(name, exc, "written"))
    except OSError as exc:
        return _Problem(f"Cannot read {name}: {exc.strerror or exc}.")
    if data is None:
        return f"[previous content: {st.st_size:,} bytes, too large to show]"
    kind = sniff_binary(data[:SNIFF_BYTES])
    if kind is not None:
        return f"[previous content: binary file ({kind}, {len(data):,} bytes)]"
    return printable(decode_text(data).text)
