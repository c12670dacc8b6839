"""More ROS template checks: parameter types, the shape of intrinsic functions, `Fn::FindInMap`
targets, required properties of common resource types, and likely misspelt properties of the
network types (a warning: ROS adds properties over time).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from iac_code.iac.diagnostics import Diagnostic, diag
from iac_code.iac.yamlsyntax import PosDict, PosList

PARAMETER_TYPES = {"String", "Number", "CommaDelimitedList", "Json", "Boolean"}
REQUIRED = {
    "ALIYUN::ECS::VSwitch": ("VpcId", "ZoneId", "CidrBlock"),
    "ALIYUN::ECS::Instance": ("ImageId", "InstanceType"),
    "ALIYUN::ECS::InstanceGroup": ("ImageId", "InstanceType", "MaxAmount"),
    "ALIYUN::ECS::SecurityGroupIngress": ("IpProtocol", "PortRange", "SecurityGroupId"),
    "ALIYUN::ECS::SecurityGroupEgress": ("IpProtocol", "PortRange", "SecurityGroupId"),
    "ALIYUN::RDS::DBInstance": ("Engine", "EngineVersion", "DBInstanceClass", "DBInstanceStorage", "SecurityIPList"),
}
KNOWN = {
    "ALIYUN::ECS::VPC": {"CidrBlock", "VpcName", "Description", "EnableIpv6", "Ipv6CidrBlock", "ResourceGroupId", "Tags",
                         "UserCidr", "Ipv6Isp", "Ipv4IpamPoolId", "Ipv4CidrMask", "Ipv6CidrMask", "Ipv6IpamPoolId",
                         "DryRun", "ForceDelete", "EnableDnsHostname", "SecondaryCidrBlocks", "DeleteForce"},
    "ALIYUN::ECS::VSwitch": {"CidrBlock", "VpcId", "ZoneId", "VSwitchName", "Description", "Ipv6CidrBlock", "Tags",
                             "Ipv6CidrBlockMask", "EnableIpv6", "NetworkAclId", "RouteTableId", "Ipv4IpamPoolId"},
    "ALIYUN::ECS::SecurityGroup": {"VpcId", "SecurityGroupName", "Description", "SecurityGroupIngress",
                                   "SecurityGroupEgress", "SecurityGroupType", "ResourceGroupId", "Tags"},
}
# name -> (minimum items, maximum items or None) of the list form; strings allowed where noted
SHAPES = {"Fn::Join": (2, 2), "Fn::Select": (2, 2), "Fn::If": (3, 3), "Fn::Equals": (2, 2),
          "Fn::FindInMap": (3, 3), "Fn::Split": (2, 2), "Fn::GetAtt": (2, 2), "Fn::Replace": (2, 2)}
STRING_OK = {"Fn::GetAtt", "Fn::Sub", "Fn::Base64Encode", "Fn::Base64Decode"}


def check(path: Path, doc: PosDict) -> list[Diagnostic]:
    """Every check of this module on the template `doc`."""
    out: list[Diagnostic] = []
    params = doc.get("Parameters") if isinstance(doc.get("Parameters"), PosDict) else PosDict()
    for name, p in params.items():
        if isinstance(p, PosDict) and isinstance(p.get("Type"), str):
            t = p["Type"]
            if t not in PARAMETER_TYPES and not t.startswith("ALIYUN::"):
                out.append(diag(path, *p.pos("Type"), "error", "ros.structure",
                                f'parameter "{name}": Type "{t}" is not one of {", ".join(sorted(PARAMETER_TYPES))}{_hint(t, PARAMETER_TYPES)}'))
    resources = doc.get("Resources") if isinstance(doc.get("Resources"), PosDict) else PosDict()
    for name, r in resources.items():
        if not isinstance(r, PosDict) or not isinstance(r.get("Type"), str):
            continue
        props = r.get("Properties")
        present = props if isinstance(props, dict) else {}
        missing = [p for p in REQUIRED.get(r["Type"], ()) if p not in present]
        if missing:
            pos = r.pos("Properties") if "Properties" in r else r.pos("Type")
            out.append(diag(path, *pos, "error", "ros.required-property",
                            f'resource "{name}" ({r["Type"]}) lacks the required propert{"ies" if len(missing) > 1 else "y"} {", ".join(missing)}'))
        known = KNOWN.get(r["Type"])
        if known and isinstance(props, PosDict):
            for key in props:
                if key not in known and (hint := _hint(str(key), known)):
                    out.append(diag(path, *props.pos(key), "warning", "ros.unknown-property",
                                    f'resource "{name}": {r["Type"]} has no property "{key}"{hint}'))
    mappings = doc.get("Mappings") if isinstance(doc.get("Mappings"), dict) else {}
    _functions(path, doc, mappings, out)
    return out


def _functions(path: Path, node: Any, mappings: dict, out: list[Diagnostic]) -> None:
    if isinstance(node, PosDict):
        for key, value in node.items():
            if isinstance(key, str) and key.startswith("Fn::"):
                _shape(path, key, value, node.pos(key), mappings, out)
            _functions(path, value, mappings, out)
    elif isinstance(node, PosList):
        for item in node:
            _functions(path, item, mappings, out)


def _shape(path: Path, name: str, value: Any, pos: tuple[int, int], mappings: dict, out: list[Diagnostic]) -> None:
    if name in STRING_OK and isinstance(value, str):
        return
    shape = SHAPES.get(name)
    if shape is None:
        return
    if not isinstance(value, list):
        out.append(diag(path, *pos, "error", "ros.function", f"{name} takes a list of {shape[0]} items"))
        return
    if not shape[0] <= len(value) <= shape[1]:
        out.append(diag(path, *pos, "error", "ros.function", f"{name} takes {shape[0]} items, not {len(value)}"))
        return
    if name == "Fn::Join" and not isinstance(value[1], (list, dict)):
        out.append(diag(path, *pos, "error", "ros.function", "Fn::Join takes [delimiter, [values...]]: the values must be a list"))
    if name == "Fn::FindInMap" and isinstance(value[0], str):
        table = mappings.get(value[0])
        if table is None:
            out.append(diag(path, *pos, "error", "ros.undeclared-ref", f'Fn::FindInMap names mapping "{value[0]}", which is not in Mappings{_hint(value[0], mappings)}'))
        elif isinstance(value[1], str) and isinstance(table, dict) and value[1] not in table:
            out.append(diag(path, *pos, "error", "ros.undeclared-ref", f'mapping "{value[0]}" has no key "{value[1]}"{_hint(value[1], table)}'))
        elif isinstance(value[1], str) and isinstance(value[2], str) and isinstance(table.get(value[1]), dict) and value[2] not in table[value[1]]:
            out.append(diag(path, *pos, "error", "ros.undeclared-ref", f'mapping "{value[0]}.{value[1]}" has no key "{value[2]}"'))


def _hint(name: str, names) -> str:
    close = difflib.get_close_matches(name, [str(n) for n in names], n=1, cutoff=0.75)
    return f' (did you mean "{close[0]}"?)' if close else ""
