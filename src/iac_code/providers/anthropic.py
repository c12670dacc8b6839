"""The Anthropic provider: Claude models through the official `anthropic` SDK's Messages API.

One `AnthropicProvider` serves one session. For each `ModelRequest` it builds a Messages API
request (`anthropic_request`: system prompt, tools, history; prompt-cache breakpoints; extended
thinking) and turns the streamed response into provider events as they arrive
(`anthropic_stream`: `TextDelta`/`ThinkingDelta` per delta, `ToolUseStart` when a `tool_use`
block starts, and one `MessageDone` with the complete assistant `Message`). This module holds
the SDK client, the retries and the classification of failures.

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
import dataclasses
import functools
import gc
import logging
import re
import ssl
from collections.abc import AsyncIterator
from typing import Any

# The SDK's import builds ~1,500 pydantic models that live as long as the process: the collections
# Python runs meanwhile walk them and free nothing. Without them importing this module took 1.75 s
# of CPU, not 1.99 s (medians of 6, 3 Dec 2026), paid by the first session on a Claude model.
_collecting = gc.isenabled()
gc.disable()
try:
    import anthropic
    import httpx2  # the SDK's HTTP library: mid-stream transport errors surface as its exceptions
finally:
    if _collecting:
        gc.enable()

from iac_code.config import Settings
from iac_code.core.provider import (
    ErrorKind,
    MessageDone,
    ModelRequest,
    ProviderError,
    ProviderEvent,
    Usage,
    UsageReported,
)
from iac_code.providers.anthropic_request import request_params
from iac_code.providers.anthropic_stream import MessageBuilder, Replay, Shown

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

_NO_THINKING = re.compile(r"^claude-(instant|2|3-(opus|sonnet|haiku|5))")
"""Claude models from before extended thinking (3.7 Sonnet was the first with it)."""

NO_CREDENTIALS = "no Anthropic credentials: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN"

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
                    # the SDK's own client and defaults (limits, redirects, keep-alive, proxies), one TLS context
                    http_client=anthropic.DefaultAsyncHttpxClient(verify=tls_context()),
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
        shown = Shown()
        spent = Usage()  # of an attempt that broke off and was retried: counted in the end too
        retried = False
        while True:
            try:
                async for event in self._attempt(params, shown):
                    if isinstance(event, MessageDone | UsageReported):
                        event.usage.add(spent)
                    yield event
                return
            except _Interrupted as exc:
                if retried or exc.error.kind not in MIDSTREAM_RETRYABLE:
                    exc.error.usage.add(spent)
                    raise exc.error from None
                spent.add(exc.error.usage)
                retried = True
                log.warning("model stream interrupted (%s: %s); retrying once", exc.error.kind, exc.error.message)
                await asyncio.sleep(exc.delay)
            except ProviderError as exc:
                exc.usage.add(spent)
                raise

    async def _attempt(self, params: dict[str, Any], shown: Shown) -> AsyncIterator[ProviderEvent]:
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
        builder = MessageBuilder()
        replay = Replay(shown)
        try:
            async for raw in _idle_limited(stream, self._settings.stream_idle_timeout):
                for event in builder.apply(raw):
                    fresh = replay.unseen(event)
                    if fresh is not None:
                        yield fresh
                if getattr(raw, "type", None) in ("message_start", "message_delta"):  # the usage the API reports
                    yield UsageReported(dataclasses.replace(builder.usage))
        except anthropic.APIStatusError as exc:  # an `error` event in the stream
            raise _Interrupted(_spent(classify(exc), builder), _retry_delay(stream.response.headers)) from None
        except httpx2.TimeoutException:
            raise _spent(ProviderError("stalled", _stalled_message(self._settings.stream_idle_timeout)), builder) from None
        except (httpx2.TransportError, anthropic.APIConnectionError) as exc:
            error = ProviderError("network", f"the stream broke off: {exc}")
            raise _Interrupted(_spent(error, builder), MIDSTREAM_RETRY_DELAY) from None
        except ValueError as exc:  # event data that is not JSON (or not an event), e.g. from a gateway
            raise _spent(ProviderError("server", f"the stream could not be read: {exc}"), builder) from None
        except ProviderError as exc:  # e.g. stalled between events
            raise _spent(exc, builder) from None
        finally:
            await stream.close()
        try:
            message, stop_reason, usage = builder.finish(shown.tool_use_ids)
        except ProviderError as exc:
            raise _spent(exc, builder) from None
        yield MessageDone(message=message, stop_reason=stop_reason, usage=usage)






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


def _spent(error: ProviderError, builder: MessageBuilder) -> ProviderError:
    """`error` carrying the usage its stream reported before it failed."""
    error.usage.add(builder.usage)
    return error


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


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The TLS context of every session's SDK client: the one the SDK's HTTP library makes by
    default (`SSL_CERT_FILE`/`SSL_CERT_DIR`, else the system's CA bundle), made once per process
    instead of once per client. Making one parses the whole CA bundle: ~46 ms of CPU per session
    (3 Dec 2026, a slow machine), 2.5 s of the fast tier's ~55 clients."""
    return httpx2.create_ssl_context()


def _secret(value: Any) -> str | None:
    return value.get_secret_value() if value is not None else None
