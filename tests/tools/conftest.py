"""Fixtures for the tool unit tests: a real project directory and a tool context rooted in it."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from iac_code.tools.base import Tool, ToolContext, ToolResult


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The session's working directory (real path, symlinks resolved)."""
    root = tmp_path / "project"
    root.mkdir()
    return Path(os.path.realpath(root))


@pytest.fixture(autouse=True)
def _no_post_edit_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Post-edit validation off (`IAC_CODE_VALIDATE_AFTER_EDITS=0`), so these tests see each
    tool's own result; tests/iac/test_feedback.py covers the feedback."""
    monkeypatch.setenv("IAC_CODE_VALIDATE_AFTER_EDITS", "0")


@pytest.fixture
def ctx(project: Path, tmp_path: Path) -> ToolContext:
    """A tool context for a session in `project`, with its config dir outside it."""
    return ToolContext(cwd=project, config_dir=Path(os.path.realpath(tmp_path)) / "iac-config")


@pytest.fixture
def call(ctx: ToolContext) -> Callable[..., Awaitable[ToolResult]]:
    """`await call(tool, **raw)`: validate `raw` as the tool's input (it must be valid) and run it in `ctx`."""

    async def run(tool: Tool, **raw: Any) -> ToolResult:
        params = tool.parse(raw)
        assert not isinstance(params, str), params
        return await tool.run(params, ctx)

    return run
