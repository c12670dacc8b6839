"""What can be known of Terraform values offline: literals, variables with their defaults or
.tfvars values, locals, `each`/`count`, a few pure functions (`cidrsubnet`, `merge`, ...).

Strings remember where they were written (`Located`), so a CIDR check reports the line of the
literal at fault, also when it reached a resource through a variable or a module call. Anything
not knowable is `UNKNOWN`, and checks skip it (no guessing, no false errors).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from lark import Token, Tree

from iac_code.iac.terraform.functions import (
    NOT_MODELLED,
    EvalFailure,
    list_subnet,
    pure_function,
)
from iac_code.iac.terraform.hcl import leaf, place, subtree

UNKNOWN: Any = type("Unknown", (), {"__repr__": lambda self: "UNKNOWN"})()


class Located(str):
    """A string with the file and 1-based line/column it was written at."""

    file: Path | None = None
    line: int = 0
    column: int = 0

    @classmethod
    def at(cls, value: str, file: Path | None, line: int, column: int) -> Located:
        """`value` remembered as written in `file` at 1-based `line`/`column`."""
        s = cls(value)
        s.file, s.line, s.column = file, line, column
        return s


class LDict(dict):
    """An object/map value with the file and line it was written at."""

    file: Path | None = None
    line: int = 0


class LList(list):
    """A tuple/list value with the file and line it was written at."""

    file: Path | None = None
    line: int = 0


class SetList(LList):
    """A set value (from `toset()` or a `set(...)`-typed variable), kept as a list."""


def _placed(value: Any, cls: type, file: Path | None, node: Tree) -> Any:
    out = cls(value)
    first = next(node.scan_values(lambda v: isinstance(v, Token)), None)  # trees carry no positions: tokens do
    out.file, out.line = file, getattr(first, "line", 0) or 0
    return out


@dataclass(slots=True)
class Env:
    """Evaluation context: the module's file being read, variable values, locals, iteration."""

    file: Path | None = None
    vars: dict[str, Any] = field(default_factory=dict)
    locals: dict[str, tuple[Path, Any]] = field(default_factory=dict)  # name -> (file, expr)
    each: tuple[Any, Any] | None = None
    count: int | None = None
    depth: int = 0
    bound: dict[str, Any] = field(default_factory=dict)  # for-expression variables
    resources: dict[str, dict[str, tuple[Path, Any]]] = field(default_factory=dict)  # type -> name -> (file, Block)
    problems: list[tuple[Path | None, int, int, str]] = field(default_factory=list)  # calls Terraform would reject


def literal(expr: Tree | None, file: Path | None = None) -> Any:
    """The value of an expression that needs no context (strings, numbers, lists, objects)."""
    return evaluate(expr, Env(file=file))


def evaluate(expr: Tree | Token | None, env: Env) -> Any:
    """The value of `expr` in `env`, or UNKNOWN."""
    if expr is None or env.depth > 40:
        return UNKNOWN
    try:
        return _eval(expr, env)
    except (KeyError, IndexError, TypeError, ValueError, RecursionError, AttributeError, EvalFailure, OverflowError):
        return UNKNOWN


def _eval(node: Tree | Token, env: Env) -> Any:
    if isinstance(node, Token):
        return UNKNOWN
    d = node.data
    kids = [c for c in node.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]
    if d == "expr_term":
        return _eval(kids[0], env) if len(kids) == 1 else UNKNOWN
    if d == "string":
        return _string(node, env)
    if d == "int_lit":
        return int(str(node.children[0]))
    if d == "float_lit":
        return float(str(node.children[0]))
    if d == "literal_value":
        return {"true": True, "false": False, "null": None}[str(node.children[0])]
    if d == "tuple":
        return _placed([_eval(k, env) for k in kids], LList, env.file, node)
    if d == "unary_op":
        op, value = str(node.children[0]), _eval(node.children[-1], env)
        if value is UNKNOWN:
            return UNKNOWN
        if op == "!":
            return (not value) if isinstance(value, bool) else UNKNOWN
        return -value if isinstance(value, (int, float)) and not isinstance(value, bool) else UNKNOWN
    if d == "object":
        out = _placed({}, LDict, env.file, node)
        for elem in kids:
            key_node = elem.children[0].children[0]
            key = _key(key_node, env)
            if key is UNKNOWN:
                return UNKNOWN
            out[str(key)] = _eval(elem.children[-1], env)
        return out
    if d in ("get_attr_expr_term", "index_expr_term"):
        base = _eval(node.children[0], env)
        if base is UNKNOWN:
            return UNKNOWN
        step = subtree(node, 1)
        if d == "get_attr_expr_term":
            name = str(next(step.children[-1].scan_values(lambda v: isinstance(v, Token))))
            if isinstance(base, (_Namespace, _Resources)):
                return base.get(name, env)
            return base.get(name, UNKNOWN) if isinstance(base, dict) else UNKNOWN
        if step.data == "short_index":
            idx: Any = int(str(step.children[-1]))
        else:
            idx = _eval([c for c in step.children if isinstance(c, Tree)][0], env)
        if idx is UNKNOWN:
            return UNKNOWN
        if isinstance(base, list):
            return base[int(idx)]
        return base.get(str(idx), UNKNOWN) if isinstance(base, dict) else UNKNOWN
    if d == "identifier":
        name = str(node.children[0])
        if name in env.bound:
            return env.bound[name]
        if name in ("var", "local", "each", "count"):
            return _Namespace(name)
        if name in env.resources:
            return _Resources(env.resources[name])
        return UNKNOWN
    if d == "function_call":
        return _call(node, env)
    if d in ("for_tuple_expr", "for_object_expr"):
        return _for(node, env)
    if d == "binary_op":
        return _binary(node, env)
    if d == "conditional":
        parts = [c for c in node.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]
        cond = _eval(parts[0], env)
        if not isinstance(cond, bool):
            return UNKNOWN
        value = _eval(parts[1] if cond else parts[2], env)
        return _unified(value, lambda: _eval(parts[2] if cond else parts[1], env))
    return UNKNOWN


