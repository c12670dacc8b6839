"""Alibaba Cloud ROS templates (`ROSTemplateFormatVersion`), checked offline.

Structure (version, sections, `Resources` with `ALIYUN::` types, parameters with a `Type`, a
`Default` among `AllowedValues`), `Ref`/`Fn::GetAtt`/`Fn::Sub`/`DependsOn` targets among
resources and parameters, `Condition`/`Fn::If` names among `Conditions`, unused parameters, and
VSwitch CIDRs inside their VPC's CIDR without overlapping. Positions come from `yamlsyntax`.
"""

from __future__ import annotations

import difflib
import ipaddress
import re
from pathlib import Path
from typing import Any

from iac_code.iac.diagnostics import Diagnostic, diag
from iac_code.iac.yamlsyntax import PosDict, PosList

VERSION = "2015-09-01"
SECTIONS = {"ROSTemplateFormatVersion", "Description", "Metadata", "Parameters", "Mappings", "Conditions",
            "Resources", "Outputs", "Rules", "Locals", "Transform", "Workspace", "Hooks"}
RESOURCE_KEYS = {"Type", "Properties", "DependsOn", "Condition", "DeletionPolicy", "Metadata", "Count", "Version",
                 "UpdatePolicy", "CreationPolicy", "Description", "DependsOnOnDelete"}
TYPE_PREFIXES = ("ALIYUN::", "DATASOURCE::", "MODULE::", "Custom::")
_SUB_VAR = re.compile(r"\$\{([^}!][^}]*)\}")


def is_ros(doc: Any) -> bool:
    """A ROS template: a mapping with `ROSTemplateFormatVersion`."""
    return isinstance(doc, dict) and "ROSTemplateFormatVersion" in doc


def check(path: Path, doc: PosDict) -> list[Diagnostic]:
    """Every ROS check of the template `doc` read from `path`."""
    out: list[Diagnostic] = []

    def report(pos: tuple[int, int], rule: str, message: str, severity: str = "error") -> None:
        out.append(diag(path, pos[0], pos[1], severity, rule, message))  # type: ignore[arg-type]

    version = doc.get("ROSTemplateFormatVersion")
    if str(version) != VERSION:
        report(doc.pos("ROSTemplateFormatVersion"), "ros.version", f'ROSTemplateFormatVersion must be "{VERSION}", not "{version}"')
    for key in doc:
        if key not in SECTIONS:
            report(doc.pos(key), "ros.structure", f'unknown top-level section "{key}"{_hint(str(key), SECTIONS)}', "warning")
    params = _section(doc, "Parameters", report)
    resources = _section(doc, "Resources", report)
    conditions = _section(doc, "Conditions", report)
    locals_ = doc.get("Locals") if isinstance(doc.get("Locals"), dict) else {}
    transformed = "Transform" in doc  # Aliyun::Serverless, Aliyun::Terraform: other resource shapes
    if "Resources" not in doc and not transformed:
        report((doc.line, doc.column), "ros.structure", "the template has no Resources section", "warning")
    for name, p in params.items():
        if not isinstance(p, PosDict):
            report(params.pos(name), "ros.structure", f'parameter "{name}" must be a mapping with a Type')
            continue
        if "Type" not in p:
            report(params.pos(name), "ros.structure", f'parameter "{name}" has no Type')
        allowed = p.get("AllowedValues")
        default = p.get("Default")
        if default is not None and isinstance(allowed, list) and allowed and default not in allowed \
                and _text(default) not in {_text(a) for a in allowed}:
            report(p.pos("Default"), "ros.structure", f'parameter "{name}": Default {p["Default"]!r} is not among AllowedValues {list(allowed)}')
    for name, r in resources.items() if not transformed else ():
        if not isinstance(r, PosDict):
            report(resources.pos(name), "ros.structure", f'resource "{name}" must be a mapping with a Type')
            continue
        rtype = r.get("Type")
        if not isinstance(rtype, str):
            report(resources.pos(name), "ros.structure", f'resource "{name}" has no Type')
        elif not rtype.startswith(TYPE_PREFIXES):
            report(r.pos("Type"), "ros.resource-type", f'resource "{name}": "{rtype}" is not a ROS type (ALIYUN::Service::Resource)')
        for key in r:
            if key not in RESOURCE_KEYS:
                report(r.pos(key), "ros.structure", f'resource "{name}" has an unknown attribute "{key}"{_hint(str(key), RESOURCE_KEYS)}', "warning")
        deps = r.get("DependsOn")
        for dep, pos in _items(deps, r.pos("DependsOn")):
            if isinstance(dep, str) and dep not in resources:
                report(pos, "ros.undeclared-ref", f'resource "{name}" DependsOn "{dep}", which is not a resource{_hint(dep, resources)}')
        cond = r.get("Condition")
        if isinstance(cond, str) and cond not in conditions:
            report(r.pos("Condition"), "ros.undeclared-condition", f'condition "{cond}" is not declared in Conditions')
    outputs = _section(doc, "Outputs", report)
    for name, o in outputs.items():
        if isinstance(o, PosDict) and "Value" not in o:
            report(outputs.pos(name), "ros.structure", f'output "{name}" has no Value')
    targets = set(params) | set(resources) | set(locals_)
    used: set[str] = set()
    for section in ("Resources", "Outputs", "Conditions", "Locals", "Rules", "Metadata") if not transformed else ():
        if section in doc:
            _walk(doc[section], (doc.line, doc.column), targets, set(resources) | set(locals_), set(conditions), used, report)
    for name in params if not transformed else ():
        if name not in used and not _mentioned_in_metadata(doc, name):
            report(params.pos(name), "ros.unused-parameter", f'parameter "{name}" is declared but never used', "warning")
    out += _cidr_checks(path, params, resources)
    from iac_code.iac.ros import properties as rosrules

    out += rosrules.check(path, doc)
    return out


