"""agent: runs the sub-agent given by the context, forwards its progress, returns its answer."""

from __future__ import annotations

import asyncio

import pytest

from iac_code.core.events import TextContent
from iac_code.core.provider import ProviderError
from iac_code.tools.agent import AgentTool

tool = AgentTool()


async def test_the_final_answer_is_the_result_and_progress_reaches_the_panel(ctx):
    prompts: list[str] = []
    reports: list[list] = []

    async def run_subagent(prompt, progress):
        prompts.append(prompt)
        await progress([TextContent("Grep `aws_vpc`: done")])
        return "Two VPCs: main and shared."

    async def progress(content):
        reports.append(content)

    ctx.run_subagent, ctx.progress = run_subagent, progress
    result = await tool.run(tool.parse({"prompt": "List the VPCs.", "description": "Survey VPCs"}), ctx)
    assert (result.is_error, result.output) == (False, "Two VPCs: main and shared.")
    assert prompts == ["List the VPCs."]
    assert reports == [[TextContent("Grep `aws_vpc`: done")]]


async def test_without_a_sub_agent_runner_it_is_an_error(ctx):
    result = await tool.run(tool.parse({"prompt": "x"}), ctx)
    assert result.is_error and "not available" in result.output


async def test_a_model_failure_is_an_error_result(ctx):
    async def run_subagent(prompt, progress):
        raise ProviderError("overloaded", "try later")

    ctx.run_subagent = run_subagent
    result = await tool.run(tool.parse({"prompt": "x"}), ctx)
    assert result.is_error and "try later" in result.output


async def test_cancel_reaches_the_sub_agent(ctx):
    started, stopped = asyncio.Event(), asyncio.Event()

    async def run_subagent(prompt, progress):
        started.set()
        try:
            await asyncio.sleep(100_000)
        finally:
            stopped.set()

    ctx.run_subagent = run_subagent
    task = asyncio.create_task(tool.run(tool.parse({"prompt": "x"}), ctx))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert stopped.is_set()


def test_title_and_kind():
    assert tool.title(tool.parse({"prompt": "Find every VPC", "description": "Survey VPCs"})) == "Sub-agent: Survey VPCs"
    assert tool.title(tool.parse({"prompt": "Find every VPC\nand list them"})) == "Sub-agent: Find every VPC"
    assert tool.title(None) == "Sub-agent"
    assert tool.title(tool.parse({"prompt": "  \n "})) == "Sub-agent"  # title() runs outside the tool's try
    assert tool.kind == "execute" and tool.category == "execute"