def _unified(value: Any, other: Callable[[], Any]) -> Any:
    """A conditional's result as Terraform types it: both results unified into one type, so a
    tuple beside a set is a set (`c ? toset(x) : []` is a set whichever is chosen); where the
    other result's type is not known, neither is a tuple's."""
    if not isinstance(value, list) or isinstance(value, SetList):
        return value
    alternative = other()
    if isinstance(alternative, SetList):
        out = SetList(value)
        out.file, out.line = getattr(value, "file", None), getattr(value, "line", 0)
        return out
    return UNKNOWN if alternative is UNKNOWN else value


_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
        "%": lambda a, b: a % b, "<": lambda a, b: a < b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
        ">=": lambda a, b: a >= b}


def _binary(node: Tree, env: Env) -> Any:
    left = _eval(node.children[0], env)
    term = node.children[1]
    op = str(next(term.children[0].scan_values(lambda v: isinstance(v, Token)))).split()[-1]  # a newline or comment may lead
    right = _eval([c for c in term.children[1:] if isinstance(c, Tree) and c.data != "new_line_or_comment"][0], env)
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    if op in ("==", "!="):
        return (left == right) == (op == "==")
    if op in ("&&", "||"):
        return (left and right) if op == "&&" else (left or right) if isinstance(left, bool) and isinstance(right, bool) else UNKNOWN
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (left, right))
    return _OPS[op](left, right) if numeric and op in _OPS else UNKNOWN


def _for(node: Tree, env: Env) -> Any:
    if any(isinstance(c, Token) and c.type == "ELLIPSIS" for c in node.children):
        return UNKNOWN
    intro = next(c for c in node.children if isinstance(c, Tree) and c.data == "for_intro")
    names = [str(c.children[0]) for c in intro.children if isinstance(c, Tree) and c.data == "identifier"]
    coll_node = [c for c in intro.children if isinstance(c, Tree) and c.data not in ("identifier", "new_line_or_comment")][0]
    coll = _eval(coll_node, env)
    if isinstance(coll, dict):
        pairs = list(coll.items())
    elif isinstance(coll, list):
        pairs = list(enumerate(coll))
    else:
        return UNKNOWN
    body = [c for c in node.children if isinstance(c, Tree) and c.data not in ("for_intro", "new_line_or_comment")]
    cond = body.pop() if body and body[-1].data == "for_cond" else None
    is_obj = node.data == "for_object_expr"
    out: Any = {} if is_obj else []
    for k, v in pairs:
        bound = {**env.bound, **({names[0]: v} if len(names) == 1 else {names[0]: k, names[1]: v})}
        inner = replace(env, depth=env.depth + 1, bound=bound)
        if cond is not None:
            ok = _eval([c for c in cond.children if isinstance(c, Tree)][0], inner)
            if ok is UNKNOWN or not isinstance(ok, bool):
                return UNKNOWN
            if not ok:
                continue
        if is_obj:
            key = _eval(body[0], inner)
            if key is UNKNOWN:
                return UNKNOWN
            out[str(key)] = _eval(body[1], inner)
        else:
            out.append(_eval(body[0], inner))
    return out


def _key(node: Tree, env: Env) -> Any:
    if node.data == "keyword":
        return str(node.children[0])
    if node.data == "expr_term" and len(node.children) == 1 and isinstance(node.children[0], Tree):
        inner = node.children[0]
        if inner.data == "identifier":
            return str(inner.children[0])
    value = _eval(node, env)
    return value if isinstance(value, (str, int, float)) else UNKNOWN


class _Namespace:
    """`var`, `local`, `each` or `count` before its attribute is read."""

    def __init__(self, name: str) -> None:
        self.name = name

    def get(self, attr: str, env: Env) -> Any:
        if self.name == "var":
            return env.vars.get(attr, UNKNOWN)
        if self.name == "local":
            if attr not in env.locals:
                return UNKNOWN
            file, expr = env.locals[attr]
            inner = replace(env, file=file, depth=env.depth + 1)
            return evaluate(expr, inner)
        if self.name == "each" and env.each is not None:
            return {"key": env.each[0], "value": env.each[1]}.get(attr, UNKNOWN)
        if self.name == "count" and env.count is not None and attr == "index":
            return env.count
        return UNKNOWN


