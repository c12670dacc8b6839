"""The offline scripted model (model id `scripted`): plays turns from a JSON script.

Script format (file named by `IAC_CODE_SCRIPT`)::

    {"turns": [
      {"match": "optional text that must occur in the latest user message",
       "blocks": [{"type": "text", "text": "..."},
                  {"type": "thinking", "thinking": "..."},
                  {"type": "tool_use", "name": "read_file", "input": {"path": "main.tf"}},
                  {"type": "error", "kind": "overloaded", "message": "..."}],
       "stop_reason": "end_turn|tool_use|max_tokens|refusal",
       "chunk_delay_ms": 0}
    ]}

Each model request of a session takes the first turn not yet used by that session whose
`match` occurs (case-sensitively) in the latest user message: its text, or for a message that
returns tool results, the results' text; an image the user attached counts as the text
`[image: <type>, <N> bytes]`. Text and thinking stream in word-sized chunks,
`chunk_delay_ms` apart (`IAC_CODE_SCRIPT_CHUNK_DELAY_MS` replaces every turn's). An `error` block raises a `ProviderError` of that kind at that point of
the stream (its `usage`: the request's input and the output streamed so far). `stop_reason`
defaults to `tool_use` when the turn has a tool use, else `end_turn`. Usage is estimated at four
characters per token (the input is reported as the stream starts, as the API does, so a cancelled request still counts it). When no turn fits, the model says so and ends the turn. Requests made to compact the conversation get a generated summary and use no turn.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, ValidationError

from iac_code.core.conversation import (
    ContentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    estimate_tokens,
)
from iac_code.core.provider import (
    ErrorKind,
    MessageDone,
    ModelRequest,
    ProviderError,
    ProviderEvent,
    StopReason,
    TextDelta,
    ThinkingDelta,
    ToolUseStart,
    Usage,
    UsageReported,
)

DEFAULT_CONTEXT_WINDOW = 200_000
_CHUNK = re.compile(r"\S+\s*|\s+")


class ScriptText(BaseModel):
    type: Literal["text"]
    text: str


class ScriptThinking(BaseModel):
    type: Literal["thinking"]
    thinking: str


class ScriptToolUse(BaseModel):
    type: Literal["tool_use"]
    name: str
    input: dict[str, Any] = Field(default_factory=dict)


class ScriptError(BaseModel):
    type: Literal["error"]
    kind: ErrorKind = "overloaded"
    message: str = "scripted error"


ScriptBlock = Annotated[ScriptText | ScriptThinking | ScriptToolUse | ScriptError, Field(discriminator="type")]


class ScriptTurn(BaseModel):
    """One scripted model response."""

    match: str | None = None
    blocks: list[ScriptBlock] = Field(default_factory=list)
    stop_reason: StopReason | None = None
    chunk_delay_ms: float = Field(default=0, ge=0)


class Script(BaseModel):
    """A whole script: the turns in order."""

    turns: list[ScriptTurn] = Field(default_factory=list)


def load_script(path: Path | None) -> Script:
    """Read and validate a script file. Raises `ProviderError("script", ...)` naming the problem."""
    if path is None:
        raise ProviderError("script", "no script configured: set IAC_CODE_SCRIPT to a JSON script file")
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProviderError("script", f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ProviderError("script", f"{path} is not valid JSON: {exc}") from None
    try:
        return Script.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ProviderError("script", f"{path}: {where}: {first['msg']}") from None


def _latest_user_text(messages: list[Message]) -> str:
    for msg in reversed(messages):
        if msg.role == "user":
            parts = []
            for b in msg.content:
                if isinstance(b, TextBlock):
                    parts.append(b.text)
                elif isinstance(b, ToolResultBlock):
                    parts.append(b.content)
                elif isinstance(b, ImageBlock):  # what a script can match on: `[image: image/png, 67 bytes]`
                    parts.append(f"[image: {b.media_type}, {len(base64.b64decode(b.data))} bytes]")
            return "\n".join(parts)
    return ""


class ScriptedProvider:
    """Plays a `Script`; one instance per session, remembering which turns that session used."""

    def __init__(self, script_path: Path | None, context_window: int | None = None, chunk_delay_ms: float | None = None) -> None:
        """`chunk_delay_ms`, when not None, replaces every turn's own (`IAC_CODE_SCRIPT_CHUNK_DELAY_MS`)."""
        self._script_path = script_path
        self._chunk_delay_ms = chunk_delay_ms
        self._script: Script | None = None
        self._used: set[int] = set()
        self._context_window = context_window or DEFAULT_CONTEXT_WINDOW

    def context_window(self, model: str) -> int:
        """The configured context window (default 200,000 tokens)."""
        return self._context_window

    def supports_thinking(self, model: str) -> bool:
        """Scripted thinking is always available."""
        return True

    async def aclose(self) -> None:
        """Nothing to release."""

    def _next_turn(self, latest: str) -> ScriptTurn | None:
        if self._script is None:
            self._script = load_script(self._script_path)
        for i, turn in enumerate(self._script.turns):
            if i in self._used:
                continue
            if turn.match is None or turn.match in latest:
                self._used.add(i)
                return turn
        return None

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        """Stream the next matching turn (see the module docstring)."""
        input_tokens = estimate_tokens(request.messages, request.system) + sum(
            len(t.description) // 4 + 50 for t in request.tools
        )
        turn: ScriptTurn | None
        if request.purpose == "compaction":
            turn = ScriptTurn(blocks=[ScriptText(type="text", text=_summary(request.messages[:-1]))])
        else:
            turn = self._next_turn(_latest_user_text(request.messages))
            if turn is None:
                turn = ScriptTurn(
                    blocks=[
                        ScriptText(
                            type="text",
                            text="[scripted model] The script has no turn left that matches this message.",
                        )
                    ],
                    stop_reason="end_turn",
                )
        delay = (turn.chunk_delay_ms if self._chunk_delay_ms is None else self._chunk_delay_ms) / 1000
        content: list[ContentBlock] = []
        output_chars = 0
        yield UsageReported(Usage(input_tokens=input_tokens, output_tokens=1))  # as the API's message_start does
        for block in turn.blocks:
            if isinstance(block, ScriptError):  # the request counts its input and the output so far
                error = ProviderError(block.kind, block.message)
                error.usage = Usage(input_tokens=input_tokens, output_tokens=output_chars // 4)
                raise error
            if isinstance(block, ScriptToolUse):
                tool = ToolUseBlock(id=f"toolu_{uuid.uuid4().hex[:24]}", name=block.name, input=block.input)
                yield ToolUseStart(id=tool.id, name=tool.name)
                if delay:
                    await asyncio.sleep(delay)
                content.append(tool)
                output_chars += len(json.dumps(block.input))
                continue
            text = block.text if isinstance(block, ScriptText) else block.thinking
            for piece in _CHUNK.findall(text):
                if delay:
                    await asyncio.sleep(delay)
                yield TextDelta(piece) if isinstance(block, ScriptText) else ThinkingDelta(piece)
            content.append(
                TextBlock(text=text) if isinstance(block, ScriptText) else ThinkingBlock(thinking=text, signature="scripted")
            )
            output_chars += len(text)
        stop = turn.stop_reason or ("tool_use" if any(isinstance(b, ToolUseBlock) for b in content) else "end_turn")
        usage = Usage(input_tokens=input_tokens, output_tokens=output_chars // 4 + 1)
        yield MessageDone(message=Message(role="assistant", content=content), stop_reason=stop, usage=usage)


def _summary(messages: list[Message]) -> str:
    """A deterministic stand-in for a model-written summary: the user's prompts, abridged."""
    prompts = [m.text().strip().splitlines()[0][:120] for m in messages if m.is_prompt and m.text().strip()]
    lines = [f"- the user asked: {p}" for p in prompts[-20:]]
    return "Summary of the earlier conversation:\n" + ("\n".join(lines) if lines else "- (no user prompts)")
