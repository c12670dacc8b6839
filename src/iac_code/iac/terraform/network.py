"""CIDR rules of Terraform modules: invalid CIDR literals, and subnets/vswitches outside their
VPC's CIDR or overlapping a sibling.

Values come from `evaluate` on the instances `values.instances` gives (a root module with
defaults and auto-loaded .tfvars, and the local modules it calls with their arguments), then
`for_each`/`count` instances and `cidrsubnet`. A finding is reported where the offending CIDR
was written.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from lark import Token, Tree

from iac_code.iac import cache
from iac_code.iac.diagnostics import Diagnostic
from iac_code.iac.rules import diag, rule
from iac_code.iac.terraform.evaluate import UNKNOWN, Env, Located, evaluate, literal
from iac_code.iac.terraform.hcl import Attr, Block, references
from iac_code.iac.terraform.module import ModuleTarget
from iac_code.iac.terraform.values import Instance, instances

_CIDR_SHAPE = re.compile(r"^\d{1,3}(\.\d{1,3}){3}/\d{1,3}$")
VPC_TYPES = {"alicloud_vpc": "cidr_block", "aws_vpc": "cidr_block", "alicloud_vpc_ipv4_cidr_block": None}
SECONDARY = {"alicloud_vpc_ipv4_cidr_block": ("vpc_id", "secondary_cidr_block"),
             "aws_vpc_ipv4_cidr_block_association": ("vpc_id", "cidr_block")}
SUBNET_TYPES = {"alicloud_vswitch": ("vpc_id", "cidr_block"), "alicloud_subnet": ("vpc_id", "cidr_block"),
                "aws_subnet": ("vpc_id", "cidr_block")}


def literal_problems(attrs: list[Attr], blocks: list[Block]) -> list[tuple[int, int, str]]:
    """(line, column, why) of every string literal shaped like an IPv4 CIDR that is not a valid
    network (host bits set count only under an attribute or key whose name mentions 'cidr')."""
    out: list[tuple[int, int, str]] = []

    def walk(node: Tree | Token, name: str) -> None:
        if isinstance(node, Token):
            return
        if node.data == "object_elem":
            key = "".join(str(v) for v in node.children[0].scan_values(lambda v: isinstance(v, Token)))
            walk(node.children[-1], key)
            return
        if node.data == "string":
            value = literal(node)
            if isinstance(value, Located) and _CIDR_SHAPE.match(value):
                problem = cidr_problem(value, strict="cidr" in name.lower())
                if problem:
                    out.append((value.line, value.column, problem))
            return
        for c in node.children:
            walk(c, name)

    def block(attrs: list[Attr], blocks: list[Block]) -> None:
        for a in attrs:
            if a.expr is not None:
                walk(a.expr, a.name)
        for b in blocks:
            block(b.attrs, b.blocks)

    block(attrs, blocks)
    return out


def cidr_problem(value: str, strict: bool = True) -> str | None:
    """Why `value` is not a valid IPv4 network, or None."""
    try:
        ipaddress.IPv4Network(value, strict=False)
    except ValueError as exc:
        return f'"{value}" is not a valid CIDR: {exc}'
    if strict:
        try:
            ipaddress.IPv4Network(value, strict=True)
        except ValueError:
            net = ipaddress.IPv4Network(value, strict=False)
            return f'"{value}" has host bits set; the network is "{net}"'
    return None


class Subnet(NamedTuple):
    """A subnet/vswitch whose CIDR is known: its VPC's address, its own, the CIDR as written
    (`file` is where) and the network it stands for."""

    vpc: str
    address: str
    cidr: Located
    file: Path
    network: ipaddress.IPv4Network


@dataclass(slots=True)
class Network:
    """The VPCs and subnets of one module instance: VPC address -> its CIDRs, the subnets, VPCs
    with a CIDR not known, and `cidrsubnet` calls that fail."""

    vpcs: dict[str, list[ipaddress.IPv4Network]] = field(default_factory=dict)
    subnets: list[Subnet] = field(default_factory=list)
    unknown: set[str] = field(default_factory=set)
    problems: list[tuple[Path | None, int, int, str]] = field(default_factory=list)


def networks(t: ModuleTarget) -> list[Network]:
    """The network of each instance `values.instances` gives (computed once per target)."""
    return t.once("networks", lambda: [_network(inst) for inst in instances(t)[0]])


def _network(inst: Instance) -> Network:
    net = Network()
    envs: list[Env] = []
    for decl in inst.module.blocks:
        b = decl.block
        if b.type != "resource":
            continue
        rtype, name = b.labels
        base = inst.env(decl.file)
        envs.append(base)
        for env in _instances(b, base):
            if vpc_cidr := VPC_TYPES.get(rtype):
                value = _attr_value(b, vpc_cidr, env)
                if isinstance(value, str) and (network := _net(value)):
                    net.vpcs.setdefault(f"{rtype}.{name}", []).append(network)
                else:
                    net.unknown.add(f"{rtype}.{name}")
            elif rtype in SECONDARY:
                vpc = _vpc_of(b, SECONDARY[rtype][0])
                value = _attr_value(b, SECONDARY[rtype][1], env)
                if vpc and isinstance(value, str) and (network := _net(value)):
                    net.vpcs.setdefault(vpc, []).append(network)
                elif vpc:
                    net.unknown.add(vpc)
            elif rtype in SUBNET_TYPES:
                vpc = _vpc_of(b, SUBNET_TYPES[rtype][0])
                value = _attr_value(b, SUBNET_TYPES[rtype][1], env)
                if vpc and isinstance(value, Located) and value.file is not None and (network := _net(value)):
                    net.subnets.append(Subnet(vpc, f"{rtype}.{name}", value, value.file, network))
    net.problems = list(dict.fromkeys(problem for e in envs for problem in e.problems))
    return net


@rule("terraform.invalid-cidr", "error", "a CIDR literal that is not a valid network address", kind="terraform")
def invalid_cidr(t: ModuleTarget) -> Iterator[Diagnostic]:
    """A string shaped like a CIDR that is not one (`10.0.0.256/24`), host bits set under an
    argument or key named like `cidr` (`10.0.1.5/24`), and `cidrsubnet()` asked for a subnet
    its network does not have."""
    for path, (text, body) in t.module.parsed.items():
        found = cache.get_or_compute("cidrs", text, functools.partial(literal_problems, body.attrs, body.blocks))
        for line, col, message in found:
            yield diag(invalid_cidr, path, line, col, message)
    for net in networks(t):
        for file, line, col, message in net.problems:
            if file is not None:
                yield diag(invalid_cidr, file, line, col, message)


@rule("terraform.cidr-outside-vpc", "error", "a subnet/vswitch CIDR outside its VPC's CIDR", kind="terraform")
def cidr_outside_vpc(t: ModuleTarget) -> Iterator[Diagnostic]:
    """The cloud rejects a subnet (aws_subnet, alicloud_vswitch, ...) whose CIDR is not inside
    one of its VPC's CIDRs (secondary CIDR blocks included)."""
    for net in networks(t):
        for vpc, addr, cidr, file, network in net.subnets:
            lo, hi = _span(network)
            if vpc in net.vpcs and vpc not in net.unknown and not any(a <= lo and hi <= b for a, b in map(_span, net.vpcs[vpc])):
                yield diag(cidr_outside_vpc, file, cidr.line, cidr.column,
                           f'{addr} CIDR "{cidr}" is outside its VPC {vpc} ({", ".join(map(str, net.vpcs[vpc]))})')


