"""The rule registry: every finding the validator reports comes from one `Rule`.

A rule has an id (`terraform.undeclared-variable`), a severity, a one-line summary, a longer doc
and the kind of file it checks. Most rules have a `check`: a function of the kind's target (a
Terraform module, a CloudFormation template, a ROS template, a file of Kubernetes manifests, a
Helm values file) returning the rule's diagnostics, made with `diag(rule, ...)` so the severity
comes from the rule alone. A few rules are reported by the parser or the engine itself (syntax
errors, unreadable files): they are declared here too, without a check.

The engine asks `rules(kind)` for the rules of a file's kind and runs those `Selection` enables:
a rule switched off is not run. The README's rules table and SARIF's `rules` come from
`all_rules()`.

Adding a rule: write its check in the module of its kind that `MODULES` lists (or add a module
there) with the `@rule(...)` decorator, e.g.

    @rule("ros.unknown-type", "error", "a resource Type ROS does not have", kind="ros")
    def unknown_type(t: RosTemplate) -> Iterator[Diagnostic]:
        \"\"\"The longer doc (README and SARIF).\"\"\"
        ...
        yield diag(unknown_type, t.path, line, column, "message")

then add a corpus case (`tests/iac/corpus/broken/<case>/` with an `expect: RULE` comment on the
line) and keep `tests/iac/corpus/valid/` clean of it; `tests/iac/test_rules.py` checks both and
that README's table is current (`python -m iac_code.iac.rules --markdown` prints it).
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iac_code.iac.diagnostics import Diagnostic, Severity

MODULES: dict[str, tuple[str, ...]] = {
    # kind -> the modules defining its rules, imported when a file of the kind is checked
    "file": ("iac_code.iac.discovery", "iac_code.iac.rules"),
    "yaml": ("iac_code.iac.yamlsyntax",),
    "json": ("iac_code.iac.jsonsyntax",),
    "terraform": (
        "iac_code.iac.terraform.module",
        "iac_code.iac.terraform.references",
        "iac_code.iac.terraform.locals",
        "iac_code.iac.terraform.blocks",
        "iac_code.iac.terraform.calls",
        "iac_code.iac.terraform.resources",
        "iac_code.iac.terraform.values",
        "iac_code.iac.terraform.network",
        "iac_code.iac.terraform.cli",
    ),
    "cloudformation": ("iac_code.iac.cloudformation.lint", "iac_code.iac.cloudformation.cfnlintrc"),
    "ros": (
        "iac_code.iac.ros.structure",
        "iac_code.iac.ros.references",
        "iac_code.iac.ros.functions",
        "iac_code.iac.ros.properties",
        "iac_code.iac.ros.network",
    ),
    "kubernetes": ("iac_code.iac.kubernetes.schema", "iac_code.iac.kubernetes.objects"),
    "helm": ("iac_code.iac.helm.values",),
}
"""The kinds, in the order of README's table."""

Check = Callable[[Any], Iterable[Diagnostic]]


@dataclass(frozen=True, eq=False)
class Rule:
    """One check: `id` (stable, `<kind>.<name>`), `severity` of every finding, `summary` (one
    line), `doc` (longer), the `kind` of file it checks and its `check` (None: reported by the
    parser or the engine). A `family` rule stands for another tool's rules (`cfn.<id>`): its
    findings carry that tool's ids and severities (`severity` is the usual one)."""

    id: str
    severity: Severity
    summary: str
    kind: str
    check: Check | None = None
    doc: str = ""
    family: bool = False
    descriptions: dict[str, str] = field(default_factory=dict)  # family: id -> the tool's own summary
    module: str = ""  # where it is defined: one of MODULES[kind]

    def covers(self, rule_id: str) -> bool:
        """Whether a finding with `rule_id` is this rule's."""
        return rule_id == self.id or (self.family and rule_id.startswith(self.id + "."))


_registry: dict[str, Rule] = {}


def _register(r: Rule) -> Rule:
    if r.kind not in MODULES:
        raise ValueError(f"rule {r.id}: unknown kind {r.kind!r}")
    if r.module not in MODULES[r.kind]:
        raise ValueError(f"rule {r.id} is defined in {r.module}, which MODULES[{r.kind!r}] does not list")
    if r.id in _registry:
        raise ValueError(f"rule {r.id} is registered twice")
    _registry[r.id] = r
    return r


