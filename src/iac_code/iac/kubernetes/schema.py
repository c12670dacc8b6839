"""Kubernetes manifests: every object checked against the strict JSON schemas bundled with
kubernetes-validate (offline), all errors per object rather than the first.

The target version is `DEFAULT_VERSION` unless configured (clamped to the bundled 1.25-1.37).
Kinds without a bundled schema (CRDs) are reported once as `k8s.unknown-kind` (info).
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from iac_code.iac.diagnostics import Diagnostic, diag
from iac_code.iac.yamlsyntax import PosDict, locate

DEFAULT_VERSION = "1.33"


def is_manifest(doc: Any) -> bool:
    """A Kubernetes object: a mapping with string `apiVersion` and `kind`."""
    return isinstance(doc, dict) and isinstance(doc.get("apiVersion"), str) and isinstance(doc.get("kind"), str)


@lru_cache(maxsize=1)
def _versions() -> list[str]:
    from kubernetes_validate.utils import all_versions

    return [".".join(v.split(".")[:2]) for v in all_versions()]


def clamp_version(version: str | None) -> str:
    """`version` ("1.30", "v1.30.4") as the nearest bundled minor version."""
    versions = _versions()
    m = re.match(r"^v?(\d+)\.(\d+)", version or DEFAULT_VERSION)
    if not m:
        return versions[-1]
    wanted = (int(m.group(1)), int(m.group(2)))
    best = versions[0]
    for v in versions:
        major, minor = map(int, v.split("."))
        if (major, minor) <= wanted:
            best = v
    return best


@lru_cache(maxsize=256)
def _validator(version: str, kind: str, api_version: str):
    import jsonschema
    from kubernetes_validate.utils import schema_contents
    from referencing import Registry, Resource

    full = next(v for v in __import__("kubernetes_validate.utils").utils.all_versions() if v.startswith(version + "."))
    group = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    directory = f"kubernetes-json-schema/v{full}-local-strict"
    try:
        schema = schema_contents(f"{directory}/{kind.lower()}-{group}.json", version)
    except (FileNotFoundError, OSError):
        return None
    except Exception:  # noqa: BLE001 - an unsupported version or unparsable schema: skip the object
        return None
    defs = _definitions(directory, version)
    registry = Resource.from_contents(defs) @ (Resource.from_contents(schema) @ Registry())
    return jsonschema.Draft202012Validator(schema, registry=registry)


NOT_API_KINDS = {"Config", "List", "Policy", "Kustomization", "Component", "EncryptionConfiguration"}
BUILTIN_GROUPS = {"", "apps", "batch", "networking.k8s.io", "rbac.authorization.k8s.io", "policy", "autoscaling",
                  "storage.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io", "scheduling.k8s.io",
                  "coordination.k8s.io", "node.k8s.io", "discovery.k8s.io", "certificates.k8s.io", "events.k8s.io"}


@lru_cache(maxsize=4)
def _served(version: str) -> dict[str, set[str]]:
    """Kind -> the apiVersions Kubernetes `version` serves it as (from the bundled definitions)."""
    from kubernetes_validate.utils import all_versions

    full = next(v for v in all_versions() if v.startswith(version + "."))
    served: dict[str, set[str]] = {}
    defs = _definitions(f"kubernetes-json-schema/v{full}-local-strict", version)
    for definition in (defs.get("$defs") or defs.get("definitions") or {}).values():
        for gvk in definition.get("x-kubernetes-group-version-kind", []) if isinstance(definition, dict) else []:
            kind, group, v = gvk.get("kind"), gvk.get("group", ""), gvk.get("version")
            if kind and v and not kind.endswith(("List", "Options", "Event")) and kind not in ("Status", "WatchEvent", "DeleteOptions"):
                served.setdefault(kind, set()).add(f"{group}/{v}" if group else v)
    return served


@lru_cache(maxsize=4)
def _definitions(directory: str, version: str) -> Any:
    from kubernetes_validate.utils import schema_contents

    return schema_contents(f"{directory}/_definitions.json", version)


def check(path: Path, doc: PosDict, version: str | None = None) -> list[Diagnostic]:
    """Structure and schema errors of one object (a document of a manifest file)."""
    out: list[Diagnostic] = []
    kind, api = doc.get("kind"), doc.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api, str):
        missing = "kind" if not isinstance(kind, str) else "apiVersion"
        out.append(diag(path, doc.line, doc.column, "error", "k8s.structure", f"the object has no {missing}"))
        return out
    target = clamp_version(version)
    validator = _validator(target, kind, api)
    if validator is None:
        served = _served(target)
        group = api.split("/")[0] if "/" in api else ""
        if kind in served and (group in BUILTIN_GROUPS or group == "extensions"):  # not Knative's Service
            line, col = doc.pos("apiVersion")
            out.append(diag(path, line, col, "error", "k8s.api-version",
                            f"Kubernetes {target} serves {kind} as {' or '.join(sorted(served[kind]))}, not {api}"))
        elif group in BUILTIN_GROUPS and kind not in NOT_API_KINDS and (
                close := difflib.get_close_matches(kind, list(served), n=1, cutoff=0.85)):
            line, col = doc.pos("kind")  # only a likely typo: kubeconfig's Config or a List are not API objects
            out.append(diag(path, line, col, "error", "k8s.kind", f'Kubernetes has no kind {kind} in {api} (did you mean "{close[0]}"?)'))
        else:
            line, col = doc.pos("kind")
            out.append(diag(path, line, col, "info", "k8s.unknown-kind",
                            f"no bundled schema for {kind} ({api}); not checked (a custom resource?)"))
        return out
    meta = doc.get("metadata")
    if not kind.endswith("List") and not (isinstance(meta, dict) and (meta.get("name") or meta.get("generateName"))):
        line, col = doc.pos("metadata") if "metadata" in doc else (doc.line, doc.column)
        out.append(diag(path, line, col, "error", "k8s.structure", f"the {kind} has no metadata.name"))
    seen = set()
    for err in validator.iter_errors(doc):
        for line, col, message in _describe(doc, err):
            if (line, message) not in seen:
                seen.add((line, message))
                out.append(diag(path, line, col, "error", "k8s.schema", message))
    return out


def _describe(doc: PosDict, err) -> list[tuple[int, int, str]]:
    pos, node, where = locate(doc, err.absolute_path)
    dotted = ".".join(where) or "(top level)"
    if err.validator == "additionalProperties" and isinstance(node, PosDict):
        allowed = set((err.schema or {}).get("properties", {}))
        extra = [k for k in node if k not in allowed]
        if extra:
            out = []
            for k in extra:
                line, col = node.pos(k)
                hint = _hint(str(k), allowed)
                out.append((line, col, f'{dotted}: unknown field "{k}"{hint}'))
            return out
    message = err.message
    if len(message) > 300:
        message = message[:300] + "…"
    return [(pos[0], pos[1], f"{dotted}: {message}")]


def _hint(name: str, names) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(names), n=1, cutoff=0.75)
    return f' (did you mean "{close[0]}"?)' if close else ""
