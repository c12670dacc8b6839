"""Turning the prompt text into ACP content blocks: `@path` mentions attach files, pasted image paths attach images.

A mention is `@` followed by a project-relative path (spaces escaped as `\\ `). A mentioned text
file is attached as an embedded `resource` block (its text and a `file://` URI) when the agent
accepts embedded context; otherwise, or for binary and very large files, as a `resource_link`.

When the agent accepts images (`promptCapabilities.image`), a mentioned image (PNG, JPEG, GIF
or WebP, told by its first bytes, at most `MAX_IMAGE_BYTES`) is attached as an `image` block
(base64 data, its MIME type and `file://` URI), and so is an image whose path was pasted into
the prompt (what a terminal types when a file is dropped on it: an absolute or `~/` path, or a
`file://` URI, quoted or with `\\ ` escapes); the person chose that file, so it may lie outside
the project. The prompt text itself is sent unchanged as the first block.
"""

from __future__ import annotations

import base64
import mimetypes
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

if TYPE_CHECKING:  # the SDK loads after the first paint (iac_tui.sdk)
    from acp.schema import ImageContentBlock

    from iac_tui.client import ContentBlock

MENTION = re.compile(r"(?:(?<=\s)|^)@((?:\\ |[^\s])+)")
MAX_EMBED_BYTES = 512 * 1024
MAX_IMAGE_BYTES = 5 * 1024 * 1024 // 4 * 3  # 3.75 MiB: its base64 within the Messages API's 5 MB for one image
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
PASTED_PATH = re.compile(r"""(?:(?<=\s)|^)(?:'([^']+)'|"([^"]+)"|((?:file://|~/|/)(?:\\ |[^\s'"])+))""")


@dataclass(slots=True)
class Attachment:
    """A file attached to a prompt: `path` project-relative (or as pasted, for an image outside
    the project); `embedded` when its content went with the prompt (text or image data)."""

    path: str
    embedded: bool
    image: bool = False


def image_type(data: bytes) -> str | None:
    """The MIME type of an image the Messages API accepts, from its first bytes (None otherwise)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def image_block(path: Path) -> ImageContentBlock | None:
    """`path` as an ACP image block, or None (not an accepted image, too large, unreadable)."""
    from acp.schema import ImageContentBlock  # (iac_tui.sdk)

    try:
        if path.stat().st_size > MAX_IMAGE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    mime = image_type(data)
    if mime is None:
        return None
    return ImageContentBlock(type="image", data=base64.b64encode(data).decode("ascii"), mime_type=mime, uri=path.as_uri())


def pasted_image_paths(text: str) -> list[Path]:
    """Image files whose paths were pasted into `text` (absolute, `~/` or `file://`; quoted or
    escaped), existing, in order, without duplicates."""
    found: list[Path] = []
    for match in PASTED_PATH.finditer(text):
        raw = next(g for g in match.groups() if g is not None)
        if raw.startswith("file://"):
            raw = unquote(urlparse(raw).path)
        raw = raw.replace("\\ ", " ").rstrip(".,;:!?)")
        if not raw.lower().endswith(IMAGE_SUFFIXES) or not raw.startswith(("/", "~/")):
            continue
        path = Path(os.path.expanduser(raw))
        if path.is_file() and path not in found:
            found.append(path)
    return found


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


def build_prompt(
    text: str, root: Path, embedded_context: bool = True, images: bool = False
) -> tuple[list[ContentBlock], list[Attachment]]:
    """The content blocks for a prompt, and the files attached (mentions of missing files are
    left as text); `images`: the agent accepts image blocks (see the module docstring)."""
    from acp.schema import (  # (iac_tui.sdk)
        EmbeddedResourceContentBlock,
        ImageContentBlock,
        ResourceContentBlock,
        TextContentBlock,
        TextResourceContents,
    )

    blocks: list[ContentBlock] = [TextContentBlock(type="text", text=text)]
    attached: list[Attachment] = []
    root = Path(root).resolve()
    for rel in mentioned_paths(text):
        path = (root / rel).resolve()
        if not path.is_file() or (path != root and root not in path.parents):
            continue
        image = image_block(path) if images else None
        if image is not None:
            blocks.append(image)
            attached.append(Attachment(rel, True, image=True))
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
    for path in pasted_image_paths(text) if images else []:
        image = image_block(path.resolve())
        if image is not None and image.uri not in {b.uri for b in blocks if isinstance(b, ResourceContentBlock | ImageContentBlock)}:
            blocks.append(image)
            attached.append(Attachment(path.name, True, image=True))
    return blocks, attached
