"""The Anthropic provider: Claude models through the official `anthropic` SDK's Messages API.

One `AnthropicProvider` serves one session. For each `ModelRequest` it builds a Messages API
request (system prompt, tools, history; prompt-cache breakpoints; extended thinking) and turns
the streamed response into provider events as they arrive: `TextDelta`/`ThinkingDelta` per
delta, `ToolUseStart` when a `tool_use` block starts, and one `MessageDone` with the complete
assistant `Message` (text, thinking with its signature, redacted thinking, tool uses in order).

Streaming API: `client.messages.create(..., stream=True)`, which yields the raw stream events.
`client.messages.stream()` would add an accumulator we do not need: we build our own
provider-neutral `Message` from the same events, and its accumulator re-parses the whole
partial tool-input JSON on every `input_json_delta` (quadratic in the size of a large
`write_file`). The SDK still does all SSE parsing and HTTP.

Failures become `ProviderError`s (see `classify`):

- before the stream starts, the SDK retries 408/409/429/5xx/529 and connection errors itself
  (`MAX_RETRIES`, exponential backoff honouring `retry-after(-ms)`);
- an `error` event or a dropped connection in the middle of a stream (the SDK raises a plain
  `APIStatusError` with status 200 and does not retry) is retried once here, after the
  response's `retry-after(-ms)` or `MIDSTREAM_RETRY_DELAY`, when its kind is transient; the text
  and thinking the client already received are not sent again, and tool uses already announced
  keep their ids;
- a stream with no event for `settings.stream_idle_timeout` seconds is aborted as `stalled`;
- event data that cannot be parsed is a `server` error (not retried);
- a stream that ends without a stop reason is `incomplete`, never a silent success.

Stop reasons pass through, except `model_context_window_exceeded`, which is reported as
`max_tokens`: the response was cut short by a token limit, and the loop treats it the same way
(it keeps the text, fails any cut-off tool use and ends the turn with `max_tokens`).

Credentials (`ANTHROPIC_API_KEY` / `ANTHROPIC_AUTH_TOKEN`) and the endpoint
(`ANTHROPIC_BASE_URL`) come from `Settings` (environment, then config file); they are handed to
the SDK and never logged.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anthropic
import httpx2  # the SDK's HTTP library: mid-stream transport errors surface as its exceptions

from iac_code.config import Settings
from iac_code.core.conversation import (
    ContentBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    valid_text,
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
)

log = logging.getLogger(__name__)

DEFAULT_CONTEXT_WINDOW = 200_000
"""Context window in tokens. The SDK documents no model with a larger default window (1M tokens
needs the `context-1m` beta, which we do not request); `settings.context_window` overrides it."""

MAX_RETRIES = 4
"""Retries the SDK makes before a stream starts (backoff 0.5 s, 1 s, 2 s, 4 s unless told)."""

CONNECT_TIMEOUT = 10.0
"""Seconds to establish a connection."""

MIDSTREAM_RETRY_DELAY = 0.5
"""Seconds before retrying an interrupted stream when the response named no delay."""

MIDSTREAM_RETRYABLE: frozenset[ErrorKind] = frozenset({"overloaded", "rate_limited", "server", "timeout", "network"})
"""Kinds of mid-stream failure worth one retry (the ones the SDK retries before a stream)."""

ADAPTIVE_THINKING_MODELS = frozenset({"claude-opus-4-6", "claude-mythos-preview"})
"""Models the SDK warns about for `{"type": "enabled"}` thinking (its
`MODELS_TO_WARN_WITH_THINKING_ENABLED`); they get `{"type": "adaptive"}` instead of a budget."""

_NO_THINKING = re.compile(r"^claude-(instant|2|3-(opus|sonnet|haiku|5))")
"""Claude models from before extended thinking (3.7 Sonnet was the first with it)."""

CACHE_CONTROL = {"type": "ephemeral"}

NO_CREDENTIALS = "no Anthropic credentials: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN"

STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "stop_sequence": "stop_sequence",
    "tool_use": "tool_use",
    "pause_turn": "pause_turn",
    "max_tokens": "max_tokens",
    "refusal": "refusal",
    "model_context_window_exceeded": "max_tokens",
}
"""API stop reason -> provider stop reason (see the module docstring)."""

_KIND_BY_TYPE: dict[str, ErrorKind] = {
    "overloaded_error": "overloaded",
    "rate_limit_error": "rate_limited",
    "authentication_error": "authentication",
    "permission_error": "permission",
    "billing_error": "permission",
    "not_found_error": "not_found",
    "invalid_request_error": "invalid_request",
    "request_too_large": "context_too_long",
    "timeout_error": "timeout",
    "api_error": "server",
}
_KIND_BY_STATUS: dict[int, ErrorKind] = {
    400: "invalid_request",
    401: "authentication",
    402: "permission",
    403: "permission",
    404: "not_found",
    408: "timeout",
    413: "context_too_long",
    429: "rate_limited",
    504: "timeout",
    529: "overloaded",
}
_TOO_LONG = re.compile(r"prompt is too long|context (window|length)|too many (input )?tokens", re.IGNORECASE)


class AnthropicProvider:
    """Streams Claude responses for one session (see the module docstring).

    `settings` supplies the credentials, base URL, `stream_idle_timeout` (seconds) and the
    optional `context_window` override. The SDK client is created on the first request.
    """

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._client: anthropic.AsyncAnthropic | None = None

    def _connect(self) -> anthropic.AsyncAnthropic:
        """The SDK client, created on first use. Raises `ProviderError("authentication")` when
        the SDK finds no credentials."""
        if self._client is None:
            try:
                self._client = anthropic.AsyncAnthropic(
                    api_key=_secret(self._settings.anthropic_api_key),
                    auth_token=_secret(self._settings.anthropic_auth_token),
                    base_url=self._settings.anthropic_base_url,
                    max_retries=MAX_RETRIES,
                    # The read timeout also bounds the wait for a response to start (the SDK retries that).
                    timeout=anthropic.Timeout(self._settings.stream_idle_timeout, connect=CONNECT_TIMEOUT),
                )
            except anthropic.CredentialsError as exc:  # e.g. an SDK profile named but missing
                raise ProviderError("authentication", str(exc)) from None
        return self._client

    def context_window(self, model: str) -> int:
        """`settings.context_window` if set, else `DEFAULT_CONTEXT_WINDOW` tokens."""
        return self._settings.context_window or DEFAULT_CONTEXT_WINDOW

    def supports_thinking(self, model: str) -> bool:
        """Whether `model` takes extended thinking: Claude models from 3.7 Sonnet on."""
        return model.startswith("claude-") and not _NO_THINKING.match(model)

    async def aclose(self) -> None:
        """Close the SDK client and its connections."""
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        """Stream the response to `request`; the last event is a `MessageDone`.

        Raises `ProviderError` (kinds as in `classify`, plus `stalled` and `incomplete`).
        Closing the iterator (or cancelling its consumer) closes the HTTP stream.
        """
        params = request_params(request, self.supports_thinking(request.model))
        shown = _Shown()
        retried = False
        while True:
            try:
                async for event in self._attempt(params, shown):
                    yield event
                return
            except _Interrupted as exc:
                if retried or exc.error.kind not in MIDSTREAM_RETRYABLE:
                    raise exc.error from None
                retried = True
                log.warning("model stream interrupted (%s: %s); retrying once", exc.error.kind, exc.error.message)
                await asyncio.sleep(exc.delay)

    async def _attempt(self, params: dict[str, Any], shown: _Shown) -> AsyncIterator[ProviderEvent]:
        """One request and its stream. Raises `_Interrupted` for a failure after the stream started."""
        try:
            stream = await self._connect().messages.create(**params, stream=True)
        except anthropic.APIError as exc:
            raise classify(exc) from None
        except anthropic.CredentialsError as exc:  # a credentials source the SDK could not read
            raise ProviderError("authentication", str(exc)) from None
        except TypeError as exc:  # the SDK's way of saying it found no credentials at all
            if "authentication" not in str(exc):
                raise
            raise ProviderError("authentication", NO_CREDENTIALS) from None
        builder = _MessageBuilder()
        replay = _Replay(shown)
        try:
            async for raw in _idle_limited(stream, self._settings.stream_idle_timeout):
                for event in builder.apply(raw):
                    fresh = replay.unseen(event)
                    if fresh is not None:
                        yield fresh
        except anthropic.APIStatusError as exc:  # an `error` event in the stream
            raise _Interrupted(classify(exc), _retry_delay(stream.response.headers)) from None
        except httpx2.TimeoutException:
            raise ProviderError("stalled", _stalled_message(self._settings.stream_idle_timeout)) from None
        except (httpx2.TransportError, anthropic.APIConnectionError) as exc:
            raise _Interrupted(ProviderError("network", f"the stream broke off: {exc}"), MIDSTREAM_RETRY_DELAY) from None
        except ValueError as exc:  # event data that is not JSON (or not an event), e.g. from a gateway
            raise ProviderError("server", f"the stream could not be read: {exc}") from None
        finally:
            await stream.close()
        message, stop_reason, usage = builder.finish(shown.tool_use_ids)
        yield MessageDone(message=message, stop_reason=stop_reason, usage=usage)


# ----- the request -----


def request_params(request: ModelRequest, thinking_supported: bool) -> dict[str, Any]:
    """The keyword arguments of `messages.create` for `request` (JSON-shaped dicts).

    Cache breakpoints (`cache_control: ephemeral`) go on the system prompt, the last tool and the
    last cacheable block of the last message, so each request reads the previous one's prefix
    from the cache. Extended thinking is requested when `request.thinking_budget` is set and
    `thinking_supported`. Lone surrogates become U+FFFD (`_valid_unicode`).
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
    return _valid_unicode(params)


