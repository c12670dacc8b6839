"""The validator on the corpus: every marked defect is reported (rule, file, line), nothing
else is an error, and the valid projects give no error at all.

Markers: a line containing `expect: RULE` (in a comment) must get a diagnostic of RULE on that
line; `expect.txt` in a case lists `FILE:LINE RULE` for files that cannot carry comments.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from iac_code.iac.engine import Options, validate

CORPUS = Path(__file__).parent / "corpus"
BROKEN = sorted(p for p in (CORPUS / "broken").iterdir() if p.is_dir())
VALID = sorted(p for p in (CORPUS / "valid").iterdir() if p.is_dir())
EXAMPLE = Path(__file__).parents[2] / "examples" / "alicloud-network"
MARK = re.compile(r"expect: ([\w.\-]+)")
OFFLINE = Options(terraform_cli=False)


def expectations(case: Path) -> set[tuple[str, int, str]]:
    expected = set()
    for f in case.rglob("*"):
        if not f.is_file():
            continue
        rel = f.relative_to(case).as_posix()
        if f.name == "expect.txt":
            for line in f.read_text().splitlines():
                where, rule = line.split()
                name, number = where.rsplit(":", 1)
                expected.add((name, int(number), rule))
            continue
        try:
            text = f.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for m in MARK.finditer(line):
                expected.add((rel, n, m.group(1)))
    return expected


@pytest.mark.parametrize("case", BROKEN, ids=[p.name for p in BROKEN])
def test_broken_case_reports_each_defect_and_nothing_else(case: Path) -> None:
    expected = expectations(case)
    assert expected, f"{case.name} has no expectations"
    found = validate([case], OFFLINE)
    got = {(d.file.relative_to(case).as_posix(), d.line, d.rule) for d in found}
    missing = expected - got
    assert not missing, f"not reported: {sorted(missing)}\nreported: {sorted(got)}"
    errors = {(d.file.relative_to(case).as_posix(), d.line, d.rule) for d in found if d.severity == "error"}
    assert errors <= expected, f"unexpected errors: {sorted(errors - expected)}"


@pytest.mark.parametrize("project", [*VALID, EXAMPLE], ids=[p.name for p in [*VALID, EXAMPLE]])
def test_valid_project_has_no_error(project: Path) -> None:
    found = validate([project], OFFLINE)
    errors = [d for d in found if d.severity == "error"]
    assert errors == [], "\n".join(f"{d.file}:{d.line} {d.rule} {d.message}" for d in errors)
    assert not [d for d in found if d.rule == "internal"]


def test_the_valid_corpus_covers_every_kind() -> None:
    names = {p.name for p in VALID}
    assert {"aws-vpc", "alicloud-network", "cfn-s3-iam", "ros-vpc", "k8s-app", "helm-chart"} <= names
