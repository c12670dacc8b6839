"""The system prompt: IaC guidance, the environment (cwd, platform, date) and the project's instructions."""

from __future__ import annotations

import platform
from datetime import date

from iac_code.agent.system_prompt import MAX_INSTRUCTIONS_CHARS, build_system_prompt

TODAY = date(2025, 3, 14)


def test_environment_is_named(tmp_path):
    prompt = build_system_prompt(tmp_path, today=TODAY)
    assert "Infrastructure-as-Code" in prompt and "Terraform" in prompt
    assert f"Working directory: {tmp_path}" in prompt
    assert platform.system() in prompt
    assert "2025-03-14" in prompt
    assert "<instructions>" not in prompt


def test_agents_md_is_included(tmp_path):
    (tmp_path / "AGENTS.md").write_text("Always tag resources with owner=platform.\n")
    prompt = build_system_prompt(tmp_path, today=TODAY)
    assert "Project instructions from AGENTS.md" in prompt
    assert "Always tag resources with owner=platform." in prompt


def test_iac_md_is_used_without_agents_md_and_agents_md_wins_over_it(tmp_path):
    (tmp_path / "IAC.md").write_text("Use OpenTofu, not Terraform.\n")
    assert "Use OpenTofu, not Terraform." in build_system_prompt(tmp_path, today=TODAY)
    (tmp_path / "AGENTS.md").write_text("Agents first.\n")
    prompt = build_system_prompt(tmp_path, today=TODAY)
    assert "Agents first." in prompt and "Use OpenTofu" not in prompt


def test_long_instructions_are_truncated(tmp_path):
    (tmp_path / "AGENTS.md").write_text("x" * (MAX_INSTRUCTIONS_CHARS + 500))
    prompt = build_system_prompt(tmp_path, today=TODAY)
    assert "x" * MAX_INSTRUCTIONS_CHARS + "\n[... truncated]" in prompt
    assert "x" * (MAX_INSTRUCTIONS_CHARS + 1) not in prompt


def test_an_unreadable_instructions_file_is_skipped(tmp_path):
    (tmp_path / "AGENTS.md").mkdir()  # a directory: reading it fails
    (tmp_path / "IAC.md").write_text("Fallback rules.\n")
    assert "Fallback rules." in build_system_prompt(tmp_path, today=TODAY)
