"""Offline checks of this project: every .tf file parses as HCL, the ROS template parses as YAML,
VSwitch CIDRs lie inside the VPC and do not overlap, and every resource carries the tags the
project requires (set REQUIRE_TAGS=1). Needs python-hcl2 and PyYAML; no cloud account.

Usage: python scripts/validate.py [--require-tags]
"""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path

import hcl2
import yaml

ROOT = Path(__file__).resolve().parent.parent
TAGGED_TYPES = {"alicloud_vpc", "alicloud_vswitch", "alicloud_security_group"}


class _RosLoader(yaml.SafeLoader):
    """YAML loader that accepts ROS short-form intrinsic functions such as !Ref."""


_RosLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


def main(argv: list[str]) -> int:
    require_tags = "--require-tags" in argv
    problems: list[str] = []
    resources: list[tuple[str, str, dict]] = []
    variables: dict[str, dict] = {}
    for path in sorted((ROOT / "terraform").rglob("*.tf")):
        try:
            with path.open() as f:
                doc = _unquote(hcl2.load(f))
        except Exception as exc:  # noqa: BLE001 - report every parse failure the same way
            problems.append(f"{path.relative_to(ROOT)}: HCL parse error: {exc}")
            continue
        for block in doc.get("resource", []):
            for rtype, named in block.items():
                for name, body in named.items():
                    resources.append((str(path.relative_to(ROOT)), f"{rtype}.{name}", body))
        for block in doc.get("variable", []):
            variables.update(block)
        print(f"ok  {path.relative_to(ROOT)}")
    for path in sorted((ROOT / "ros").glob("*.yaml")):
        try:
            template = yaml.load(path.read_text(), Loader=_RosLoader)  # noqa: S506 - SafeLoader subclass
            assert isinstance(template.get("Resources"), dict), "no Resources section"
        except Exception as exc:  # noqa: BLE001
            problems.append(f"{path.relative_to(ROOT)}: {exc}")
            continue
        print(f"ok  {path.relative_to(ROOT)}")

    vpc = ipaddress.ip_network(_default(variables, "vpc_cidr") or "10.10.0.0/16")
    subnets = _default(variables, "vswitches") or {}
    nets = {}
    for name, spec in subnets.items():
        net = ipaddress.ip_network(spec["cidr_block"])
        if not net.subnet_of(vpc):
            problems.append(f"vswitch {name}: {net} is outside the VPC {vpc}")
        for other, other_net in nets.items():
            if net.overlaps(other_net):
                problems.append(f"vswitch {name}: {net} overlaps {other} ({other_net})")
        nets[name] = net
    zones = {spec["zone_id"] for spec in subnets.values()}
    print(f"ok  {len(subnets)} vswitches in {len(zones)} zones inside {vpc}")

    if require_tags:
        for where, address, body in resources:
            if address.split(".")[0] in TAGGED_TYPES and "tags" not in body:
                problems.append(f"{where}: {address} has no tags")
        if not problems:
            print("ok  every taggable resource has tags")

    for problem in problems:
        print(f"FAIL {problem}")
    return 1 if problems else 0


def _unquote(value):
    """python-hcl2 8 keeps the quotes of string literals and names; drop them."""
    if isinstance(value, dict):
        return {_unquote(k): _unquote(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unquote(v) for v in value]
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def _default(variables: dict[str, dict], name: str):
    return variables.get(name, {}).get("default")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
