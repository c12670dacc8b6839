"""Diagnostics as text, JSON or SARIF 2.1.0.

Paths are shown relative to `base` (the first PATH of the command) when they are below it.
SARIF: one run of the tool `iac-code`, a `rules` entry per rule id found (with its description
from `RULES`), results with `ruleId`, `level` (error/warning/note), `message.text` and a physical
location (`artifactLocation.uri` relative to `%SRCROOT%`, `region.startLine/startColumn`).
Spec: https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from iac_code.iac.diagnostics import RULES, Diagnostic

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def shown(path: Path, base: Path) -> str:
    """`path` relative to `base` (POSIX separators) when below it, else as given."""
    try:
        return path.relative_to(base).as_posix() or "."
    except ValueError:
        rel = os.path.relpath(path, base)
        return Path(rel).as_posix() if not rel.startswith("../../..") else str(path)


def text(diags: list[Diagnostic], base: Path) -> str:
    """One line per diagnostic: `file:line:col severity rule message`."""
    return "".join(f"{shown(d.file, base)}:{d.line}:{d.column} {d.severity} {d.rule} {d.message}\n" for d in diags)


def summary(diags: list[Diagnostic], files: int | None = None) -> str:
    """"2 errors, 1 warning" (or "no problems")."""
    errors = sum(d.severity == "error" for d in diags)
    warnings = sum(d.severity == "warning" for d in diags)
    if not errors and not warnings:
        return "no problems"
    parts = [f"{errors} error{'s' * (errors != 1)}"] if errors else []
    parts += [f"{warnings} warning{'s' * (warnings != 1)}"] if warnings else []
    return ", ".join(parts)


def as_json(diags: list[Diagnostic], base: Path) -> str:
    """`{"diagnostics": [{"file", "line", "column", "severity", "rule", "message"}]}`."""
    items = [{"file": shown(d.file, base), "line": d.line, "column": d.column, "severity": d.severity,
              "rule": d.rule, "message": d.message} for d in diags]
    return json.dumps({"diagnostics": items}, indent=2, ensure_ascii=False) + "\n"


def sarif(diags: list[Diagnostic], base: Path, version: str) -> str:
    """A SARIF 2.1.0 log of `diags`."""
    rule_ids = sorted({d.rule for d in diags})
    index = {r: i for i, r in enumerate(rule_ids)}
    rules = []
    for r in rule_ids:
        family = r if r in RULES else (r.split(".")[0] + ".<id>")
        description = RULES.get(family, ("error", r))[1]
        rules.append({"id": r, "name": r.replace(".", "_").replace("-", "_"),
                      "shortDescription": {"text": description}, "helpUri": "https://github.com/iac-code/iac-code#rules"})
    level = {"error": "error", "warning": "warning", "info": "note"}
    results = [{
        "ruleId": d.rule,
        "ruleIndex": index[d.rule],
        "level": level[d.severity],
        "message": {"text": d.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": shown(d.file, base), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": max(d.line, 1), "startColumn": max(d.column, 1)},
        }}],
    } for d in diags]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "iac-code", "version": version, "informationUri": "https://github.com/iac-code/iac-code", "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": base.absolute().as_uri() + "/"}},
            "results": results,
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
