"""Diagnostics as text, JSON or SARIF 2.1.0.

Text: one line per finding; the summary says "no problems" only when every file found was
checked, and "N files not checked: ..." names the others with why. Paths are shown relative to
`base` (the first PATH of the command) when they are below it. SARIF: one run of the tool
`iac-code`, a `rules` entry per rule id found (its summary and doc from the rule registry,
`iac.rules`; cfn-lint's own summary for `cfn.*`), results with `ruleId`, `level`
(error/warning/note), `message.text` and a physical location (`artifactLocation.uri` relative
to `%SRCROOT%`, `region.startLine/startColumn`); skipped files are tool execution notifications.
Spec: https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from iac_code.iac.diagnostics import Diagnostic, Skipped

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


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


def summary(diags: list[Diagnostic], skipped: list[Skipped] | None = None, checked: int | None = None) -> str:
    """"2 errors, 1 warning"; "no problems" only when no file was skipped, else "no errors
    or warnings" (in the `checked` files, when given)."""
    errors = sum(d.severity == "error" for d in diags)
    warnings = sum(d.severity == "warning" for d in diags)
    where = f" in the {checked:,} file{'s' * (checked != 1)} checked" if checked is not None else ""
    if not errors and not warnings:
        return f"no problems{where}" if not skipped else f"no errors or warnings{where}"
    parts = [f"{errors} error{'s' * (errors != 1)}"] if errors else []
    parts += [f"{warnings} warning{'s' * (warnings != 1)}"] if warnings else []
    return ", ".join(parts) + where


def not_checked(skipped: list[Skipped], base: Path, shown_per_reason: int = 3) -> str:
    """"N files not checked: REASON: a, b, c and 4 more; REASON: d" ("" when none)."""
    if not skipped:
        return ""
    by_reason: dict[str, list[str]] = {}
    for s in skipped:
        by_reason.setdefault(s.reason, []).append(shown(s.file, base))
    parts = []
    for reason, names in by_reason.items():
        more = f" and {len(names) - shown_per_reason} more" if len(names) > shown_per_reason else ""
        parts.append(f"{reason}: {', '.join(names[:shown_per_reason])}{more}")
    n = len(skipped)
    return f"{n} file{'s' * (n != 1)} not checked: " + "; ".join(parts)


def as_json(diags: list[Diagnostic], base: Path, skipped: Sequence[Skipped] = (), checked: int | None = None) -> str:
    """`{"diagnostics": [{"file", "line", "column", "severity", "rule", "message"}], "skipped":
    [{"file", "reason"}], "checked": N}` (files found but not checked, and how many were)."""
    items = [{"file": shown(d.file, base), "line": d.line, "column": d.column, "severity": d.severity,
              "rule": d.rule, "message": d.message} for d in diags]
    doc: dict = {"diagnostics": items, "skipped": [{"file": shown(s.file, base), "reason": s.reason} for s in skipped]}
    if checked is not None:
        doc["checked"] = checked
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def sarif(diags: list[Diagnostic], base: Path, version: str, skipped: Sequence[Skipped] = ()) -> str:
    """A SARIF 2.1.0 log of `diags`; each skipped file is a tool execution notification (a
    warning naming the file and why it was not checked)."""
    rule_ids = sorted({d.rule for d in diags})
    index = {r: i for i, r in enumerate(rule_ids)}
    from iac_code.iac.rules import get

    rules = []
    for r in rule_ids:
        found = get(r)
        entry: dict = {"id": r, "name": r.replace(".", "_").replace("-", "_"), "helpUri": "https://github.com/iac-code/iac-code#rules"}
        if found is not None:
            entry["shortDescription"] = {"text": found.descriptions.get(r) or found.summary}
            entry["defaultConfiguration"] = {"level": _LEVEL[found.severity]}
            if found.doc:
                entry["fullDescription"] = {"text": found.doc}
        else:
            entry["shortDescription"] = {"text": r}
        rules.append(entry)
    results = [{
        "ruleId": d.rule,
        "ruleIndex": index[d.rule],
        "level": _LEVEL[d.severity],
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
            "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": [{
                "level": "warning",
                "message": {"text": f"not checked: {s.reason}"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": shown(s.file, base), "uriBaseId": "%SRCROOT%"}}}],
            } for s in skipped]}],
            "results": results,
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
