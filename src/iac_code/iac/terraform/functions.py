"""Terraform functions the evaluator models on known values (`evaluate` calls them)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from typing import Any

NOT_MODELLED: Any = type("NotModelled", (), {})()
"""Returned for a call that is not modelled (the evaluator then calls it UNKNOWN)."""


class EvalFailure(Exception):
    """Terraform would fail evaluating this (e.g. `regex` without a match); `can()` catches it."""


def pure_function(name: str, args: list[Any]) -> Any:
    """Pure functions on known values; `NOT_MODELLED` for others. Raises `EvalFailure` where
    Terraform would fail (`regex` without a match, `cidrhost` out of range)."""
    n = len(args)
    strs = all(isinstance(a, str) for a in args)
    if name == "contains" and n == 2 and isinstance(args[0], list):
        return args[1] in args[0]
    if name == "regex" and n == 2 and strs:
        m = re.search(args[0], args[1])
        if m is None:
            raise EvalFailure("no match")
        return m.group(0) if not m.groups() else list(m.groups())
    if name == "regexall" and n == 2 and strs:
        return [m.group(0) for m in re.finditer(args[0], args[1])]
    if name in ("lower", "upper", "trimspace") and n == 1 and strs:
        case: dict[str, Callable[[str], str]] = {"lower": str.lower, "upper": str.upper, "trimspace": str.strip}
        return case[name](args[0])
    if name in ("startswith", "endswith", "strcontains") and n == 2 and strs:
        return {"startswith": str.startswith, "endswith": str.endswith, "strcontains": str.__contains__}[name](args[0], args[1])
    if name in ("alltrue", "anytrue") and n == 1 and isinstance(args[0], list) and all(isinstance(x, bool) for x in args[0]):
        return all(args[0]) if name == "alltrue" else any(args[0])
    if name in ("cidrhost", "cidrnetmask") and n >= 1 and isinstance(args[0], str):
        if not _CIDR_TEXT.match(args[0]):
            raise EvalFailure("not a CIDR")
        net = ipaddress.ip_network(args[0], strict=False)
        if name == "cidrnetmask":
            return str(net.netmask)
        if n == 2 and isinstance(args[1], int) and 0 <= args[1] < net.num_addresses:
            return str(net.network_address + args[1])
        raise EvalFailure("host number out of range")
    if name in ("keys", "values") and n == 1 and isinstance(args[0], dict):
        return sorted(args[0]) if name == "keys" else [args[0][k] for k in sorted(args[0])]
    if name == "join" and n == 2 and isinstance(args[0], str) and isinstance(args[1], list) and all(isinstance(x, str) for x in args[1]):
        return args[0].join(args[1])
    if name == "split" and n == 2 and strs:
        return args[1].split(args[0])
    return NOT_MODELLED


_CIDR_TEXT = re.compile(r"^[0-9a-fA-F:.]+/\d{1,3}$")


def list_subnet(net: ipaddress.IPv4Network | ipaddress.IPv6Network, newbits: int, netnum: int) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    """Terraform's `cidrsubnet(net, newbits, netnum)`; ValueError when netnum does not fit."""
    prefix = net.prefixlen + newbits
    if prefix > net.max_prefixlen or netnum < 0 or netnum >= 2**newbits:
        raise ValueError("netnum out of range")
    size = 2 ** (net.max_prefixlen - prefix)
    return ipaddress.ip_network((int(net.network_address) + netnum * size, prefix))
