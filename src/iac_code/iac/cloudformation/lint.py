"""AWS CloudFormation templates, checked by cfn-lint through its Python API (offline specs).

The project's own `.cfnlintrc` (and `~/.cfnlintrc`) is not read: it may name custom rule modules,
which would run the project's code. Matches are deduplicated and mapped to `cfn.<rule id>`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from iac_code.iac import cache
from iac_code.iac.diagnostics import Diagnostic, diag

REGIONS = ["us-east-1"]
_SEVERITY = {"error": "error", "warning": "warning", "informational": "info"}


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


def check(path: Path, text: str) -> list[Diagnostic]:
    """cfn-lint's findings on the template `text` (the file is named `path` in them)."""
    found = cache.get_or_compute("cfn", text, lambda: _lint(text))
    return [diag(path, line, col, sev, rule, msg) for line, col, sev, rule, msg in found]


def _lint(text: str) -> list[tuple[int, int, str, str, str]]:
    from cfnlint.api import ManualArgs, lint

    try:
        matches = lint(text, config=ManualArgs(regions=REGIONS, config_file=os.devnull))
    except Exception as exc:  # noqa: BLE001 - a linter crash must not stop the other checks
        return [(1, 1, "warning", "cfn.E0000", f"cfn-lint could not check this template: {exc}")]
    seen, out = set(), []
    for m in sorted(matches, key=lambda m: (m.linenumber, m.columnnumber, m.rule.id)):
        key = (m.rule.id, m.linenumber, m.columnnumber, m.message)
        if key in seen:
            continue
        seen.add(key)
        out.append((m.linenumber, m.columnnumber, _SEVERITY.get(m.rule.severity, "warning"), f"cfn.{m.rule.id}", m.message))
    return out