@rule("terraform.cidr-overlap", "error", "subnets/vswitches of one VPC whose CIDRs overlap", kind="terraform")
def cidr_overlap(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Two subnets of one VPC (or instances of one subnet resource with the same CIDR) whose
    ranges overlap; the second is reported."""
    for net in networks(t):
        spans = [_span(subnet.network) for subnet in net.subnets]
        for i, (vpc, addr, cidr, file, _) in enumerate(net.subnets):
            lo, hi = spans[i]
            for j in range(i):
                lo2, hi2 = spans[j]
                vpc2, addr2, cidr2, file2, _ = net.subnets[j]
                if vpc2 != vpc or not (lo <= hi2 and lo2 <= hi):
                    continue
                if (addr2, file2, cidr2.line, str(cidr2)) == (addr, file, cidr.line, str(cidr)):
                    message = (f'every instance of {addr} gets the CIDR "{cidr}" (it does not depend on '
                               f"count.index or each), so they overlap in VPC {vpc}")
                else:
                    message = f'{addr} CIDR "{cidr}" overlaps "{cidr2}" ({addr2}, {file2.name}:{cidr2.line}) in VPC {vpc}'
                yield diag(cidr_overlap, file, cidr.line, cidr.column, message)
                break


def _span(net: ipaddress.IPv4Network) -> tuple[int, int]:
    start = int(net.network_address)
    return start, start + net.num_addresses - 1


def _instances(b: Block, env: Env) -> Iterator[Env]:
    fe, cnt = b.attr("for_each"), b.attr("count")
    if fe is not None:
        coll = evaluate(fe.expr, env)
        if isinstance(coll, dict):
            for k, v in coll.items():
                yield replace(env, each=(k, v))
        elif isinstance(coll, list):
            for v in coll:
                yield replace(env, each=(v, v))
        return
    if cnt is not None:
        n = evaluate(cnt.expr, env)
        if isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 256:
            for i in range(n):
                yield replace(env, count=i)
        return
    yield env


def _attr_value(b: Block, name: str, env: Env) -> Any:
    a = b.attr(name)
    return evaluate(a.expr, env) if a is not None and a.expr is not None else UNKNOWN


def _vpc_of(b: Block, attr: str) -> str | None:
    a = b.attr(attr)
    if a is None or a.expr is None:
        return None
    refs, _ = references(a.expr)
    if len(refs) == 1 and refs[0].root in VPC_TYPES and refs[0].steps[-1:] == ("id",) and len(refs[0].steps) == 2:
        return f"{refs[0].root}.{refs[0].steps[0]}"
    return None


def _net(value: str) -> ipaddress.IPv4Network | None:
    try:
        return ipaddress.IPv4Network(str(value), strict=False)
    except ValueError:
        return None
