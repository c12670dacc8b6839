"""The rule of VSwitch CIDRs in ROS templates: valid, inside their VPC's CIDR, not
overlapping a sibling VSwitch of the same VPC."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from typing import Any

from iac_code.iac.diagnostics import Diagnostic, diag
from iac_code.iac.rules import rule
from iac_code.iac.ros.template import RosTemplate
from iac_code.iac.yamlsyntax import PosDict


def _net(value: str | None):
    if not isinstance(value, str):
        return None
    try:
        return ipaddress.IPv4Network(value, strict=True)
    except ValueError:
        return None


@rule("ros.cidr", "error", "an invalid VSwitch CIDR, outside its VPC or overlapping a sibling", kind="ros")
def cidr(t: RosTemplate) -> Iterator[Diagnostic]:
    """`CidrBlock` literals or parameter defaults (through `Ref`) of `ALIYUN::ECS::VSwitch`
    resources against their `ALIYUN::ECS::VPC` (`VpcId: {Ref: vpc}`) and each other."""
    params, resources = t.section("Parameters"), t.section("Resources")

    def value(v: Any) -> tuple[str | None, tuple[int, int] | None]:
        if isinstance(v, str):
            return v, None
        if isinstance(v, dict) and isinstance(v.get("Ref"), str):
            p = params.get(v["Ref"])
            if isinstance(p, PosDict) and isinstance(p.get("Default"), str):
                return p["Default"], p.pos("Default")
        return None, None

    vpcs, seen = {}, []
    for name, r in resources.items():
        if isinstance(r, PosDict) and r.get("Type") == "ALIYUN::ECS::VPC" and isinstance(r.get("Properties"), dict):
            net = _net(value(r["Properties"].get("CidrBlock"))[0])
            if net is not None:
                vpcs[name] = net
    for name, r in resources.items():
        if not (isinstance(r, PosDict) and r.get("Type") == "ALIYUN::ECS::VSwitch" and isinstance(r.get("Properties"), PosDict)):
            continue
        props = r["Properties"]
        text, where = value(props.get("CidrBlock"))
        net = _net(text)
        if net is None:
            if isinstance(text, str) and re.match(r"^\d+\.\d+\.\d+\.\d+/\d+$", text):
                yield diag(cidr, t.path, *props.pos("CidrBlock"), f'"{text}" is not a valid CIDR')
            continue
        pos = where or props.pos("CidrBlock")
        vpc_ref = props.get("VpcId")
        vpc = vpc_ref.get("Ref") if isinstance(vpc_ref, dict) else None
        if vpc in vpcs and not net.subnet_of(vpcs[vpc]):
            yield diag(cidr, t.path, *pos, f'VSwitch "{name}" CIDR {net} is outside VPC "{vpc}" ({vpcs[vpc]})')
        for other, (onet, ovpc) in seen:
            if ovpc == vpc and net.overlaps(onet):
                yield diag(cidr, t.path, *pos, f'VSwitch "{name}" CIDR {net} overlaps VSwitch "{other}" ({onet})')
                break
        seen.append((name, (net, vpc)))
