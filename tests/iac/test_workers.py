"""A large Terraform project checked by worker processes gives the same findings as one
process; the work is split so that modules are not parsed twice without need; the parse cache
keeps to its budget (memory set by the largest module, not the repository)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iac_code.iac import cache
from iac_code.iac.discovery import Reader, discover
from iac_code.iac.engine import Options, check
from iac_code.iac.terraform import project
from iac_code.iac.terraform.module import tf_kind

MAIN = 'variable "cidr" {{\n  type    = string\n  default = "10.{m}.0.0/16"\n}}\n\nresource "aws_vpc" "v" {{\n  cidr_block = var.cidr\n}}\n'
SUBNET = 'resource "aws_subnet" "s{n}" {{\n  vpc_id     = aws_vpc.v.id\n  cidr_block = cidrsubnet(var.cidr, 8, {n})\n  tags       = {{ Name = local.nam }}\n}}\n'


def repo(root: Path, modules: int, hub: bool = False) -> Path:
    for m in range(modules):
        d = root / f"m{m:02d}"
        d.mkdir(parents=True)
        (d / "main.tf").write_text(MAIN.format(m=m))
        for n in range(8):
            (d / f"s{n}.tf").write_text(SUBNET.format(n=n))
    if hub:
        (root / "main.tf").write_text("".join(f'module "m{m}" {{\n  source = "./m{m:02d}"\n}}\n' for m in range(modules)))
    return root


def jobs_of(root: Path):
    reader, tf_dirs = Reader(), {}
    for f in discover([root]):
        if tf_kind(f):
            tf_dirs.setdefault(f.parent, []).append(f)
    calls = project.module_calls(tf_dirs, reader)
    called = set().union(*calls.values())
    return [(d, files, d not in called) for d, files in tf_dirs.items()], tf_dirs, calls


@pytest.mark.e2e  # the workers are Python processes started by the engine
def test_workers_find_what_one_process_finds(tmp_path: Path, monkeypatch) -> None:
    import subprocess

    started = []
    real = subprocess.Popen
    monkeypatch.setattr(subprocess, "Popen", lambda args, **kw: started.append(args) or real(args, **kw))
    root = repo(tmp_path, 10)
    one = check([root], Options(terraform_cli=False, workers=1))
    assert started == []
    two = check([root], Options(terraform_cli=False, workers=2))
    assert [a[-1] for a in started] == ["iac_code.iac.terraform.worker"] * 2
    assert len(one.diagnostics) == 80  # local.nam, in each subnet
    assert one.diagnostics == two.diagnostics and one.checked == two.checked and one.skipped == two.skipped


def test_independent_modules_are_split_and_a_hub_stays_in_one_process(tmp_path: Path) -> None:
    jobs, tf_dirs, calls = jobs_of(repo(tmp_path / "stacks", 10))
    parts = project._assign(jobs, 2, tf_dirs, calls)
    assert sorted(map(len, parts)) == [5, 5]
    jobs, tf_dirs, calls = jobs_of(repo(tmp_path / "hub", 10, hub=True))
    assert [len(p) for p in project._assign(jobs, 2, tf_dirs, calls)] == [11]  # the root needs every module


def test_the_parse_cache_keeps_to_its_budget(monkeypatch) -> None:
    cache.clear()
    monkeypatch.setattr(cache, "MAX_TEXT", 10_000)
    for i in range(100):
        cache.get_or_compute("t", f"{i:05d}" + "x" * 995, lambda: object())
    assert cache._weight <= 10_000 and len(cache._entries) == 10
    cache.clear()
