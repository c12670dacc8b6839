"""glob: ** patterns, .gitignore, newest first, caps, symlinks that escape or loop."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bracex import expand as expand_braces  # glob_regex's brace expansion (through wcmatch)

from iac_code.tools.glob import MAX_RESULTS, GlobTool
from iac_code.tools.walk import glob_regex, split_literal_prefix

tool = GlobTool()


def touch(path: Path, mtime: float | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    if mtime is not None:
        os.utime(path, (mtime, mtime))


async def test_double_star_finds_nested_files_newest_first(project, call):
    touch(project / "main.tf", 1_000)
    touch(project / "modules" / "vpc" / "main.tf", 3_000)
    touch(project / "modules" / "vpc" / "README.md", 4_000)
    touch(project / "envs" / "prod" / "backend.tf", 2_000)
    result = await call(tool, pattern="**/*.tf")
    assert result.output.splitlines() == ["modules/vpc/main.tf", "envs/prod/backend.tf", "main.tf"]


async def test_star_stays_within_one_level(project, call):
    touch(project / "main.tf")
    touch(project / "modules" / "vpc" / "main.tf")
    assert (await call(tool, pattern="*.tf")).output == "main.tf"
    assert (await call(tool, pattern="modules/*/main.tf")).output == "modules/vpc/main.tf"
    assert (await call(tool, pattern="*.tf", path="modules/vpc")).output == "modules/vpc/main.tf"


async def test_braces_and_classes(project, call):
    touch(project / "a.tf", 3)
    touch(project / "b.tfvars", 2)
    touch(project / "c.txt", 1)
    assert (await call(tool, pattern="*.{tf,tfvars}")).output.splitlines() == ["a.tf", "b.tfvars"]
    assert (await call(tool, pattern="[ab].*")).output.splitlines() == ["a.tf", "b.tfvars"]
    assert (await call(tool, pattern="[!ab].*")).output.splitlines() == ["c.txt"]


async def test_gitignore_is_honoured_with_nesting_and_negation(project, call):
    (project / ".gitignore").write_text(".terraform/\n*.tfstate\nbuild\n")
    touch(project / "main.tf")
    touch(project / ".terraform" / "modules" / "x" / "main.tf")
    touch(project / "terraform.tfstate")
    touch(project / "build" / "out.tf")
    touch(project / "sub" / "keep.tfstate")
    (project / "sub" / ".gitignore").write_text("!keep.tfstate\nlocal.tf\n")
    touch(project / "sub" / "local.tf")
    touch(project / "sub" / "ok.tf")
    found = set((await call(tool, pattern="**/*")).output.splitlines())
    assert found == {".gitignore", "main.tf", "sub/.gitignore", "sub/keep.tfstate", "sub/ok.tf"}


async def test_an_explicitly_requested_ignored_directory_is_searched(project, call):
    (project / ".gitignore").write_text(".terraform/\n")
    touch(project / ".terraform" / "modules" / "x" / "main.tf")
    assert (await call(tool, pattern="**/*.tf", path=".terraform")).output == ".terraform/modules/x/main.tf"


async def test_git_directory_is_skipped_and_hidden_files_are_found(project, call):
    touch(project / ".git" / "config.tf")
    touch(project / ".github" / "workflows" / "ci.yml")
    assert (await call(tool, pattern="**/*")).output == ".github/workflows/ci.yml"


async def test_capped_with_a_count(project, call):
    for n in range(MAX_RESULTS + 10):
        touch(project / "many" / f"{n:04d}.tf", 10_000 + n)
    lines = (await call(tool, pattern="**/*.tf")).output.splitlines()
    assert lines[0] == f"many/{MAX_RESULTS + 9:04d}.tf"
    assert len(lines) == MAX_RESULTS + 1
    assert lines[-1].startswith(f"[Showing the {MAX_RESULTS} most recently modified of {MAX_RESULTS + 10} matches.")


async def test_symlinks_do_not_lead_out_of_the_tree_and_loops_end(project, call, tmp_path):
    outside = tmp_path / "outside"
    touch(outside / "secret.tf")
    os.symlink(outside, project / "escape")
    (project / "a").mkdir()
    os.symlink("..", project / "a" / "up")  # a loop back to the root
    os.symlink(project / "a", project / "a" / "self")
    touch(project / "a" / "real.tf")
    os.symlink("missing.tf", project / "dangling.tf")
    result = await call(tool, pattern="**/*.tf")
    assert not result.is_error
    assert set(result.output.splitlines()) == {"a/real.tf", "dangling.tf"}


async def test_spaces_and_non_ascii_names(project, call):
    touch(project / "my stacks" / "東京" / "main.tf")
    assert (await call(tool, pattern="**/main.tf")).output == "my stacks/東京/main.tf"
    assert (await call(tool, pattern="my stacks/*/main.tf")).output == "my stacks/東京/main.tf"


async def test_no_match_and_bad_paths(project, call):
    touch(project / "main.tf")
    none = await call(tool, pattern="**/*.py")
    assert not none.is_error and none.output == "No files match **/*.py (searched .)."
    missing = await call(tool, pattern="*.tf", path="nope")
    assert missing.is_error and "not found" in missing.output
    a_file = await call(tool, pattern="*.tf", path="main.tf")
    assert a_file.is_error


async def test_paths_outside_cwd_are_shown_absolute(project, call, tmp_path):
    touch(tmp_path / "other" / "x.tf")
    result = await call(tool, pattern="*.tf", path=str(tmp_path / "other"))
    assert result.output == str(Path(os.path.realpath(tmp_path)) / "other" / "x.tf")


def test_paths_include_the_literal_prefix_of_the_pattern(project, ctx, tmp_path):
    assert tool.paths(tool.parse({"pattern": "**/*.tf"}), ctx) == [project]
    assert tool.paths(tool.parse({"pattern": "modules/*/main.tf"}), ctx) == [project / "modules"]
    assert tool.paths(tool.parse({"pattern": "../*.tf"}), ctx) == [project.parent]
    assert tool.paths(tool.parse({"pattern": "/etc/*.conf"}), ctx) == [Path("/etc")]


def test_title_and_kind():
    assert tool.title(tool.parse({"pattern": "**/*.tf"})) == "Glob **/*.tf"
    assert tool.title(tool.parse({"pattern": "*.tf", "path": "modules"})) == "Glob *.tf in modules"
    assert tool.kind == "search" and tool.category == "read"


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**/*.tf", "main.tf", True),
        ("**/*.tf", "a/b/c.tf", True),
        ("*.tf", "a/main.tf", False),
        ("a/**", "a/b/c", True),
        ("a/**/c", "a/c", True),
        ("a/**/c", "a/x/y/c", True),
        ("?.tf", "ab.tf", False),
        ("*.{tf,{yml,yaml}}", "x.yaml", True),
    ],
)
def test_glob_regex(pattern, path, matches):
    assert (glob_regex(pattern).match(path) is not None) is matches


def test_helpers():
    assert expand_braces("a{b,c{d,e}}f") == ["abf", "acdf", "acef"]
    assert expand_braces("{unbalanced") == ["{unbalanced"]
    assert split_literal_prefix("modules/vpc/*.tf") == ("modules/vpc", "*.tf")
    assert split_literal_prefix("/abs/**/x") == ("/abs", "**/x")
    assert split_literal_prefix("main.tf") == ("", "main.tf")
