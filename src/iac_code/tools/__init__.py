"""The agent's tools, one module per tool."""

from __future__ import annotations

from iac_code.tools.base import Tool


def all_tools() -> list[Tool]:
    """One instance of every tool, in the order they are offered to the model."""
    from iac_code.tools.plan import UpdatePlanTool

    tools: list[Tool] = []
    for module, cls in (
        ("read_file", "ReadFileTool"),
        ("list_files", "ListFilesTool"),
        ("glob", "GlobTool"),
        ("grep", "GrepTool"),
        ("write_file", "WriteFileTool"),
        ("edit_file", "EditFileTool"),
        ("bash", "BashTool"),
        ("agent", "AgentTool"),
        ("web_fetch", "WebFetchTool"),
    ):
        try:
            mod = __import__(f"iac_code.tools.{module}", fromlist=[cls])
        except ModuleNotFoundError:
            continue
        tools.append(getattr(mod, cls)())
    tools.append(UpdatePlanTool())
    return tools
