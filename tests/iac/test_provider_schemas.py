"""Which provider schema the Terraform resource rules use: the installed providers' own
(`terraform providers schema -json`, with --terraform-validate where `terraform init` has run)
wins over the bundled data; a version constraint or lock file the data cannot speak for turns
the rules off. A fake `terraform` on PATH plays the installed provider (nothing is downloaded)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from iac_code.iac.engine import Options, validate
from iac_code.iac.terraform.resources import _admits

SCHEMA = {"format_version": "1.0", "provider_schemas": {"registry.terraform.io/hashicorp/aws": {
    "resource_schemas": {"aws_widget": {"version": 0, "block": {
        "attributes": {"id": {"type": "string", "optional": True, "computed": True},
                       "size": {"type": "number", "required": True}},
        "block_types": {"part": {"nesting_mode": "list", "min_items": 1,
                                 "block": {"attributes": {"name": {"type": "string", "required": True}}}}}}}},
    "data_source_schemas": {}}}}


def _fake_terraform(bin_dir: Path) -> None:
    """A `terraform` that prints SCHEMA for `providers schema -json`, no diagnostics for
    `validate -json`, and accepts `fmt`."""
    bin_dir.mkdir()
    (bin_dir / "schema.json").write_text(json.dumps(SCHEMA))
    script = bin_dir / "terraform"
    script.write_text(f"""#!/bin/sh
case "$1 $2" in
  "providers schema") cat '{bin_dir / "schema.json"}' ;;
  "validate -json") echo '{{"valid": true, "diagnostics": []}}' ;;
  *) exit 0 ;;
esac
""")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def _found(project: Path, **options) -> set[tuple[int, str]]:
    return {(d.line, d.rule) for d in validate([project], Options(**options)) if d.rule.startswith("terraform.")
            and d.rule not in ("terraform.fmt", "terraform.validate")}


def test_installed_schema_wins_over_the_bundled_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".terraform").mkdir()  # `terraform init` has run
    (project / "main.tf").write_text(
        'resource "aws_widget" "w" {\n'   # 1: not in the bundled aws; installed: lacks size and a part block
        '  colour = "red"\n'              # 2: unknown to the installed schema
        '}\n'
        'resource "aws_subnet" "s" {\n'   # 4: in the bundled aws, not in the installed provider
        '  vpc_id = "vpc-1"\n'
        '}\n')
    offline = _found(project, terraform_cli=False)
    assert offline == {(1, "terraform.unknown-resource-type")}
    _fake_terraform(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    installed = _found(project, terraform_validate=True)
    assert installed == {(1, "terraform.resource-missing-argument"), (2, "terraform.resource-unknown-argument"),
                         (4, "terraform.unknown-resource-type")}


def test_a_version_the_data_cannot_speak_for_turns_the_rules_off(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('resource "aws_s3_bucket" "b" {\n  acl = "private"\n  bucket_typo = "x"\n}\n')
    assert _found(tmp_path, terraform_cli=False) == {(3, "terraform.resource-unknown-argument")}
    (tmp_path / "versions.tf").write_text('terraform {\n  required_providers {\n    aws = { source = "hashicorp/aws", version = "~> 4.0" }\n  }\n}\n')
    assert _found(tmp_path, terraform_cli=False) == set()
    (tmp_path / "versions.tf").unlink()
    (tmp_path / ".terraform.lock.hcl").write_text('provider "registry.terraform.io/hashicorp/aws" {\n  version = "5.31.0"\n}\n')
    assert _found(tmp_path, terraform_cli=False) == set()


@pytest.mark.parametrize(("constraint", "admitted"), [
    ("~> 6.0", True), ("~> 5.0", False), (">= 4.0", True), (">= 4.0, < 6.0", False), ("~> 6.69.0", True),
    ("~> 6.70", False), ("6.69.1", True), ("!= 6.69.1", False), ("<= 6.69", False), ("<= 6.70", True), ("~> 6", True), ("latest", None)])
def test_version_constraints(constraint: str, admitted: bool | None) -> None:
    assert _admits(constraint, "6.69.1") is admitted


def test_the_version_a_module_pins_picks_the_data(tmp_path: Path) -> None:
    """google_iap_brand was removed in google 8: an error with the newest data, fine with 7."""
    from iac_code.iac.terraform import schema

    assert [p.version.split(".")[0] for p in schema.bundled_versions("google")] == ["8", "7"]
    (tmp_path / "main.tf").write_text('resource "google_iap_brand" "b" {\n  support_email = "a@b.c"\n  application_title = "x"\n}\n')
    assert _found(tmp_path, terraform_cli=False) == {(1, "terraform.unknown-resource-type")}
    (tmp_path / "versions.tf").write_text('terraform {\n  required_providers {\n    google = { source = "hashicorp/google", version = "~> 7.0" }\n  }\n}\n')
    assert _found(tmp_path, terraform_cli=False) == set()
    (tmp_path / "main.tf").write_text('resource "google_iap_brand" "b" {\n  support_emial = "a@b.c"\n  application_title = "x"\n}\n')
    assert _found(tmp_path, terraform_cli=False) == {(1, "terraform.resource-missing-argument"), (2, "terraform.resource-unknown-argument")}
