"""`read_file`: show a text file's lines, numbered like `cat -n`.

Limits: 2,000 lines per call, each line clipped at 2,000 characters, about 100,000 characters of
output; a footer says which lines were shown and where to continue. Files of any size are read in
64 KiB chunks, so memory stays bounded (a 200 MB single-line file costs no more than a short one).
The file is opened at exactly the checked path (`tools.nofollow`); when the client offers
`fs.readTextFile`, a text file's lines come from the editor (unsaved changes included), the disk's
copy standing in, with a note, if the editor cannot serve it. Binary files are refused either way.
"""

from __future__ import annotations

import asyncio
import codecs
import io
import os
import threading
from pathlib import Path
from typing import BinaryIO

from pydantic import Field

from iac_code.core.events import Location
from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolResult
from iac_code.tools.client_interfaces import ClientError
from iac_code.tools.files import (
    BOM,
    SNIFF_BYTES,
    PathArg,
    binary_message,
    in_thread,
    regular_file_error,
    shown,
    sniff_binary,
)
from iac_code.tools.nofollow import ParentDir, PathChanged, changed_message
from iac_code.tools.textio import editor_text

WHOLE_TEXT_BYTES = 4 << 20
"""A file larger than this on disk is asked of the editor only in the lines shown (`line`/`limit`);
a smaller one whole, so the footer can give its line count as for the disk."""
MAX_LINES = 2_000
MAX_LINE_CHARS = 2_000
MAX_OUTPUT_CHARS = 100_000
CHUNK = 1 << 16
_KEEP_BYTES = MAX_LINE_CHARS * 4  # enough bytes for MAX_LINE_CHARS characters of any UTF-8 text
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))


class ReadFileInput(ToolInput):
    path: PathArg = Field(description="The file to read, relative to the working directory or absolute.")
    start_line: int | None = Field(
        default=None, ge=1, description="First line to show (1-based). Defaults to 1."
    )
    end_line: int | None = Field(
        default=None,
        ge=1,
        description=f"Last line to show (inclusive). Defaults to {MAX_LINES:,} lines after start_line.",
    )


class ReadFileTool(Tool[ReadFileInput]):
    """Read a text file as numbered lines; binary files are refused with a one-line description."""

    name = "read_file"
    description = (
        "Read a text file. Lines are numbered like `cat -n` (line number, a tab, then the line); "
        "the numbers are not part of the file, so leave them out when you quote text to edit_file. "
        f"Shows up to {MAX_LINES:,} lines per call, starting at start_line; lines longer than "
        f"{MAX_LINE_CHARS:,} characters are clipped. When there is more, a footer gives the next "
        "start_line. Binary files (images, archives, executables) are refused. Read a file before "
        "editing it."
    )
    input_model = ReadFileInput
    kind = "read"
    category = "read"

    def title(self, params: ReadFileInput | None) -> str:
        if params is None:
            return "Read file"
        if params.start_line is None and params.end_line is None:
            return f"Read {params.path}"
        if params.end_line is None:
            return f"Read {params.path} (from line {params.start_line})"
        return f"Read {params.path} (lines {params.start_line or 1}-{params.end_line})"

    def paths(self, params: ReadFileInput, ctx: ToolContext) -> list[Path]:
        return [ctx.resolve(params.path)]

    def locations(self, params: ReadFileInput, ctx: ToolContext) -> list[Location]:
        return [Location(str(ctx.resolve(params.path)), params.start_line)]

    async def run(self, params: ReadFileInput, ctx: ToolContext) -> ToolResult:
        start = params.start_line or 1
        if params.end_line is not None and params.end_line < start:
            return ToolResult.error(f"end_line ({params.end_line}) is before start_line ({start}).")
        path = ctx.resolve(params.path)
        name = shown(path, ctx.cwd)
        error = regular_file_error(ctx.cwd, params.path, path)
        if error:
            return ToolResult.error(error)
        count = MAX_LINES if params.end_line is None else min(MAX_LINES, params.end_line - start + 1)
        try:
            f = await asyncio.to_thread(_open, path, ctx.multi_linked(path))
        except PathChanged as exc:
            return ToolResult.error(changed_message(name, exc, "read"))
        except OSError as exc:
            return ToolResult.error(f"Cannot read {name}: {exc.strerror or exc}.")
        note = ""
        with f:
            kind = sniff_binary(f.read(SNIFF_BYTES))
            if kind is not None:  # binary files stay on disk: refused, as without an editor
                return ToolResult.error(binary_message(name, kind, os.fstat(f.fileno()).st_size))
            source: BinaryIO = f
            # a big file is asked of the editor in the slice shown (one line more: is there more?)
            limit = count + 1 if os.fstat(f.fileno()).st_size > WHOLE_TEXT_BYTES else None
            first = 1
            try:
                text = await editor_text(path, ctx, start if limit else None, limit)
            except PathChanged as exc:
                return ToolResult.error(changed_message(name, exc, "read"))
            except ClientError as exc:  # the disk's copy is what a client without `fs` would get
                note = f"[The editor could not provide {name} ({exc}); shown is the copy on disk.]"
                text = None
            if text is not None:
                source = io.BytesIO(text.encode("utf-8", "replace"))
                first = start if limit else 1
            else:
                limit = None
            source.seek(0)
            try:
                result = await in_thread(_read, source, name, start, count, params.end_line, first, limit)
            except OSError as exc:
                return ToolResult.error(f"Cannot read {name}: {exc.strerror or exc}.")
        if note:
            result.output += "\n" + note
        return result


def _open(path: Path, linked: bool) -> BinaryIO:
    """`path` opened for reading without following any link (`ParentDir.open_read`)."""
    with ParentDir(path, linked=linked) as parent:
        return parent.open_read()


