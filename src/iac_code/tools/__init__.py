"""The agent's tools, one module per tool."""

from __future__ import annotations

from iac_code.tools.base import Tool


def all_tools() -> list[Tool]:
    """One instance of every tool, in the order they are offered to the model."""
    from iac_code.tools.agent import AgentTool
    from iac_code.tools.bash import BashTool
    from iac_code.tools.edit_file import EditFileTool
    from iac_code.tools.glob import GlobTool
    from iac_code.tools.grep import GrepTool
    from iac_code.tools.list_files import ListFilesTool
    from iac_code.tools.plan import UpdatePlanTool
    from iac_code.tools.read_file import ReadFileTool
    from iac_code.tools.validate import ValidateTool
    from iac_code.tools.web_fetch import WebFetchTool
    from iac_code.tools.write_file import WriteFileTool

    return [
        ReadFileTool(),
        ListFilesTool(),
        GlobTool(),
        GrepTool(),
        WriteFileTool(),
        EditFileTool(),
        ValidateTool(),
        BashTool(),
        AgentTool(),
        WebFetchTool(),
        UpdatePlanTool(),
    ]
