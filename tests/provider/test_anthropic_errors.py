"""Failures of the Anthropic provider: SDK retries, mid-stream errors, cut and stalled streams, classification."""

from __future__ import annotations

import httpx2
import pytest
from anthropic_rig import API_KEY, anthropic_provider, collect, request
from fake_anthropic import (
    STALL,
    api_error,
    cut_after_deltas,
    cut_before,
    error_event,
    message,
    text,
    tool_use,
)

from iac_code.config import Settings
from iac_code.core.conversation import ToolUseBlock, user_text
from iac_code.core.provider import MessageDone, ProviderError, TextDelta, ToolUseStart

ANSWER = "Hello world, the plan is ready."


def streamed_text(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


async def test_529_twice_then_success_is_retried_by_the_sdk(fake, provider):
    fake.add(api_error(529, "overloaded_error"), api_error(529, "overloaded_error"), message(text(ANSWER)))
    events = await collect(provider, request(user_text("hi")))
    assert streamed_text(events) == ANSWER
    assert [r.headers["x-stainless-retry-count"] for r in fake.requests] == ["0", "1", "2"]


async def test_529_until_the_retries_run_out_is_overloaded(fake, provider):
    from iac_code.providers.anthropic import MAX_RETRIES

    fake.add(*[api_error(529, "overloaded_error", "Overloaded")] * (MAX_RETRIES + 1))
    with pytest.raises(ProviderError) as err:
        await collect(provider, request(user_text("hi")))
    assert err.value.kind == "overloaded"
    assert "Overloaded" in err.value.describe() and "overloaded" in err.value.describe()
    assert len(fake.requests) == MAX_RETRIES + 1


async def test_401_is_authentication_and_not_retried(fake, provider):
    fake.add(api_error(401, "authentication_error", "invalid x-api-key"))
    with pytest.raises(ProviderError) as err:
        await collect(provider, request(user_text("hi")))
    assert err.value.kind == "authentication"
    assert API_KEY not in err.value.describe()
    assert len(fake.requests) == 1


@pytest.mark.parametrize(
    ("status", "error_type", "message_text", "kind"),
    [
        (400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum", "context_too_long"),
        (400, "invalid_request_error", "messages.1: bad block", "invalid_request"),
        (403, "permission_error", "no access", "permission"),
        (404, "not_found_error", "model: claude-nope", "not_found"),
        (413, "request_too_large", "too big", "context_too_long"),
    ],
)
async def test_http_errors_are_classified(fake, provider, status, error_type, message_text, kind):
    fake.add(api_error(status, error_type, message_text))
    with pytest.raises(ProviderError) as err:
        await collect(provider, request(user_text("hi")))
    assert err.value.kind == kind
    assert message_text in err.value.message


def test_connection_failures_are_network_and_timeouts_timeout():
    import anthropic

    from iac_code.providers.anthropic import classify

    req = httpx2.Request("POST", "http://127.0.0.1/v1/messages")
    assert classify(anthropic.APIConnectionError(request=req)).kind == "network"
    assert classify(anthropic.APITimeoutError(request=req)).kind == "timeout"


async def test_overloaded_event_mid_stream_is_retried_once_without_repeating_text(fake, provider):
    full = message(text(ANSWER, pieces=6))
    fake.add([*cut_after_deltas(full, 3), error_event("overloaded_error")], full)
    events = await collect(provider, request(user_text("hi")))

    assert streamed_text(events) == ANSWER  # each character once
    assert events[-1].message.text() == ANSWER
    assert len(fake.requests) == 2
    assert fake.bodies[0] == fake.bodies[1]


async def test_a_second_mid_stream_error_is_reported(fake, provider):
    full = message(text(ANSWER, pieces=6))
    fake.add([*cut_after_deltas(full, 2), error_event("overloaded_error")], [*cut_after_deltas(full, 4), error_event("overloaded_error")])
    seen = []
    with pytest.raises(ProviderError) as err:
        async for event in provider.stream(request(user_text("hi"))):
            seen.append(event)
    assert err.value.kind == "overloaded"
    shown = streamed_text(seen)
    assert ANSWER.startswith(shown) and len(shown) < len(ANSWER)
    assert len(fake.requests) == 2


async def test_a_non_transient_mid_stream_error_is_not_retried(fake, provider):
    full = message(text(ANSWER))
    fake.add([*cut_after_deltas(full, 1), error_event("invalid_request_error", "bad")])
    with pytest.raises(ProviderError) as err:
        await collect(provider, request(user_text("hi")))
    assert err.value.kind == "invalid_request"
    assert len(fake.requests) == 1


async def test_retry_keeps_the_announced_tool_use_id(fake, provider):
    first = message(tool_use("toolu_first", "read_file", {"path": "main.tf"}, pieces=6), stop_reason="tool_use")
    second = message(tool_use("toolu_second", "read_file", {"path": "main.tf"}, pieces=6), stop_reason="tool_use")
    fake.add([*cut_after_deltas(first, 3), error_event("api_error", "Internal")], second)
    events = await collect(provider, request(user_text("hi")))

    assert [e for e in events if isinstance(e, ToolUseStart)] == [ToolUseStart("toolu_first", "read_file")]
    assert events[-1].message.tool_uses() == [ToolUseBlock(id="toolu_first", name="read_file", input={"path": "main.tf"})]


async def test_a_stream_cut_before_its_stop_reason_is_incomplete(fake, provider):
    fake.add(cut_before(message(text(ANSWER)), "message_delta"))
    seen = []
    with pytest.raises(ProviderError) as err:
        async for event in provider.stream(request(user_text("hi"))):
            seen.append(event)
    assert err.value.kind == "incomplete"
    assert streamed_text(seen) == ANSWER
    assert not any(isinstance(e, MessageDone) for e in seen)


async def test_an_unreadable_event_is_a_server_error(fake, provider):
    """Malformed event data (e.g. from a gateway at ANTHROPIC_BASE_URL) is reported like any
    provider failure, not raised as a bare JSONDecodeError that the loop takes for a crash."""
    fake.add([*cut_after_deltas(message(text(ANSWER)), 1), ("content_block_delta", b"{not json")])
    with pytest.raises(ProviderError) as err:
        await collect(provider, request(user_text("hi")))
    assert err.value.kind == "server"
    assert "could not be read" in err.value.message
    assert len(fake.requests) == 1


async def test_a_stalled_stream_is_abandoned(fake, tmp_path):
    settings = Settings(anthropic_api_key=API_KEY, anthropic_base_url=fake.url, stream_idle_timeout=0.2)
    provider = anthropic_provider(settings)
    fake.add([*cut_after_deltas(message(text(ANSWER)), 1), STALL])
    try:
        with pytest.raises(ProviderError) as err:
            await collect(provider, request(user_text("hi")))
    finally:
        await provider.aclose()
    assert err.value.kind == "stalled"
    assert len(fake.requests) == 1


@pytest.mark.parametrize("sdk_config_dir", [True, False])
async def test_no_credentials_is_an_authentication_error(fake, monkeypatch, tmp_path, sdk_config_dir):
    if not sdk_config_dir:  # without it the SDK raises TypeError at the request, with it CredentialsError
        monkeypatch.delenv("ANTHROPIC_CONFIG_DIR")
        monkeypatch.setenv("HOME", str(tmp_path))
    provider = anthropic_provider(Settings(anthropic_base_url=fake.url))
    try:
        with pytest.raises(ProviderError) as err:
            await collect(provider, request(user_text("hi")))
    finally:
        await provider.aclose()
    assert err.value.kind == "authentication"
    assert fake.requests == []


async def test_a_stream_that_breaks_off_reports_the_usage_of_every_attempt(fake, provider):
    """Both attempts started (message_start reported their input): the failure carries both."""
    full = message(text(ANSWER, pieces=6), input_tokens=20)
    fake.add([*cut_after_deltas(full, 2), error_event("overloaded_error")], [*cut_after_deltas(full, 4), error_event("overloaded_error")])
    with pytest.raises(ProviderError) as err:
        await collect(provider, request(user_text("hi")))
    assert err.value.usage.input_tokens == 40


async def test_a_retried_stream_counts_the_broken_attempt_in_the_final_usage(fake, provider):
    full = message(text(ANSWER, pieces=6), input_tokens=20)
    fake.add([*cut_after_deltas(full, 3), error_event("overloaded_error")], full)
    events = await collect(provider, request(user_text("hi")))
    assert isinstance(events[-1], MessageDone)
    assert events[-1].usage.input_tokens == 40
