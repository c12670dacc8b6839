"""The CIDRs a ROS template declares, checked against each other: every VPC range (`CidrBlock`,
`SecondaryCidrBlocks`, `ALIYUN::VPC::VpcCidrBlockAssociation`), every VSwitch inside one of
its VPC's ranges and overlapping no sibling (VSwitches of the same VPC, created here or given by
one parameter), every reserved VSwitch CIDR inside its VSwitch, a Kubernetes cluster's pod and
service CIDRs outside its VPC's ranges and each other, and every such CIDR a valid network.

A value counts when it is written in the template: a literal, a parameter's `Default` (the
problem is reported there), an item of a list or of a `CommaDelimitedList` default picked by
`Fn::Select`, or an `Fn::FindInMap` with literal keys. Resources with `Count` and pairs of
resources under different `Condition`s (they may never exist together) are not compared.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iac_code.iac.diagnostics import Diagnostic
from iac_code.iac.rules import diag, rule
from iac_code.iac.ros.template import RosTemplate
from iac_code.iac.yamlsyntax import PosDict, PosList

Network = ipaddress.IPv4Network
_LOOKS_LIKE_CIDR = re.compile(r"^\s*\d+\.\d+\.\d+\.\d+/\d+\s*$")
CLUSTERS = ("ALIYUN::CS::ManagedKubernetesCluster", "ALIYUN::CS::ManagedEdgeKubernetesCluster",
            "ALIYUN::CS::KubernetesCluster")


@dataclass(frozen=True, slots=True)
class Cidr:
    """A CIDR written in the template: the network, where it is written, and the text."""

    net: Network
    pos: tuple[int, int]
    text: str


class _Template:
    """Resolves the values a template writes (parameters' defaults, mappings)."""

    def __init__(self, path: Path, doc: PosDict) -> None:
        self.path = path
        params, mappings = doc.get("Parameters"), doc.get("Mappings")
        self.params: PosDict = params if isinstance(params, PosDict) else PosDict()
        self.mappings: dict[Any, Any] = mappings if isinstance(mappings, dict) else {}
        self.out: list[Diagnostic] = []

    def values(self, value: Any, pos: tuple[int, int]) -> list[tuple[str, tuple[int, int]]]:
        """The strings `value` stands for, with where each is written ([] when unknown)."""
        if isinstance(value, str):
            return [(value, pos)]
        if isinstance(value, PosList):
            return [v for item, ipos in zip(value, value.item_pos) for v in self.values(item, ipos)]
        if not isinstance(value, PosDict) or len(value) != 1:
            return []
        (key, arg), = value.items()
        if key == "Ref" and isinstance(arg, str):
            p = self.params.get(arg)
            if isinstance(p, PosDict) and isinstance(p.get("Default"), (str, PosList)):
                default, dpos = p["Default"], p.pos("Default")
                if p.get("Type") == "CommaDelimitedList" and isinstance(default, str):
                    return [(part.strip(), dpos) for part in default.split(",")]
                return self.values(default, dpos)
        elif key == "Fn::Select" and isinstance(arg, list) and len(arg) == 2:
            index = arg[0]
            if isinstance(index, str) and index.strip().isdigit():
                index = int(index)
            items = self.values(arg[1], value.pos(key))
            if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(items):
                return [items[index]]
        elif key == "Fn::FindInMap" and isinstance(arg, list) and len(arg) == 3 and all(isinstance(a, str) for a in arg):
            table = self.mappings.get(arg[0])
            row = table.get(arg[1]) if isinstance(table, dict) else None
            if isinstance(row, PosDict) and arg[2] in row:
                return self.values(row[arg[2]], row.pos(arg[2]))
        return []

    def cidrs(self, value: Any, pos: tuple[int, int], strict: bool) -> list[Cidr]:
        """The valid networks among `value`'s strings; an invalid one (`10.0.0.300/24`, or host
        bits set when `strict`) is reported and left out."""
        out = []
        for text, where in self.values(value, pos):
            try:
                out.append(Cidr(ipaddress.IPv4Network(text.strip(), strict=strict), where, text.strip()))
            except ValueError as exc:
                if _LOOKS_LIKE_CIDR.match(text):
                    self.report(where, f'"{text.strip()}" is not a valid CIDR ({exc})')
        return out

    def report(self, pos: tuple[int, int], message: str) -> None:
        self.out.append(diag(cidr, self.path, pos[0], pos[1], message))


def _target(value: Any, attribute: str) -> tuple[str, str] | None:
    """What a `VpcId`/`VSwitchId` value names: ("resource", name) for `Ref`/`Fn::GetAtt`
    of a resource, ("parameter", name) for a `Ref` of a parameter (decided by the caller)."""
    if isinstance(value, dict) and len(value) == 1:
        if isinstance(value.get("Ref"), str):
            return ("ref", value["Ref"])
        att = value.get("Fn::GetAtt")
        if isinstance(att, list) and len(att) == 2 and att[1] == attribute and isinstance(att[0], str):
            return ("ref", att[0])
    return None


@rule("ros.cidr", "error", "a VPC/VSwitch/cluster CIDR that is invalid, outside its VPC or overlapping a sibling", kind="ros")
def cidr(rt: RosTemplate) -> Iterator[Diagnostic]:
    """Every CIDR the template declares (see the module docstring): VPC ranges valid, each
    VSwitch inside one of its VPC's ranges and overlapping no sibling, reserved CIDRs inside
    their VSwitch, a cluster's pod and service CIDRs outside its VPC and each other."""
    yield from _check(rt.path, rt.doc)


def _check(path: Path, doc: PosDict) -> list[Diagnostic]:
    resources = doc.get("Resources")
    if not isinstance(resources, PosDict) or "Transform" in doc:
        return []
    t = _Template(path, doc)
    items = [(name, r, r["Properties"]) for name, r in resources.items()
             if isinstance(r, PosDict) and isinstance(r.get("Properties"), PosDict) and "Count" not in r]
    ranges: dict[str, list[Cidr]] = {}  # VPC resource -> its ranges
    for name, r, props in items:
        if r.get("Type") == "ALIYUN::ECS::VPC":
            ranges[name] = t.cidrs(props.get("CidrBlock"), props.pos("CidrBlock"), True) \
                + t.cidrs(props.get("SecondaryCidrBlocks"), props.pos("SecondaryCidrBlocks"), True)
    # a VPC some of whose ranges are not written here (a parameter without a default, an IPAM
    # pool, an association): nothing is known to be outside it
    complete = {n for n, r, props in items if r.get("Type") == "ALIYUN::ECS::VPC"
                and t.values(props.get("CidrBlock"), props.pos("CidrBlock"))
                and ("SecondaryCidrBlocks" not in props or t.values(props["SecondaryCidrBlocks"], props.pos("SecondaryCidrBlocks")))}
    for name, r, props in items:
        if r.get("Type") == "ALIYUN::VPC::VpcCidrBlockAssociation":
            vpc = _target(props.get("VpcId"), "VpcId")
            extra = t.cidrs(props.get("SecondaryCidrBlock"), props.pos("SecondaryCidrBlock"), True)
            if vpc and vpc[1] in ranges:
                ranges[vpc[1]] += extra
                if not extra:
                    complete.discard(vpc[1])
    vswitches: dict[str, tuple[Cidr, str | None, Any]] = {}
    siblings: dict[str, list[tuple[str, Cidr, Any]]] = {}
    for name, r, props in items:
        if r.get("Type") != "ALIYUN::ECS::VSwitch":
            continue
        vpc = _target(props.get("VpcId"), "VpcId")
        for cidr in t.cidrs(props.get("CidrBlock"), props.pos("CidrBlock"), True)[:1]:
            vpc_name = vpc[1] if vpc else None
            vswitches[name] = (cidr, vpc_name, r.get("Condition"))
            vpc_ranges = ranges.get(vpc_name) if vpc_name is not None else None
            if vpc_name in complete and vpc_ranges and not any(cidr.net.subnet_of(x.net) for x in vpc_ranges):
                shown = ", ".join(str(x.net) for x in vpc_ranges)
                t.report(cidr.pos, f'VSwitch "{name}" CIDR {cidr.net} is outside VPC "{vpc_name}" ({shown})')
            if vpc_name is None:
                continue
            for other, ocidr, ocond in siblings.get(vpc_name, []):
                if cidr.net.overlaps(ocidr.net) and _together(r.get("Condition"), ocond):
                    t.report(cidr.pos, f'VSwitch "{name}" CIDR {cidr.net} overlaps VSwitch "{other}" ({ocidr.net})')
                    break
            siblings.setdefault(vpc_name, []).append((name, cidr, r.get("Condition")))
    for name, r, props in items:
        if r.get("Type") == "ALIYUN::VPC::VSwitchCidrReservation":
            vsw = _target(props.get("VSwitchId"), "VSwitchId")
            for cidr in t.cidrs(props.get("VSwitchCidrReservationCidr"), props.pos("VSwitchCidrReservationCidr"), True):
                if vsw and vsw[1] in vswitches and not cidr.net.subnet_of(vswitches[vsw[1]][0].net):
                    t.report(cidr.pos, f'reserved CIDR {cidr.net} of "{name}" is outside VSwitch "{vsw[1]}" ({vswitches[vsw[1]][0].net})')
        elif r.get("Type") in CLUSTERS:
            vpc = _target(props.get("VpcId"), "VpcId")
            own = ranges.get(vpc[1], []) if vpc else []
            seen: list[tuple[str, Cidr]] = []
            for prop in ("ServiceCidr", "ContainerCidr"):
                for cidr in t.cidrs(props.get(prop), props.pos(prop), True)[:1]:
                    clash = next((x for x in own if x.net.overlaps(cidr.net)), None)
                    if clash is not None and vpc is not None:  # `own` is empty without a VPC
                        t.report(cidr.pos, f'cluster "{name}" {prop} {cidr.net} overlaps VPC "{vpc[1]}" ({clash.net}): pod and service CIDRs must lie outside the VPC')
                    for other, ocidr in seen:
                        if ocidr.net.overlaps(cidr.net):
                            t.report(cidr.pos, f'cluster "{name}" {prop} {cidr.net} overlaps its {other} ({ocidr.net})')
                    seen.append((prop, cidr))
        elif r.get("Type") in ("ALIYUN::ECS::SecurityGroupIngress", "ALIYUN::ECS::SecurityGroupEgress"):
            for prop in ("SourceCidrIp", "DestCidrIp"):
                t.cidrs(props.get(prop), props.pos(prop), False)
    return t.out


def _together(a: Any, b: Any) -> bool:
    """Whether two resources with these `Condition`s can exist together (as far as we know)."""
    return a is None or b is None or a == b
