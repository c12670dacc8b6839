"""Rules of names in a ROS template: `Ref`, `Fn::GetAtt`, `Fn::Sub`, `DependsOn` and
`Fn::FindInMap` targets, `Condition`/`Fn::If` names, and parameters nothing uses.

A nested template (a Stack's `TemplateBody`, an OOS template) has its own names and is not
followed. A template with a `Transform` has other resource shapes and is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from iac_code.iac.diagnostics import Diagnostic, hint
from iac_code.iac.rules import diag, rule
from iac_code.iac.ros.template import RosTemplate, items
from iac_code.iac.yamlsyntax import PosDict, PosList

_SUB_VAR = re.compile(r"\$\{([^}!][^}]*)\}")
WALKED = ("Resources", "Outputs", "Conditions", "Locals", "Rules", "Metadata")


@dataclass(slots=True)
class Names:
    """What the template's expressions name: `refs` (Ref/GetAtt/Sub/DependsOn targets not
    declared, with position and message), `conditions` (undeclared condition names), and
    `used` (every parameter, resource or local named)."""

    refs: list[tuple[tuple[int, int], str]] = field(default_factory=list)
    conditions: list[tuple[tuple[int, int], str]] = field(default_factory=list)
    used: set[str] = field(default_factory=set)


def names(t: RosTemplate) -> Names:
    """The walk of the template's expressions (computed once per template)."""
    return t.once("names", lambda: _names(t))


def _names(t: RosTemplate) -> Names:
    doc, out = t.doc, Names()
    if t.transformed:
        return out
    params, resources, conditions = t.section("Parameters"), t.section("Resources"), t.section("Conditions")
    locals_ = doc.get("Locals")
    locals_ = locals_ if isinstance(locals_, dict) else {}
    targets = set(params) | set(resources) | set(locals_)
    gettable = set(resources) | set(locals_)
    for name, r in resources.items():
        if not isinstance(r, PosDict):
            continue
        for dep, pos in items(r.get("DependsOn"), r.pos("DependsOn")):
            if isinstance(dep, str) and dep not in resources:
                out.refs.append((pos, f'resource "{name}" DependsOn "{dep}", which is not a resource{hint(dep, resources)}'))
        cond = r.get("Condition")
        if isinstance(cond, str) and cond not in conditions:
            out.conditions.append((r.pos("Condition"), f'condition "{cond}" is not declared in Conditions'))
    for section in WALKED:
        if section in doc:
            _walk(doc[section], targets, gettable, set(conditions), out)
    return out


def _walk(node: Any, targets: set[str], gettable: set[str], conditions: set[str], out: Names) -> None:
    if isinstance(node, PosDict) and ("ROSTemplateFormatVersion" in node or "FormatVersion" in node):
        return  # a nested template: its own scope
    if isinstance(node, PosDict):
        for key, value in node.items():
            kpos = node.pos(key)
            if key == "Ref" and isinstance(value, str):
                out.used.add(value)
                if value not in targets and not value.startswith("ALIYUN::"):
                    out.refs.append((kpos, f'Ref "{value}" is neither a parameter nor a resource{hint(value, targets)}'))
            elif key == "Fn::GetAtt" and isinstance(value, list) and value and isinstance(value[0], str):
                out.used.add(value[0])
                if value[0] not in gettable:
                    out.refs.append((kpos, f'Fn::GetAtt names "{value[0]}", which is not a resource{hint(value[0], gettable)}'))
            elif key == "Fn::Sub":
                _sub(value, kpos, targets, out)
            elif key == "Fn::If" and isinstance(value, list) and value and isinstance(value[0], str):
                if value[0] not in conditions:
                    out.conditions.append((kpos, f'Fn::If names condition "{value[0]}", which is not declared in Conditions'))
            elif key == "Condition" and isinstance(value, str) and len(node) == 1:
                if value not in conditions:
                    out.conditions.append((kpos, f'condition "{value}" is not declared in Conditions'))
            if key not in ("Condition", "DependsOn") or not isinstance(value, str):
                _walk(value, targets, gettable, conditions, out)
    elif isinstance(node, PosList):
        for item in node:
            _walk(item, targets, gettable, conditions, out)


