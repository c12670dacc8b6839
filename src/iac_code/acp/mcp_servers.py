"""ACP's `mcpServers` (session/new, load, fork, resume) -> the agent's MCP server specs, and
the reports of the session's servers back to the client (PROTOCOL.md, MCP servers).

A server that fails, or stops later, is reported as an `agent_message_chunk` (a sentence of its
own); every change of the servers' states is also sent as the extension notification
`_iac-code/mcp_status` (`{"sessionId", "servers": [{"name", "transport", "status", "reason",
"tools"}]}`) for clients that show it (iac-tui does; others ignore unknown `_` notifications).
"""

from __future__ import annotations

from acp import Client, helpers
from acp.schema import AcpMcpServer, HttpMcpServer, McpServerStdio, SseMcpServer

from iac_code.agent.session import Session
from iac_code.mcp_client.hub import ServerStatus
from iac_code.mcp_client.servers import McpServerSpec, Transport

STATUS_NOTIFICATION = "iac-code/mcp_status"
"""Sent as `_iac-code/mcp_status` (the SDK adds the leading underscore of extension methods)."""


McpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio
"""An entry of ACP's `mcpServers` (the SDK's models)."""


def specs_from_acp(servers: list[McpServer] | None) -> tuple[list[McpServerSpec], list[str]]:
    """The servers of an ACP `mcpServers` list, and one message per entry that cannot be used."""
    specs: list[McpServerSpec] = []
    problems: list[str] = []
    for server in servers or []:
        if isinstance(server, McpServerStdio):
            env = {e.name: e.value for e in server.env or []}
            specs.append(McpServerSpec(server.name, "stdio", command=server.command, args=tuple(server.args or []), env=env))
        elif isinstance(server, HttpMcpServer | SseMcpServer):
            headers = {h.name: h.value for h in server.headers or []}
            transport: Transport = "http" if isinstance(server, HttpMcpServer) else "sse"
            specs.append(McpServerSpec(server.name, transport, url=server.url, headers=headers))
        elif isinstance(server, AcpMcpServer):
            problems.append(f"server `{server.name}`: MCP over ACP is not supported (mcpCapabilities.acp is false)")
        else:
            problems.append(f"an entry of an unknown kind ({type(server).__name__})")
    return specs, problems


def attach_mcp_servers(session: Session, conn: Client, servers: list[McpServer] | None) -> None:
    """Connect `servers` for `session` in the background; its servers (these, and a project's
    approved `.mcp.json` ones) report to the client over `conn`."""
    specs, problems = specs_from_acp(servers)
    session_id = session.id

    async def report(text: str) -> None:
        await conn.session_update(session_id=session_id, update=helpers.update_agent_message_text(f"\n\n{text}\n\n"))

    async def publish(statuses: list[ServerStatus]) -> None:
        await conn.ext_notification(
            STATUS_NOTIFICATION,
            {
                "sessionId": session_id,
                "servers": [
                    {"name": s.name, "transport": s.transport, "status": s.status, "reason": s.reason, "tools": s.tools}
                    for s in statuses
                ],
            },
        )

    session.mcp.report = report
    session.mcp.on_status = publish
    if specs or problems:
        session.start_mcp(specs, problems)