def rule(rule_id: str, severity: Severity, summary: str, *, kind: str, family: bool = False) -> Callable[[Check], Rule]:
    """Decorator: the function becomes the check of a new registered rule (its docstring the
    rule's doc), and its name the `Rule` (so the check can write `diag(name, ...)`)."""

    def register(check: Check) -> Rule:
        doc = inspect.cleandoc(check.__doc__ or "")
        return _register(Rule(rule_id, severity, summary, kind, check, doc, family, module=check.__module__))

    return register


def declare(rule_id: str, severity: Severity, summary: str, *, kind: str, doc: str = "") -> Rule:
    """A registered rule without a check: the parser or the engine reports it."""
    module = sys._getframe(1).f_globals.get("__name__", "")
    return _register(Rule(rule_id, severity, summary, kind, None, inspect.cleandoc(doc), module=module))


def diag(rule: Rule, file: Path, line: int, column: int, message: str) -> Diagnostic:
    """A finding of `rule` (its id and severity) at 1-based `line`/`column` of `file` (both
    clamped to be >= 1: an unknown position is the file's start)."""
    return Diagnostic(file, max(int(line or 1), 1), max(int(column or 1), 1), rule.severity, rule.id, message)


INTERNAL = _register(Rule("internal", "warning", "the validator itself failed on a file (please report it); the file is not fully checked",
                          "file", module="iac_code.iac.rules"))  # named: `python -m` runs this module as __main__ too


def internal_error(path: Path, message: str) -> Diagnostic:
    """The finding for a failure of the validator itself (a rule that raised) on `path`."""
    return diag(INTERNAL, path, 1, 1, message)


def rules(kind: str) -> list[Rule]:
    """The rules of `kind` in the order of `MODULES`, then of their definitions (imports the
    kind's modules)."""
    for name in MODULES[kind]:
        importlib.import_module(name)
    order = {name: i for i, name in enumerate(MODULES[kind])}
    return sorted((r for r in _registry.values() if r.kind == kind), key=lambda r: order[r.module])


def all_rules() -> list[Rule]:
    """Every rule, grouped by kind in `MODULES` order."""
    return [r for kind in MODULES for r in rules(kind)]


def get(rule_id: str) -> Rule | None:
    """The rule whose findings have `rule_id` (a family's for `cfn.E3002`), or None."""
    all_rules()
    if rule_id in _registry:
        return _registry[rule_id]
    return next((r for r in _registry.values() if r.covers(rule_id)), None)


@dataclass(frozen=True, slots=True)
class Selection:
    """Which rules run: all but those `ignore` names (ids, or prefixes ending in `*`: `cfn.W*`,
    `terraform.undeclared-*`)."""

    ignore: tuple[str, ...] = ()

    def enabled(self, rule_id: str) -> bool:
        """Whether findings with `rule_id` are wanted."""
        return not matches(rule_id, self.ignore)


def matches(rule_id: str, patterns: Iterable[str]) -> bool:
    """Whether `rule_id` is one of `patterns` (exact ids, or prefixes ending in `*`)."""
    for pattern in patterns:
        if rule_id == pattern or (pattern.endswith("*") and rule_id.startswith(pattern[:-1])):
            return True
    return False


def run(kind: str, target: Any, selection: Selection, where: Any) -> list[Diagnostic]:
    """The diagnostics of every enabled rule of `kind` with a check, on `target`; a rule that
    fails becomes one `internal` finding at `where` (a path) instead of ending the run (a
    target nested too deeply for Python's recursion limit gets one, and no more rules)."""
    out: list[Diagnostic] = []
    for r in rules(kind):
        if r.check is None or not selection.enabled(r.id):
            continue
        try:
            found = list(r.check(target))
        except RecursionError:
            out.append(internal_error(where, "the file nests too deeply to check"))
            break  # so would the other rules
        except Exception as exc:  # noqa: BLE001 - a bug in one rule must not end the run
            found = [internal_error(where, f"{r.id} failed on this input: {type(exc).__name__}: {exc}")]
        for d in found:
            if not (r.covers(d.rule) or d.rule == "internal"):
                raise AssertionError(f"rule {r.id} reported a finding of {d.rule}")
            out.append(d)
    return out


def markdown_table() -> str:
    """README's rules table: one row per rule (id, severity, summary)."""
    rows = ["| rule | severity | finds |", "|---|---|---|"]
    for r in all_rules():
        rid = f"{r.id}.<id>" if r.family else r.id
        rows.append(f"| `{rid}` | {r.severity} | {r.summary.replace('|', chr(92) + '|')} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    import sys

    from iac_code.iac import rules as registry  # the imported module, where the rule modules register (not __main__)

    if sys.argv[1:] != ["--markdown"]:
        sys.exit("usage: python -m iac_code.iac.rules --markdown")
    sys.stdout.write(registry.markdown_table())
