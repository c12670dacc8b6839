"""A path the operating system rejects is an error result for the model, never an exception;
so is a NUL in an argument handed to a program.

`title`, `paths`, `preview` and `run` are all called by the loop; only `run` sits inside its
crash guard, and even there an exception reaches the model as "failed unexpectedly" instead of a
message it can act on. A name longer than NAME_MAX (ENAMETOOLONG) stands in for every stat error
other than "missing" (permission denied under a closed directory gives the same path, but not as
root).
"""

from __future__ import annotations

import pytest

from iac_code.tools.bash import BashTool
from iac_code.tools.edit_file import EditFileTool
from iac_code.tools.glob import GlobTool
from iac_code.tools.grep import GrepTool
from iac_code.tools.list_files import ListFilesTool
from iac_code.tools.read_file import ReadFileTool
from iac_code.tools.write_file import WriteFileTool

TOO_LONG = "x" * 300


@pytest.mark.parametrize(
    ("tool", "raw"),
    [
        (ReadFileTool(), {"path": TOO_LONG}),
        (ListFilesTool(), {"path": TOO_LONG}),
        (GlobTool(), {"pattern": "*.tf", "path": TOO_LONG}),
        (GrepTool(), {"pattern": "x", "path": TOO_LONG}),
        (WriteFileTool(), {"path": TOO_LONG, "content": "x"}),
        (WriteFileTool(), {"path": f"{TOO_LONG}/main.tf", "content": "x"}),
        (EditFileTool(), {"path": TOO_LONG, "old_string": "a", "new_string": "b"}),
    ],
    ids=["read_file", "list_files", "glob", "grep", "write_file", "write_file-below", "edit_file"],
)
async def test_an_unusable_path_is_an_error_result(ctx, tool, raw):
    params = tool.parse(raw)
    assert not isinstance(params, str), params
    tool.title(params)
    tool.paths(params, ctx)
    preview = await tool.preview(params, ctx)
    result = await tool.run(params, ctx)
    assert result.is_error
    assert "too long" in result.output
    if preview is not None:
        assert preview.error is not None and "too long" in preview.error


@pytest.mark.parametrize(
    ("tool", "raw"),
    [
        (GrepTool(), {"pattern": "a\x00b"}),
        (BashTool(), {"command": "echo a\x00b"}),
    ],
    ids=["grep", "bash"],
)
def test_a_nul_in_an_argument_for_a_program_is_an_input_error(tool, raw):
    """ripgrep and bash get these in their argv, where NUL cannot go (ValueError from exec)."""
    error = tool.parse(raw)
    assert isinstance(error, str) and "NUL" in error
