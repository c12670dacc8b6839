"""How files attached to a prompt are written into the conversation, and read back for replay.

An embedded resource becomes a text block `<resource uri="URI">\\nTEXT\\n</resource>` the model
reads; a resource link becomes `[resource link: NAME <URI>; ...]`, a reference the model can
follow with its tools. Replay (`session/load`) turns such blocks back into attachments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EMBEDDED = re.compile(r'<resource uri="(?P<uri>[^"]*)">\n(?P<text>.*)\n</resource>', re.S)
_LINK = re.compile(r"\[resource link: (?P<name>.*) <(?P<uri>[^>]*)>; read it with your tools if needed\]")


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file attached to a prompt: embedded (`text` set) or linked (`text` None)."""

    uri: str
    name: str
    text: str | None = None


def embedded_text(uri: str, text: str) -> str:
    """The text block for an embedded resource."""
    return f'<resource uri="{uri}">\n{text}\n</resource>'


def link_text(name: str, uri: str) -> str:
    """The text block for a resource link."""
    return f"[resource link: {name} <{uri}>; read it with your tools if needed]"


def parse(text: str) -> Attachment | None:
    """The attachment a whole text block stands for, or None for ordinary text."""
    if match := _EMBEDDED.fullmatch(text):
        uri = match["uri"]
        return Attachment(uri=uri, name=uri.rsplit("/", 1)[-1] or uri, text=match["text"])
    if match := _LINK.fullmatch(text):
        return Attachment(uri=match["uri"], name=match["name"])
    return None
