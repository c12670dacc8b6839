"""ACP prompt content blocks -> the user message the model sees (PROTOCOL.md, Prompt content blocks)."""

from __future__ import annotations

import base64
import binascii
import io
import os
from pathlib import Path
from urllib.parse import unquote, urlparse

import imagesize
from acp.schema import (
    AudioContentBlock,
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from iac_code.acp.errors import invalid
from iac_code.agent import attachments
from iac_code.core.conversation import (
    IMAGE_TYPES,
    MAX_IMAGE_BASE64,
    MAX_IMAGE_SIDE,
    ImageBlock,
    TextBlock,
    valid_text,
)
from iac_code.tools.nofollow import ParentDir

MAX_IMAGE_BYTES = MAX_IMAGE_BASE64 // 4 * 3
"""The largest image accepted, decoded (3.75 MiB): its base64 is then within the Messages API's
5 MB for one image."""

_MAGIC = {"image/png": (b"\x89PNG\r\n\x1a\n",), "image/jpeg": (b"\xff\xd8\xff",), "image/gif": (b"GIF87a", b"GIF89a")}


def to_user_content(blocks: list, cwd: str | Path) -> list[TextBlock | ImageBlock]:  # noqa: ANN001 - ACP ContentBlock models
    """Convert prompt blocks: text as is; an embedded text resource labelled with its URI; a
    resource link as a reference the model can read with its tools; an image as an image for
    the model (`image_content`); audio as an `[audio: <mime>]` marker.

    Raises -32602 naming `prompt[i]` for an image that cannot be used (see `image_content`).
    """
    out: list[TextBlock | ImageBlock] = []
    for index, block in enumerate(blocks):
        if isinstance(block, TextContentBlock):
            out.append(TextBlock(text=valid_text(block.text)))
        elif isinstance(block, EmbeddedResourceContentBlock):
            res = block.resource
            if isinstance(res, TextResourceContents):
                out.append(TextBlock(text=attachments.embedded_text(res.uri, valid_text(res.text))))
            elif isinstance(res, BlobResourceContents):
                out.append(TextBlock(text=f"[binary resource: {res.uri} ({res.mime_type or 'unknown type'})]"))
        elif isinstance(block, ResourceContentBlock):
            out.append(TextBlock(text=attachments.link_text(block.name, block.uri)))
        elif isinstance(block, ImageContentBlock):
            try:
                out.append(image_content(block, Path(cwd)))
            except ValueError as exc:
                raise invalid(f"prompt[{index}]", str(exc)) from None
        elif isinstance(block, AudioContentBlock):
            out.append(TextBlock(text=f"[audio: {block.mime_type}]"))
    return out


def image_content(block: ImageContentBlock, cwd: Path) -> ImageBlock:
    """An ACP image block as the model's image: its base64 `data`, or without data the file its
    `file://` `uri` names inside `cwd` (symbolic links resolved once, then exactly that file
    read: no link followed on the way, a file with several hard links refused).

    PNG, JPEG, GIF or WebP (`IMAGE_TYPES`), at most `MAX_IMAGE_BYTES` decoded and
    `MAX_IMAGE_SIDE` pixels wide and tall (read from its header, which must be whole), and its bytes must be what
    `mimeType` says; ValueError (in plain words) otherwise: the Messages API would refuse such an
    image in every later request of the session. Source: PROTOCOL.md,
    `promptCapabilities.image`.
    """
    if block.mime_type not in IMAGE_TYPES:
        raise ValueError(f"image type {block.mime_type!r} is not one of {', '.join(IMAGE_TYPES)}")
    if block.data:
        if len(block.data) > MAX_IMAGE_BASE64 + 4:
            raise ValueError(f"the image is larger than {MAX_IMAGE_BYTES / 2**20:g} MiB")
        try:
            raw = base64.b64decode(block.data, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("the image data is not valid base64") from None
    elif block.uri:
        raw = _read_image_file(block.uri, cwd)
    else:
        raise ValueError("an image needs `data` (base64) or a `file://` `uri`")
    if len(raw) > MAX_IMAGE_BYTES:
        raise ValueError(f"the image is larger than {MAX_IMAGE_BYTES / 2**20:g} MiB")
    if not _looks_like(raw, block.mime_type):
        raise ValueError(f"the image data is not {block.mime_type}")
    width, height = imagesize.get(io.BytesIO(raw))
    if width < 1 or height < 1:
        raise ValueError(f"the image's size cannot be read: it is not a whole {block.mime_type}")
    if max(width, height) > MAX_IMAGE_SIDE:
        raise ValueError(f"the image is {width}x{height} pixels; the model takes at most {MAX_IMAGE_SIDE} on a side")
    return ImageBlock(media_type=block.mime_type, data=base64.b64encode(raw).decode("ascii"), name=block.uri)


def _read_image_file(uri: str, cwd: Path) -> bytes:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise ValueError(f"an image without data needs a file:// uri, got {uri!r}")
    root = os.path.realpath(cwd)
    real = os.path.realpath(unquote(parsed.path))
    if os.path.commonpath([root, real]) != root:
        raise ValueError(f"the image {uri} is outside the session's directory")
    try:
        with ParentDir(Path(real)) as parent, parent.open_read() as handle:  # exactly the file checked
            raw = handle.read(MAX_IMAGE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"cannot read the image {uri}: {exc.strerror or exc}") from None
    return raw


def _looks_like(raw: bytes, mime: str) -> bool:
    if mime == "image/webp":
        return raw[:4] == b"RIFF" and raw[8:12] == b"WEBP"
    return raw.startswith(_MAGIC[mime])