def _sub(value: Any, pos: tuple[int, int], targets: set[str], out: Names) -> None:
    text, extra = (value, {}) if isinstance(value, str) else (value[0], value[1]) if (
        isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], dict)) else (None, {})
    if text is None:
        return
    for m in _SUB_VAR.finditer(text):
        name = m.group(1).strip().split(".")[0]
        out.used.add(name)
        if name not in targets and name not in extra and not name.startswith("ALIYUN::"):
            line = pos[0] + 1 + text.count("\n", 0, m.start()) if "\n" in text else pos[0]
            out.refs.append(((line, pos[1]), f'Fn::Sub refers to "${{{m.group(1)}}}", but "{name}" is neither a parameter nor a resource'
                                             f'{hint(name, targets)}'))


def _find_in_map(t: RosTemplate) -> Iterator[tuple[tuple[int, int], str]]:
    mappings = t.doc.get("Mappings")
    mappings = mappings if isinstance(mappings, dict) else {}

    def walk(node: Any) -> Iterator[tuple[tuple[int, int], str]]:
        if isinstance(node, PosDict):
            for key, value in node.items():
                if key == "Fn::FindInMap" and isinstance(value, list) and len(value) == 3 and isinstance(value[0], str):
                    pos, table = node.pos(key), mappings.get(value[0])
                    if table is None:
                        yield pos, f'Fn::FindInMap names mapping "{value[0]}", which is not in Mappings{hint(value[0], mappings)}'
                    elif isinstance(value[1], str) and isinstance(table, dict) and value[1] not in table:
                        yield pos, f'mapping "{value[0]}" has no key "{value[1]}"{hint(value[1], table)}'
                    elif isinstance(value[1], str) and isinstance(value[2], str) and isinstance(table.get(value[1]), dict) \
                            and value[2] not in table[value[1]]:
                        yield pos, f'mapping "{value[0]}.{value[1]}" has no key "{value[2]}"'
                yield from walk(value)
        elif isinstance(node, PosList):
            for item in node:
                yield from walk(item)

    yield from walk(t.doc)


@rule("ros.undeclared-ref", "error", "`Ref`/`Fn::GetAtt`/`Fn::Sub`/`DependsOn`/`Fn::FindInMap` to a missing resource, parameter or mapping",
      kind="ros")
def undeclared_ref(t: RosTemplate) -> Iterator[Diagnostic]:
    """ROS: "the Ref/GetAtt target ... is not found". Pseudo parameters (`ALIYUN::Region`, ...)
    and `Fn::Sub`'s own variables are declared."""
    for pos, message in names(t).refs:
        yield diag(undeclared_ref, t.path, *pos, message)
    for pos, message in _find_in_map(t):
        yield diag(undeclared_ref, t.path, *pos, message)


@rule("ros.undeclared-condition", "error", "a `Condition` that is not declared in `Conditions`", kind="ros")
def undeclared_condition(t: RosTemplate) -> Iterator[Diagnostic]:
    """A resource's `Condition`, an `Fn::If` or a `{"Condition": name}` naming no condition."""
    for pos, message in names(t).conditions:
        yield diag(undeclared_condition, t.path, *pos, message)


def _mentioned_in_metadata(doc: PosDict, name: str) -> bool:
    meta = doc.get("Metadata")
    return isinstance(meta, dict) and name in repr(meta)


@rule("ros.unused-parameter", "warning", "a parameter nothing refers to", kind="ros")
def unused_parameter(t: RosTemplate) -> Iterator[Diagnostic]:
    """A parameter no `Ref`, `Fn::Sub` or `Metadata` entry names."""
    if t.transformed:
        return
    used = names(t).used
    params = t.section("Parameters")
    for name in params:
        if name not in used and not _mentioned_in_metadata(t.doc, name):
            yield diag(unused_parameter, t.path, *params.pos(name), f'parameter "{name}" is declared but never used')
