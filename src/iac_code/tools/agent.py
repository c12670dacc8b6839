"""`agent`: hand a self-contained task to a sub-agent and return its final answer.

The sub-agent (`ToolContext.run_subagent`, made by `agent/subagent.starter`) uses the same
model with a fresh context and only the read-only tools, for a bounded number of model requests;
what it does is reported as progress lines in this call's panel, and its permission requests go
to the client on this call. It runs in the calling task, so a cancel of the turn reaches it.
Several `agent` calls of one response run concurrently.
"""

from __future__ import annotations

from pydantic import Field

from iac_code.core.provider import ProviderError
from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolResult


class AgentInput(ToolInput):
    prompt: str = Field(
        min_length=1,
        description=(
            "The task for the sub-agent, complete and self-contained: it sees nothing of this "
            "conversation. Say what to find or check and what its answer should contain."
        ),
    )
    description: str | None = Field(
        default=None, description="A short (3-6 word) label for the task, shown to the user."
    )


class AgentTool(Tool[AgentInput]):
    """Run a read-only sub-agent on a task; its final answer is the result."""

    name = "agent"
    description = (
        "Start a sub-agent for a self-contained research task, such as surveying how modules use a "
        "resource across a large repository. It has its own context and can only read and search "
        "files (read_file, list_files, glob, grep, web_fetch); it cannot edit or run commands. Its "
        "final answer is returned to you. Use it to keep long searches out of your own context; for "
        "a single lookup, call the search tools directly."
    )
    input_model = AgentInput
    kind = "execute"
    category = "execute"

    def title(self, params: AgentInput | None) -> str:
        lines = [] if params is None else ((params.description or "").strip() or params.prompt.strip()).splitlines()
        if not lines:
            return "Sub-agent"
        label = lines[0]
        return f"Sub-agent: {label if len(label) <= 60 else label[:59] + '…'}"

    async def run(self, params: AgentInput, ctx: ToolContext) -> ToolResult:
        if ctx.run_subagent is None:
            return ToolResult.error("Sub-agents are not available here; do the task with your own tools.")
        try:
            answer = await ctx.run_subagent(params.prompt, ctx.report)
        except ProviderError as exc:
            return ToolResult.error(f"The sub-agent failed: {exc.describe()}")
        return ToolResult(output=answer)
