"""Asking the person, once, whether a project's `.mcp.json` may start its MCP servers.

The file is found and the decision remembered by `iac_code.mcp_client.project`; this module asks. The
question goes through the session's permission prompter like a tool call (the client sees a
`tool_call` titled "Start the MCP servers of this project's .mcp.json" with the servers, their
whole command lines and env (secrets masked), that stdio servers run outside the command
sandbox, then the permission request): `allow_once` starts them for this session,
`allow_always` also remembers the file (this content, and that of the local files its commands
name), `reject_once` skips them for this session,
`reject_always` remembers the refusal. Without a prompter (nobody to ask) the servers are not
started and the person is told.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path
from typing import Literal

from iac_code.agent.permissions import PermissionPrompter, PermissionRequest, every_option
from iac_code.core.events import EventSink, Location, Notice, TextContent, ToolCallStarted, ToolCallUpdated
from iac_code.mcp_client import project
from iac_code.mcp_client.project import ProjectServers

log = logging.getLogger(__name__)

TITLE = "Start the MCP servers of this project's .mcp.json"
TOOL_NAME = ".mcp.json"
"""The name the prompter sees (headless: `--allow .mcp.json` approves the file for one run)."""


async def approved_servers(
    cwd: Path, config_dir: Path, emit: EventSink, prompter: PermissionPrompter | None
) -> ProjectServers | Literal["cancelled"] | None:
    """The project's servers when they may start now; None when there are none or they may not;
    `cancelled` when the person cancelled the prompt while asked."""
    found = project.find(cwd)
    if found is None:
        return None
    if not found.specs:
        for problem in found.problems:
            await emit(Notice(f"\n\nThis project's .mcp.json was not used: {problem}.\n\n"))
        return None
    remembered = project.decision(found, config_dir)
    if remembered == "allow":
        return found
    if remembered == "reject":
        log.info("not starting the servers of %s: rejected earlier", found.path)
        return None
    if prompter is None:
        await emit(Notice("\n\nThis project's .mcp.json was not approved, so its MCP servers were not started.\n\n"))
        return None
    call_id = f"mcp_json_{uuid.uuid4().hex[:12]}"
    raw_input = {"file": str(found.path), "servers": found.summary(), "files": found.files or {}}
    listing = "\n".join(f"- {name}: {what}" for name, what in found.summary().items())
    question = f"{found.path} starts these MCP servers:\n{listing}"
    if any(s.transport == "stdio" for s in found.specs):
        question += (
            "\n\nIts stdio servers run outside the command sandbox, as you, with your environment "
            "and the network."
        )
    if found.files:
        question += "\n\nApproving it always covers these files as they are now (a change asks again): " + ", ".join(found.files)
    where = [Location(str(found.path))]
    await emit(ToolCallStarted(call_id, TITLE, kind="execute", status="pending", raw_input=raw_input, locations=where))
    try:
        answer = await prompter.ask(
            PermissionRequest(
                tool_call_id=call_id,
                tool_name=TOOL_NAME,
                title=TITLE,
                kind="execute",
                raw_input=raw_input,
                content=[TextContent(question)],
                locations=where,
                options=every_option("this .mcp.json and the files it runs (as they are now)" if found.files else "this .mcp.json (as it is now)"),
            )
        )
    except asyncio.CancelledError:  # the prompt was cancelled while asking: end the call, then stop
        await emit(ToolCallUpdated(call_id, status="failed", raw_output={"error": "Cancelled."}, content=[TextContent("Cancelled.")]))
        raise
    if answer == "allow_always":
        project.remember(found, config_dir, "allow")
    elif answer == "reject_always":
        project.remember(found, config_dir, "reject")
    if answer in ("allow_once", "allow_always"):
        await emit(ToolCallUpdated(call_id, status="completed", content=[TextContent(f"Starting:\n{listing}")]))
        return found
    text = "Cancelled." if answer == "cancelled" else "Not started: this project's .mcp.json was not approved."
    await emit(ToolCallUpdated(call_id, status="failed", raw_output={"error": text}, content=[TextContent(text)]))
    return "cancelled" if answer == "cancelled" else None
