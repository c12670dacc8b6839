"""Turning the prompt text into ACP content blocks: `@path` mentions attach files.

A mention is `@` followed by a project-relative path (spaces escaped as `\\ `). A mentioned text
file is attached as an embedded `resource` block (its text and a `file://` URI) when the agent
accepts embedded context; otherwise, or for binary and very large files, as a `resource_link`.
The prompt text itself is sent unchanged as the first block.
"""

from __future__ import annotations

import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any


MENTION = re.compile(r"(?:(?<=\s)|^)@((?:\\ |[^\s])+)")
MAX_EMBED_BYTES = 512 * 1024


@dataclass(slots=True)
class Attachment:
    """A file attached to a prompt."""

    path: str  # project-relative
    embedded: bool


def mentioned_paths(text: str) -> list[str]:
    """The `@path` mentions in `text`, unescaped, in order, without duplicates."""
    seen: list[str] = []
    for match in MENTION.finditer(text):
        path = match.group(1).replace("\\ ", " ").rstrip(".,;:!?)")
        if path and path not in seen:
            seen.append(path)
    return seen


def escape_path(path: str) -> str:
    """A path written as a mention (`\\ ` for spaces)."""
    return path.replace(" ", "\\ ")


def _read_text(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_EMBED_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def build_prompt(text: str, root: Path, embedded_context: bool = True) -> tuple[list[Any], list[Attachment]]:
    """The content blocks for a prompt, and the files attached (mentions of missing files are left as text)."""
    from acp.schema import EmbeddedResourceContentBlock, ResourceContentBlock, TextContentBlock, TextResourceContents  # (iac_tui.sdk)

    blocks: list[Any] = [TextContentBlock(type="text", text=text)]
    attached: list[Attachment] = []
    root = Path(root).resolve()
    for rel in mentioned_paths(text):
        path = (root / rel).resolve()
        if not path.is_file() or (path != root and root not in path.parents):
            continue
        uri = path.as_uri()
        mime = mimetypes.guess_type(path.name)[0] or "text/plain"
        content = _read_text(path) if embedded_context else None
        if content is not None:
            blocks.append(
                EmbeddedResourceContentBlock(type="resource", resource=TextResourceContents(uri=uri, text=content, mime_type=mime))
            )
            attached.append(Attachment(rel, True))
        else:
            blocks.append(ResourceContentBlock(type="resource_link", uri=uri, name=rel, mime_type=mime))
            attached.append(Attachment(rel, False))
    return blocks, attached
