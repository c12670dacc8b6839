"""initialize, session/new, modes, models and config options: on raw lines to the real agent process,
and through the SDK's client to the agent in process.

The raw checks share one agent process (`first_contact`): its first request is a session/new
before initialize, its second the initialize; each check then makes its own session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import acp
import pytest
import pytest_asyncio
from acp.schema import AvailableCommandsUpdate, ConfigOptionUpdate, CurrentModeUpdate
from harness import RawAgent, serve_agent, spawn_raw, wait_for
from iac_code.providers.models import default_claude_model  # a Claude model the installed SDK lists


def on_the_shared_agent(test: Any) -> Any:
    """Mark a check that uses `first_contact`: it runs in the module's event loop, on the worker
    that holds the agent."""
    return pytest.mark.xdist_group("acp_lifecycle")(pytest.mark.asyncio(loop_scope="module")(test))


@dataclass
class FirstContact:
    agent: RawAgent
    project: Path
    before_initialize: dict[str, Any]
    """The reply to a session/new sent before initialize."""
    initialized: dict[str, Any]
    """The initialize result."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def first_contact(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[FirstContact]:
    project = tmp_path_factory.mktemp("lifecycle") / "proj"
    async with spawn_raw(project) as agent:
        before = await agent.request("session/new", {"cwd": str(project), "mcpServers": []})
        yield FirstContact(agent, project, before, await agent.initialize())


@on_the_shared_agent
async def test_initialize_announces_protocol_capabilities(first_contact):
    result = first_contact.initialized
    assert result["protocolVersion"] == 1
    caps = result["agentCapabilities"]
    assert caps["loadSession"] is True
    assert caps["promptCapabilities"] == {"image": True, "audio": False, "embeddedContext": True}
    assert caps["sessionCapabilities"] == {"list": {}, "close": {}, "fork": {}, "resume": {}}
    assert result["agentInfo"]["name"] == "iac-code"
    assert result["agentInfo"]["version"]
    # no credentials in the environment: the env-var method is described
    (method,) = result["authMethods"]
    assert method["type"] == "env_var"
    assert [v["name"] for v in method["vars"]] == ["ANTHROPIC_API_KEY"]
    assert "ANTHROPIC_API_KEY" in method["description"]


async def test_initialize_has_no_auth_methods_when_a_key_is_configured(tmp_path):
    async with spawn_raw(tmp_path / "proj", env={"ANTHROPIC_API_KEY": "sk-test-0123456789"}) as agent:
        result = await agent.initialize()
    assert result["authMethods"] == []


@on_the_shared_agent
async def test_initialize_must_come_first(first_contact):
    reply = first_contact.before_initialize
    assert reply["error"]["code"] == -32600
    assert "initialize" in reply["error"]["data"]["details"]
    agent = first_contact.agent
    reply = await agent.request("session/new", {"cwd": str(first_contact.project), "mcpServers": []})
    assert "sessionId" in reply["result"]
    assert "result" in await agent.request("session/list", {})  # its available_commands_update read too


@on_the_shared_agent
async def test_new_session_result_has_modes_models_and_config_options(first_contact):
    agent = first_contact.agent
    reply = await agent.request("session/new", {"cwd": str(first_contact.project), "mcpServers": []})
    result = reply["result"]
    assert result["sessionId"]
    modes = result["modes"]
    assert modes["currentModeId"] == "default"
    assert [m["id"] for m in modes["availableModes"]] == ["default", "accept_edits", "sandboxed_commands", "plan", "bypass_permissions"]
    models = result["models"]
    assert models["currentModelId"] == "scripted"
    ids = [m["modelId"] for m in models["availableModels"]]
    assert "scripted" in ids and any(i.startswith("claude-") for i in ids)
    options = {o["id"]: o for o in result["configOptions"]}
    assert {k: o["category"] for k, o in options.items()} == {
        "mode": "mode",
        "model": "model",
        "thought_level": "thought_level",
    }
    assert options["mode"]["currentValue"] == "default"
    assert options["model"]["currentValue"] == "scripted"
    assert [o["value"] for o in options["thought_level"]["options"]] == ["off", "low", "medium", "high"]
    # the slash commands follow right after creation
    update = await agent.read()
    assert update["method"] == "session/update"
    assert update["params"]["sessionId"] == result["sessionId"]
    commands = update["params"]["update"]
    assert commands["sessionUpdate"] == "available_commands_update"
    assert {"compact", "clear", "help"} <= {c["name"] for c in commands["availableCommands"]}


