"""The finding every validator produces, and the table of stable rule ids.

A `Diagnostic` names a file (absolute path), a 1-based line and column, a severity (`error`,
`warning`, `info`), a stable rule id (see `RULES`) and a message written for a person or a model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

_LINE_NUMBERS = re.compile(r"(line |at |\.tf:|\.yaml:|\.yml:|\.tfvars:|\.json:)\d+")
Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: `file` absolute, `line`/`column` 1-based (0 when unknown)."""

    file: Path
    line: int
    column: int
    severity: Severity
    rule: str
    message: str

    def sort_key(self) -> tuple[str, int, int, str, str]:
        """Order of reports: by file, position, then rule."""
        return (str(self.file), self.line, self.column, self.rule, self.message)

    def identity(self) -> tuple[str, str, str]:
        """What stays the same when lines shift: file, rule and message with the line numbers it
        quotes blanked (used to find *new* problems)."""
        return (str(self.file), self.rule, _LINE_NUMBERS.sub(r"\1#", self.message))


def diag(file: Path, line: int, column: int, severity: Severity, rule: str, message: str) -> Diagnostic:
    """Shorthand constructor; line and column are clamped to be >= 1 (0 stays 'unknown' only for line 0)."""
    return Diagnostic(file, max(int(line or 1), 1), max(int(column or 1), 1), severity, rule, message)


