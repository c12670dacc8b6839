"""Names that are not valid UTF-8 reach the model as U+FFFD, never as lone surrogates.

`os.scandir` and `os.fsdecode` decode such names with `surrogateescape`; a lone surrogate cannot be
encoded as UTF-8, so it would break the model request and the session file that hold the result.
"""

from __future__ import annotations

import os

import pytest

from iac_code.tools import grep
from iac_code.tools.glob import GlobTool
from iac_code.tools.grep import GrepTool
from iac_code.tools.list_files import ListFilesTool


@pytest.fixture
def latin1_name(project):
    with open(os.path.join(os.fsencode(project), b"caf\xe9.tf"), "w") as f:
        f.write('resource "aws_vpc" "main" {}\n')


CASES = [
    (ListFilesTool(), {}, None),
    (GlobTool(), {"pattern": "*.tf"}, None),
    (GrepTool(), {"pattern": "aws_vpc"}, "ripgrep"),
    (GrepTool(), {"pattern": "aws_vpc"}, "python"),
    (GrepTool(), {"pattern": "aws_vpc", "output_mode": "content"}, "ripgrep"),
    (GrepTool(), {"pattern": "aws_vpc", "output_mode": "content"}, "python"),
]


@pytest.mark.parametrize(
    ("tool", "raw", "backend"),
    CASES,
    ids=["list_files", "glob", "grep-rg", "grep-python", "grep-content-rg", "grep-content-python"],
)
async def test_a_latin1_file_name_is_shown_with_a_replacement_character(latin1_name, call, monkeypatch, tool, raw, backend):
    if backend == "ripgrep" and grep.ripgrep_binary() is None:
        pytest.skip("ripgrep is not installed")
    if backend == "python":
        monkeypatch.setattr(grep, "ripgrep_binary", lambda: None)
    result = await call(tool, **raw)
    assert "caf\ufffd.tf" in result.output
    result.output.encode("utf-8")