class _Line:
    """One line as read: up to `_KEEP_BYTES` of its bytes, its full size and extra characters."""

    __slots__ = ("head", "size", "extra_chars")

    def __init__(self) -> None:
        self.head = bytearray()
        self.size = 0  # bytes, without the "\n"
        self.extra_chars = 0  # characters beyond `head`

    def add(self, piece: bytes) -> None:
        room = _KEEP_BYTES - len(self.head)
        if room > 0:
            self.head += piece[:room]
        rest = piece[max(room, 0) :]
        if rest:
            self.extra_chars += len(rest.translate(None, _CONTINUATION_BYTES))
        self.size += len(piece)


def _read(
    f: BinaryIO, name: str, start: int, count: int, end_line: int | None, first: int, limit: int | None, stop: threading.Event
) -> ToolResult:
    """Render lines `start`.. of the text stream `f`: the disk file or the editor's text, whose
    first line is line `first`; `limit` set means `f` is a slice of at most that many lines, so
    the file's line count is known only if it holds fewer."""
    size = f.seek(0, os.SEEK_END)
    f.seek(0)
    head = f.read(len(BOM))
    offset = len(BOM) if head.startswith(BOM) else 0
    f.seek(offset)
    newlines, pending = _skip(f, start - first, stop)
    lines, more_newlines, pending = _collect(f, pending, count, stop)
    newlines += more_newlines + pending.count(b"\n")
    while chunk := f.read(CHUNK):
        if stop.is_set():
            break
        newlines += chunk.count(b"\n")
    ends_open = size > offset and _last_byte(f, size) != b"\n"
    in_stream = newlines + (1 if ends_open else 0)
    if first > 1 and in_stream == 0:
        return ToolResult.error(f"start_line {start} is past the end of {name}.")
    return _render(name, lines, start, first - 1 + in_stream, end_line, known=limit is None or in_stream < limit)


def _skip(f: BinaryIO, skip: int, stop: threading.Event) -> tuple[int, bytes]:
    """Read past `skip` lines; returns the newlines passed and the bytes read after them."""
    passed = 0
    while passed < skip and not stop.is_set():
        chunk = f.read(CHUNK)
        if not chunk:
            break
        found = chunk.count(b"\n")
        if passed + found < skip:
            passed += found
            continue
        pos = -1
        for _ in range(skip - passed):
            pos = chunk.index(b"\n", pos + 1)
        return skip, chunk[pos + 1 :]
    return passed, b""


def _collect(f: BinaryIO, pending: bytes, count: int, stop: threading.Event) -> tuple[list[_Line], int, bytes]:
    """Read up to `count` lines (fewer once the output budget is spent).

    Returns the lines, the newlines consumed and the bytes read past the last line.
    """
    lines: list[_Line] = []
    newlines = 0
    budget = MAX_OUTPUT_CHARS
    line = _Line()
    while not stop.is_set():
        chunk = pending or f.read(CHUNK)
        pending = b""
        if not chunk:
            if line.size:
                lines.append(line)
            return lines, newlines, b""
        i = 0
        while True:
            nl = chunk.find(b"\n", i)
            line.add(chunk[i : len(chunk) if nl < 0 else nl])
            if nl < 0:
                break
            newlines += 1
            lines.append(line)
            budget -= min(line.size, MAX_LINE_CHARS) + 8
            line = _Line()
            i = nl + 1
            if len(lines) >= count or budget <= 0:
                return lines, newlines, chunk[i:]
    return lines, newlines, b""


def _last_byte(f: BinaryIO, size: int) -> bytes:
    f.seek(size - 1)
    return f.read(1)


def _render(name: str, lines: list[_Line], start: int, total: int, end_line: int | None, known: bool = True) -> ToolResult:
    """The numbered lines and the footer; `known` False means the file has more than `total` lines."""
    if total == 0:
        return ToolResult(output=f"({name} is empty.)")
    if start > total:
        return ToolResult.error(f"start_line {start} is past the end of {name}, which has {total:,} lines.")
    out: list[str] = []
    used = 0
    invalid = crlf = clipped_any = False
    for number, line in enumerate(lines, start):
        clipped = line.size > len(line.head)
        data = bytes(line.head)
        if clipped:
            text = codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=False)
            invalid = invalid or "\ufffd" in text
        else:
            if data.endswith(b"\r"):
                data, crlf = data[:-1], True
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text, invalid = data.decode("utf-8", "replace"), True
        length = len(text) + line.extra_chars
        if length > MAX_LINE_CHARS:
            text = f"{text[:MAX_LINE_CHARS]} [... line clipped: {length:,} characters in all]"
            clipped_any = True
        entry = f"{number:>6}\t{text}"
        if out and used + len(entry) > MAX_OUTPUT_CHARS:
            break
        out.append(entry)
        used += len(entry) + 1
    last = start + len(out) - 1
    notes: list[str] = []
    of = f" of {total:,}" if known else ""
    if last < total and (end_line is None or last < end_line):
        notes.append(f"[Showing lines {start}-{last}{of}. Continue with start_line={last + 1}.]")
    elif start > 1 or last < total:
        notes.append(f"[Showing lines {start}-{last}{of}.]")
    if crlf:
        notes.append("[Lines end with CRLF; the CR is not shown. edit_file keeps the line endings.]")
    if invalid:
        notes.append("[The file is not valid UTF-8: undecodable bytes are shown as U+FFFD.]")
    if clipped_any:
        notes.append("[Some lines were clipped; use grep or bash (e.g. `cut -c`) to see more of them.]")
    return ToolResult(output="\n".join(out + notes))