@pytest.mark.parametrize(
    ("cwd", "why"),
    [("relative/dir", "absolute"), ("/definitely/not/here", "no such directory")],
)
async def test_new_session_rejects_bad_cwd_naming_the_field(tmp_path, cwd, why):
    async with serve_agent(tmp_path / "proj") as agent:
        with pytest.raises(acp.RequestError) as err:
            await agent.conn.new_session(cwd=cwd, mcp_servers=[])
    assert err.value.code == -32602
    assert why in err.value.data["cwd"]


async def test_new_session_without_credentials_for_a_claude_model_is_an_auth_error(tmp_path):
    async with serve_agent(tmp_path / "proj", env={"IAC_CODE_MODEL": default_claude_model()}) as agent:
        with pytest.raises(acp.RequestError) as err:
            await agent.new_session()
    assert err.value.code == -32000
    assert "ANTHROPIC_API_KEY" in err.value.data["message"]


async def test_available_commands_arrive_after_new_session(tmp_path):
    async with serve_agent(tmp_path / "proj") as agent:
        session = await agent.new_session()
        await wait_for(lambda: agent.updates(session, AvailableCommandsUpdate))
        (update,) = agent.updates(session, AvailableCommandsUpdate)
    assert [c.name for c in update.available_commands] == ["compact", "clear", "help"]


async def test_set_config_option_changes_values_and_rejects_unknowns(tmp_path):
    async with serve_agent(tmp_path / "proj") as agent:
        session = await agent.new_session()
        response = await agent.conn.set_config_option(config_id="thought_level", session_id=session, value="high")
        current = {o.id: o for o in response.config_options}
        assert current["thought_level"].current_value == "high"
        response = await agent.conn.set_config_option(config_id="mode", session_id=session, value="plan")
        assert {o.id: o.current_value for o in response.config_options}["mode"] == "plan"
        await wait_for(lambda: agent.updates(session, CurrentModeUpdate))
        assert agent.updates(session, CurrentModeUpdate)[-1].current_mode_id == "plan"
        with pytest.raises(acp.RequestError) as err:
            await agent.conn.set_config_option(config_id="colour", session_id=session, value="red")
        assert err.value.code == -32602 and "configId" in err.value.data
        with pytest.raises(acp.RequestError) as err:
            await agent.conn.set_config_option(config_id="mode", session_id=session, value="yolo")
        assert err.value.code == -32602 and "value" in err.value.data
        with pytest.raises(acp.RequestError) as err:
            await agent.conn.set_config_option(config_id="model", session_id=session, value="gpt-4")
        assert err.value.code == -32602 and "value" in err.value.data
        with pytest.raises(acp.RequestError) as err:
            await agent.conn.set_config_option(config_id="mode", session_id="nope", value="plan")
        assert err.value.code == -32602 and "sessionId" in err.value.data


@on_the_shared_agent
async def test_config_set_alias_and_set_mode(first_contact):
    agent = first_contact.agent
    session = (await agent.request("session/new", {"cwd": str(first_contact.project), "mcpServers": []}))["result"]
    sid = session["sessionId"]
    reply = await agent.request("config/set", {"sessionId": sid, "configId": "mode", "value": "accept_edits"})
    assert {o["id"]: o["currentValue"] for o in reply["result"]["configOptions"]}["mode"] == "accept_edits"
    reply = await agent.request("session/set_mode", {"sessionId": sid, "modeId": "bypass_permissions"})
    assert reply["result"] == {}
    reply = await agent.request("session/set_mode", {"sessionId": sid, "modeId": "nonsense"})
    assert reply["error"]["code"] == -32602 and "modeId" in reply["error"]["data"]
    # the change is visible in the session's config options
    reply = await agent.request("session/set_config_option", {"sessionId": sid, "configId": "thought_level", "value": "low"})
    assert {o["id"]: o["currentValue"] for o in reply["result"]["configOptions"]}["mode"] == "bypass_permissions"


async def test_set_mode_announces_the_config_change(tmp_path):
    async with serve_agent(tmp_path / "proj") as agent:
        session = await agent.new_session()
        await agent.conn.set_session_mode(session_id=session, mode_id="plan")
        await wait_for(lambda: agent.updates(session, ConfigOptionUpdate))
        update = agent.updates(session, ConfigOptionUpdate)[-1]
    assert {o.id: o.current_value for o in update.config_options}["mode"] == "plan"