def _section(doc: PosDict, name: str, report) -> dict:
    value = doc.get(name)
    if value is None:
        return PosDict()
    if not isinstance(value, PosDict):
        report(doc.pos(name), "ros.structure", f"{name} must be a mapping")
        return PosDict()
    return value


def _items(value: Any, pos: tuple[int, int]):
    if isinstance(value, PosList):
        yield from zip(value, value.item_pos)
    elif value is not None:
        yield value, pos


def _walk(node: Any, pos: tuple[int, int], targets: set[str], resources: set[str], conditions: set[str],
          used: set[str], report) -> None:
    if isinstance(node, PosDict) and ("ROSTemplateFormatVersion" in node or "FormatVersion" in node):
        return  # a nested template (a Stack's TemplateBody, an OOS template): its own scope
    if isinstance(node, PosDict):
        for key, value in node.items():
            kpos = node.pos(key)
            if key == "Ref" and isinstance(value, str):
                used.add(value)
                if value not in targets and not value.startswith("ALIYUN::"):
                    report(kpos, "ros.undeclared-ref", f'Ref "{value}" is neither a parameter nor a resource{_hint(value, targets)}')
            elif key == "Fn::GetAtt" and isinstance(value, list) and value and isinstance(value[0], str):
                used.add(value[0])
                if value[0] not in resources:
                    report(kpos, "ros.undeclared-ref", f'Fn::GetAtt names "{value[0]}", which is not a resource{_hint(value[0], resources)}')
            elif key == "Fn::Sub":
                _sub(value, kpos, targets, used, report)
            elif key in ("Fn::If",) and isinstance(value, list) and value and isinstance(value[0], str):
                if value[0] not in conditions:
                    report(kpos, "ros.undeclared-condition", f'Fn::If names condition "{value[0]}", which is not declared in Conditions')
            elif key == "Condition" and isinstance(value, str) and node is not None and len(node) == 1:
                if value not in conditions:
                    report(kpos, "ros.undeclared-condition", f'condition "{value}" is not declared in Conditions')
            if key not in ("Condition", "DependsOn") or not isinstance(value, str):
                _walk(value, kpos, targets, resources, conditions, used, report)
    elif isinstance(node, PosList):
        for item, ipos in zip(node, node.item_pos):
            _walk(item, ipos, targets, resources, conditions, used, report)


