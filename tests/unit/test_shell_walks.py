"""The bounded walks of `agent/shell_paths.py` a recursive command is judged by: what a
recursive read may reach (`reaches_sensitive`) and whether `cp`/`mv` would carry a link
(`holds_link`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from iac_code.agent import shell_paths
from iac_code.agent.shell_paths import holds_link, reaches_sensitive


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "modules" / "vpc").mkdir(parents=True)
    (project / "modules" / "vpc" / "main.tf").write_text("")
    (project / "main.tf").write_text("")
    (tmp_path / "outside.txt").write_text("")
    return project


def test_a_recursive_read_reaches_a_link_out_of_the_project_below_it(tree: Path) -> None:
    config = tree.parent / "config"
    assert not reaches_sensitive(tree, tree, config)
    os.symlink(tree.parent / "outside.txt", tree / "modules" / "vpc" / "out")
    assert reaches_sensitive(tree, tree, config)


def test_hidden_names_are_skipped_only_when_the_reader_skips_them(tree: Path) -> None:
    config = tree.parent / "config"
    (tree / ".hidden").mkdir()
    os.symlink(tree.parent / "outside.txt", tree / ".hidden" / "out")
    assert reaches_sensitive(tree, tree, config, hidden=True)
    assert not reaches_sensitive(tree, tree, config, hidden=False)


def test_a_sensitive_file_below_is_reached_unless_the_globs_leave_it_out(tree: Path) -> None:
    config = tree.parent / "config"
    (tree / "modules" / ".env").write_text("TOKEN=x")
    assert reaches_sensitive(tree, tree, config)
    assert not reaches_sensitive(tree, tree, config, only=("*.tf",))


def test_too_many_entries_count_as_reaching_and_as_holding_a_link(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tree.parent / "config"
    assert not reaches_sensitive(tree, tree, config) and not holds_link(["."], tree)
    monkeypatch.setattr(shell_paths, "MAX_WALKED", 3)  # the tree has 4 entries
    assert reaches_sensitive(tree, tree, config)
    assert holds_link(["."], tree)


def test_cp_and_mv_hold_a_link_named_or_below_a_directory_named(tree: Path) -> None:
    assert not holds_link(["modules", "main.tf"], tree)
    os.symlink("../../main.tf", tree / "modules" / "vpc" / "up")
    assert holds_link(["modules"], tree)
    assert holds_link(["modules/vpc/up"], tree)
    assert not holds_link(["main.tf"], tree)
