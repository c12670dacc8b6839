"""An MCP server's tool as an agent `Tool`: `mcp__<server>__<tool>`, its own JSON schema.

Permissions (PROTOCOL.md, MCP servers): a tool whose annotations say `readOnlyHint: true` is in
the `read` category (runs without asking, it touches no local path); every other tool is in the
`execute` category (asks; `allow_always` remembers that one tool, by its full name). The ACP
kind is `read` for read-only tools, else `execute` when the name says it runs something, else
`other` (PROTOCOL.md, Tool kinds). The title is human: "probe: echo".

Results: text stays text; images and audio become the markers `[image: <mime>]` /
`[audio: <mime>]`; resource links become `[resource: <name> <uri>]`; embedded resources give
their text (or a marker for binary ones); `structuredContent` is used when there is no content;
`isError` makes the call fail with that text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcp.types import (
    AudioContent,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from mcp.types import Tool as McpToolInfo
from pydantic import ConfigDict

from iac_code.mcp_client.connection import McpCallError, McpConnection
from iac_code.mcp_client.names import tool_name
from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolResult

MAX_OUTPUT_CHARS = 100_000
"""Longer results are cut (with a note) before they reach the model."""

_EXECUTES = re.compile(r"(^|[_\-.])(run|exec|execute|shell|bash|command|cmd|script|terminal)($|[_\-.])", re.I)


class McpArguments(ToolInput):
    """The call's arguments as the model gave them; the server validates them against its schema."""

    model_config = ConfigDict(extra="allow")

    def arguments(self) -> dict[str, Any]:
        """The arguments as a plain dict."""
        return dict(self.model_extra or {})


class McpTool(Tool[McpArguments]):
    """One tool of a connected MCP server (see the module docstring)."""

    input_model = McpArguments

    def __init__(self, connection: McpConnection, info: McpToolInfo) -> None:
        self.connection = connection
        self.info = info
        self.server = connection.spec.name
        self.name = tool_name(self.server, info.name)
        read_only = bool(info.annotations and info.annotations.read_only_hint)
        self.category = "read" if read_only else "execute"
        self.kind = "read" if read_only else ("execute" if _EXECUTES.search(info.name) else "other")
        about = info.description or (info.annotations.title if info.annotations and info.annotations.title else "")
        self.description = f"{about}\n\n(Tool `{info.name}` of the MCP server `{self.server}`.)".strip()

    def title(self, params: McpArguments | None) -> str:
        """"<server>: <tool title or name>", e.g. "probe: echo"."""
        label = self.info.title or (self.info.annotations.title if self.info.annotations else None) or self.info.name
        return f"{self.server}: {label}"

    def input_schema(self) -> dict[str, Any]:
        """The server's own JSON schema for the tool's input (always an object schema)."""
        schema = dict(self.info.input_schema or {})
        schema.setdefault("type", "object")
        if schema.get("type") != "object":
            return {"type": "object", "properties": {}}
        return schema

    async def run(self, params: McpArguments, ctx: ToolContext) -> ToolResult:
        """Call the tool on its server and map the result (see the module docstring)."""
        try:
            result = await self.connection.call_tool(self.info.name, params.arguments())
        except McpCallError as exc:
            return ToolResult.error(str(exc))
        return to_tool_result(result)


def _describe_item(item: Any) -> tuple[str, dict[str, Any]]:
    """The text the model gets for one content item, and its summary for `rawOutput`."""
    if isinstance(item, TextContent):
        return item.text, {"type": "text", "text": item.text}
    if isinstance(item, ImageContent | AudioContent):
        kind = "image" if isinstance(item, ImageContent) else "audio"
        return f"[{kind}: {item.mime_type}]", {"type": kind, "mimeType": item.mime_type}
    if isinstance(item, ResourceLink):
        return f"[resource: {item.name} {item.uri}]", {"type": "resource_link", "name": item.name, "uri": str(item.uri)}
    if isinstance(item, EmbeddedResource):
        res = item.resource
        if isinstance(res, TextResourceContents):
            return f"[resource: {res.uri}]\n{res.text}", {"type": "resource", "uri": str(res.uri)}
        return f"[resource: {res.uri} ({res.mime_type or 'binary'})]", {"type": "resource", "uri": str(res.uri)}
    kind = str(getattr(item, "type", "unknown"))
    return f"[{kind} content]", {"type": kind}


def to_tool_result(result: CallToolResult) -> ToolResult:
    """The agent's `ToolResult` for an MCP `CallToolResult` (see the module docstring)."""
    texts, summary = [], []
    for item in result.content:
        text, raw = _describe_item(item)
        texts.append(text)
        summary.append(raw)
    if not texts and result.structured_content is not None:
        texts.append(json.dumps(result.structured_content, ensure_ascii=False, indent=2))
    output = "\n".join(texts)
    if len(output) > MAX_OUTPUT_CHARS:
        output = output[:MAX_OUTPUT_CHARS] + f"\n[... output cut at {MAX_OUTPUT_CHARS} characters]"
    if result.is_error:
        output = output or "The MCP tool reported an error without a message."
    raw_output: dict[str, Any] = {"content": summary, "isError": bool(result.is_error)}
    if result.structured_content is not None:
        raw_output["structuredContent"] = result.structured_content
    return ToolResult(output=output, is_error=bool(result.is_error), raw_output=raw_output)
