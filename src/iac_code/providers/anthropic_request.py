"""The Messages API request for one `ModelRequest`: JSON-shaped keyword arguments of `messages.create`.

Cache breakpoints (`cache_control: ephemeral`) go on the system prompt, the last tool and the
last cacheable block of the last message; extended thinking is a budget, or `adaptive` for the
models the SDK asks that of; lone surrogates become U+FFFD. Nothing here imports the SDK.
"""

from __future__ import annotations

from typing import Any

from iac_code.core.conversation import (
    MAX_IMAGE_BASE64,
    REQUEST_IMAGE_BASE64,
    REQUEST_IMAGES,
    ContentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    valid_text,
)
from iac_code.core.provider import ModelRequest

ADAPTIVE_THINKING_MODELS = frozenset({"claude-opus-4-6", "claude-mythos-preview"})
"""Models the SDK warns about for `{"type": "enabled"}` thinking (its
`MODELS_TO_WARN_WITH_THINKING_ENABLED`); they get `{"type": "adaptive"}` instead of a budget."""

CACHE_CONTROL = {"type": "ephemeral"}


def request_params(request: ModelRequest, thinking_supported: bool) -> dict[str, Any]:
    """The keyword arguments of `messages.create` for `request` (JSON-shaped dicts).

    Cache breakpoints (`cache_control: ephemeral`) go on the system prompt, the last tool and the
    last cacheable block of the last message, so each request reads the previous one's prefix
    from the cache. Extended thinking is requested when `request.thinking_budget` is set and
    `thinking_supported`. Lone surrogates become U+FFFD (`valid_json`).
    """
    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": message_params(request.messages),
    }
    if request.system:
        params["system"] = [{"type": "text", "text": request.system, "cache_control": CACHE_CONTROL}]
    if request.tools:
        tools = [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in request.tools]
        tools[-1]["cache_control"] = CACHE_CONTROL
        params["tools"] = tools
    if request.thinking_budget and thinking_supported:
        if request.model in ADAPTIVE_THINKING_MODELS:
            params["thinking"] = {"type": "adaptive"}
        else:
            params["thinking"] = {"type": "enabled", "budget_tokens": request.thinking_budget}
    return valid_json(params)


def message_params(messages: list[Message]) -> list[dict[str, Any]]:
    """The conversation as Messages API `messages`.

    Blocks the API would reject are left out (empty or blank text, thinking without a signature),
    messages left empty are dropped, consecutive messages of the same role (after a cancelled or
    failed turn) are merged, and the last cacheable block gets a cache breakpoint. Images past
    the request's share (`sent_images`) go as a text marker naming them; the history keeps them.
    """
    images = sent_images(messages)
    out: list[dict[str, Any]] = []
    for m, message in enumerate(messages):
        content = [
            _block_param(b) if not isinstance(b, ImageBlock) or (m, i) in images else _left_out(b)
            for i, b in enumerate(message.content)
            if _sendable(b)
        ]
        if not content:
            continue
        if out and out[-1]["role"] == message.role:
            out[-1]["content"].extend(content)
        else:
            out.append({"role": message.role, "content": content})
    if out:
        cacheable = [b for b in out[-1]["content"] if b["type"] not in ("thinking", "redacted_thinking")]
        if cacheable:
            cacheable[-1]["cache_control"] = CACHE_CONTROL
    return out


def sent_images(messages: list[Message]) -> set[tuple[int, int]]:
    """The images a request carries, as (message index, block index): the newest, at most
    `REQUEST_IMAGES` of them and `REQUEST_IMAGE_BASE64` of base64 data together, leaving out any
    longer than `MAX_IMAGE_BASE64` (an image attached before that limit was checked). Each limit
    is one the Messages API enforces by refusing the whole request (core.conversation)."""
    sent: set[tuple[int, int]] = set()
    total = 0
    for m in reversed(range(len(messages))):
        blocks = messages[m].content
        for i in reversed(range(len(blocks))):
            block = blocks[i]
            if not isinstance(block, ImageBlock) or len(block.data) > MAX_IMAGE_BASE64:
                continue
            if len(sent) == REQUEST_IMAGES or total + len(block.data) > REQUEST_IMAGE_BASE64:
                return sent
            sent.add((m, i))
            total += len(block.data)
    return sent


def _left_out(image: ImageBlock) -> dict[str, Any]:
    name = image.name or image.media_type
    if len(image.data) > MAX_IMAGE_BASE64:
        why = "it is larger than the API's 5 MB for one image"
    else:
        why = f"a request carries only the newest {REQUEST_IMAGES} images, at most {REQUEST_IMAGE_BASE64 >> 20} MiB"
    return {"type": "text", "text": f"[image {name}: left out of this request ({why}); ask the user to attach it again if you need to see it]"}


def _sendable(block: ContentBlock) -> bool:
    if isinstance(block, TextBlock):
        return bool(block.text.strip())
    if isinstance(block, ThinkingBlock):
        return bool(block.signature)
    return True


def _block_param(block: ContentBlock) -> dict[str, Any]:
    if isinstance(block, ImageBlock):  # the Messages API's base64 image source
        return {"type": "image", "source": {"type": "base64", "media_type": block.media_type, "data": block.data}}
    param = block.model_dump(mode="json")
    if isinstance(block, ToolResultBlock) and not block.content:
        del param["content"]
    return param


def valid_json(value: Any) -> Any:
    """`value` (JSON-shaped) with every lone surrogate replaced by U+FFFD.

    UTF-8 cannot encode lone surrogates, so the SDK cannot send a request holding one: one in the
    history would fail every later request of the session. They come from `\\udXXX` escapes in
    a model's tool input and from text decoded with `surrogateescape` (non-UTF-8 file names).
    """
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, list):
        return [valid_json(v) for v in value]
    if isinstance(value, dict):
        return {valid_json(k): valid_json(v) for k, v in value.items()}
    return value