def _sub(value: Any, pos: tuple[int, int], targets: set[str], used: set[str], report) -> None:
    text, extra = (value, {}) if isinstance(value, str) else (value[0], value[1]) if (
        isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], dict)) else (None, {})
    if text is None:
        return
    for m in _SUB_VAR.finditer(text):
        name = m.group(1).strip().split(".")[0]
        used.add(name)
        if name not in targets and name not in extra and not name.startswith("ALIYUN::"):
            line = pos[0] + (1 + text.count("\n", 0, m.start()) if "\n" in text else 0)
            report((line if "\n" in text else pos[0], pos[1]), "ros.undeclared-ref",
                   f'Fn::Sub refers to "${{{m.group(1)}}}", but "{name}" is neither a parameter nor a resource{_hint(name, targets)}')


def _mentioned_in_metadata(doc: PosDict, name: str) -> bool:
    meta = doc.get("Metadata")
    return isinstance(meta, dict) and name in repr(meta)


def _cidr_checks(path: Path, params: dict, resources: dict) -> list[Diagnostic]:
    def value(v: Any) -> tuple[str | None, tuple[int, int] | None]:
        if isinstance(v, str):
            return v, None
        if isinstance(v, dict) and isinstance(v.get("Ref"), str):
            p = params.get(v["Ref"])
            if isinstance(p, PosDict) and isinstance(p.get("Default"), str):
                return p["Default"], p.pos("Default")
        return None, None

    out, vpcs, seen = [], {}, []
    for name, r in resources.items():
        if isinstance(r, PosDict) and r.get("Type") == "ALIYUN::ECS::VPC" and isinstance(r.get("Properties"), dict):
            cidr, _ = value(r["Properties"].get("CidrBlock"))
            net = _net(cidr)
            if net is not None:
                vpcs[name] = net
    for name, r in resources.items():
        if not (isinstance(r, PosDict) and r.get("Type") == "ALIYUN::ECS::VSwitch" and isinstance(r.get("Properties"), PosDict)):
            continue
        props = r["Properties"]
        cidr, where = value(props.get("CidrBlock"))
        net = _net(cidr)
        if net is None:
            if isinstance(cidr, str) and re.match(r"^\d+\.\d+\.\d+\.\d+/\d+$", cidr):
                out.append(diag(path, *props.pos("CidrBlock"), "error", "ros.cidr", f'"{cidr}" is not a valid CIDR'))
            continue
        pos = where or props.pos("CidrBlock")
        vpc_ref = props.get("VpcId")
        vpc = vpc_ref.get("Ref") if isinstance(vpc_ref, dict) else None
        if vpc in vpcs and not net.subnet_of(vpcs[vpc]):
            out.append(diag(path, *pos, "error", "ros.cidr", f'VSwitch "{name}" CIDR {net} is outside VPC "{vpc}" ({vpcs[vpc]})'))
        for other, onet in seen:
            if onet[1] == vpc and net.overlaps(onet[0]):
                out.append(diag(path, *pos, "error", "ros.cidr", f'VSwitch "{name}" CIDR {net} overlaps VSwitch "{other}" ({onet[0]})'))
                break
        seen.append((name, (net, vpc)))
    return out


def _net(value: str | None):
    if not isinstance(value, str):
        return None
    try:
        return ipaddress.IPv4Network(value, strict=True)
    except ValueError:
        return None


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _hint(name: str, names) -> str:
    close = difflib.get_close_matches(name, [str(n) for n in names], n=1, cutoff=0.75)
    return f' (did you mean "{close[0]}"?)' if close else ""
