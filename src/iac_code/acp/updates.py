"""Agent events -> ACP `session/update` payloads (PROTOCOL.md, Streaming events)."""

from __future__ import annotations

from acp import helpers
from acp.schema import (
    AgentMessageChunk,
    AgentPlanContentUpdate,
    AgentPlanRemovedUpdate,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    ContentToolCallContent,
    CurrentModeUpdate,
    FileEditToolCallContent,
    SessionInfoUpdate,
    TerminalToolCallContent,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    UnstructuredCommandInput,
    UsageUpdate,
    UserMessageChunk,
)

from iac_code.agent.commands import COMMANDS
from iac_code.core import events

ToolCallContent = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent
"""One item of a tool call's `content` (the SDK's models; schema `ToolCallContent`)."""

SessionUpdate = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | AgentPlanContentUpdate
    | AgentPlanRemovedUpdate
    | AvailableCommandsUpdate
    | CurrentModeUpdate
    | ConfigOptionUpdate
    | SessionInfoUpdate
    | UsageUpdate
)
"""What a `session/update` carries (the SDK's models, as `acp.Client.session_update` takes them)."""


def content_items(items: list[events.ToolContent] | None) -> list[ToolCallContent] | None:
    """The ACP content of a tool call's agent-side content (None stays None)."""
    if items is None:
        return None
    out: list[ToolCallContent] = []
    for item in items:
        if isinstance(item, events.DiffContent):
            out.append(helpers.tool_diff_content(item.path, item.new_text, item.old_text))
        elif isinstance(item, events.TerminalContent):
            out.append(helpers.tool_terminal_ref(item.terminal_id))
        else:
            out.append(helpers.tool_content(helpers.text_block(item.text)))
    return out


def location_items(items: list[events.Location] | None) -> list[ToolCallLocation] | None:
    """The ACP locations of a tool call's locations (None stays None)."""
    if items is None:
        return None
    return [ToolCallLocation(path=loc.path, line=loc.line) for loc in items]


def to_update(event: events.Event) -> SessionUpdate:
    """The `session/update` payload for one agent event."""
    if isinstance(event, events.TextDelta):
        return helpers.update_agent_message_text(event.text)
    if isinstance(event, events.ThinkingDelta):
        return helpers.update_agent_thought_text(event.text)
    if isinstance(event, events.UserText):
        return helpers.update_user_message_text(event.text)
    if isinstance(event, events.UserImage):
        uri = event.name if event.name and event.name.startswith("file://") else None
        return helpers.update_user_message(helpers.image_block(event.data, event.media_type, uri=uri))
    if isinstance(event, events.UserAttachment):
        if event.text is None:
            return helpers.update_user_message(helpers.resource_link_block(event.name, event.uri))
        return helpers.update_user_message(helpers.resource_block(helpers.embedded_text_resource(event.uri, event.text)))
    if isinstance(event, events.ToolCallStarted):
        return helpers.start_tool_call(
            event.tool_call_id,
            event.title,
            kind=event.kind,
            status=event.status,
            content=content_items(event.content),
            locations=location_items(event.locations) if event.locations else None,
            raw_input=event.raw_input,
        )
    if isinstance(event, events.ToolCallUpdated):
        return helpers.update_tool_call(
            event.tool_call_id,
            title=event.title,
            kind=event.kind,
            status=event.status,
            content=content_items(event.content),
            locations=location_items(event.locations),
            raw_input=event.raw_input,
            raw_output=event.raw_output,
        )
    if isinstance(event, events.PlanUpdated):
        return helpers.update_plan(
            [helpers.plan_entry(e.content, priority=e.priority, status=e.status) for e in event.entries]
        )
    if isinstance(event, events.UsageUpdated):
        return UsageUpdate(session_update="usage_update", used=event.used, size=event.size)
    if isinstance(event, events.Notice):
        return helpers.update_agent_message_text(event.text)
    if isinstance(event, events.TitleChanged):
        return SessionInfoUpdate(session_update="session_info_update", title=event.title)
    raise TypeError(f"no ACP update for {type(event).__name__}")


def commands_update() -> AvailableCommandsUpdate:
    """The `available_commands_update` announcing the slash commands of `agent.commands`."""
    commands = [
        AvailableCommand(
            name=c.name,
            description=c.description,
            input=AvailableCommandInput(root=UnstructuredCommandInput(hint=c.hint)) if c.hint else None,
        )
        for c in COMMANDS
    ]
    return helpers.update_available_commands(commands)
