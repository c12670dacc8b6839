"""A project's `.cfnlintrc`: its ignore_checks, include_checks, regions, templates and
ignore_templates are used; its append_rules never is (that would import the project's code),
and a warning says so."""

from __future__ import annotations

from pathlib import Path

from iac_code.iac.engine import Options, check

OFFLINE = Options(terraform_cli=False)
BUCKET = 'AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  B:\n    Type: AWS::S3::Bucket\n    Properties:\n      BucketNam: x\n'
ZONE = ('AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  S:\n    Type: AWS::EC2::Subnet\n    Properties:\n'
        '      VpcId: vpc-12345678\n      CidrBlock: 10.0.0.0/24\n      AvailabilityZone: us-east-1a\n')  # W3010: a hard-coded zone
TABLE = ('AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  D:\n    Type: AWS::DynamoDB::Table\n    Properties:\n'
         '      KeySchema: [{AttributeName: id, KeyType: HASH}]\n      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]\n'
         '      BillingMode: PAY_PER_REQUEST\n')  # I3011 (informational, off by default): no DeletionPolicy
LIGHTSAIL = ('AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  I:\n    Type: AWS::Lightsail::Instance\n    Properties:\n'
             '      InstanceName: web-1\n      BlueprintId: amazon_linux_2\n      BundleId: nano_2_0\n')  # not in cn-north-1


def rules_of(root: Path, options: Options = OFFLINE) -> list[tuple[str, str]]:
    return sorted((d.file.relative_to(root).as_posix(), d.rule) for d in check([root], options).diagnostics)


def test_without_a_cfnlintrc_the_defaults(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "t.yaml").write_text(BUCKET)
    (tmp_path / "z.yaml").write_text(ZONE)
    assert rules_of(tmp_path) == [("t.yaml", "cfn.E3002"), ("z.yaml", "cfn.W3010")]


def test_ignore_checks_and_include_checks(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".cfnlintrc").write_text("ignore_checks:\n  - E3002\n  - W30\n")
    (tmp_path / "t.yaml").write_text(BUCKET)
    (tmp_path / "z.yaml").write_text(ZONE)
    assert rules_of(tmp_path) == []
    (tmp_path / "d.yaml").write_text(TABLE)
    assert rules_of(tmp_path) == []
    (tmp_path / ".cfnlintrc").write_text("include_checks:\n  - I\n")
    assert ("d.yaml", "cfn.I3011") in rules_of(tmp_path)


def test_regions_are_the_projects(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "l.yaml").write_text(LIGHTSAIL)
    assert rules_of(tmp_path) == []
    (tmp_path / ".cfnlintrc").write_text("regions:\n  - us-east-1\n  - cn-north-1\n")
    assert rules_of(tmp_path) == [("l.yaml", "cfn.E3006")]


def test_templates_and_ignore_templates_leave_files_out_and_say_so(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "cfn").mkdir()
    (tmp_path / "cfn" / "a.yaml").write_text(BUCKET)
    (tmp_path / "cfn" / "b.yaml").write_text(BUCKET)
    (tmp_path / "other.yaml").write_text(BUCKET)
    (tmp_path / ".cfnlintrc.yaml").write_text("templates:\n  - cfn/*.yaml\nignore_templates:\n  - cfn/b.yaml\n")
    outcome = check([tmp_path], OFFLINE)
    assert [(d.file.relative_to(tmp_path).as_posix(), d.rule) for d in outcome.diagnostics] == [("cfn/a.yaml", "cfn.E3002")]
    assert [(s.file.relative_to(tmp_path).as_posix(), s.reason) for s in outcome.skipped] == [
        ("cfn/b.yaml", "ignore_templates in .cfnlintrc.yaml"), ("other.yaml", "not among the templates .cfnlintrc.yaml lists")]


def test_append_rules_is_not_used_and_a_warning_says_so(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    (tmp_path / ".git").mkdir()
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "evil.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n")
    (tmp_path / ".cfnlintrc").write_text("ignore_checks: [E3002]\nappend_rules:\n  - rules\n")
    (tmp_path / "t.yaml").write_text(BUCKET)
    found = [(d.file.name, d.line, d.severity, d.rule) for d in check([tmp_path], OFFLINE).diagnostics]
    assert found == [(".cfnlintrc", 2, "warning", "cfnlintrc.append-rules")]
    assert not marker.exists()


def test_ignore_option_reaches_cfn_lint(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "t.yaml").write_text(BUCKET)
    (tmp_path / "z.yaml").write_text(ZONE)
    assert rules_of(tmp_path, Options(terraform_cli=False, ignore=("cfn.W*",))) == [("t.yaml", "cfn.E3002")]
