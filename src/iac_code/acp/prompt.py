"""ACP prompt content blocks -> the user message the model sees (PROTOCOL.md, Prompt content blocks)."""

from __future__ import annotations

from acp.schema import (
    AudioContentBlock,
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from iac_code.agent import attachments
from iac_code.core.conversation import TextBlock, valid_text


def to_user_content(blocks: list) -> list[TextBlock]:  # noqa: ANN001 - ACP ContentBlock models
    """Convert prompt blocks: text as is; an embedded text resource labelled with its URI; a
    resource link as a reference the model can read with its tools; images and audio as
    `[image: <mime>]` / `[audio: <mime>]` markers (the agent announces neither capability)."""
    out: list[TextBlock] = []
    for block in blocks:
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
            out.append(TextBlock(text=f"[image: {block.mime_type}]"))
        elif isinstance(block, AudioContentBlock):
            out.append(TextBlock(text=f"[audio: {block.mime_type}]"))
    return out
