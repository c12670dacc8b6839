"""CIDR checks of Terraform modules: invalid CIDR literals, and subnets/vswitches outside their
VPC's CIDR or overlapping a sibling.

Values come from `evaluate`: literals, variable defaults and auto-loaded .tfvars, module call
arguments (a root module's values flow into its local child modules), `for_each`/`count`
instances and `cidrsubnet`. A finding is reported where the offending CIDR was written.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from lark import Token, Tree

from iac_code.iac.diagnostics import Diagnostic, diag
from iac_code.iac.terraform.hcl import Attr, Block, Body, references
from iac_code.iac.terraform.evaluate import UNKNOWN, Env, Located, evaluate, literal
from iac_code.iac.terraform.module import Module
from iac_code.iac.terraform.typecheck import (
    check_for_each,
    check_variable_value,
    coerce,
    conform,
    describe,
    parse_type,
    where,
)

_CIDR_SHAPE = re.compile(r"^\d{1,3}(\.\d{1,3}){3}/\d{1,3}$")
VPC_TYPES = {"alicloud_vpc": "cidr_block", "aws_vpc": "cidr_block", "alicloud_vpc_ipv4_cidr_block": None}
SECONDARY = {"alicloud_vpc_ipv4_cidr_block": ("vpc_id", "secondary_cidr_block"),
             "aws_vpc_ipv4_cidr_block_association": ("vpc_id", "cidr_block")}
SUBNET_TYPES = {"alicloud_vswitch": ("vpc_id", "cidr_block"), "alicloud_subnet": ("vpc_id", "cidr_block"),
                "aws_subnet": ("vpc_id", "cidr_block")}
MAX_DEPTH = 6


def literal_cidrs(file: Path, attrs: list[Attr], blocks: list[Block], text: str | None = None) -> list[Diagnostic]:
    """Every string literal shaped like an IPv4 CIDR that is not a valid network (host bits set
    count only under an attribute or key whose name mentions 'cidr'). With `text` (the file's
    content, which `attrs`/`blocks` were parsed from) the findings are cached by content."""
    if text is not None:
        from iac_code.iac import cache

        found = cache.get_or_compute("cidrs", text, lambda: [(d.line, d.column, d.message) for d in literal_cidrs(file, attrs, blocks)])
        return [diag(file, line, col, "error", "terraform.invalid-cidr", msg) for line, col, msg in found]
    out: list[Diagnostic] = []

    def walk(node: Tree | Token, name: str) -> None:
        if isinstance(node, Token):
            return
        if node.data == "object_elem":
            key = "".join(str(v) for v in node.children[0].scan_values(lambda v: isinstance(v, Token)))
            walk(node.children[-1], key)
            return
        if node.data == "string":
            value = literal(node)
            if isinstance(value, str) and _CIDR_SHAPE.match(value):
                problem = cidr_problem(value, strict="cidr" in name.lower())
                if problem:
                    out.append(diag(file, value.line, value.column, "error", "terraform.invalid-cidr", problem))
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


def module_values(mod: Module, out: list[Diagnostic] | None = None) -> dict[str, Any]:
    """Variable values of a root module: auto-loaded .tfvars over defaults, as their types hold
    them; each value checked against its variable's type and validation (findings into `out`)."""
    given: dict[str, tuple[Any, tuple[Path, int, int]]] = {}
    for path, body in mod.tfvars:
        for a in body.attrs:
            given[a.name] = (evaluate(a.expr, Env(path)), (path, a.line, a.column))
    for k, v in mod.json_values.items():
        given[k] = (v, (mod.dir, 1, 1))
    return _resolve(mod, given, out if out is not None else [])


def tfvars_checks(mod: Module, path: Path, body: Body) -> list[Diagnostic]:
    """A .tfvars file meant for `mod` (with -var-file): undeclared names (warnings), and values
    against their variables' types and validation."""
    out: list[Diagnostic] = []
    for a in body.attrs:
        decl = mod.variables.get(a.name)
        if decl is None:
            import difflib

            close = difflib.get_close_matches(a.name, list(mod.variables), n=1, cutoff=0.75)
            out.append(diag(path, a.line, a.column, "warning", "terraform.undeclared-tfvar",
                            f'a value for undeclared variable "{a.name}"' + (f' (did you mean "{close[0]}"?)' if close else "")))
            continue
        check_variable_value(decl.file, decl.block, evaluate(a.expr, Env(path)), (path, a.line, a.column), out)
    return out


