"""grep: output modes, filters, caps, skipped files, ripgrep vs the Python search, cancel."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from iac_code.tools import grep
from iac_code.tools.grep import GrepTool

tool = GrepTool()

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001") + b"aws_vpc\n"

TREE: dict[str, str | bytes] = {
    "main.tf": 'resource "aws_vpc" "main" {\n  cidr_block = "10.0.0.0/16"\n}\n\nresource "aws_subnet" "a" {\n  vpc_id = aws_vpc.main.id\n}\n',
    "modules/vpc/main.tf": 'variable "cidr" {}\n\nresource "aws_vpc" "this" {\n  cidr_block = var.cidr\n}\n',
    "modules/vpc/outputs.tf": 'output "id" {\n  value = aws_vpc.this.id\n}\n',
    "modules/a b/ネット.tf": 'resource "AWS_VPC" "upper" {}\n',
    "envs/prod/terraform.tfvars": 'vpc_cidr = "10.1.0.0/16"\n',
    ".github/workflows/ci.yml": "- run: terraform fmt -check  # aws_vpc\n",
    "win.tf": 'resource "aws_vpc" "w" {\r\n}\r\n',
    "context.txt": "".join(f"aws_vpc {n}\n" if n in (3, 5, 12) else f"line {n}\n" for n in range(1, 20)),
    "long.json": '{"aws_vpc": "' + "x" * 5_000 + '"}\n',
    "latin.tf": b"# caf\xe9 aws_vpc\n",
    ".gitignore": "ignored/\n*.tfstate\n",
    "ignored/x.tf": 'resource "aws_vpc" "ignored" {}\n',
    "terraform.tfstate": '{"type": "aws_vpc"}\n',
    ".env": "AWS_VPC_ID=vpc-123\n",
    "keys/deploy.pem": "aws_vpc\n",
    "logo.png": PNG,
    "blob.bin": b"\x00\x01aws_vpc\n",
}


def build(root: Path) -> None:
    for rel, content in TREE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
    os.symlink("main.tf", root / "link.tf")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("aws_vpc\n")


@pytest.fixture
def python_only(monkeypatch):
    monkeypatch.setattr(grep, "ripgrep_binary", lambda: None)


needs_rg = pytest.mark.skipif(grep.ripgrep_binary() is None, reason="ripgrep is not installed")


async def test_files_with_matches_is_the_default(project, call):
    build(project)
    result = await call(tool, pattern="aws_vpc")
    assert result.output.splitlines() == [
        ".github/workflows/ci.yml",
        "context.txt",
        "latin.tf",
        "long.json",
        "main.tf",
        "modules/vpc/main.tf",
        "modules/vpc/outputs.tf",
        "win.tf",
    ]


async def test_content_mode_with_context(project, call):
    build(project)
    result = await call(tool, pattern="aws_vpc", path="context.txt", output_mode="content", context=1)
    assert result.output.splitlines() == [
        "context.txt-2-line 2",
        "context.txt:3:aws_vpc 3",
        "context.txt-4-line 4",
        "context.txt:5:aws_vpc 5",
        "context.txt-6-line 6",
        "--",
        "context.txt-11-line 11",
        "context.txt:12:aws_vpc 12",
        "context.txt-13-line 13",
    ]


async def test_count_mode_case_insensitive_and_glob(project, call):
    build(project)
    result = await call(tool, pattern="aws_vpc", output_mode="count", case_insensitive=True, glob="*.tf")
    assert result.output.splitlines() == [
        "latin.tf:1",
        "main.tf:2",
        "modules/a b/ネット.tf:1",
        "modules/vpc/main.tf:1",
        "modules/vpc/outputs.tf:1",
        "win.tf:1",
        "[7 matching lines in 6 files.]",
    ]


async def test_a_glob_with_a_slash_matches_paths_below_the_root(project, call):
    build(project)
    result = await call(tool, pattern="aws_vpc", path="modules", glob="vpc/*.tf")
    assert result.output.splitlines() == ["modules/vpc/main.tf", "modules/vpc/outputs.tf"]


async def test_ignored_binary_sensitive_linked_and_git_files_are_skipped(project, call):
    build(project)
    found = (await call(tool, pattern="aws_vpc", case_insensitive=True)).output.splitlines()
    for skipped in ("ignored/x.tf", "terraform.tfstate", ".env", "keys/deploy.pem", "logo.png", "blob.bin", "link.tf", ".git/HEAD"):
        assert skipped not in found


async def test_an_explicit_sensitive_path_is_searched_and_asks_permission(project, call, ctx):
    """Naming `.env` is the model's explicit request: the policy asks, and the file is searched."""
    from iac_code.agent.permissions import PermissionPolicy

    build(project)
    params = tool.parse({"pattern": "AWS_VPC", "path": ".env"})
    policy = PermissionPolicy("default")
    assert policy.decide(policy.classify(tool, params, ctx)).action == "ask"
    assert (await call(tool, pattern="AWS_VPC", path=".env")).output == ".env"


