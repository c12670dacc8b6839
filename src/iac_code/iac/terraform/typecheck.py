"""Known Terraform values against variable type constraints and `validation` conditions, and
`for_each` given a list (the machinery of the rules in `values.py`).

Values come from `evaluate` (literals, .tfvars, defaults, module call arguments); anything unknown
is skipped. A finding is reported where the offending value was written (the .tfvars line, the
default, the module argument, or the element inside them).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lark import Token, Tree

from iac_code.iac.terraform.hcl import Attr, Block
from iac_code.iac.terraform.evaluate import UNKNOWN, Env, LDict, LList, Located, SetList, evaluate

Type = Any  # "string" | "number" | "bool" | "any" | ("list"|"set"|"map", Type) | ("object", {name: (Type, optional)}) | ("tuple", [Type])


def parse_type(expr: Tree | None) -> Type:
    """A variable's type constraint as a `Type` ("any" when absent or not understood)."""
    if expr is None:
        return "any"
    known = getattr(expr, "_iac_type", None)
    if known is not None:
        return known  # trees are shared through the parse cache: read once per content
    try:
        found = _type(expr)
    except (IndexError, AttributeError, ValueError, StopIteration):
        found = "any"
    expr._iac_type = found  # type: ignore[attr-defined]  # a memo on the shared, cached parse tree
    return found


def _type(node: Tree) -> Type:
    kids = [c for c in node.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]
    if node.data == "expr_term" and len(kids) == 1:
        return _type(kids[0])
    if node.data == "identifier":
        name = str(node.children[0])
        return name if name in ("string", "number", "bool", "any") else "any"
    if node.data == "function_call":
        name = str(node.children[0].children[0])
        args = [a for a in next(c for c in kids if c.data == "arguments").children
                if isinstance(a, Tree) and a.data != "new_line_or_comment"]
        if name in ("list", "set", "map") and len(args) == 1:
            return (name, _type(args[0]))
        if name == "optional" and args:
            return ("optional", _type(args[0]))
        if name == "object" and len(args) == 1:
            obj = _inner(args[0], "object")
            attrs = {}
            for elem in (c for c in obj.children if isinstance(c, Tree) and c.data == "object_elem"):
                key = "".join(str(v) for v in elem.children[0].scan_values(lambda v: isinstance(v, Token))).strip('"')
                t = _type(elem.children[-1])
                optional = isinstance(t, tuple) and t[0] == "optional"
                attrs[key] = (t[1] if optional else t, optional)
            return ("object", attrs)
        if name == "tuple" and len(args) == 1:
            tup = _inner(args[0], "tuple")
            return ("tuple", [_type(c) for c in tup.children if isinstance(c, Tree) and c.data != "new_line_or_comment"])
    return "any"


def _inner(node: Tree, data: str) -> Tree:
    while node.data != data:
        node = next(c for c in node.children if isinstance(c, Tree) and c.data != "new_line_or_comment")
    return node


def describe(t: Type) -> str:
    """`t` as Terraform writes it."""
    if isinstance(t, str):
        return t
    if t[0] in ("list", "set", "map", "optional"):
        return f"{t[0]}({describe(t[1])})"
    if t[0] == "tuple":
        return "tuple([" + ", ".join(describe(x) for x in t[1]) + "])"
    return "object({" + ", ".join(f"{k} = {describe(v)}" for k, (v, _) in t[1].items()) + "})"


