"""AWS CloudFormation templates, checked by cfn-lint through its Python API (offline specs).

The findings are cfn-lint's, as the family rule `cfn` (`cfn.E3002`, with cfn-lint's severity:
E error, W warning, I info). Which cfn-lint rules run and for which regions is the target's
`CfnOptions` (the project's `.cfnlintrc`, read by `cfnlintrc.py`, and `--ignore cfn.X`); cfn-lint
is never given a configuration file, so it cannot load rule modules from the project. Its rules
are loaded once per process and reused for every template and every settings (`_rules`; each
run configures and filters them from its own `ConfigMixIn`, `_config`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from iac_code.iac import cache
from iac_code.iac.diagnostics import Diagnostic, Severity
from iac_code.iac.rules import rule

if TYPE_CHECKING:
    from cfnlint.config import ConfigMixIn
    from cfnlint.rules import Rules

REGIONS = ("us-east-1",)
_SEVERITY: dict[str, Severity] = {"error": "error", "warning": "warning", "informational": "info"}


def is_cloudformation(doc: Any) -> bool:
    """A template: has `AWSTemplateFormatVersion`, or `Resources` with an `AWS::` type."""
    if not isinstance(doc, dict):
        return False
    if "AWSTemplateFormatVersion" in doc:
        return True
    res = doc.get("Resources")
    if isinstance(res, dict) and "ROSTemplateFormatVersion" not in doc:
        return any(isinstance(r, dict) and str(r.get("Type", "")).startswith(("AWS::", "Custom::")) for r in res.values())
    return False


@dataclass(frozen=True, slots=True)
class CfnOptions:
    """cfn-lint's settings: `regions`, rule id prefixes to skip (`ignore`) and to add
    (`include`, e.g. I-rules, off by default)."""

    regions: tuple[str, ...] = REGIONS
    ignore: tuple[str, ...] = ()
    include: tuple[str, ...] = ()


@dataclass(slots=True)
class CfnTemplate:
    """What the rules of kind `cloudformation` check: one template's `path` and `text`;
    `duplicate_keys` when YAML already reported a duplicate key (cfn-lint's E0000 for it is
    left out)."""

    path: Path
    text: str
    options: CfnOptions = field(default_factory=CfnOptions)
    duplicate_keys: bool = False


@rule("cfn", "error", "a cfn-lint rule (E…: error, W…: warning, I…: info), e.g. cfn.E3002", kind="cloudformation", family=True)
def cfn(t: CfnTemplate) -> Iterator[Diagnostic]:
    """cfn-lint's rules, on its bundled resource specifications (no network)."""
    key = f"{t.options!r}\0{t.text}"
    for line, col, severity, rule_id, message in cache.get_or_compute("cfn", key, lambda: _lint(t.text, t.options)):
        if t.duplicate_keys and rule_id == "cfn.E0000" and message.startswith("Duplicate"):
            continue
        yield Diagnostic(t.path, max(line, 1), max(col, 1), severity, rule_id, message)


@functools.lru_cache(maxsize=8)
def _config(options: CfnOptions) -> ConfigMixIn:
    """cfn-lint's settings for `options` (never a configuration file of the project's)."""
    from cfnlint.config import ConfigMixIn, ManualArgs

    return ConfigMixIn(**ManualArgs(regions=list(options.regions), ignore_checks=list(options.ignore),
                                    include_checks=list(options.include), config_file=os.devnull))


@functools.cache
def _rules() -> Rules:
    """All of cfn-lint's rules, loaded once per process: what a `Runner` (and so `cfnlint.api.lint`)
    loads anew each time, every rule module and the data files they read (0.5-1 s of CPU on the
    machine of 3 Dec 2026, once per distinct settings before). No rule depends on the settings:
    `Rules.run` configures each from the run's config and filters by its ignore/include checks."""
    from cfnlint.runner import Runner

    return Runner(_config(CfnOptions())).rules


def _lint(text: str, options: CfnOptions) -> list[tuple[int, int, Severity, str, str]]:
    from cfnlint.decode import decode_str
    from cfnlint.runner import run_template_by_data

    try:  # cfnlint.api.lint, with the rules kept
        template, matches = decode_str(text)
        if not matches and template is not None:
            matches = list(run_template_by_data(template, _config(options), _rules()))
    except Exception as exc:  # noqa: BLE001 - a linter crash must not stop the other checks
        return [(1, 1, "warning", "cfn.E0000", f"cfn-lint could not check this template: {exc}")]
    seen, out = set(), []
    for m in sorted(matches, key=lambda m: (m.linenumber, m.columnnumber, m.rule.id)):
        key = (m.rule.id, m.linenumber, m.columnnumber, m.message)
        if key in seen:
            continue
        seen.add(key)
        cfn.descriptions.setdefault(f"cfn.{m.rule.id}", m.rule.shortdesc)
        out.append((m.linenumber, m.columnnumber, _SEVERITY.get(m.rule.severity, "warning"), f"cfn.{m.rule.id}", m.message))
    return out
