"""Turns a sub-agent's events into progress lines shown in the parent's `agent` tool call."""

from __future__ import annotations

from iac_code.core.events import (
    Event,
    TextContent,
    TextDelta,
    ToolCallStarted,
    ToolCallUpdated,
)
from iac_code.tools.base import ProgressSink

MAX_LINES = 30


class SubagentReporter:
    """Collects what a sub-agent does ("Read main.tf: done") and reports it as the parent call's content."""

    def __init__(self, progress: ProgressSink) -> None:
        self._progress = progress
        self._titles: dict[str, str] = {}
        self._status: dict[str, str] = {}
        self._text: list[str] = []

    async def emit(self, event: Event) -> None:
        """Receive one sub-agent event; tool call changes are forwarded as progress."""
        if isinstance(event, TextDelta):
            self._text.append(event.text)
            return
        if isinstance(event, ToolCallStarted):
            self._titles[event.tool_call_id] = event.title
            self._status[event.tool_call_id] = event.status
        elif isinstance(event, ToolCallUpdated):
            if event.title:
                self._titles[event.tool_call_id] = event.title
            if event.status:
                self._status[event.tool_call_id] = event.status
            if not (event.title or event.status):
                return
        else:
            return
        marks = {"completed": "done", "failed": "failed", "in_progress": "running", "pending": "pending"}
        lines = [f"{self._titles[i]}: {marks.get(self._status.get(i, ''), '')}" for i in self._titles]
        await self._progress([TextContent("\n".join(lines[-MAX_LINES:]))])
