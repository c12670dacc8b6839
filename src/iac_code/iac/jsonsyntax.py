"""JSON with positions: syntax errors and duplicate keys as diagnostics."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from iac_code.iac.diagnostics import Diagnostic
from iac_code.iac.rules import declare, diag

SYNTAX = declare("json.syntax", "error", "JSON syntax error", kind="json", doc="Reported by the parser (the standard library's json).")
DUPLICATE_KEY = declare("json.duplicate-key", "error", "a JSON object has the same key twice", kind="json", doc="""
    The last value wins, silently; reported at the second occurrence.""")


def load_json(path: Path, text: str) -> tuple[Any, list[Diagnostic]]:
    """Parse `text`; returns (value or None, diagnostics). Duplicate keys are reported at the
    second occurrence (found by searching the text after the first)."""
    dups: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for k, v in items:
            if k in seen:
                dups.append(k)
            seen[k] = v
        return seen

    try:
        value = json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        return None, [diag(SYNTAX, path, exc.lineno, exc.colno, f"JSON syntax error: {exc.msg}")]
    except RecursionError:
        return None, [diag(SYNTAX, path, 1, 1, "JSON nests too deeply to parse")]
    out = []
    for key in dict.fromkeys(dups):
        hits = [m.start() for m in re.finditer(r'"' + re.escape(json.dumps(key)[1:-1]) + r'"\s*:', text)]
        pos = hits[1] if len(hits) > 1 else (hits[0] if hits else 0)
        line = text.count("\n", 0, pos) + 1
        col = pos - (text.rfind("\n", 0, pos) + 1) + 1
        out.append(diag(DUPLICATE_KEY, path, line, col, f'duplicate key "{key}" (the last value wins)'))
    return value, out