def message_params(messages: list[Message]) -> list[dict[str, Any]]:
    """The conversation as Messages API `messages`.

    Blocks the API would reject are left out (empty or blank text, thinking without a signature),
    messages left empty are dropped, consecutive messages of the same role (after a cancelled or
    failed turn) are merged, and the last cacheable block gets a cache breakpoint.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        content = [_block_param(b) for b in message.content if _sendable(b)]
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


def _sendable(block: ContentBlock) -> bool:
    if isinstance(block, TextBlock):
        return bool(block.text.strip())
    if isinstance(block, ThinkingBlock):
        return bool(block.signature)
    return True


def _block_param(block: ContentBlock) -> dict[str, Any]:
    param = block.model_dump(mode="json")
    if isinstance(block, ToolResultBlock) and not block.content:
        del param["content"]
    return param


# ----- the response -----


@dataclass(slots=True)
class _Shown:
    """What the client has been shown of one response, across attempts: characters of answer
    text and of reasoning, and the ids of the tool uses announced (in order)."""

    text: int = 0
    thinking: int = 0
    tool_use_ids: list[str] = field(default_factory=list)


class _Replay:
    """Filters one attempt's events so nothing the client was already shown is sent again.

    A retried response normally starts the same way as the interrupted one: its first `shown`
    characters of text (and of thinking) are dropped, and its first tool uses, already
    announced, are not announced again (they take over the announced ids in `MessageDone`).
    """

    def __init__(self, shown: _Shown) -> None:
        self._shown = shown
        self._text = 0
        self._thinking = 0
        self._tool_uses = 0

    def unseen(self, event: ProviderEvent) -> ProviderEvent | None:
        """`event`, cut to its part the client has not seen yet, or None if it saw all of it."""
        shown = self._shown
        if isinstance(event, TextDelta):
            start, self._text = self._text, self._text + len(event.text)
            fresh = event.text[max(0, shown.text - start) :]
            shown.text = max(shown.text, self._text)
            return TextDelta(fresh) if fresh else None
        if isinstance(event, ThinkingDelta):
            start, self._thinking = self._thinking, self._thinking + len(event.text)
            fresh = event.text[max(0, shown.thinking - start) :]
            shown.thinking = max(shown.thinking, self._thinking)
            return ThinkingDelta(fresh) if fresh else None
        if isinstance(event, ToolUseStart):
            index, self._tool_uses = self._tool_uses, self._tool_uses + 1
            if index < len(shown.tool_use_ids):
                return None
            shown.tool_use_ids.append(event.id)
        return event


@dataclass(slots=True)
class _BlockParts:
    """A content block being streamed; text pieces are joined once, at the end."""

    type: str
    parts: list[str] = field(default_factory=list)
    signature: list[str] = field(default_factory=list)
    id: str = ""
    name: str = ""
    data: str = ""


class _MessageBuilder:
    """Accumulates raw stream events into the assistant message, its stop reason and usage."""

    def __init__(self) -> None:
        self._blocks: dict[int, _BlockParts] = {}
        self._usage = Usage()
        self._stop_reason: str | None = None

    def apply(self, event: Any) -> list[ProviderEvent]:
        """Take one raw SDK stream event; return the provider events it produces."""
        kind = event.type
        if kind == "message_start":
            usage = event.message.usage
            self._usage = Usage(
                input_tokens=usage.input_tokens or 0,
                output_tokens=usage.output_tokens or 0,
                cache_read_tokens=usage.cache_read_input_tokens or 0,
                cache_write_tokens=usage.cache_creation_input_tokens or 0,
            )
        elif kind == "content_block_start":
            return self._start(event.index, event.content_block)
        elif kind == "content_block_delta":
            return self._delta(event.index, event.delta)
        elif kind == "message_delta":
            self._stop_reason = event.delta.stop_reason or self._stop_reason
            usage = event.usage
            self._usage.output_tokens = usage.output_tokens
            if usage.input_tokens is not None:
                self._usage.input_tokens = usage.input_tokens
            if usage.cache_read_input_tokens is not None:
                self._usage.cache_read_tokens = usage.cache_read_input_tokens
            if usage.cache_creation_input_tokens is not None:
                self._usage.cache_write_tokens = usage.cache_creation_input_tokens
        return []

    def _start(self, index: int, block: Any) -> list[ProviderEvent]:
        if block.type == "text":
            self._blocks[index] = _BlockParts("text", [block.text])
            return [TextDelta(block.text)] if block.text else []
        if block.type == "thinking":
            self._blocks[index] = _BlockParts("thinking", [block.thinking], [block.signature or ""])
            return [ThinkingDelta(block.thinking)] if block.thinking else []
        if block.type == "redacted_thinking":
            self._blocks[index] = _BlockParts("redacted_thinking", data=block.data)
        elif block.type == "tool_use":
            self._blocks[index] = _BlockParts("tool_use", id=block.id, name=block.name)
            return [ToolUseStart(id=block.id, name=block.name)]
        else:
            log.debug("ignoring content block of type %s", block.type)
        return []

    def _delta(self, index: int, delta: Any) -> list[ProviderEvent]:
        block = self._blocks.get(index)
        if block is None:
            return []
        if delta.type == "text_delta":
            block.parts.append(delta.text)
            return [TextDelta(delta.text)]
        if delta.type == "thinking_delta":
            block.parts.append(delta.thinking)
            return [ThinkingDelta(delta.thinking)]
        if delta.type == "signature_delta":
            block.signature.append(delta.signature)
        elif delta.type == "input_json_delta":
            block.parts.append(delta.partial_json)
        return []

    def finish(self, tool_use_ids: list[str]) -> tuple[Message, StopReason, Usage]:
        """The complete message, its provider stop reason and usage.

        Tool uses take the ids in `tool_use_ids` by position (the ids announced to the client).
        Raises `ProviderError("incomplete")` when the stream never gave a stop reason, or when
        it announced fewer tool uses than the client was shown.
        """
        if self._stop_reason is None:
            raise ProviderError("incomplete", "the stream ended before the response's stop reason arrived")
        content: list[ContentBlock] = []
        tool_uses = 0
        for _, block in sorted(self._blocks.items()):
            if block.type == "text":
                content.append(TextBlock(text="".join(block.parts)))
            elif block.type == "thinking":
                content.append(ThinkingBlock(thinking="".join(block.parts), signature="".join(block.signature)))
            elif block.type == "redacted_thinking":
                content.append(RedactedThinkingBlock(data=block.data))
            else:
                tool_id = tool_use_ids[tool_uses] if tool_uses < len(tool_use_ids) else block.id
                content.append(ToolUseBlock(id=tool_id, name=block.name, input=_tool_input("".join(block.parts))))
                tool_uses += 1
        if tool_uses < len(tool_use_ids):
            raise ProviderError("incomplete", "the retried response did not repeat the tool uses already announced")
        stop_reason = STOP_REASONS.get(self._stop_reason)
        if stop_reason is None:
            log.warning("unknown stop reason %r, treated as end_turn", self._stop_reason)
            stop_reason = "end_turn"
        return Message(role="assistant", content=content), stop_reason, self._usage


def _tool_input(raw: str) -> dict[str, Any]:
    """The tool input from its streamed JSON; `{}` when it is empty, cut off (`max_tokens`) or not
    an object (the loop does not run tool uses of a `max_tokens` response; otherwise the tool's
    input validation tells the model what is missing)."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        log.debug("tool input is not complete JSON (%d characters)", len(raw))
        return {}
    return _valid_unicode(value) if isinstance(value, dict) else {}


