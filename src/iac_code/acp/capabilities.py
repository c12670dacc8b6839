"""What the agent announces in its `initialize` answer (PROTOCOL.md, Capabilities announced by
`initialize`): protocol version, capabilities, identity, without credentials how to get them, and
in `_meta` whether its commands are sandboxed (PROTOCOL.md, Command sandbox)."""

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
from iac_code.tools.sandbox import detect

AUTH_METHOD_ID = "anthropic-api-key"
SANDBOX_META = "iac-code/sandbox"
"""The `_meta` key of the sandbox state: `{"backend": "bwrap" | "landlock" | "none", "message": str}`."""


def initialize_response(settings: Settings) -> InitializeResponse:
    """Protocol version 1, the capabilities of PROTOCOL.md, `agentInfo`, the `ANTHROPIC_API_KEY`
    auth method when `settings` has no credentials (an empty `authMethods` otherwise), and
    `_meta["iac-code/sandbox"]`: the sandbox backend in use and a sentence for people ("commands
    are not sandboxed here: install bubblewrap …" when there is none)."""
    sandboxing = detect(settings.sandbox)
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
            prompt_capabilities=PromptCapabilities(image=True, audio=False, embedded_context=True),
            session_capabilities=SessionCapabilities(
                list=SessionListCapabilities(),
                close=SessionCloseCapabilities(),
                fork=SessionForkCapabilities(),
                resume=SessionResumeCapabilities(),
            ),
        ),
        agent_info=Implementation(name="iac-code", title="iac-code", version=__version__),
        auth_methods=auth_methods,
        field_meta={SANDBOX_META: {"backend": sandboxing.backend, "message": sandboxing.describe()}},
    )
