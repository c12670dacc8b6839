"""End to end on a Claude model against the fake Messages API: the first test spawns `iac-code
acp` (its log file is checked), the others serve the agent in process (tests/harness.py).

A prompt runs a permission-gated `write_file` and ends `end_turn` with usage; the requests carry
the key, the system prompt, the tools and the tool result; the key never reaches the agent's log
or session files. Without credentials, `initialize` offers the env-var auth method and
`session/new` is refused with -32000.
"""

from __future__ import annotations

import asyncio

import acp
import pytest
from acp.schema import AgentMessageChunk, ClientCapabilities, Implementation, ToolCallStart, UsageUpdate
from fake_anthropic import STALL, FakeAnthropic, cut_before, message, text, tool_use
from harness import serve_agent, spawn_agent, wait_for

from iac_code.providers.models import default_claude_model

MODEL = "claude-sonnet-4-6"
KEY = "sk-test-e2e-5f1c0d9a7b3e4c2a8d6f"
CONTENT = 'resource "alicloud_vpc" "main" {\n  cidr_block = "10.0.0.0/16"\n}\n'


@pytest.fixture
def fake():
    with FakeAnthropic() as server:
        yield server


async def test_a_claude_prompt_writes_a_file_after_permission(tmp_path, fake):
    workdir = tmp_path / "proj"
    workdir.mkdir()
    (workdir / "AGENTS.md").write_text("Tag every resource with team=net.\n")
    fake.add(
        message(
            text("I'll create main.tf."),
            tool_use("toolu_write", "write_file", {"path": "main.tf", "content": CONTENT}, pieces=9),
            stop_reason="tool_use",
            input_tokens=1200,
            cache_write=3000,
            output_tokens=80,
        ),
        message(text("Created main.tf with the VPC."), input_tokens=60, cache_read=3000, output_tokens=12),
    )
    env = {"IAC_CODE_MODEL": MODEL, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.url}
    async with spawn_agent(workdir, env=env) as agent:
        session = await agent.new_session()
        result = await agent.prompt(session, "Create main.tf with a VPC")

        assert result.stop_reason == "end_turn"
        assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0
        assert result.usage.total_tokens == 1200 + 3000 + 80 + 60 + 3000 + 12
        assert (workdir / "main.tf").read_text() == CONTENT
        assert [p.tool_call.tool_call_id for p in agent.client.permissions] == ["toolu_write"]
        assert agent.final_status(session) == {"toolu_write": "completed"}
        assert [u.tool_call_id for u in agent.updates(session, ToolCallStart)] == ["toolu_write"]
        assert agent.text(session) == "I'll create main.tf.Created main.tf with the VPC."
        assert [u.used for u in agent.updates(session, UsageUpdate)] == [4280, 3072]
        config_dir = agent.config_dir

    first, second = fake.requests
    assert first.headers["authorization"] == f"Bearer {KEY}"
    assert first.body["model"] == MODEL
    system = first.body["system"][0]
    assert str(workdir) in system["text"] and "Tag every resource with team=net." in system["text"]
    assert system["cache_control"] == {"type": "ephemeral"}
    assert "write_file" in [t["name"] for t in first.body["tools"]]
    assert first.body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    tool_result = second.body["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result" and tool_result["tool_use_id"] == "toolu_write"
    assert tool_result["is_error"] is False

    log_file = config_dir / "logs" / "acp.log"
    session_files = list((config_dir / "sessions").iterdir())
    assert log_file.is_file() and session_files
    for path in [p for p in config_dir.rglob("*") if p.is_file()]:
        assert KEY not in path.read_text(encoding="utf-8", errors="replace"), path


async def test_a_claude_model_is_the_default_when_credentials_are_present(tmp_path, fake):
    fake.add(message(text("Hi.")))
    env = {"IAC_CODE_MODEL": "", "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.url}
    async with serve_agent(tmp_path / "proj", env=env) as agent:
        session = await agent.new_session()
        assert (await agent.prompt(session, "hello")).stop_reason == "end_turn"
    assert fake.bodies[0]["model"] == default_claude_model()


async def test_without_credentials_a_claude_session_needs_authentication(tmp_path):
    async with serve_agent(tmp_path / "proj", env={"IAC_CODE_MODEL": MODEL}, initialize=False) as agent:
        init = await agent.conn.initialize(
            protocol_version=acp.PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(),
            client_info=Implementation(name="iac-code-tests", version="0"),
        )
        methods = [m.model_dump(by_alias=True) for m in init.auth_methods]
        assert [m["type"] for m in methods] == ["env_var"]
        assert [v["name"] for v in methods[0]["vars"]] == ["ANTHROPIC_API_KEY"]
        with pytest.raises(acp.RequestError) as err:
            await agent.new_session()
        assert err.value.code == -32000


async def test_a_cancelled_claude_turn_reports_the_usage_of_its_requests(tmp_path, fake):
    """The first request completes (a tool call), the second is cancelled while it streams: the
    turn's usage is the first's plus the input the second reported as it started."""
    workdir = tmp_path / "proj"
    workdir.mkdir()
    (workdir / "main.tf").write_text(CONTENT)
    fake.add(
        message(tool_use("toolu_read", "read_file", {"path": "main.tf"}), stop_reason="tool_use", input_tokens=1000, output_tokens=40),
        cut_before(message(text("The VPC looks fine so far", pieces=5), input_tokens=1300, cache_read=700), "message_delta") + [STALL],
    )
    env = {"IAC_CODE_MODEL": MODEL, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.url}
    async with serve_agent(workdir, env=env) as agent:
        session = await agent.new_session()
        prompt = asyncio.create_task(agent.prompt(session, "Check main.tf"))
        await wait_for(lambda: len(agent.updates(session, AgentMessageChunk)) >= 5, timeout=20)
        await agent.conn.cancel(session_id=session)
        result = await asyncio.wait_for(prompt, 10)
    assert result.stop_reason == "cancelled"
    assert result.usage.input_tokens == 1000 + 1300
    assert result.usage.cached_read_tokens == 700
    assert result.usage.output_tokens >= 40
