"""Helpers shared by the file tools: path arguments, binary sniffing and text decoding.

`read_file` shows a file and `edit_file` matches in it through the same decoding (`decode_text`):
a UTF-8 BOM is set aside, invalid bytes become U+FFFD in what the model sees, and lines are split
on "\\n" only, with the "\\r" of a CRLF ending not shown. What the model reads it can therefore
quote back as an `old_string`.
"""

from __future__ import annotations

import asyncio
import codecs
import os
import re
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, TypeVar

from pydantic import AfterValidator

from iac_code.tools.paths import display, resolve

SNIFF_BYTES = 8192
"""How much of a file's start is examined to decide whether it is binary."""

BOM = codecs.BOM_UTF8
T = TypeVar("T")

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"PK\x05\x06", "ZIP archive"),
    (b"\x1f\x8b", "gzip data"),
    (b"\xfd7zXZ\x00", "xz data"),
    (b"(\xb5/\xfd", "zstd data"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"Rar!\x1a\x07", "RAR archive"),
    (b"\x7fELF", "ELF executable"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (b"\xca\xfe\xba\xbe", "Mach-O or Java class file"),
    (b"\x00asm", "WebAssembly module"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"wOFF", "WOFF font"),
    (b"wOF2", "WOFF2 font"),
    (b"\xff\xfe", "UTF-16 text"),
    (b"\xfe\xff", "UTF-16 text"),
)
_TEXT_CONTROLS = frozenset("\t\n\r\f\v\b\x1b")
_NOT_ESCAPED_BYTE = re.compile("[\ud800-\udc7f\udd00-\udfff]")
"""Lone surrogates that `surrogateescape` did not make (it uses U+DC80..U+DCFF for bytes 0x80..0xFF)."""


def _no_nul(value: str) -> str:
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    return value


PathArg = Annotated[str, AfterValidator(_no_nul)]
"""A path parameter: any string without NUL (relative paths are taken from the session cwd)."""

ArgvStr = Annotated[str, AfterValidator(_no_nul)]
"""A parameter handed to a program in its argv (a command, a pattern), where NUL cannot go."""


def resolve_arg(cwd: Path, path: str | None) -> Path:
    """The real absolute path of a tool's path argument (None or "" means `cwd`)."""
    return resolve(cwd, path or ".")


def shown(path: Path, cwd: Path) -> str:
    """How results name `path`: relative to `cwd` when inside it ("." for cwd itself), else absolute."""
    return "." if path == cwd else display(path, cwd)


def sniff_binary(head: bytes) -> str | None:
    """What kind of binary file starts with `head` ("PNG image", "binary data"), or None for text.

    Known magic numbers are recognised first; then a NUL byte means binary, and so does text that
    reads neither as UTF-8 (more than 30% of characters undecodable or control characters) nor as
    Latin-1 (more than 10% control characters): a short Latin-1 line such as "Größe" is mostly
    undecodable as UTF-8, but it is text, shown with replacement characters.
    """
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if head.startswith(b"RIFF") and len(head) >= 12:
        return {b"WEBP": "WebP image", b"WAVE": "WAV audio"}.get(head[8:12], "RIFF data")
    if b"\x00" in head:
        return "binary data"
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(head.removeprefix(BOM), final=False)
    if text and _odd_share(text) > 0.3 and _odd_share(head.decode("latin-1")) > 0.1:
        return "binary data"
    return None


def _odd_share(text: str) -> float:
    """The share of `text`'s characters that no text file holds many of: U+FFFD (undecodable
    bytes) and control characters other than whitespace and ESC (C0, DEL, C1)."""
    odd = sum(1 for c in text if c == "\ufffd" or (c < " " and c not in _TEXT_CONTROLS) or "\x7f" <= c <= "\x9f")
    return odd / len(text)


def binary_message(name: str, kind: str, size: int) -> str:
    """The one-line refusal for a binary file: its name, kind and size."""
    return f"{name} is a binary file ({kind}, {size:,} bytes); only text files can be read or edited."


def try_stat(path: Path) -> os.stat_result | OSError:
    """`os.stat(path)`, or the `OSError` it raised (missing, permission denied, name too long...).

    The tools use this instead of `Path.exists()`/`is_dir()`/`is_file()`, which raise for any
    error but "missing" and would turn a bad path argument into an exception.
    """
    try:
        return os.stat(path)
    except OSError as exc:
        return exc


