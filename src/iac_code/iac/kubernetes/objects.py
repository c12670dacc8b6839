"""Kubernetes checks the JSON schemas cannot express but the API server enforces (or that
break a deployment): names and labels, resource quantities and requests above limits,
workload selectors that do not match their pod template, Service selectors and target ports
that match no pod of the same file (a warning: the pods may live elsewhere).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from iac_code.iac.diagnostics import Diagnostic
from iac_code.iac.kubernetes.schema import Manifests
from iac_code.iac.rules import diag, rule
from iac_code.iac.yamlsyntax import PosDict, PosList

WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"}
POD_TEMPLATES = WORKLOADS | {"Job"}
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LABEL_1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_PORT_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_QUANTITY = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|[numkMGTPE]|[KMGTPE]i)?$")
_SUFFIX = {"n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
           "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
DNS_1035_KINDS = {"Service"}
SUBDOMAIN_EXEMPT = {"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}  # path segment names


def _show(labels: Any) -> str:
    return ", ".join(f"{k}={v}" for k, v in labels.items()) if isinstance(labels, dict) and labels else "none"


def _pod_spec(doc: PosDict) -> PosDict | None:
    kind, spec = doc.get("kind"), doc.get("spec")
    if not isinstance(spec, PosDict):
        return None
    if kind == "Pod":
        return spec
    template = spec.get("template") if kind in POD_TEMPLATES else None
    pod = template.get("spec") if isinstance(template, PosDict) else None
    return pod if isinstance(pod, PosDict) else None


def _containers(doc: PosDict) -> Iterator[tuple[str, PosDict]]:
    pod = _pod_spec(doc)
    if pod is None:
        return
    for key in ("containers", "initContainers"):
        listed = pod.get(key)
        for c in listed if isinstance(listed, PosList) else ():
            if isinstance(c, PosDict):
                yield key, c


def _template_labels(doc: PosDict) -> tuple[PosDict | None, Any, PosDict | None]:
    """(spec.selector.matchLabels, pod template labels, pod template metadata) of a workload."""
    spec = doc.get("spec")
    if not isinstance(spec, PosDict) or doc.get("kind") not in WORKLOADS:
        return None, None, None
    template = spec.get("template")
    if not isinstance(template, PosDict):
        return None, None, None
    selector = spec.get("selector")
    match = selector.get("matchLabels") if isinstance(selector, PosDict) else None
    tmeta = template.get("metadata")
    labels = tmeta.get("labels") if isinstance(tmeta, PosDict) else None
    return (match if isinstance(match, PosDict) else None), labels, (tmeta if isinstance(tmeta, PosDict) else None)


@rule("k8s.name", "error", "a metadata, container or port name Kubernetes rejects (DNS-1123/1035 rules)", kind="kubernetes")
def name(m: Manifests) -> Iterator[Diagnostic]:
    """metadata.name: a DNS-1123 subdomain (a DNS-1035 label for core v1 Services, not for a
    custom resource of kind Service such as Config Connector's; RBAC objects are exempt); container names: DNS-1123 labels; container port names: at most 15 characters with
    a letter; Service port names: DNS-1123 labels."""
    for doc in m.objects:
        kind, meta = doc.get("kind"), doc.get("metadata")
        value = meta.get("name") if isinstance(meta, PosDict) else None
        if isinstance(meta, PosDict) and isinstance(value, str) and kind not in SUBDOMAIN_EXEMPT:
            pattern, what, limit = (_LABEL_1035, "a DNS-1035 label (lowercase letters, digits and '-', starting with a letter, at most 63)", 63) \
                if kind in DNS_1035_KINDS and doc.get("apiVersion") == "v1" else (_SUBDOMAIN, "a DNS-1123 subdomain (lowercase letters, digits, '-' and '.', at most 253)", 253)
            if not pattern.match(value) or len(value) > limit:
                yield diag(name, m.path, *meta.pos("name"), f'metadata.name "{value}" must be {what}')
        for key, c in _containers(doc):
            cname = c.get("name")
            if isinstance(cname, str) and (not _LABEL_1123.match(cname) or len(cname) > 63):
                yield diag(name, m.path, *c.pos("name"), f'{key} name "{cname}" must be a DNS-1123 label (lowercase letters, digits and "-")')
            ports = c.get("ports")
            for port in ports if isinstance(ports, PosList) else ():
                pname = port.get("name") if isinstance(port, PosDict) else None
                if isinstance(port, PosDict) and isinstance(pname, str) and (not _PORT_NAME.match(pname) or len(pname) > 15 or not re.search("[a-z]", pname)):
                    yield diag(name, m.path, *port.pos("name"),
                               f'port name "{pname}" must be at most 15 lowercase letters, digits and "-", with a letter')
        spec = doc.get("spec")
        ports = spec.get("ports") if kind == "Service" and doc.get("apiVersion") == "v1" and isinstance(spec, PosDict) else None
        for port in ports if isinstance(ports, PosList) else ():
            pname = port.get("name") if isinstance(port, PosDict) else None
            if isinstance(port, PosDict) and isinstance(pname, str) and (not _LABEL_1123.match(pname) or len(pname) > 63):
                yield diag(name, m.path, *port.pos("name"), f'Service port name "{pname}" must be a DNS-1123 label (lowercase letters, digits and "-")')


def _bad_labels(m: Manifests, labels: Any, where: str) -> Iterator[Diagnostic]:
    if not isinstance(labels, PosDict):
        return
    for key, value in labels.items():
        last = str(key).rsplit("/", 1)[-1]
        if not _LABEL_NAME.match(last) or len(last) > 63:
            yield diag(label, m.path, *labels.pos(key), f'{where}: "{key}" is not a valid label key')
        if isinstance(value, str) and (not _LABEL_VALUE.match(value) or len(value) > 63):  # non-strings: k8s.schema
            yield diag(label, m.path, *labels.pos(key),
                       f'{where}.{key}: "{value}" is not a valid label value (letters, digits, "-", "_", ".", at most 63)')


@rule("k8s.label", "error", "a label key or value Kubernetes rejects", kind="kubernetes")
def label(m: Manifests) -> Iterator[Diagnostic]:
    """Label keys: an optional DNS prefix and `/`, then at most 63 letters, digits, `-`, `_`
    and `.`, starting and ending alphanumeric; values: the same, or empty."""
    for doc in m.objects:
        meta = doc.get("metadata")
        if isinstance(meta, PosDict):
            yield from _bad_labels(m, meta.get("labels"), "metadata.labels")
        match, labels, tmeta = _template_labels(doc)
        yield from _bad_labels(m, match, "spec.selector.matchLabels")
        if tmeta is not None:
            yield from _bad_labels(m, labels, "spec.template.metadata.labels")


@rule("k8s.quantity", "error", "a resource quantity that does not parse, or a request above its limit", kind="kubernetes")
def quantity(m: Manifests) -> Iterator[Diagnostic]:
    """Containers' `resources.requests`/`limits`: quantities such as 500m, 0.5, 256Mi, 1Gi, 1e3;
    a request above the limit of the same resource is rejected by the API server."""
    for doc in m.objects:
        for _, c in _containers(doc):
            res = c.get("resources")
            if not isinstance(res, PosDict):
                continue
            parsed: dict[tuple[str, str], float] = {}
            for section in ("requests", "limits"):
                values = res.get(section)
                if not isinstance(values, PosDict):
                    continue
                for key, value in values.items():
                    text = str(value)
                    q = _QUANTITY.match(text)
                    if not q:
                        yield diag(quantity, m.path, *values.pos(key),
                                   f'resources.{section}.{key}: "{text}" is not a quantity (e.g. 500m, 0.5, 256Mi, 1Gi)')
                        continue
                    suffix = q.group(3) or ""
                    parsed[(section, key)] = float(text[: len(text) - len(suffix)]) * _SUFFIX[suffix] if suffix in _SUFFIX else float(text)
            limits = res.get("limits")
            for (section, key), request in parsed.items():
                limit = parsed.get(("limits", key))
                if section == "requests" and limit is not None and request > limit and isinstance(limits, PosDict):
                    line, column = res["requests"].pos(key)  # a PosDict: `parsed` holds its keys
                    yield diag(quantity, m.path, line, column,
                               f"resources.requests.{key} ({res['requests'][key]}) is above resources.limits.{key} ({limits[key]})")


@rule("k8s.selector-mismatch", "error", "a workload selector that does not match its pod template's labels", kind="kubernetes")
def selector_mismatch(m: Manifests) -> Iterator[Diagnostic]:
    """Deployments, StatefulSets, DaemonSets and ReplicaSets: the API server rejects a
    `spec.selector.matchLabels` the pod template's labels do not carry."""
    for doc in m.objects:
        match, labels, _ = _template_labels(doc)
        if match is None:
            continue
        for key, value in match.items():
            if not isinstance(labels, dict) or labels.get(key) != value:
                yield diag(selector_mismatch, m.path, *match.pos(key),
                           f"spec.selector.matchLabels {key}={value} does not match the pod template's labels"
                           f" ({_show(labels)}): the {doc.get('kind')} would select no pod it creates")


@rule("k8s.service-selector", "warning", "a Service selector or named targetPort matching no pod of the same file", kind="kubernetes")
def service_selector(m: Manifests) -> Iterator[Diagnostic]:
    """Services of a file whose selector or named targetPort matches no pod template of a
    workload in the same file and namespace (a warning: the pods may live elsewhere; only
    when the file has workloads)."""
    yield from cross_checks(m.path, m.objects)


def cross_checks(path: Path, docs: list[PosDict]) -> list[Diagnostic]:
    """`service_selector`'s findings in the objects `docs` of `path`."""
    out: list[Diagnostic] = []
    pods = []
    for d in docs:
        spec = d.get("spec")
        template = spec.get("template") if isinstance(spec, dict) and d.get("kind") in POD_TEMPLATES else None
        if isinstance(template, dict):
            meta = template.get("metadata")
            meta = meta if isinstance(meta, dict) else {}
            labels = meta.get("labels") or {}
            pods.append((_namespace(d), {**labels, **_controller_labels(d)} if isinstance(labels, dict) else labels,
                         template.get("spec") or {}))
    if not pods:
        return out
    for d in docs:
        spec = d.get("spec")
        if d.get("kind") != "Service" or not isinstance(spec, PosDict) or not isinstance(spec.get("selector"), PosDict):
            continue
        selector = spec["selector"]
        matching = [p for p in pods if p[0] == _namespace(d) and isinstance(p[1], dict)
                    and all(p[1].get(k) == v or _pod_name(p[1].get(k), v) for k, v in selector.items())]
        if not matching:
            line, col = spec.pos("selector")
            out.append(diag(service_selector, path, line, col,
                            f"the Service selector ({_show(selector)}) matches no pod template in this file"))
            continue
        names = {p.get("name") for _, _, ps in matching for c in (ps.get("containers") or []) if isinstance(c, dict)
                 for p in (c.get("ports") or []) if isinstance(p, dict)}
        for port in spec.get("ports") or []:
            target = port.get("targetPort") if isinstance(port, PosDict) else None
            if isinstance(port, PosDict) and isinstance(target, str) and target not in names:
                out.append(diag(service_selector, path, *port.pos("targetPort"),
                                f'targetPort "{target}" is not the name of a container port of the selected pods'))
    return out


def _namespace(doc: dict) -> str:
    meta = doc.get("metadata")
    ns = meta.get("namespace") if isinstance(meta, dict) else None
    return ns if isinstance(ns, str) else "default"


_POD_NAME = "statefulset.kubernetes.io/pod-name"


def _controller_labels(workload: dict) -> dict:
    """Labels a controller adds to the pods of `workload`: a Job's `job-name` (and
    `batch.kubernetes.io/job-name`), a StatefulSet's per-pod name (matched by `_pod_name`)."""
    meta = workload.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    if not isinstance(name, str):
        return {}
    if workload.get("kind") == "Job":
        return {"job-name": name, "batch.kubernetes.io/job-name": name}
    if workload.get("kind") == "StatefulSet":
        return {_POD_NAME: re.compile(re.escape(name) + r"-\d+")}
    return {}


def _pod_name(pattern: object, value: object) -> bool:
    """Whether a selector's `value` names one of a StatefulSet's pods (`web-0` of `web`)."""
    return isinstance(pattern, re.Pattern) and isinstance(value, str) and pattern.fullmatch(value) is not None