def _valid_unicode(value: Any) -> Any:
    """`value` (JSON-shaped) with every lone surrogate replaced by U+FFFD.

    UTF-8 cannot encode lone surrogates, so the SDK cannot send a request holding one: one in the
    history would fail every later request of the session. They come from `\\udXXX` escapes in
    a model's tool input and from text decoded with `surrogateescape` (non-UTF-8 file names).
    """
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, list):
        return [_valid_unicode(v) for v in value]
    if isinstance(value, dict):
        return {_valid_unicode(k): _valid_unicode(v) for k, v in value.items()}
    return value


async def _idle_limited(stream: Any, seconds: float) -> AsyncIterator[Any]:
    """The events of `stream`; raises `ProviderError("stalled")` after `seconds` without one."""
    while True:
        try:
            async with asyncio.timeout(seconds):
                event = await stream.__anext__()
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise ProviderError("stalled", _stalled_message(seconds)) from None
        yield event


def _stalled_message(seconds: float) -> str:
    return f"no data for {seconds:g} seconds; the response was abandoned"


# ----- errors -----


class _Interrupted(Exception):
    """A stream failed after it started; `delay` is the seconds to wait before a retry."""

    def __init__(self, error: ProviderError, delay: float) -> None:
        super().__init__(error.message)
        self.error = error
        self.delay = delay


