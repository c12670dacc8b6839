"""`update_plan`: the agent publishes its task list, shown by the client as a checklist."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from iac_code.core.events import PlanEntry, PlanUpdated
from iac_code.tools.base import Tool, ToolContext, ToolInput, ToolReplay, ToolResult


class PlanItem(ToolInput):
    content: str = Field(description="What this step does, in a short imperative sentence.")
    status: Literal["pending", "in_progress", "completed"] = "pending"
    priority: Literal["high", "medium", "low"] = "medium"


class UpdatePlanInput(ToolInput):
    entries: list[PlanItem] = Field(description="The whole plan, in order; it replaces the previous one.")


class UpdatePlanTool(Tool[UpdatePlanInput]):
    """Publish the task list (a `plan` session update); changes nothing on disk."""

    name = "update_plan"
    description = (
        "Publish your plan for a multi-step task as a checklist the user can follow. Send the whole "
        "list every time (it replaces the previous one) and keep statuses current: mark a step "
        "in_progress when you start it and completed when it is done. Use it for tasks of three or "
        "more steps; skip it for simple questions."
    )
    input_model = UpdatePlanInput
    kind = "other"
    category = "read"

    def title(self, params: UpdatePlanInput | None) -> str:
        if params is None:
            return "Update plan"
        done = sum(1 for e in params.entries if e.status == "completed")
        return f"Update plan ({done}/{len(params.entries)} done)"

    def replay(self, params: UpdatePlanInput, ctx: ToolContext, output: str) -> ToolReplay:
        """The plan it published (a `plan` update), then its result text as live."""
        return ToolReplay(events=[PlanUpdated([PlanEntry(e.content, e.status, e.priority) for e in params.entries])])

    async def run(self, params: UpdatePlanInput, ctx: ToolContext) -> ToolResult:
        entries = [PlanEntry(e.content, e.status, e.priority) for e in params.entries]
        if ctx.emit is not None:
            await ctx.emit(PlanUpdated(entries))
        lines = [f"[{'x' if e.status == 'completed' else '~' if e.status == 'in_progress' else ' '}] {e.content}" for e in entries]
        return ToolResult(output="Plan updated:\n" + "\n".join(lines))
