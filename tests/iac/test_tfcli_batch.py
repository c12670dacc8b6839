"""`terraform fmt` runs once for the files of many modules (tfcli.fmt_start_all), and each warning
still lands on the file that needs formatting, also when other modules have files of the same name."""

from __future__ import annotations

from pathlib import Path

import pytest

from iac_code.iac.terraform import cli as tfcli
from iac_code.iac.engine import Options, validate

pytestmark = pytest.mark.skipif(tfcli.binary() is None, reason="needs terraform (or tofu) on PATH")


def test_one_fmt_run_for_many_modules_blames_the_right_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("a", "b", "c"):
        (tmp_path / "modules" / name).mkdir(parents=True)
        (tmp_path / "modules" / name / "main.tf").write_text(f'resource "null_resource" "{name}" {{\n  triggers = {{}}\n}}\n')
    (tmp_path / "modules" / "b" / "main.tf").write_text('resource "null_resource" "b" {\ntriggers={}\n}\n')
    (tmp_path / "modules" / "c" / "extra.tf").write_text('locals {\n  x    = 1\n}\n')
    runs = []
    real = tfcli.fmt_start
    monkeypatch.setattr(tfcli, "fmt_start", lambda d, files: runs.append(len(files)) or real(d, files))
    found = validate([tmp_path], Options())
    fmt = sorted((d.file.relative_to(tmp_path).as_posix(), d.line) for d in found if d.rule == "terraform.fmt")
    assert fmt == [("modules/b/main.tf", 2), ("modules/c/extra.tf", 2)]
    assert runs == [4]  # one process for the four files of three modules


def test_batches_keep_to_fmt_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tfcli, "FMT_BATCH", 2)
    runs = []
    real = tfcli.fmt_start
    monkeypatch.setattr(tfcli, "fmt_start", lambda d, files: runs.append(len(files)) or real(d, files))
    for i in range(5):
        (tmp_path / f"m{i}").mkdir()
        (tmp_path / f"m{i}" / "main.tf").write_text('locals {\nx=1\n}\n' if i == 3 else 'locals {\n  x = 1\n}\n')
    found = validate([tmp_path], Options())
    assert [(d.file.parent.name, d.line) for d in found if d.rule == "terraform.fmt"] == [("m3", 2)]
    assert runs == [2, 2, 1]
