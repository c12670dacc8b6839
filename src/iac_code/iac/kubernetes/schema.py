"""Kubernetes manifests: every object checked against the strict JSON schemas bundled with
kubernetes-validate (offline), all errors per object rather than the first.

The target version is `DEFAULT_VERSION` unless configured (clamped to the bundled 1.25-1.37).
Kinds without a bundled schema (CRDs) are reported once as `k8s.unknown-kind` (info). The
rules of what the API server enforces beyond the schemas are in `objects.py`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from iac_code.iac.diagnostics import Diagnostic
from iac_code.iac.rules import diag, rule
from iac_code.iac.yamlsyntax import PosDict, locate

if TYPE_CHECKING:
    import jsonschema

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
def _validator(version: str, kind: str, api_version: str) -> jsonschema.Draft202012Validator | None:
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


@dataclass(slots=True)
class Manifests:
    """What the rules of kind `kubernetes` check: the objects (documents) of one manifest file
    at `path`, for Kubernetes `version` (None: `DEFAULT_VERSION`). Partial objects (patches)
    are not among them."""

    path: Path
    objects: list[PosDict]
    version: str | None = None

    @property
    def target(self) -> str:
        """The bundled Kubernetes minor version the objects are checked against."""
        return clamp_version(self.version)


def _typed(m: Manifests) -> Iterator[tuple[PosDict, str, str]]:
    """(object, kind, apiVersion) of the objects that have both."""
    for doc in m.objects:
        kind, api = doc.get("kind"), doc.get("apiVersion")
        if isinstance(kind, str) and isinstance(api, str):
            yield doc, kind, api


def _unschematized(m: Manifests) -> Iterator[tuple[PosDict, str, str, str]]:
    """(object, kind, apiVersion, group) of the objects with no bundled schema."""
    for doc, kind, api in _typed(m):
        if _validator(m.target, kind, api) is None:
            yield doc, kind, api, api.split("/")[0] if "/" in api else ""


@rule("k8s.structure", "error", "a manifest document without `apiVersion`/`kind`/`metadata.name`", kind="kubernetes")
def structure(m: Manifests) -> Iterator[Diagnostic]:
    """Every object has `apiVersion` and `kind`, and (but lists) `metadata.name` or
    `metadata.generateName`."""
    for doc in m.objects:
        kind, api = doc.get("kind"), doc.get("apiVersion")
        if not isinstance(kind, str) or not isinstance(api, str):
            yield diag(structure, m.path, doc.line, doc.column, f"the object has no {'kind' if not isinstance(kind, str) else 'apiVersion'}")
            continue
        meta = doc.get("metadata")
        if _validator(m.target, kind, api) is not None and not kind.endswith("List") and not (
                isinstance(meta, dict) and (meta.get("name") or meta.get("generateName"))):
            line, col = doc.pos("metadata") if "metadata" in doc else (doc.line, doc.column)
            yield diag(structure, m.path, line, col, f"the {kind} has no metadata.name")


@rule("k8s.schema", "error", "a Kubernetes object that does not match its schema (kubernetes-validate)", kind="kubernetes")
def schema(m: Manifests) -> Iterator[Diagnostic]:
    """Every error of the object against the strict JSON schema of its kind and apiVersion
    bundled with kubernetes-validate (unknown fields included), not only the first."""
    for doc, kind, api in _typed(m):
        validator = _validator(m.target, kind, api)
        seen = set()
        for err in validator.iter_errors(doc) if validator is not None else ():
            for line, col, message in _describe(doc, err):
                if (line, message) not in seen:
                    seen.add((line, message))
                    yield diag(schema, m.path, line, col, message)


@rule("k8s.api-version", "error", "a built-in kind under an apiVersion this Kubernetes version does not serve (e.g. extensions/v1beta1)",
      kind="kubernetes")
def api_version(m: Manifests) -> Iterator[Diagnostic]:
    """The kinds each built-in API group serves in the target version (its definitions'
    group-version-kinds); Knative's `Service` and other groups' kinds are not built-in ones."""
    served = _served(m.target)
    for doc, kind, api, group in _unschematized(m):
        if kind in served and (group in BUILTIN_GROUPS or group == "extensions"):
            yield diag(api_version, m.path, *doc.pos("apiVersion"),
                       f"Kubernetes {m.target} serves {kind} as {' or '.join(sorted(served[kind]))}, not {api}")


@rule("k8s.kind", "error", "a kind that a built-in API group does not have (a misspelt kind)", kind="kubernetes")
def kind_(m: Manifests) -> Iterator[Diagnostic]:
    """A kind in a built-in group close to one it has (kubeconfig's `Config`, `List` and other
    files that are not API objects are left alone)."""
    served = _served(m.target)
    for doc, kind, api, group in _unschematized(m):
        if kind not in served and group in BUILTIN_GROUPS and kind not in NOT_API_KINDS and (
                close := difflib.get_close_matches(kind, list(served), n=1, cutoff=0.85)):
            yield diag(kind_, m.path, *doc.pos("kind"), f'Kubernetes has no kind {kind} in {api} (did you mean "{close[0]}"?)')


@rule("k8s.unknown-kind", "info", "a kind with no bundled schema (a CRD): not checked against a schema", kind="kubernetes")
def unknown_kind(m: Manifests) -> Iterator[Diagnostic]:
    """Custom resources and kinds of other tools: their names and labels are checked, not
    their fields."""
    served = _served(m.target)
    for doc, kind, api, group in _unschematized(m):
        known = kind in served and (group in BUILTIN_GROUPS or group == "extensions")
        typo = group in BUILTIN_GROUPS and kind not in NOT_API_KINDS and difflib.get_close_matches(kind, list(served), n=1, cutoff=0.85)
        if not known and not typo:
            yield diag(unknown_kind, m.path, *doc.pos("kind"), f"no bundled schema for {kind} ({api}); not checked (a custom resource?)")


def _describe(doc: PosDict, err: jsonschema.ValidationError) -> list[tuple[int, int, str]]:
    pos, node, where = locate(doc, err.absolute_path)
    dotted = ".".join(where) or "(top level)"
    if err.validator == "additionalProperties" and isinstance(node, PosDict):
        allowed = set(err.schema.get("properties", {})) if isinstance(err.schema, Mapping) else set()
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


def _hint(name: str, names: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(names), n=1, cutoff=0.75)
    return f' (did you mean "{close[0]}"?)' if close else ""
