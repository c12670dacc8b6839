"""`edit_file`: replace an exact piece of text in a file.

Matching works on the text as `read_file` shows it (`files.decode_text`): a UTF-8 BOM is set
aside and kept, and CRLF line endings are matched by "\\n", so an `old_string` copied from
`read_file` matches whatever the file's line endings. Lines outside the replaced text keep their
endings byte for byte; the replacement's line breaks take the ending of the text it replaces (the
file's majority ending when that text has no line break or mixed ones). Undecodable bytes are
kept as they are, but cannot be matched.

The call carries a diff (also computed by `preview`, so no permission is asked for an edit that
cannot apply) and the first changed line as its location. The file is read and written as
`tools.textio` says: through the editor when the client offers it (its unsaved text is what is
matched), else on disk at exactly the checked path (`tools.nofollow`).
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from iac_code.core.events import DiffContent, Location
from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolPreview, ToolReplay, ToolResult
from iac_code.tools.client_interfaces import ClientError
from iac_code.tools.feedback import with_feedback
from iac_code.tools.files import (
    SNIFF_BYTES,
    PathArg,
    TextFile,
    binary_message,
    decode_text,
    is_missing,
    printable,
    regular_file_error,
    shown,
    sniff_binary,
    try_stat,
    unencodable,
)
from iac_code.tools.nofollow import ParentDir, PathChanged, changed_message
from iac_code.tools.textio import editor_text, write_text

MAX_EDIT_BYTES = 16 << 20
SNIPPET_CONTEXT = 3
MAX_SNIPPET_LINES = 40
MAX_LISTED_LINES = 20


class EditFileInput(ToolInput):
    path: PathArg = Field(description="The file to edit, relative to the working directory or absolute.")
    old_string: str = Field(
        min_length=1,
        description=(
            "The exact text to replace, copied from read_file's output without the line-number "
            "prefixes; indentation and whitespace must match. Include enough surrounding lines to "
            "make it unique in the file."
        ),
    )
    new_string: str = Field(description="The text to put in its place (must differ from old_string; may be empty to delete).")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence of old_string instead of requiring exactly one."
    )


class EditFileTool(Tool[EditFileInput]):
    """Replace exact text in a file (one occurrence, or all with `replace_all`)."""

    name = "edit_file"
    description = (
        "Edit a file by replacing an exact piece of text (old_string) with new text (new_string). "
        "old_string must occur exactly once unless replace_all is set; copy it from read_file's "
        "output (without the line numbers), with enough context to be unique. Line endings and a "
        "byte-order mark are preserved. Read the file first. To create a file, use write_file."
    )
    input_model = EditFileInput
    kind = "edit"
    category = "write"

    def title(self, params: EditFileInput | None) -> str:
        return "Edit file" if params is None else f"Edit {params.path}"

    def paths(self, params: EditFileInput, ctx: ToolContext) -> list[Path]:
        return [ctx.resolve(params.path)]

    async def preview(self, params: EditFileInput, ctx: ToolContext) -> ToolPreview:
        path = ctx.resolve(params.path)
        edit = await _prepare(path, ctx, params)
        if isinstance(edit, str):
            return ToolPreview(error=edit)
        return ToolPreview(content=[edit.diff(path)], locations=[Location(str(path), edit.first_line)])

    def replay(self, params: EditFileInput, ctx: ToolContext, output: str) -> ToolReplay:
        """The edit as a diff of the replaced text (the whole file of then is not stored)."""
        return ToolReplay(content=[DiffContent(str(ctx.resolve(params.path)), printable(params.new_string), printable(params.old_string))])

    async def run(self, params: EditFileInput, ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(params.path)
        name = shown(path, ctx.cwd)
        edit = await _prepare(path, ctx, params)
        if isinstance(edit, str):
            return ToolResult.error(edit)
        if problem := await write_text(path, name, edit.data.decode("utf-8", "surrogateescape"), ctx, edit.data):
            return ToolResult.error(problem)
        result = ToolResult(
            output=edit.summary(name),
            content=[edit.diff(path)],
            locations=[Location(str(path), edit.first_line)],
        )
        return await with_feedback(result, path, edit.old_text, edit.new_text, ctx)


@dataclass(slots=True)
class Edit:
    """A computed edit: the new bytes, the LF-normalised texts for the diff, where it changed."""

    data: bytes
    old_text: str
    new_text: str
    first_line: int
    match_lines: list[int]
    new_lines: int  # lines spanned by the first replacement in the new text

    def diff(self, path: Path) -> DiffContent:
        """The diff as the client shows it (undecodable bytes as U+FFFD)."""
        return DiffContent(str(path), printable(self.new_text), printable(self.old_text))

    def summary(self, name: str) -> str:
        """What the model is told: replacements made and the edited region as it now reads."""
        count = len(self.match_lines)
        if count == 1:
            head = f"Edited {name}: replaced 1 occurrence at line {self.match_lines[0]}."
        else:
            head = f"Edited {name}: replaced {count} occurrences (at lines {_list_lines(self.match_lines)})."
        lines = printable(self.new_text).split("\n")
        first = max(1, self.match_lines[0] - SNIPPET_CONTEXT)
        last = min(len(lines), self.match_lines[0] + self.new_lines - 1 + SNIPPET_CONTEXT, first + MAX_SNIPPET_LINES - 1)
        snippet = [f"{n:>6}\t{lines[n - 1][:2000]}" for n in range(first, last + 1)]
        return head + "\nThe edited region now reads:\n" + "\n".join(snippet)


def apply_edit(file: TextFile, old: str, new: str, replace_all: bool) -> Edit | str:
    """Replace `old` by `new` in `file` (rules in the module docstring); an error message if it
    does not apply: not found, several matches without `replace_all`, or nothing would change."""
    text = file.text
    crlf_positions = [m.start() for m in re.finditer("\r\n", text)]
    crlf_at = [pos - i for i, pos in enumerate(crlf_positions)]  # as indices into `norm`
    norm = text.replace("\r\n", "\n") if crlf_positions else text
    old_n, new_n = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    if old_n == new_n:
        return "old_string and new_string are the same; nothing to change."
    starts = []
    pos = norm.find(old_n)
    while pos != -1:
        starts.append(pos)
        pos = norm.find(old_n, pos + len(old_n))
    if not starts:
        return _not_found(old_n, file)
    lines = _line_numbers(norm, starts)
    if len(starts) > 1 and not replace_all:
        return (
            f"old_string occurs {len(starts)} times (at lines {_list_lines(lines)}). Add surrounding "
            "context to make it unique, or set replace_all to replace every occurrence."
        )

    def original(i: int) -> int:
        return i + bisect.bisect_left(crlf_at, i)

    majority_crlf = len(crlf_positions) > norm.count("\n") - len(crlf_positions)
    out, done = [], 0
    for s in starts:
        begin, end = original(s), original(s + len(old_n))
        replaced = text[begin:end]
        crlf = replaced.count("\r\n")
        lf = replaced.count("\n") - crlf
        use_crlf = majority_crlf if (crlf > 0) == (lf > 0) else crlf > 0
        out += [text[done:begin], new_n.replace("\n", "\r\n") if use_crlf else new_n]
        done = end
    out.append(text[done:])
    new_text = "".join(out)
    prefix = len(os.path.commonprefix([old_n, new_n]))
    first_line = norm.count("\n", 0, starts[0] + prefix) + 1
    return Edit(
        data=file.encode(new_text),
        old_text=norm,
        new_text=new_text.replace("\r\n", "\n"),
        first_line=first_line,
        match_lines=lines,
        new_lines=new_n.count("\n") + 1,
    )


async def _prepare(path: Path, ctx: ToolContext, params: EditFileInput) -> Edit | str:
    """Read `path` (the editor's text when the client offers reads, else the disk's) and compute
    the edit; an error message for the model if it cannot apply."""
    name = shown(path, ctx.cwd)
    if error := unencodable(params.new_string, "new_string"):
        return error
    problem = regular_file_error(ctx.cwd, params.path, path)
    if problem:
        return problem + (" To create a file, use write_file." if is_missing(try_stat(path)) else "")
    try:
        with ParentDir(path, linked=ctx.multi_linked(path)) as parent:
            data = parent.read_capped(MAX_EDIT_BYTES)
    except PathChanged as exc:
        return changed_message(name, exc, "edited")
    except OSError as exc:
        return f"Cannot read {name}: {exc.strerror or exc}."
    if data is None:
        return f"{name} is larger than {MAX_EDIT_BYTES >> 20} MiB; edit it with bash (e.g. sed) instead."
    kind = sniff_binary(data[:SNIFF_BYTES])
    if kind is not None:
        return binary_message(name, kind, len(data))
    file = decode_text(data)
    try:
        text = await editor_text(path, ctx)
    except PathChanged as exc:
        return changed_message(name, exc, "edited")
    except ClientError as exc:
        return f"The editor could not provide {name}: {exc}. Nothing was changed; open the file in the editor or retry."
    if text is not None:  # the editor's buffer, unsaved changes included
        file = TextFile(text, bom=False, valid_utf8=True)
    edit = apply_edit(file, params.old_string, params.new_string, params.replace_all)
    return f"Cannot edit {name}: {edit}" if isinstance(edit, str) else edit


def _line_numbers(text: str, starts: list[int]) -> list[int]:
    numbers, line, pos = [], 1, 0
    for s in starts:
        line += text.count("\n", pos, s)
        pos = s
        numbers.append(line)
    return numbers


def _list_lines(lines: list[int]) -> str:
    listed = ", ".join(str(n) for n in lines[:MAX_LISTED_LINES])
    return listed + (f" and {len(lines) - MAX_LISTED_LINES} more" if len(lines) > MAX_LISTED_LINES else "")


def _not_found(old: str, file: TextFile) -> str:
    message = "old_string was not found."
    if re.match(r"\s*\d+\t", old):
        message += " It seems to start with read_file's line-number prefix: leave the prefixes out."
    elif "\ufffd" in old and not file.valid_utf8:
        message += (
            " The file has bytes that are not valid UTF-8 (read_file shows them as U+FFFD) and they "
            "cannot be matched: pick an old_string that avoids them, or rewrite the file with write_file."
        )
    else:
        message += " Read the file again and copy the text exactly, including whitespace and indentation."
    return message
