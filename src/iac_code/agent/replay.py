"""A stored conversation as the events a client needs to redraw it (`session/load` replay).

A replayed tool call looks as it did live: a tool rebuilds from its stored input what it sent
then (`Tool.replay`: an edit's diff, the plan `update_plan` published); a tool that cannot, or
a call that failed, shows its result text.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from iac_code.agent import attachments
from iac_code.agent.loop import INTERRUPTED
from iac_code.core.conversation import (
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from iac_code.core.events import (
    Event,
    TextContent,
    TextDelta,
    ThinkingDelta,
    ToolCallStarted,
    ToolContent,
    ToolCallUpdated,
    UserAttachment,
    UserImage,
    UserText,
)
from iac_code.mcp_client.names import title_from_name
from iac_code.tools.base import ToolContext, ToolReplay
from iac_code.tools.registry import ToolRegistry

log = logging.getLogger(__name__)


def replay_events(messages: list[Message], tools: ToolRegistry, ctx: ToolContext) -> Iterator[Event]:
    """Yield, in order: user text, attached files and images, agent text and thoughts, and for each tool
    use a `tool_call`, the events it published (a plan), and its final `tool_call_update`
    (completed or failed; content as live, see the module docstring)."""
    results: dict[str, ToolResultBlock] = {
        b.tool_use_id: b for m in messages if m.role == "user" for b in m.content if isinstance(b, ToolResultBlock)
    }
    for message in messages:
        for block in message.content:
            if isinstance(block, TextBlock):
                if message.role == "assistant":
                    yield TextDelta(block.text)
                elif block.text == INTERRUPTED:  # the note is for the model; the client never sent it
                    continue
                elif (attached := attachments.parse(block.text)) is not None:
                    yield UserAttachment(attached.uri, attached.name, attached.text)
                else:
                    yield UserText(block.text)
            elif isinstance(block, ImageBlock):
                yield UserImage(block.data, block.media_type, block.name)
            elif isinstance(block, ThinkingBlock):
                yield ThinkingDelta(block.thinking)
            elif isinstance(block, ToolUseBlock):
                yield from _tool_call(block, results.get(block.id), tools, ctx)


def _tool_call(use: ToolUseBlock, result: ToolResultBlock | None, tools: ToolRegistry, ctx: ToolContext) -> Iterator[Event]:
    tool = tools.get(use.name)
    params = tool.parse(use.input) if tool else None
    valid = params if params is not None and not isinstance(params, str) else None
    title = tool.title(valid) if tool else (title_from_name(use.name) or use.name)
    locations = tool.locations(valid, ctx) if tool and valid is not None else []
    failed = result is None or result.is_error
    output = result.content if result is not None else ""
    yield ToolCallStarted(
        use.id, title=title, kind=tool.kind if tool else "other", status="in_progress", raw_input=use.input, locations=locations
    )
    shown: ToolReplay | None = None
    if tool is not None and valid is not None and not failed:
        try:
            shown = tool.replay(valid, ctx, output)
        except Exception:  # a tool bug must not stop the replay: show the text
            log.exception("tool %s failed rebuilding a replayed call", use.name)
    if shown is not None:
        yield from shown.events
    content: list[ToolContent] = shown.content if shown is not None and shown.content is not None else ([TextContent(output)] if output else [])
    yield ToolCallUpdated(
        use.id,
        status="failed" if failed else "completed",
        raw_output={"error": output} if failed else {"output": output},
        content=content,
    )
