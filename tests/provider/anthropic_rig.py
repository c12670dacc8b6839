"""Helpers for driving the real Anthropic provider (and the real agent loop) against the fake API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from iac_code.agent.loop import AgentLoop, LoopConfig
from iac_code.agent.permissions import Answer, PermissionGate, PermissionPolicy, PermissionRequest
from iac_code.core.conversation import Conversation, Message
from iac_code.core.events import Event
from iac_code.core.provider import ModelRequest, ProviderEvent
from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolResult
from iac_code.tools.registry import ToolRegistry

API_KEY = "sk-test-provider-0123456789abcdef"
MODEL = "claude-sonnet-4-6"


def anthropic_provider(settings: Any) -> Any:
    """A new `AnthropicProvider` on `settings`. The provider (with the `anthropic` SDK: seconds
    of imports) is imported when a test first needs one, not when the suite is collected: every
    xdist worker collects every module, only one runs a given test."""
    from iac_code.providers.anthropic import AnthropicProvider

    return AnthropicProvider(settings)


async def collect(provider: Any, request: ModelRequest) -> list[ProviderEvent]:
    """Every event of one streamed response."""
    return [event async for event in provider.stream(request)]


def request(*messages: Message, **kw: Any) -> ModelRequest:
    """A `ModelRequest` for `MODEL` with a short system prompt."""
    return ModelRequest(model=MODEL, system="You are a test.", messages=list(messages), **kw)


# ----- a small tool set for loop tests -----


class NoteInput(ToolInput):
    text: str = Field(description="The note.")


class NoteTool(Tool):
    """A read-only tool that answers `noted: <text>`."""

    name = "note"
    description = "Take a note."
    input_model = NoteInput
    kind = "other"
    category = "read"

    async def run(self, params: NoteInput, ctx: ToolContext) -> ToolResult:  # type: ignore[override]
        return ToolResult(output=f"noted: {params.text}")


class SaveInput(ToolInput):
    path: str
    content: str


class SaveTool(Tool):
    """A write tool (asks permission) that writes `content` to `path` under the cwd."""

    name = "save"
    description = "Save a file."
    input_model = SaveInput
    kind = "edit"
    category = "write"

    def paths(self, params: SaveInput, ctx: ToolContext) -> list[Path]:  # type: ignore[override]
        return [ctx.cwd / params.path]

    async def run(self, params: SaveInput, ctx: ToolContext) -> ToolResult:  # type: ignore[override]
        (ctx.cwd / params.path).write_text(params.content)
        return ToolResult(output=f"saved {params.path}")


class AllowAll:
    """A permission prompter that allows every call and records the requests."""

    def __init__(self) -> None:
        self.requests: list[PermissionRequest] = []

    async def ask(self, request: PermissionRequest) -> Answer:
        self.requests.append(request)
        return "allow_once"


class LoopRig:
    """A real `AgentLoop` over a real provider, recording the events it emits."""

    def __init__(self, provider: Any, cwd: Path, conversation: Conversation | None = None, **config: Any) -> None:
        self.events: list[Event] = []
        self.prompter = AllowAll()
        self.conversation = conversation or Conversation()
        self.loop = AgentLoop(
            provider=provider,
            tools=ToolRegistry([NoteTool(), SaveTool()]),
            conversation=self.conversation,
            gate=PermissionGate(PermissionPolicy("default"), self.prompter),
            emit=self._emit,
            context=lambda **call: ToolContext(cwd=cwd, config_dir=cwd / ".config", **call),
            config=LoopConfig(model=MODEL, system_prompt="You are a test.", **config),
        )

    async def _emit(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        """The emitted events of class `kind`."""
        return [e for e in self.events if isinstance(e, kind)]