async def test_an_explicit_binary_file_is_refused(project, call):
    build(project)
    result = await call(tool, pattern="aws_vpc", path="logo.png")
    assert result.is_error and "binary file (PNG image" in result.output


async def test_long_lines_are_clipped(project, call):
    build(project)
    result = await call(tool, pattern="aws_vpc", path="long.json", output_mode="content")
    assert result.output == 'long.json:1:{"aws_vpc": "' + "x" * (grep.MAX_LINE_CHARS - 13) + " [... line clipped]"


async def test_results_are_capped_with_counts_of_the_rest(project, call):
    for n in range(130):
        (project / f"f{n:03d}.tf").write_text("aws_vpc\naws_vpc\n")
    files = (await call(tool, pattern="aws_vpc")).output.splitlines()
    assert len(files) == 101 and files[0] == "f000.tf"
    assert files[-1] == "[130 files match; 30 not shown. Narrow the search (path, glob, pattern) or raise max_results.]"
    lines = (await call(tool, pattern="aws_vpc", output_mode="content", max_results=5)).output.splitlines()
    assert lines[:5] == ["f000.tf:1:aws_vpc", "f000.tf:2:aws_vpc", "f001.tf:1:aws_vpc", "f001.tf:2:aws_vpc", "f002.tf:1:aws_vpc"]
    assert lines[5] == "[255 more matching lines not shown (260 in 130 files in all). Narrow the search (path, glob, pattern) or raise max_results.]"
    counts = (await call(tool, pattern="aws_vpc", output_mode="count", max_results=2)).output.splitlines()
    assert counts == ["f000.tf:2", "f001.tf:2", "[260 matching lines in 130 files; 128 not shown. Narrow the search (path, glob, pattern) or raise max_results.]"]


async def test_no_matches_and_bad_input(project, call):
    build(project)
    none = await call(tool, pattern="google_compute_network")
    assert not none.is_error and none.output.startswith("No matches")
    bad = await call(tool, pattern="(unclosed")
    assert bad.is_error and "grep failed" in bad.output
    missing = await call(tool, pattern="x", path="nope")
    assert missing.is_error and "not found" in missing.output
    assert isinstance(tool.parse({"pattern": "x", "output_mode": "lines"}), str)
    assert isinstance(tool.parse({"pattern": "x", "max_results": 5_000}), str)


async def test_the_python_search_is_used_without_ripgrep(project, call, python_only):
    build(project)
    bad = await call(tool, pattern="(unclosed")
    assert bad.is_error and "invalid regular expression" in bad.output
    assert (await call(tool, pattern="vpc_cidr")).output == "envs/prod/terraform.tfvars"


