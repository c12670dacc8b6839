"""The Anthropic provider against the fake Messages API: streamed events, the final message, the request."""

from __future__ import annotations

import json
import subprocess
import sys

from anthropic_rig import API_KEY, MODEL, collect, request, anthropic_provider
from fake_anthropic import message, redacted_thinking, text, thinking, tool_use

from iac_code.config import Settings
from iac_code.core.conversation import (
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    user_text,
)
from iac_code.core.provider import (
    MessageDone,
    ModelRequest,
    TextDelta,
    ThinkingDelta,
    ToolSpec,
    ToolUseStart,
    Usage,
    UsageReported,
)

SPEC = ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}})


async def test_text_streams_as_deltas_and_ends_with_the_message(fake, provider):
    fake.add(message(text("Hello from Claude.", pieces=4), input_tokens=30, output_tokens=7, cache_read=100, cache_write=50))
    events = await collect(provider, request(user_text("hi")))

    assert [type(e) for e in events] == [UsageReported] + [TextDelta] * 4 + [UsageReported, MessageDone]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello from Claude."
    # the usage as the API reports it: the input at the start (output 1 in message_start), all at the end
    assert events[0].usage == Usage(input_tokens=30, output_tokens=1, cache_read_tokens=100, cache_write_tokens=50)
    assert events[-2].usage == Usage(input_tokens=30, output_tokens=7, cache_read_tokens=100, cache_write_tokens=50)
    done = events[-1]
    assert done.message == Message(role="assistant", content=[TextBlock(text="Hello from Claude.")])
    assert done.stop_reason == "end_turn"
    assert done.usage == Usage(input_tokens=30, output_tokens=7, cache_read_tokens=100, cache_write_tokens=50)


async def test_request_carries_key_system_tools_and_cache_breakpoints(fake, provider):
    fake.add(message(text("ok")))
    await collect(provider, request(user_text("first"), tools=[SPEC, ToolSpec("note", "Note.", {"type": "object"})]))

    sent = fake.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"
    body = sent.body
    assert body["model"] == MODEL and body["stream"] is True
    assert body["system"] == [{"type": "text", "text": "You are a test.", "cache_control": {"type": "ephemeral"}}]
    assert [t["name"] for t in body["tools"]] == ["read_file", "note"]
    assert "cache_control" not in body["tools"][0]
    assert body["tools"][1]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][0]["input_schema"] == SPEC.input_schema
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "first", "cache_control": {"type": "ephemeral"}}]}
    ]
    assert "thinking" not in body


async def test_thinking_streams_and_its_signature_is_sent_back(fake, provider):
    fake.add(message(thinking("Let me think.", signature="sig-abc"), redacted_thinking("ENCRYPTED"), text("Done.")))
    events = await collect(provider, request(user_text("think"), thinking_budget=2048, max_tokens=8000))

    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)) == "Let me think."
    done = events[-1]
    assert done.message.content == [
        ThinkingBlock(thinking="Let me think.", signature="sig-abc"),
        RedactedThinkingBlock(data="ENCRYPTED"),
        TextBlock(text="Done."),
    ]
    assert fake.bodies[0]["thinking"] == {"type": "enabled", "budget_tokens": 2048}

    fake.add(message(text("Again.")))
    await collect(provider, request(user_text("think"), done.message, user_text("more"), thinking_budget=2048, max_tokens=8000))
    assistant = fake.bodies[1]["messages"][1]
    assert assistant == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Let me think.", "signature": "sig-abc"},
            {"type": "redacted_thinking", "data": "ENCRYPTED"},
            {"type": "text", "text": "Done."},
        ],
    }


async def test_adaptive_thinking_for_models_the_sdk_warns_about(fake, provider):
    fake.add(message(text("ok")))
    await collect(provider, ModelRequest(model="claude-opus-4-6", system="s", messages=[user_text("hi")], thinking_budget=2048))
    assert fake.bodies[0]["thinking"] == {"type": "adaptive"}
    assert provider.supports_thinking("claude-haiku-4-5")
    assert not provider.supports_thinking("claude-3-5-haiku-latest")


async def test_tool_use_json_in_many_pieces(fake, provider):
    content = "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"logs\"\n}\n" * 20
    fake.add(message(text("Writing."), tool_use("toolu_1", "write_file", {"path": "main.tf", "content": content}, pieces=97), stop_reason="tool_use"))
    events = await collect(provider, request(user_text("write it")))

    starts = [e for e in events if isinstance(e, ToolUseStart)]
    assert starts == [ToolUseStart(id="toolu_1", name="write_file")]
    assert events.index(starts[0]) < len(events) - 1  # announced while the input still streamed
    done = events[-1]
    assert done.stop_reason == "tool_use"
    assert done.message.tool_uses() == [ToolUseBlock(id="toolu_1", name="write_file", input={"path": "main.tf", "content": content})]


