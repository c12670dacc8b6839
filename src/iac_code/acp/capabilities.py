"""What the agent announces in its `initialize` answer (PROTOCOL.md, Capabilities announced by
`initialize`): protocol version, capabilities, identity and, without credentials, how to get them."""

from __future__ import annotations

import acp
from acp.schema import (
    AgentCapabilities,
    AuthEnvVar,
    EnvVarAuthMethod,
    Implementation,
    InitializeResponse,
    McpCapabilities,
    PromptCapabilities,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionForkCapabilities,
    SessionListCapabilities,
    SessionResumeCapabilities,
)

from iac_code import __version__
from iac_code.config import CREDENTIALS_HELP, Settings

AUTH_METHOD_ID = "anthropic-api-key"


def initialize_response(settings: Settings) -> InitializeResponse:
    """Protocol version 1, the capabilities of PROTOCOL.md, `agentInfo`, and the `ANTHROPIC_API_KEY`
    auth method when `settings` has no credentials (an empty `authMethods` otherwise)."""
    auth_methods = []
    if not settings.has_credentials:
        auth_methods.append(
            EnvVarAuthMethod(
                type="env_var",
                id=AUTH_METHOD_ID,
                name="Anthropic API key",
                description=CREDENTIALS_HELP,
                vars=[AuthEnvVar(name="ANTHROPIC_API_KEY", label="Anthropic API key", secret=True)],
                link="https://console.anthropic.com/settings/keys",
            )
        )
    return InitializeResponse(
        protocol_version=acp.PROTOCOL_VERSION,
        agent_capabilities=AgentCapabilities(
            load_session=True,
            mcp_capabilities=McpCapabilities(http=True, sse=True),
            prompt_capabilities=PromptCapabilities(image=False, audio=False, embedded_context=True),
            session_capabilities=SessionCapabilities(
                list=SessionListCapabilities(),
                close=SessionCloseCapabilities(),
                fork=SessionForkCapabilities(),
                resume=SessionResumeCapabilities(),
            ),
        ),
        agent_info=Implementation(name="iac-code", title="iac-code", version=__version__),
        auth_methods=auth_methods,
    )