EQUIVALENCE_CASES = [
    {"pattern": "aws_vpc"},
    {"pattern": "aws_vpc", "output_mode": "content"},
    {"pattern": "aws_vpc", "output_mode": "count"},
    {"pattern": "aws_vpc", "output_mode": "content", "context": 2},
    {"pattern": "AWS_VPC", "case_insensitive": True, "output_mode": "content"},
    {"pattern": 'resource\\s+"aws_(vpc|subnet)"', "output_mode": "content", "context": 1},
    {"pattern": "^}$", "output_mode": "content"},
    {"pattern": "cidr", "glob": "*.{tf,tfvars}", "output_mode": "content"},
    {"pattern": "aws_vpc", "path": "modules", "glob": "vpc/**", "output_mode": "count"},
    {"pattern": "aws_vpc", "path": "main.tf", "output_mode": "content"},
    {"pattern": "aws_vpc", "output_mode": "content", "max_results": 3},
    {"pattern": "aws_vpc", "max_results": 2},
    {"pattern": "line \\d+", "path": "context.txt", "output_mode": "content", "context": 3, "max_results": 4},
    {"pattern": "aws_vpc", "path": "long.json", "output_mode": "content"},
    {"pattern": "aws_vpc", "path": "ignored", "output_mode": "content"},
]


@needs_rg
@pytest.mark.parametrize("case", EQUIVALENCE_CASES, ids=lambda c: " ".join(f"{k}={v}" for k, v in c.items()))
async def test_the_python_search_gives_the_same_results_as_ripgrep(project, call, monkeypatch, case):
    build(project)
    with_rg = await call(tool, **case)
    monkeypatch.setattr(grep, "ripgrep_binary", lambda: None)
    with_python = await call(tool, **case)
    assert not with_rg.is_error
    assert with_python.output == with_rg.output


@needs_rg
async def test_cancel_kills_ripgrep(project, ctx, monkeypatch, tmp_path):
    """A stand-in `rg` that records its pid and hangs: cancelling the call must kill it."""
    pid_file = tmp_path / "rg.pid"
    fake = tmp_path / "rg"
    fake.write_text(f"#!/bin/sh\necho $$ > '{pid_file}'\nexec sleep 100000\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(grep, "ripgrep_binary", lambda: str(fake))
    (project / "main.tf").write_text("x\n")
    task = asyncio.create_task(tool.run(tool.parse({"pattern": "x"}), ctx))
    async with asyncio.timeout(30):
        while not (pid_file.exists() and pid_file.read_text().strip()):
            await asyncio.sleep(0.01)
    pid = int(pid_file.read_text())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_title_kind_and_paths(project, ctx):
    assert tool.title(None) == "Grep"
    assert tool.title(tool.parse({"pattern": "aws_vpc", "path": "modules/"})) == "Grep `aws_vpc` in modules/"
    assert tool.title(tool.parse({"pattern": "aws_vpc", "glob": "*.tf"})) == "Grep `aws_vpc` (*.tf)"
    assert tool.paths(tool.parse({"pattern": "x", "path": "modules"}), ctx) == [project / "modules"]
    assert tool.kind == "search" and tool.category == "read"


@pytest.mark.parametrize("backend", ["ripgrep", "python"])
async def test_a_3_million_character_line_is_found_and_clipped(project, call, monkeypatch, backend):
    if backend == "ripgrep" and grep.ripgrep_binary() is None:
        pytest.skip("ripgrep is not installed")
    if backend == "python":
        monkeypatch.setattr(grep, "ripgrep_binary", lambda: None)
    (project / "bundle.min.js").write_text("var a=1;" * 375_000 + "aws_vpc\n")
    result = await call(tool, pattern="var a", output_mode="content")
    assert result.output == "bundle.min.js:1:" + ("var a=1;" * 63)[: grep.MAX_LINE_CHARS] + " [... line clipped]"
    assert (await call(tool, pattern="aws_vpc")).output == "bundle.min.js"