def conform(value: Any, t: Type) -> tuple[Any, str] | None:
    """Why `value` cannot be converted to `t`, as (the offending value, message), or None."""
    if value is UNKNOWN or value is None or t == "any":
        return None
    if t == "string":
        return None if isinstance(value, (str, int, float, bool)) else (value, f"a string is required, got {_kind(value)}")
    if t == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            return value, f"a number is required, got {_kind(value)}"
        if isinstance(value, str):
            try:
                float(value)
            except ValueError:
                return value, f'a number is required, got the string "{value}"'
        return None
    if t == "bool":
        if isinstance(value, bool) or (isinstance(value, str) and value in ("true", "false")):
            return None
        return value, f"a bool is required, got {_kind(value)}"
    kind = t[0]
    if kind in ("list", "set"):
        if not isinstance(value, list):
            return value, f"a {kind} is required, got {_kind(value)}"
        for item in value:
            if (bad := conform(item, t[1])) is not None:
                return bad
        return None
    if kind == "tuple":
        if not isinstance(value, list):
            return value, f"a tuple is required, got {_kind(value)}"
        if len(value) != len(t[1]):
            return value, f"a tuple of {len(t[1])} elements is required, got {len(value)}"
        for item, it in zip(value, t[1]):
            if (bad := conform(item, it)) is not None:
                return bad
        return None
    if kind == "map":
        if not isinstance(value, dict):
            return value, f"a map is required, got {_kind(value)}"
        for item in value.values():
            if (bad := conform(item, t[1])) is not None:
                return bad
        return None
    if kind == "object":
        if not isinstance(value, dict):
            return value, f"an object is required, got {_kind(value)}"
        for name, (at, optional) in t[1].items():
            if name not in value:
                if not optional:
                    return value, f'attribute "{name}" is required'
            elif (bad := conform(value[name], at)) is not None:
                return bad
        return None
    return None


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return f'the string "{value}"'
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return "a value"


def where(value: Any, fallback: tuple[Path, int, int]) -> tuple[Path, int, int]:
    """The position a value was written at (its own if it has one, else `fallback`)."""
    if isinstance(value, Located) and value.file is not None and value.line:
        return value.file, value.line, value.column or 1
    if isinstance(value, (LDict, LList)) and value.file is not None and value.line:
        return value.file, value.line, 1
    return fallback


def coerce(value: Any, t: Type) -> Any:
    """`value` as a variable of type `t` holds it: lists become sets where `t` says set."""
    if value is UNKNOWN or value is None or isinstance(t, str):
        return value
    if t[0] == "set" and isinstance(value, list) and not isinstance(value, SetList):
        out = SetList(coerce(v, t[1]) for v in value)
        out.file, out.line = getattr(value, "file", None), getattr(value, "line", 0)
        return out
    if t[0] in ("list", "set") and isinstance(value, list):
        return value
    if t[0] == "map" and isinstance(value, dict):
        return {k: coerce(v, t[1]) for k, v in value.items()}
    if t[0] == "object" and isinstance(value, dict):
        return {k: coerce(v, t[1][k][0]) if k in t[1] else v for k, v in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class ValueProblem:
    """A known value Terraform would reject: `kind` "type" (it does not fit the variable's type)
    or "validation" (it fails a `validation` condition), where it was written, and why."""

    kind: str
    file: Path
    line: int
    column: int
    message: str


def variable_problems(decl_file: Path, var: Block, value: Any, at: tuple[Path, int, int]) -> list[ValueProblem]:
    """The value given to variable `var` (from .tfvars, a default or a module call, written at
    `at`) against its type and its validation conditions."""
    if value is UNKNOWN:
        return []
    t_attr = var.attr("type")
    t = parse_type(t_attr.expr if t_attr is not None else None)
    bad = conform(value, t)
    name = var.labels[0]
    if bad is not None:
        file, line, col = where(bad[0], at)
        return [ValueProblem("type", file, line, col, f'invalid value for variable "{name}" ({describe(t)}): {bad[1]}')]
    out = []
    for v in var.blocks:
        if v.type != "validation":
            continue
        cond, msg = v.attr("condition"), v.attr("error_message")
        if cond is None or cond.expr is None:
            continue
        result = evaluate(cond.expr, Env(decl_file, {name: coerce(value, t)}))
        if result is False:
            text = evaluate(msg.expr, Env(decl_file)) if msg is not None and msg.expr is not None else UNKNOWN
            file, line, col = where(value, at)
            out.append(ValueProblem("validation", file, line, col, f'variable "{name}" fails its validation (condition at {decl_file.name}:{cond.line})'
                                    + (f": {text}" if isinstance(text, str) else "")))
    return out


def is_list_for_each(b: Block, env: Env) -> Attr | None:
    """`for_each` of `b` when it is given a list or tuple (Terraform wants a map or a set)."""
    fe: Attr | None = b.attr("for_each")
    if fe is None or fe.expr is None:
        return None
    value = evaluate(fe.expr, env)
    return fe if isinstance(value, list) and not isinstance(value, SetList) else None
