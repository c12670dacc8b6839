"""The search tools' walk sees the files `rg --files --hidden --no-require-git` lists (DEVELOPING.md,
"Which files the search tools see"): the rule set a front end can mirror."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from iac_code.tools.grep import ripgrep_binary
from iac_code.tools.walk import walk_files

RG_FLAGS = ["--files", "--hidden", "--no-require-git", "--no-ignore-global", "--no-ignore-exclude", "--no-ignore-dot", "--glob=!.git"]


def write(path: Path, text: str = "x\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Nested .gitignore files with negations, directory patterns, anchored and deep patterns."""
    outer = tmp_path / "outer"
    write(outer / ".gitignore", "*.tmp\nproject/skipped-by-parent.txt\n")
    root = outer / "project"
    write(root / ".gitignore", "*.log\n!keep.log\nbuild/\n/only-top.txt\n**/generated/**\n")
    for rel in [
        "main.tf", "a.log", "keep.log", "x.tmp", "only-top.txt", "skipped-by-parent.txt", ".env", ".hidden/h.tf",
        "build/out.tf", "sub/build/deep.tf", "sub/only-top.txt", "sub/b.log", "sub/generated/g.tf", "sub/ok.tf",
        "modules/vpc/main.tf", "modules/vpc/.gitignore", "modules/vpc/secret.tfvars", "modules/vpc/c.log",
        ".git/config", ".git/objects/ab",
    ]:  # fmt: skip
        write(root / rel)
    write(root / "modules/vpc/.gitignore", "*.tfvars\n!c.log\n")
    return root


def walked(root: Path) -> list[str]:
    return [e.rel for e in walk_files(root, include_links=False, stop=threading.Event())]


def test_the_walk_applies_every_gitignore_with_git_precedence(tree: Path) -> None:
    assert sorted(walked(tree)) == sorted([
        ".env", ".gitignore", ".hidden/h.tf", "keep.log", "main.tf", "modules/vpc/.gitignore", "modules/vpc/c.log",
        "modules/vpc/main.tf", "sub/ok.tf", "sub/only-top.txt",
    ])  # fmt: skip


@pytest.mark.skipif(ripgrep_binary() is None, reason="ripgrep is not installed")
def test_the_walk_lists_what_rg_files_lists(tree: Path) -> None:
    rg = ripgrep_binary()
    assert rg is not None
    listed = subprocess.run([rg, *RG_FLAGS], cwd=tree, capture_output=True, check=True).stdout
    assert sorted(walked(tree)) == sorted(os.fsdecode(line) for line in listed.splitlines())


@pytest.mark.skipif(ripgrep_binary() is None, reason="ripgrep is not installed")
def test_the_tui_offers_for_completion_the_files_the_agent_searches(tree: Path) -> None:
    from iac_tui.file_index import list_project_files

    assert list_project_files(tree) == sorted(walked(tree))
    capped = list_project_files(tree, max_files=3)
    assert len(capped) == 3 and set(capped) <= set(walked(tree))
