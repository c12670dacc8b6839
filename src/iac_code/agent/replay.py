"""A stored conversation as the events a client needs to redraw it (`session/load` replay)."""

from __future__ import annotations

from collections.abc import Iterator

from iac_code.agent import attachments
from iac_code.agent.loop import INTERRUPTED
from iac_code.core.conversation import (
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
    ToolCallUpdated,
    UserAttachment,
    UserText,
)
from iac_code.tools.base import ToolContext
from iac_code.tools.registry import ToolRegistry


def replay_events(messages: list[Message], tools: ToolRegistry, ctx: ToolContext) -> Iterator[Event]:
    """Yield, in order: user text and attached files, agent text and thoughts, and for each tool
    use a `tool_call` followed by its final `tool_call_update` (completed or failed, with the
    result as output)."""
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
            elif isinstance(block, ThinkingBlock):
                yield ThinkingDelta(block.thinking)
            elif isinstance(block, ToolUseBlock):
                yield from _tool_call(block, results.get(block.id), tools, ctx)


def _tool_call(use: ToolUseBlock, result: ToolResultBlock | None, tools: ToolRegistry, ctx: ToolContext) -> Iterator[Event]:
    tool = tools.get(use.name)
    params = tool.parse(use.input) if tool else None
    valid = params if params is not None and not isinstance(params, str) else None
    title = tool.title(valid) if tool else use.name
    locations = tool.locations(valid, ctx) if tool and valid is not None else []
    failed = result is None or result.is_error
    output = result.content if result is not None else ""
    yield ToolCallStarted(
        use.id, title=title, kind=tool.kind if tool else "other", status="in_progress", raw_input=use.input, locations=locations
    )
    yield ToolCallUpdated(
        use.id,
        status="failed" if failed else "completed",
        raw_output={"error": output} if failed else {"output": output},
        content=[TextContent(output)] if output else [],
    )