def _resolve(mod: Module, given: dict[str, tuple[Any, tuple[Path, int, int]]], out: list[Diagnostic]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, decl in mod.variables.items():
        var = decl.block
        t_attr = var.attr("type")
        t = parse_type(t_attr.expr if t_attr is not None else None)
        d = var.attr("default")
        default = evaluate(d.expr, Env(decl.file)) if d is not None and d.expr is not None else UNKNOWN
        if name in given:
            value, at = given[name]
            if d is not None and default is not UNKNOWN and (bad := conform(default, t)) is not None:
                file, line, col = where(bad[0], (decl.file, d.line, d.column))
                out.append(diag(file, line, col, "error", "terraform.invalid-value",
                                f'invalid default for variable "{name}" ({describe(t)}): {bad[1]}'))
        elif d is not None:
            value, at = default, (decl.file, d.line, d.column)
        else:
            continue
        check_variable_value(decl.file, var, value, at, out)
        values[name] = coerce(value, t)
    return values


def network_checks(mod: Module, values: dict[str, Any], load: Callable[[Path], Module | None], depth: int = 0) -> list[Diagnostic]:
    """Subnet/vswitch CIDRs inside their VPC and not overlapping, for `mod` run with `values`,
    then for its local child modules with the values its calls pass."""
    from iac_code.iac.terraform.checks import local_source_dir

    out: list[Diagnostic] = []
    locals_ = {name: (f, a.expr) for name, (f, a) in mod.locals.items()}
    resources: dict[str, dict[str, tuple[Path, Block]]] = {}
    for (rtype, rname), d in mod.resources.items():
        resources.setdefault(rtype, {})[rname] = (d.file, d.block)
    vpcs: dict[str, list[ipaddress.IPv4Network]] = {}
    subnets: list[tuple[str, str, Located]] = []  # (vpc name, subnet address, cidr)
    unknown_secondary: set[str] = set()
    envs: list[Env] = []
    for decl in mod.blocks:
        b = decl.block
        if b.type == "module" and depth < MAX_DEPTH and not b.attr("count") and not b.attr("for_each"):
            child_dir = local_source_dir(mod, b)
            child = load(child_dir) if child_dir is not None else None
            if child is not None:
                env = Env(decl.file, values, locals_, resources=resources)
                passed = {a.name: (evaluate(a.expr, env), (decl.file, a.line, a.column)) for a in b.attrs
                          if a.expr is not None and a.name in child.variables}
                child_values = _resolve(child, passed, out)
                out += network_checks(child, child_values, load, depth + 1)
            continue
        if b.type in ("resource", "data", "module"):
            check_for_each(decl.file, b, Env(decl.file, values, locals_, resources=resources), out)
        if b.type != "resource" or len(b.labels) != 2:
            continue
        rtype, name = b.labels
        base = Env(decl.file, values, locals_, resources=resources)
        envs.append(base)
        for env in _instances(b, base):
            if VPC_TYPES.get(rtype):
                value = _attr_value(b, VPC_TYPES[rtype], env)
                if isinstance(value, str) and _net(value):
                    vpcs.setdefault(f"{rtype}.{name}", []).append(_net(value))
                else:
                    unknown_secondary.add(f"{rtype}.{name}")
            elif rtype in SECONDARY:
                vpc = _vpc_of(b, SECONDARY[rtype][0])
                value = _attr_value(b, SECONDARY[rtype][1], env)
                if vpc and isinstance(value, str) and _net(value):
                    vpcs.setdefault(vpc, []).append(_net(value))
                elif vpc:
                    unknown_secondary.add(vpc)
            elif rtype in SUBNET_TYPES:
                vpc = _vpc_of(b, SUBNET_TYPES[rtype][0])
                value = _attr_value(b, SUBNET_TYPES[rtype][1], env)
                if vpc and isinstance(value, Located) and value.file is not None and _net(value):
                    subnets.append((vpc, f"{rtype}.{name}", value))
    for file, line, col, message in dict.fromkeys(problem for e in envs for problem in e.problems):
        if file is not None:
            out.append(diag(file, line, col, "error", "terraform.invalid-cidr", message))
    spans = [(_span(_net(cidr)), vpc) for vpc, _, cidr in subnets]
    vpc_spans = {name: [_span(n) for n in nets] for name, nets in vpcs.items()}
    for i, (vpc, addr, cidr) in enumerate(subnets):
        (lo, hi), _ = spans[i]
        if vpc in vpc_spans and vpc not in unknown_secondary and not any(a <= lo and hi <= b for a, b in vpc_spans[vpc]):
            out.append(diag(cidr.file, cidr.line, cidr.column, "error", "terraform.cidr-outside-vpc",
                            f'{addr} CIDR "{cidr}" is outside its VPC {vpc} ({", ".join(map(str, vpcs[vpc]))})'))
        for j in range(i):
            (lo2, hi2), vpc2 = spans[j]
            if vpc2 == vpc and lo <= hi2 and lo2 <= hi:
                _, addr2, cidr2 = subnets[j]
                if (addr2, cidr2.file, cidr2.line, str(cidr2)) == (addr, cidr.file, cidr.line, str(cidr)):
                    message = (f'every instance of {addr} gets the CIDR "{cidr}" (it does not depend on '
                               f"count.index or each), so they overlap in VPC {vpc}")
                else:
                    message = f'{addr} CIDR "{cidr}" overlaps "{cidr2}" ({addr2}, {cidr2.file.name}:{cidr2.line}) in VPC {vpc}'
                out.append(diag(cidr.file, cidr.line, cidr.column, "error", "terraform.cidr-overlap", message))
                break
    return out


def _span(net: ipaddress.IPv4Network) -> tuple[int, int]:
    start = int(net.network_address)
    return start, start + net.num_addresses - 1


def _instances(b: Block, env: Env):
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


def tfvars_literal_checks(path: Path, body: Body) -> list[Diagnostic]:
    """Invalid CIDR literals in a .tfvars file."""
    return literal_cidrs(path, body.attrs, body.blocks)
