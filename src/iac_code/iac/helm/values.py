"""Helm chart values: `values*.yaml` against the chart's `values.schema.json` when it has one,
and likely typos between the keys `values.yaml` defines and the `.Values.…` paths the templates
read (warnings: a key read with `default` may legitimately be missing).

The chart is the directory holding `Chart.yaml`; its templates are `templates/**` files.
Templates are read as text only: nothing is rendered.
"""

from __future__ import annotations

import difflib
import json
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iac_code.iac.diagnostics import Diagnostic, Skipped
from iac_code.iac.rules import diag, rule
from iac_code.iac.yamlsyntax import PosDict, locate

_REF = re.compile(r"\.Values((?:\.[A-Za-z_][\w]*)+)")
MAX_TEMPLATES = 500


def chart_of(path: Path) -> Path | None:
    """The chart directory a values file belongs to (its own directory with a Chart.yaml)."""
    return path.parent if (path.parent / "Chart.yaml").is_file() and path.name.startswith("values") else None


@dataclass(slots=True)
class HelmValues:
    """What the rules of kind `helm` check: a chart's values file `path` (parsed as `values`),
    its `chart` directory, and `read(path) -> str | Diagnostic` for the templates."""

    path: Path
    values: PosDict
    chart: Path
    read: Callable[[Path], str | Diagnostic | Skipped]


@rule("helm.values-schema", "error", "a chart's values file that does not match its values.schema.json", kind="helm")
def values_schema(v: HelmValues) -> Iterator[Diagnostic]:
    """Helm validates values against the chart's `values.schema.json` (JSON Schema) before it
    renders; so does this rule, offline, for `values*.yaml` files beside `Chart.yaml`."""
    yield from _schema(v.path, v.chart, v.values)


@rule("helm.undefined-value", "warning", "a `.Values` path a template reads that values.yaml spells differently (or the reverse)",
      kind="helm")
def undefined_value(v: HelmValues) -> Iterator[Diagnostic]:
    """Close spellings between the keys `values.yaml` defines and the `.Values.a.b` paths the
    chart's `templates/` read (a warning: a template may read an optional key with `default`)."""
    if v.path.name in ("values.yaml", "values.yml"):
        yield from _typos(v.path, v.chart, v.values, v.read)


def _schema(path: Path, chart: Path, values: PosDict) -> list[Diagnostic]:
    schema_file = chart / "values.schema.json"
    if not schema_file.is_file():
        return []
    try:
        import jsonschema

        schema = json.loads(schema_file.read_text(encoding="utf-8"))
        with warnings.catch_warnings():  # an unknown "$schema" URI: the latest draft is used
            warnings.simplefilter("ignore", DeprecationWarning)
            validator = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)(schema)
        errors = list(validator.iter_errors(values))
    except Exception as exc:  # noqa: BLE001 - a broken schema is the chart's problem, reported once
        return [diag(values_schema, schema_file, 1, 1, f"values.schema.json cannot be used: {exc}")]
    out = []
    for err in errors[:100]:
        pos, _, _ = locate(values, err.absolute_path)
        where = ".".join(str(k) for k in err.absolute_path) or "(top level)"
        out.append(diag(values_schema, path, pos[0], pos[1], f"{where}: {err.message[:300]}"))
    return out


def _typos(path: Path, chart: Path, values: PosDict, read: Callable[[Path], str | Diagnostic | Skipped]) -> list[Diagnostic]:
    used: dict[tuple[str, ...], tuple[Path, int, int]] = {}
    templates = chart / "templates"
    files = sorted(p for p in templates.rglob("*") if p.is_file())[:MAX_TEMPLATES] if templates.is_dir() else []
    for f in files:
        text = read(f)
        if not isinstance(text, str):
            continue
        for m in _REF.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            used.setdefault(tuple(m.group(1)[1:].split(".")), (f, line, m.start() - text.rfind("\n", 0, m.start())))
    if not used:
        return []
    out: list[Diagnostic] = []
    prefixes = {ref[:i] for ref in used for i in range(1, len(ref) + 1)}
    for ref, (f, line, col) in used.items():
        node: Any = values
        for depth, key in enumerate(ref):
            if not isinstance(node, PosDict):
                break
            if key not in node:
                close = difflib.get_close_matches(key, [str(k) for k in node], n=1, cutoff=0.8)
                if close and ref[:depth] + (close[0],) not in prefixes:
                    out.append(diag(undefined_value, f, line, col,
                                    f'.Values.{".".join(ref)}: values.yaml has no "{key}" here (did you mean "{close[0]}"?)'))
                break
            node = node[key]
    _unused(path, values, (), prefixes, out)
    return out


def _unused(path: Path, node: PosDict, at: tuple[str, ...], prefixes: set, out: list[Diagnostic]) -> None:
    siblings = {p[-1] for p in prefixes if len(p) == len(at) + 1 and p[:-1] == at}
    for key, value in node.items():
        here = (*at, str(key))
        if here in prefixes:
            if isinstance(value, PosDict):
                _unused(path, value, here, prefixes, out)
            continue
        close = difflib.get_close_matches(str(key), [s for s in siblings if s not in node], n=1, cutoff=0.8)
        if close:
            out.append(diag(undefined_value, path, *node.pos(key),
                            f'"{".".join(here)}" is not read by any template, which read "{".".join((*at, close[0]))}" (a typo?)'))
