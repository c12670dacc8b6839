"""The "real code" tier: public modules, templates, manifests and a chart (tests/iac/realworld,
see SOURCES.md) are validated with 0 errors, and every file is checked but Helm templates."""

from __future__ import annotations

from pathlib import Path

import pytest

from iac_code.iac.documents import HELM_TEMPLATE
from iac_code.iac.engine import Options, check

REALWORLD = Path(__file__).parent / "realworld"
PROJECTS = sorted(p for p in REALWORLD.iterdir() if p.is_dir())
KINDS = {"terraform-aws-security-group": "terraform", "aws-cloudformation-templates": "cloudformation",
         "alibabacloud-ros-tool-iact3": "ros", "kubernetes-examples": "kubernetes", "kustomize": "kubernetes", "bitnami-charts": "helm"}


@pytest.mark.parametrize("project", PROJECTS, ids=[p.name for p in PROJECTS])
def test_real_code_has_no_error(project: Path) -> None:
    assert any(project.glob("LICENSE*")), f"{project.name} has no licence file"
    outcome = check([project], Options(terraform_cli=False))
    errors = [f"{d.file.relative_to(project)}:{d.line} {d.rule} {d.message}" for d in outcome.diagnostics if d.severity == "error"]
    assert errors == []
    assert not [d for d in outcome.diagnostics if d.rule == "internal"]
    assert [s for s in outcome.skipped if s.reason != HELM_TEMPLATE] == []
    assert KINDS[project.name] in set(outcome.checked.values())


def test_every_copied_project_is_named_in_sources() -> None:
    sources = (REALWORLD / "SOURCES.md").read_text()
    assert {p.name for p in PROJECTS} == set(KINDS)
    assert all(f"`{p.name}/`" in sources for p in PROJECTS)