async def test_two_tool_uses_in_one_response_come_back_in_order(fake, provider):
    fake.add(
        message(
            tool_use("toolu_a", "read_file", {"path": "a.tf"}),
            tool_use("toolu_b", "read_file", {"path": "b.tf"}),
            stop_reason="tool_use",
        )
    )
    events = await collect(provider, request(user_text("read both")))
    assert [e.id for e in events if isinstance(e, ToolUseStart)] == ["toolu_a", "toolu_b"]
    assert [(u.id, u.input) for u in events[-1].message.tool_uses()] == [("toolu_a", {"path": "a.tf"}), ("toolu_b", {"path": "b.tf"})]


async def test_max_tokens_in_the_middle_of_a_tool_use_does_not_crash(fake, provider):
    fake.add(message(tool_use("toolu_1", "write_file", {"path": "x.tf", "content": "abc" * 50}, cut_at=0.5), stop_reason="max_tokens"))
    done = (await collect(provider, request(user_text("go"))))[-1]
    assert done.stop_reason == "max_tokens"
    assert done.message.tool_uses() == [ToolUseBlock(id="toolu_1", name="write_file", input={})]


async def test_refusal_and_context_window_stop_reasons(fake, provider):
    fake.add(message(text("I can't help with that."), stop_reason="refusal"))
    fake.add(message(text("cut"), stop_reason="model_context_window_exceeded"))
    assert (await collect(provider, request(user_text("x"))))[-1].stop_reason == "refusal"
    assert (await collect(provider, request(user_text("x"))))[-1].stop_reason == "max_tokens"


async def test_history_after_a_tool_result_and_merged_roles(fake, provider):
    fake.add(message(text("It has one bucket.")))
    history = [
        user_text("what is in main.tf?"),
        Message(role="assistant", content=[TextBlock(text="Reading."), ToolUseBlock(id="toolu_1", name="read_file", input={"path": "main.tf"})]),
        Message(role="user", content=[ToolResultBlock(tool_use_id="toolu_1", content="bucket {}")]),
        user_text("   "),  # blank text is dropped
        user_text("and?"),  # consecutive user messages are merged
    ]
    await collect(provider, request(*history, tools=[SPEC]))
    assert fake.bodies[0]["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "what is in main.tf?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "main.tf"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "bucket {}", "is_error": False},
                {"type": "text", "text": "and?", "cache_control": {"type": "ephemeral"}},
            ],
        },
    ]


async def test_context_window_default_and_override(fake, settings):
    assert anthropic_provider(settings).context_window(MODEL) == 200_000
    custom = Settings(anthropic_api_key=API_KEY, anthropic_base_url=fake.url, context_window=50_000)
    assert anthropic_provider(custom).context_window(MODEL) == 50_000


def test_importing_the_providers_package_does_not_import_anthropic():
    code = "import sys, iac_code.providers, iac_code.agent.session; sys.exit('anthropic' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


async def test_credentials_and_endpoint_from_the_config_file(fake, tmp_path, monkeypatch):
    config_dir = tmp_path / "from-file"
    config_dir.mkdir()
    key = "sk-test-from-config-file-0123456789"
    (config_dir / "config.json").write_text(json.dumps({"anthropic_api_key": key, "anthropic_base_url": fake.url}))
    monkeypatch.setenv("IAC_CODE_CONFIG_DIR", str(config_dir))
    provider = anthropic_provider(Settings())
    fake.add(message(text("ok")))
    try:
        await collect(provider, request(user_text("hi")))
    finally:
        await provider.aclose()
    assert fake.requests[0].headers["authorization"] == f"Bearer {key}"


async def test_lone_surrogates_never_reach_the_request_or_the_history(fake, provider):
    """UTF-8 cannot encode a lone surrogate: the SDK raised UnicodeEncodeError for every later request
    of a conversation holding one (a non-UTF-8 file name decoded with surrogateescape, a `\\ud800`
    escape in a tool input), so the session could not go on. They are sent as U+FFFD."""
    fake.add(message(tool_use("toolu_1", "list_files", {"path": "bad\ud800name"}), stop_reason="tool_use"))
    done = (await collect(provider, request(user_text("list"))))[-1]
    assert done.message.tool_uses()[0].input == {"path": "bad\ufffdname"}

    fake.add(message(text("ok")))
    history = [
        user_text("list"),
        Message(role="assistant", content=[ToolUseBlock(id="toolu_1", name="list_files", input={"path": "x\udcff"})]),
        Message(role="user", content=[ToolResultBlock(tool_use_id="toolu_1", content="caf\udce9.tf")]),
    ]
    assert (await collect(provider, request(*history)))[-1].stop_reason == "end_turn"
    messages = fake.bodies[1]["messages"]
    assert messages[1]["content"][0]["input"] == {"path": "x\ufffd"}
    assert messages[2]["content"][0]["content"] == "caf\ufffd.tf"