def classify(exc: anthropic.APIError) -> ProviderError:
    """The `ProviderError` for an SDK failure.

    Status errors are classified by the API's error type (also present in mid-stream `error`
    events, which carry status 200), else by HTTP status; an invalid request that says the
    prompt is too long is `context_too_long`. Connection failures are `network`, timeouts
    `timeout`; anything else (e.g. a response that does not validate) is `server`.
    """
    if isinstance(exc, anthropic.APITimeoutError):
        return ProviderError("timeout", "no response from the model provider in time")
    if isinstance(exc, anthropic.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        return ProviderError("network", f"{exc.message} {cause}".strip() if cause else exc.message)
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        kind = _KIND_BY_TYPE.get(exc.type or "") or _KIND_BY_STATUS.get(status)
        if kind is None:
            kind = "invalid_request" if 400 <= status < 500 else "server"
        detail = exc.api_message or f"HTTP {status}"
        if kind == "invalid_request" and _TOO_LONG.search(detail):
            kind = "context_too_long"
        if exc.request_id:
            detail += f" (request id {exc.request_id})"
        return ProviderError(kind, detail)
    return ProviderError("server", f"{type(exc).__name__}: {exc}")


def _retry_delay(headers: Any) -> float:
    """Seconds to wait before retrying, from `retry-after-ms` / `retry-after` (at most 60 s),
    else `MIDSTREAM_RETRY_DELAY`."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            seconds = float(headers.get(name, "")) * scale
        except ValueError:
            continue
        if 0 < seconds <= 60:
            return seconds
    return MIDSTREAM_RETRY_DELAY


def _secret(value: Any) -> str | None:
    return value.get_secret_value() if value is not None else None