def is_missing(error: os.stat_result | OSError) -> bool:
    """Whether `try_stat` found nothing at the path (also when a parent is not a directory)."""
    return isinstance(error, (FileNotFoundError, NotADirectoryError))


def access_error(name: str, error: OSError) -> str:
    """The message for a path that exists but cannot be examined."""
    return f"Cannot access {name}: {error.strerror or error}."


def stat_target(path: Path, cwd: Path, *, missing: str, not_dir: str | None = None) -> tuple[str, os.stat_result] | str:
    """The name `path` is shown by (`shown`) and its `os.stat`, for a tool that searches or lists
    it; or the error for the model: `"{missing}: {name}."` when nothing is there, `access_error`
    when it cannot be examined, and, unless `not_dir` is None, `"{name} is a file, not a
    directory{not_dir}."` when it is not a directory (`not_dir` advises what to do instead)."""
    name = shown(path, cwd)
    st = try_stat(path)
    if is_missing(st):
        return f"{missing}: {name}."
    if isinstance(st, OSError):
        return access_error(name, st)
    if not_dir is not None and not stat.S_ISDIR(st.st_mode):
        return f"{name} is a file, not a directory{not_dir}."
    return name, st


def regular_file_error(cwd: Path, requested: str, path: Path) -> str | None:
    """Why `path` (the real path of the argument `requested`) cannot be read as a file (missing,
    a broken link, a directory, a device...), or None if it can."""
    name = shown(path, cwd)
    st = try_stat(path)
    if isinstance(st, FileNotFoundError):
        if os.path.islink(Path(cwd, os.path.expanduser(requested))):
            return f"{requested} is a broken symbolic link: its target {name} does not exist."
        return f"File not found: {name}. Use list_files or glob to find the right path."
    if isinstance(st, OSError):
        return access_error(name, st)
    if stat.S_ISDIR(st.st_mode):
        return f"{name} is a directory, not a file. Use list_files to see its entries."
    if not stat.S_ISREG(st.st_mode):
        return f"{name} is not a regular file (a device, FIFO or socket); it cannot be read."
    return None


@dataclass(slots=True)
class TextFile:
    """A decoded text file.

    `text` has the BOM removed; invalid UTF-8 bytes are kept as lone surrogates
    (`surrogateescape`), so `encode()` gives back the exact original bytes.
    """

    text: str
    bom: bool
    valid_utf8: bool

    def encode(self, text: str | None = None) -> bytes:
        """`text` (default: this file's text) as bytes, with the BOM if the file had one."""
        body = (self.text if text is None else text).encode("utf-8", "surrogateescape")
        return (BOM + body) if self.bom else body


def decode_text(data: bytes) -> TextFile:
    """Decode file bytes as UTF-8, setting aside a BOM and keeping invalid bytes recoverable."""
    bom = data.startswith(BOM)
    body = data[len(BOM) :] if bom else data
    try:
        return TextFile(body.decode("utf-8"), bom, True)
    except UnicodeDecodeError:
        return TextFile(body.decode("utf-8", "surrogateescape"), bom, False)


def printable(text: str) -> str:
    """`text` as valid Unicode: undecodable bytes kept by `surrogateescape` are shown as U+FFFD, as
    `read_file` shows them, and so is any other lone surrogate (e.g. from a JSON escape)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        escaped_bytes_only = _NOT_ESCAPED_BYTE.sub("\ufffd", text)
        return escaped_bytes_only.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def unencodable(text: str, what: str) -> str | None:
    """The error for the argument `what` if `text` holds lone surrogates (from `\\udXXX` escapes in
    the model's JSON), which cannot be written as UTF-8; None if it can be written."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return f"{what} contains characters that cannot be written as UTF-8 (lone surrogates)."
    return None


def count_lines(text: str) -> int:
    """Lines in `text` the way `read_file` numbers them (a final line without "\\n" counts)."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


async def in_thread(fn: Callable[..., T], *args: object) -> T:
    """Run the blocking `fn(*args, stop)` in a worker thread.

    `stop` is a `threading.Event` set when the caller is cancelled (or done), so a long walk
    or scan can end early instead of running on unseen; `asyncio.CancelledError` propagates.
    """
    stop = threading.Event()
    try:
        return await asyncio.to_thread(fn, *args, stop)
    finally:
        stop.set()