# rule id -> (severity, what it finds). The README's rules table is this table.
RULES: dict[str, tuple[Severity, str]] = {
    "file.unreadable": ("error", "the file cannot be read"),
    "file.too-large": ("warning", "the file is larger than the validator reads (5 MiB); it is skipped"),
    "file.binary": ("error", "an IaC file that is binary data"),
    "file.encoding": ("error", "an IaC file that is not valid UTF-8"),
    "internal": ("warning", "the validator itself failed on a file (please report it); the file is not fully checked"),
    "hcl.syntax": ("error", "HCL syntax error (Terraform, OpenTofu, .tfvars)"),
    "json.syntax": ("error", "JSON syntax error"),
    "json.duplicate-key": ("error", "a JSON object has the same key twice"),
    "yaml.syntax": ("error", "YAML syntax error"),
    "yaml.duplicate-key": ("error", "a YAML mapping has the same key twice"),
    "terraform.undeclared-variable": ("error", "`var.X` without a `variable \"X\"` block in the module"),
    "terraform.undeclared-local": ("error", "`local.X` without a `locals` entry X in the module"),
    "terraform.undeclared-module": ("error", "`module.X` without a `module \"X\"` block"),
    "terraform.undeclared-data": ("error", "`data.T.N` without a `data \"T\" \"N\"` block"),
    "terraform.undeclared-resource": ("error", "`T.N` without a `resource \"T\" \"N\"` block"),
    "terraform.undeclared-module-output": ("error", "`module.X.Y` where the local module X has no output Y"),
    "terraform.depends-on-missing": ("error", "`depends_on` names an address that is not declared"),
    "terraform.module-source-missing": ("error", "a local module `source` directory that does not exist or has no .tf files"),
    "terraform.module-missing-variable": ("error", "a module call omits a variable the module requires"),
    "terraform.module-unknown-argument": ("error", "a module call passes an argument the module does not declare"),
    "terraform.duplicate": ("error", "two resources, data sources, variables, outputs, locals, modules or providers with one name"),
    "terraform.duplicate-attribute": ("error", "the same argument twice in one block"),
    "terraform.count-and-for-each": ("error", "`count` and `for_each` on one block"),
    "terraform.each-outside-for-each": ("error", "`each.` in a block without `for_each`"),
    "terraform.count-outside-count": ("error", "`count.index` in a block without `count`"),
    "terraform.missing-instance-key": ("error", "an attribute of a resource/module with count or for_each read without an index"),
    "terraform.unexpected-instance-key": ("error", "an index on a resource/module that has neither count nor for_each"),
    "terraform.unknown-function": ("error", "a call to a function Terraform/OpenTofu does not have"),
    "terraform.unknown-block": ("error", "a top-level block or argument Terraform does not know"),
    "terraform.block-labels": ("error", "a block with the wrong number of labels"),
    "terraform.missing-argument": ("error", "a required argument is missing (module `source`, output `value`, vswitch/subnet `vpc_id`, ...)"),
    "terraform.unknown-argument": ("error", "an argument a `variable` or `output` block does not accept (a warning for a likely misspelt VPC/subnet/security group argument)"),
    "terraform.invalid-type": ("error", "a variable `type` that is not a type constraint"),
    "terraform.undeclared-provider": ("error", "`provider = P.alias` with no such provider configuration"),
    "terraform.undeclared-tfvar": ("warning", "a .tfvars value for a variable the module does not declare"),
    "terraform.invalid-value": ("error", "a .tfvars value, default or module argument that does not fit the variable's type"),
    "terraform.variable-validation": ("error", "a known variable value that fails the variable's `validation` condition"),
    "terraform.for-each-list": ("error", "`for_each` given a list or tuple instead of a map or set"),
    "terraform.self-reference": ("error", "a resource that refers to itself by its address (use `self` in provisioners)"),
    "terraform.invalid-default": ("error", "a variable `default` that refers to other values (defaults must be literal)"),
    "terraform.sensitive-output": ("error", "a root module output showing a sensitive variable without `sensitive = true`"),
    "terraform.invalid-name": ("error", "a resource/data/module/variable/output name Terraform rejects, or a reserved variable name"),
    "terraform.static-only": ("error", "a reference inside the `terraform` block (backend, required_version...), which takes literals only"),
    "terraform.module-version-local": ("error", "`version` on a module whose source is a local path"),
    "terraform.invalid-reference": ("error", "a quoted reference in `depends_on` or `provider` (`\"aws_vpc.main\"`)"),
    "terraform.block-vs-argument": ("error", "`tags { ... }` written as a block; it is an argument (`tags = { ... }`)"),
    "terraform.unknown-resource-type": ("warning", "a resource type one letter or two away from a common alicloud/aws type"),
    "terraform.invalid-cidr": ("error", "a CIDR literal that is not a valid network address"),
    "terraform.cidr-outside-vpc": ("error", "a subnet/vswitch CIDR outside its VPC's CIDR"),
    "terraform.cidr-overlap": ("error", "subnets/vswitches of one VPC whose CIDRs overlap"),
    "terraform.fmt": ("warning", "`terraform fmt -check` would reformat the file (needs terraform on PATH)"),
    "terraform.validate": ("error", "`terraform validate` (needs terraform on PATH and an initialised directory)"),
    "cfn.<id>": ("error", "a cfn-lint rule (E…: error, W…: warning, I…: info), e.g. cfn.E3002"),
    "ros.version": ("error", "`ROSTemplateFormatVersion` is not 2015-09-01"),
    "ros.structure": ("error", "a section, resource or parameter of the wrong shape, or an unknown section"),
    "ros.resource-type": ("error", "a resource `Type` that is not `ALIYUN::…`/`DATASOURCE::…`/a custom type"),
    "ros.undeclared-ref": ("error", "`Ref`/`Fn::GetAtt`/`Fn::Sub`/`DependsOn` to a missing resource or parameter"),
    "ros.undeclared-condition": ("error", "a `Condition` that is not declared in `Conditions`"),
    "ros.cidr": ("error", "an invalid VSwitch CIDR, outside its VPC or overlapping a sibling"),
    "ros.function": ("error", "an intrinsic function (Fn::Join, Fn::Select, Fn::If, ...) with the wrong arguments"),
    "ros.required-property": ("error", "a common resource type without a property it requires (VSwitch CidrBlock, ...)"),
    "ros.unknown-property": ("warning", "a property of a VPC/VSwitch/SecurityGroup that looks misspelt"),
    "ros.unused-parameter": ("warning", "a parameter nothing refers to"),
    "helm.values-schema": ("error", "a chart's values file that does not match its values.schema.json"),
    "helm.undefined-value": ("warning", "a `.Values` path a template reads that values.yaml spells differently (or the reverse)"),
    "k8s.schema": ("error", "a Kubernetes object that does not match its schema (kubernetes-validate)"),
    "k8s.structure": ("error", "a manifest document without `apiVersion`/`kind`/`metadata.name`"),
    "k8s.name": ("error", "a metadata, container or port name Kubernetes rejects (DNS-1123/1035 rules)"),
    "k8s.label": ("error", "a label key or value Kubernetes rejects"),
    "k8s.quantity": ("error", "a resource quantity that does not parse, or a request above its limit"),
    "k8s.selector-mismatch": ("error", "a workload selector that does not match its pod template's labels"),
    "k8s.service-selector": ("warning", "a Service selector or named targetPort matching no pod of the same file"),
    "k8s.api-version": ("error", "a built-in kind under an apiVersion this Kubernetes version does not serve (e.g. extensions/v1beta1)"),
    "k8s.kind": ("error", "a kind that a built-in API group does not have (a misspelt kind)"),
    "k8s.unknown-kind": ("info", "a kind with no bundled schema (a CRD): not checked"),
}


def severity_of(rule: str) -> Severity:
    """The severity a rule id reports at."""
    return RULES.get(rule, ("error", ""))[0]
