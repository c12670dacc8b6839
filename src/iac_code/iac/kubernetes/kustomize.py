"""Kustomize patches: partial objects by design, not to be held to the full schema.

A file is a patch when a `kustomization.yaml` (or `.yml`, or `Kustomization`) in its directory
or one of the three above lists it under `patches`, `patchesStrategicMerge` or
`patchesJson6902` (paths relative to the kustomization's directory). An object anywhere holding a
strategic-merge directive (`$patch: delete`, `$retainKeys`, `$setElementOrder/...`,
`$deleteFromPrimitiveList/...`) is partial too.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from iac_code.iac.diagnostics import Diagnostic, Skipped

KUSTOMIZATIONS = ("kustomization.yaml", "kustomization.yml", "Kustomization")
_DIRECTIVES = ("$patch", "$retainKeys", "$setElementOrder/", "$deleteFromPrimitiveList/")
_LEVELS = 4


def is_patch(path: Path, read: Callable[[Path], str | Diagnostic | Skipped]) -> bool:
    """Whether a kustomization near `path` lists it as a patch; `read(path) -> str | ...`."""
    target = os.path.normpath(path.absolute())
    for directory in list(path.absolute().parents)[:_LEVELS]:
        for name in KUSTOMIZATIONS:
            if target in _patches(directory / name, read):
                return True
    return False


def _patches(kustomization: Path, read: Callable[[Path], str | Diagnostic | Skipped]) -> set[str]:
    """The normalised absolute paths of the patch files `kustomization` lists."""
    if not kustomization.is_file():
        return set()
    from iac_code.iac.yamlsyntax import load

    text = read(kustomization)
    if not isinstance(text, str):
        return set()
    docs, _ = load(kustomization, text)
    out: set[str] = set()
    for doc in docs:
        value = doc.value if isinstance(doc.value, dict) else {}
        entries: list[Any] = []
        for key in ("patches", "patchesStrategicMerge", "patchesJson6902"):
            if isinstance(value.get(key), list):
                entries += value[key]
        for entry in entries:
            ref = entry.get("path") if isinstance(entry, dict) else entry
            if isinstance(ref, str) and "\n" not in ref and ref.strip():
                out.add(os.path.normpath(kustomization.parent / ref.strip()))
    return out


def partial(node: Any) -> bool:
    """Whether an object holds a strategic-merge directive anywhere (it is a patch)."""
    if isinstance(node, dict):
        return any(isinstance(k, str) and k.startswith(_DIRECTIVES) for k in node) or any(partial(v) for v in node.values())
    if isinstance(node, list):
        return any(partial(v) for v in node)
    return False