class _Resources:
    """`TYPE` or `TYPE.NAME` of a resource: attributes written in its configuration are known
    (when it has neither count nor for_each); computed ones are not."""

    def __init__(self, named: dict[str, tuple[Path, Any]], block: Any = None, file: Path | None = None) -> None:
        self.named, self.block, self.file = named, block, file

    def get(self, attr: str, env: Env) -> Any:
        if self.block is None:
            if attr not in self.named:
                return UNKNOWN
            file, block = self.named[attr]
            if block.attr("count") is not None or block.attr("for_each") is not None:
                return UNKNOWN
            return _Resources(self.named, block, file)
        a = self.block.attr(attr)
        if a is None or a.expr is None:
            return UNKNOWN
        return evaluate(a.expr, replace(env, file=self.file, each=None, count=None, bound={}, depth=env.depth + 1))


def _string(node: Tree, env: Env) -> Any:
    first = next(node.scan_values(lambda v: isinstance(v, Token)))
    parts = []
    for part in node.children:
        if not isinstance(part, Tree):
            continue
        inner = part.children[0]
        if isinstance(inner, Token):
            text = str(inner)
            parts.append(text.replace('\\"', '"').replace("\\\\", "\\") if inner.type == "STRING_CHARS" else text[1:])
        elif inner.data == "interpolation":
            value = _eval([c for c in inner.children if isinstance(c, Tree)][0], env)
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                return UNKNOWN
            parts.append(str(value))
        else:
            return UNKNOWN
    return Located.at("".join(parts), env.file, first.line, first.column)


def _call(node: Tree, env: Env) -> Any:
    idents = [c for c in node.children if isinstance(c, Tree) and c.data == "identifier"]
    if len(idents) != 1:
        return UNKNOWN
    name = str(idents[0].children[0])
    argn = [c for c in node.children if isinstance(c, Tree) and c.data == "arguments"]
    arg_nodes = [a for a in argn[0].children if isinstance(a, Tree) and a.data != "new_line_or_comment"] if argn else []
    if name in ("can", "try"):
        return _can_try(name, arg_nodes, env)
    args = [_eval(a, env) for a in arg_nodes]
    if any(a is UNKNOWN for a in args):
        return UNKNOWN
    line, column = place(leaf(idents[0]))
    simple = pure_function(name, args)
    if simple is not NOT_MODELLED:
        return simple
    if name == "cidrsubnet" and len(args) == 3:
        net = ipaddress.ip_network(str(args[0]), strict=False)
        try:
            sub = list_subnet(net, int(args[1]), int(args[2]))
        except ValueError:
            message = (f"cidrsubnet({net}, {args[1]}, {args[2]}): a /{net.prefixlen} extended by {args[1]} bits "
                       f"has subnets 0 to {2 ** int(args[1]) - 1}, so {args[2]} does not fit")
            env.problems.append((env.file, line, column, message))
            raise
        return Located.at(str(sub), env.file, line, column)
    if name == "cidrsubnets" and len(args) >= 2:
        net = ipaddress.ip_network(str(args[0]), strict=False)
        out, start = [], int(net.network_address)
        for bits in args[1:]:
            size = 2 ** (net.max_prefixlen - net.prefixlen - int(bits))
            start = -(-start // size) * size
            sub = ipaddress.ip_network((start, net.prefixlen + int(bits)))
            out.append(Located.at(str(sub), env.file, line, column))
            start += size
        return out
    if name == "merge" and all(isinstance(a, dict) for a in args):
        merged: dict = {}
        for a in args:
            merged.update(a)
        return merged
    if name == "toset" and len(args) == 1 and isinstance(args[0], list):
        unique = []
        for x in args[0]:
            if x not in unique:
                unique.append(x)
        out_set = SetList(unique)
        out_set.file, out_set.line = env.file, line
        return out_set
    if name in ("tomap", "tolist", "tostring") and len(args) == 1:
        return args[0]
    if name == "lookup" and len(args) in (2, 3) and isinstance(args[0], dict):
        return args[0].get(str(args[1]), args[2] if len(args) == 3 else UNKNOWN)
    if name == "element" and len(args) == 2 and isinstance(args[0], list) and args[0]:
        return args[0][int(args[1]) % len(args[0])]
    if name == "concat" and all(isinstance(a, list) for a in args):
        return [x for a in args for x in a]
    if name == "length" and len(args) == 1 and isinstance(args[0], (list, dict, str)):
        return len(args[0])
    return UNKNOWN


def _can_try(name: str, nodes: list[Tree], env: Env) -> Any:
    for node in nodes:
        try:
            value = _eval(node, env)
        except (EvalFailure, KeyError, IndexError, TypeError, ValueError):
            if name == "can":
                return False
            continue
        if value is UNKNOWN:
            return UNKNOWN
        return True if name == "can" else value
    return UNKNOWN
