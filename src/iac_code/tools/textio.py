"""Reading and writing a checked file's text: through the editor when the client offers it,
else on the disk without following links (`tools.nofollow`).

PROTOCOL.md, "What the server uses of clientCapabilities": text reads of read_file and the read
half of edit_file use `fs/read_text_file`, writes and edits use `fs/write_text_file`, so the
editor's unsaved buffers are seen and its edits tracked. The path has passed the permission
checks before these run, and its directories are verified to hold no swapped-in link before the
client is asked.
"""

from __future__ import annotations

from pathlib import Path

from iac_code.tools.base import ToolContext
from iac_code.tools.client_interfaces import ClientError
from iac_code.tools.nofollow import ParentDir, PathChanged, changed_message, check_dirs


async def editor_text(path: Path, ctx: ToolContext, line: int | None = None, limit: int | None = None) -> str | None:
    """The text of `path` as the editor has it (from the 1-based `line`, at most `limit` lines),
    or None when the client does not offer reads. Raises `ClientError` or `PathChanged`."""
    if ctx.files is None or not ctx.files.can_read:
        return None
    check_dirs(path, linked=ctx.multi_linked(path))
    return await ctx.files.read_text(path, line, limit)


def writes_to_editor(ctx: ToolContext) -> bool:
    """Whether writes go through the client's `fs/write_text_file`."""
    return ctx.files is not None and ctx.files.can_write


async def write_text(path: Path, name: str, text: str, ctx: ToolContext, data: bytes | None = None) -> str | None:
    """Write `text` to the checked `path` (shown to the model as `name`): through the editor when
    the client offers writes, else on disk as `data` (default: `text` as UTF-8), atomically with
    `ParentDir.replace`. Missing parent directories are created either way. Returns the error
    for the model, or None.

    Nothing follows a link swapped into the path after the check. When the editor refuses, the
    disk is left alone (writing behind its back is what it just declined).
    """
    try:
        with ParentDir(path, create=True, linked=ctx.multi_linked(path)) as parent:
            if not writes_to_editor(ctx):
                parent.replace(text.encode("utf-8") if data is None else data)
                return None
        assert ctx.files is not None
        check_dirs(path, linked=ctx.multi_linked(path))
        await ctx.files.write_text(path, text)
    except PathChanged as exc:
        return changed_message(name, exc, "written")
    except ClientError as exc:
        return f"The editor could not write {name}: {exc}. Nothing was written."
    except OSError as exc:
        return f"Cannot write {name}: {exc.strerror or exc}."
    return None
