"""Kubernetes checks the JSON schemas cannot express but the API server enforces (or that
break a deployment): names and labels, resource quantities and requests above limits,
workload selectors that do not match their pod template, Service selectors and target ports
that match no pod of the same file (a warning: the pods may live elsewhere).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from iac_code.iac.diagnostics import Diagnostic, diag
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


def check_object(path: Path, doc: PosDict) -> list[Diagnostic]:
    """Checks of one object (see the module docstring)."""
    out: list[Diagnostic] = []
    kind = doc.get("kind")
    meta = doc.get("metadata")
    if isinstance(meta, PosDict):
        name = meta.get("name")
        if isinstance(name, str) and kind not in SUBDOMAIN_EXEMPT:
            rule_re, what = (_LABEL_1035, "a DNS-1035 label (lowercase letters, digits and '-', starting with a letter, at most 63)") \
                if kind in DNS_1035_KINDS else (_SUBDOMAIN, "a DNS-1123 subdomain (lowercase letters, digits, '-' and '.', at most 253)")
            limit = 63 if kind in DNS_1035_KINDS else 253
            if not rule_re.match(name) or len(name) > limit:
                out.append(diag(path, *meta.pos("name"), "error", "k8s.name", f'metadata.name "{name}" must be {what}'))
        _labels(path, meta.get("labels"), "metadata.labels", out)
    spec = doc.get("spec")
    if not isinstance(spec, PosDict):
        return out
    template = spec.get("template") if kind in POD_TEMPLATES else (spec if kind == "Pod" else None)
    pod_spec = template.get("spec") if kind in POD_TEMPLATES and isinstance(template, PosDict) else (spec if kind == "Pod" else None)
    if kind in WORKLOADS and isinstance(template, PosDict):
        selector = spec.get("selector")
        match = selector.get("matchLabels") if isinstance(selector, PosDict) else None
        tmeta = template.get("metadata")
        labels = tmeta.get("labels") if isinstance(tmeta, PosDict) else None
        if isinstance(match, PosDict):
            _labels(path, match, "spec.selector.matchLabels", out)
            for key, value in match.items():
                if not isinstance(labels, dict) or labels.get(key) != value:
                    out.append(diag(path, *match.pos(key), "error", "k8s.selector-mismatch",
                                    f'spec.selector.matchLabels {key}={value} does not match the pod template\'s labels'
                                    f' ({_show(labels)}): the {kind} would select no pod it creates'))
        if isinstance(tmeta, PosDict):
            _labels(path, labels, "spec.template.metadata.labels", out)
    if isinstance(pod_spec, PosDict):
        for key in ("containers", "initContainers"):
            containers = pod_spec.get(key)
            if isinstance(containers, PosList):
                _containers(path, key, containers, out)
    if kind == "Service":
        _service_ports(path, spec, out)
    return out


def _show(labels: Any) -> str:
    return ", ".join(f"{k}={v}" for k, v in labels.items()) if isinstance(labels, dict) and labels else "none"


def _labels(path: Path, labels: Any, where: str, out: list[Diagnostic]) -> None:
    if not isinstance(labels, PosDict):
        return
    for key, value in labels.items():
        name = str(key).rsplit("/", 1)[-1]
        if not _LABEL_NAME.match(name) or len(name) > 63:
            out.append(diag(path, *labels.pos(key), "error", "k8s.label", f'{where}: "{key}" is not a valid label key'))
        if isinstance(value, str) and (not _LABEL_VALUE.match(value) or len(value) > 63):  # non-strings: k8s.schema
            out.append(diag(path, *labels.pos(key), "error", "k8s.label",
                            f'{where}.{key}: "{value}" is not a valid label value (letters, digits, "-", "_", ".", at most 63)'))


def _containers(path: Path, key: str, containers: PosList, out: list[Diagnostic]) -> None:
    for c, pos in zip(containers, containers.item_pos):
        if not isinstance(c, PosDict):
            continue
        name = c.get("name")
        if isinstance(name, str) and (not _LABEL_1123.match(name) or len(name) > 63):
            out.append(diag(path, *c.pos("name"), "error", "k8s.name", f'{key} name "{name}" must be a DNS-1123 label (lowercase letters, digits and "-")'))
        ports = c.get("ports")
        if isinstance(ports, PosList):
            for p in ports:
                if isinstance(p, PosDict) and isinstance(p.get("name"), str):
                    _port_name(path, p, out)
        res = c.get("resources")
        if isinstance(res, PosDict):
            _resources(path, res, out)


def _port_name(path: Path, port: PosDict, out: list[Diagnostic]) -> None:
    name = port["name"]
    if not _PORT_NAME.match(name) or len(name) > 15 or not re.search("[a-z]", name):
        out.append(diag(path, *port.pos("name"), "error", "k8s.name",
                        f'port name "{name}" must be at most 15 lowercase letters, digits and "-", with a letter'))


def _resources(path: Path, res: PosDict, out: list[Diagnostic]) -> None:
    parsed: dict[tuple[str, str], float] = {}
    for section in ("requests", "limits"):
        values = res.get(section)
        if not isinstance(values, PosDict):
            continue
        for name, value in values.items():
            text = str(value)
            m = _QUANTITY.match(text)
            if not m:
                out.append(diag(path, *values.pos(name), "error", "k8s.quantity",
                                f'resources.{section}.{name}: "{text}" is not a quantity (e.g. 500m, 0.5, 256Mi, 1Gi)'))
                continue
            suffix = m.group(3) or ""
            if suffix in _SUFFIX:
                parsed[(section, name)] = float(text[: len(text) - len(suffix)]) * _SUFFIX[suffix]
            else:
                parsed[(section, name)] = float(text)
    limits = res.get("limits")
    for (section, name), request in list(parsed.items()):
        limit = parsed.get(("limits", name))
        if section == "requests" and limit is not None and request > limit and isinstance(limits, PosDict):
            out.append(diag(path, *res["requests"].pos(name), "error", "k8s.quantity",
                            f"resources.requests.{name} ({res['requests'][name]}) is above resources.limits.{name} ({limits[name]})"))


def _service_ports(path: Path, spec: PosDict, out: list[Diagnostic]) -> None:
    """Service port names are DNS-1123 labels (up to 63), unlike container port names."""
    ports = spec.get("ports")
    if isinstance(ports, PosList):
        for p in ports:
            name = p.get("name") if isinstance(p, PosDict) else None
            if isinstance(name, str) and (not _LABEL_1123.match(name) or len(name) > 63):
                out.append(diag(path, *p.pos("name"), "error", "k8s.name",
                                f'Service port name "{name}" must be a DNS-1123 label (lowercase letters, digits and "-")'))


def cross_checks(path: Path, docs: list[PosDict]) -> list[Diagnostic]:
    """Services of a file whose selector or named targetPort matches no pod template of a
    workload in the same file and namespace (warnings; only when the file has workloads)."""
    out: list[Diagnostic] = []
    pods = []
    for d in docs:
        spec = d.get("spec")
        template = spec.get("template") if isinstance(spec, dict) and d.get("kind") in POD_TEMPLATES else None
        if isinstance(template, dict):
            meta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
            pods.append((_namespace(d), meta.get("labels") or {}, template.get("spec") or {}))
    if not pods:
        return out
    for d in docs:
        spec = d.get("spec")
        if d.get("kind") != "Service" or not isinstance(spec, PosDict) or not isinstance(spec.get("selector"), PosDict):
            continue
        selector = spec["selector"]
        matching = [p for p in pods if p[0] == _namespace(d) and isinstance(p[1], dict)
                    and all(p[1].get(k) == v for k, v in selector.items())]
        if not matching:
            line, col = spec.pos("selector")
            out.append(diag(path, line, col, "warning", "k8s.service-selector",
                            f"the Service selector ({_show(selector)}) matches no pod template in this file"))
            continue
        names = {p.get("name") for _, _, ps in matching for c in (ps.get("containers") or []) if isinstance(c, dict)
                 for p in (c.get("ports") or []) if isinstance(p, dict)}
        for port in spec.get("ports") or []:
            target = port.get("targetPort") if isinstance(port, PosDict) else None
            if isinstance(target, str) and target not in names:
                out.append(diag(path, *port.pos("targetPort"), "warning", "k8s.service-selector",
                                f'targetPort "{target}" is not the name of a container port of the selected pods'))
    return out


def _namespace(doc: dict) -> str:
    meta = doc.get("metadata")
    ns = meta.get("namespace") if isinstance(meta, dict) else None
    return ns if isinstance(ns, str) else "default"
