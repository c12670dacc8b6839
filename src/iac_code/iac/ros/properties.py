"""Rules of resources against ROS's published resource types (`resource_types`): a required
property missing, a misspelt property, a property value of the wrong type, and `Fn::GetAtt` of
an attribute the type does not return.

Values ROS computes (`Ref`, `Fn::*`) are not judged; `Fn::If` branches are, one by one; a null
value is as if the property were not set. Types the data does not describe (custom types,
modules, types known only by name) and templates with a `Transform` are left alone. ROS matches
property names without regard to letter case and accepts older names its CDK no longer lists
(merged in from its 2021 documentation), so an unknown name is only reported as a misspelling.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from iac_code.iac.diagnostics import Diagnostic, hint
from iac_code.iac.rules import Rule, diag, rule
from iac_code.iac.ros import resource_types
from iac_code.iac.ros.resource_types import Shape
from iac_code.iac.ros.template import RosTemplate
from iac_code.iac.yamlsyntax import PosDict, PosList

# Types whose attributes are not a fixed list: a nested stack's outputs, a custom resource's data.
OPEN_ATTRIBUTES = {"ALIYUN::ROS::Stack", "ALIYUN::ROS::CustomResource", "ALIYUN::ROS::WaitCondition"}
_NUMBER = re.compile(r"^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$")
_SUB_ATTR = re.compile(r"\$\{([A-Za-z0-9_-]+)\.([^}]+)\}")
Finding = tuple[str, tuple[int, int], str]  # (rule id, position, message)


def _findings(t: RosTemplate) -> list[Finding]:
    """The property findings of every resource (computed once per template)."""
    def compute() -> list[Finding]:
        out: list[Finding] = []
        for name, r in t.section("Resources").items() if not t.transformed else ():
            if not isinstance(r, PosDict) or not isinstance(r.get("Type"), str):
                continue
            shape = resource_types.lookup(r["Type"])
            if shape is None or not shape.described:
                continue
            props = r.get("Properties")
            if props is None:
                props = PosDict()
                props.line, props.column = r.pos("Type")
            if isinstance(props, PosDict) and not _computed(props):
                where = r.pos("Properties") if "Properties" in r else r.pos("Type")
                out += _properties(f'resource "{name}" ({r["Type"]})', shape, props, where, shape.legacy)
        return out

    return t.once("ros-property-findings", compute)


def _report(r: Rule, t: RosTemplate) -> Iterator[Diagnostic]:
    for rule_id, pos, message in _findings(t):
        if rule_id == r.id:
            yield diag(r, t.path, *pos, message)


@rule("ros.required-property", "error", "a resource without a property its type requires", kind="ros")
def required_property(t: RosTemplate) -> Iterator[Diagnostic]:
    """ROS: "Property X is required" (the type's required properties in ROS's CDK; the top level
    of `Properties` only: nested names are matched loosely by ROS)."""
    yield from _report(required_property, t)


@rule("ros.unknown-property", "error", "a resource property that misspells one of its type's properties", kind="ros")
def unknown_property(t: RosTemplate) -> Iterator[Diagnostic]:
    """ROS: "Unknown property X", reported for a name one or two letters from a property of the
    type that the resource does not set (`VpcNmae`); other unknown names may be older ones ROS
    still accepts."""
    yield from _report(unknown_property, t)


@rule("ros.property-type", "error", "a resource property value of the wrong type (a list for a string, a word for a number, ...)", kind="ros")
def property_type(t: RosTemplate) -> Iterator[Diagnostic]:
    """The value against the property's type in ROS's CDK: strings take any scalar, numbers a
    number or numeric string, booleans true/false (or "true"/"false"), lists a list, mappings a
    mapping; nested properties are checked the same way."""
    yield from _report(property_type, t)


def _computed(value: Any) -> bool:
    """Whether ROS computes `value` (a `Ref` or an `Fn::` function): its type is not known here."""
    return isinstance(value, dict) and any(k == "Ref" or (isinstance(k, str) and k.startswith("Fn::")) for k in value)


def _properties(owner: str, shape: Shape, props: PosDict, where: tuple[int, int],
                legacy: frozenset[str], top: bool = True) -> list[Finding]:
    """Required, unknown and mistyped properties of `props` against `shape`; `legacy` names
    (of the resource's type) are accepted without a type.

    ROS matches names without regard to letter case (`VPCId`, a nested `functionName`), so
    names are compared that way. An unknown name is reported only at the top level and only as
    a misspelling: one or two letters from a property the mapping does not already set (ROS
    accepts older names its published types no longer list, e.g. `MinAmount` beside
    `MaxAmount`, or `SystemDisk_Category`)."""
    out: list[Finding] = []
    by_case = {k.lower(): k for k in shape.properties}
    given = {str(k).strip().lower() for k in props}
    missing = [p for p in shape.required if p.lower() not in given]
    if missing and top:
        out.append(("ros.required-property", where,
                    f'{owner} lacks the required propert{"ies" if len(missing) > 1 else "y"} {", ".join(missing)}'))
    for key, value in props.items():
        name = str(key).strip()
        known = by_case.get(name.lower())
        if known is None:
            intended = _misspelling_of(name, shape.properties, given) if top and name not in legacy else None
            if intended is not None:
                out.append(("ros.unknown-property", props.pos(key), f'{owner} has no property "{key}" (did you mean "{intended}"?)'))
            continue
        out += _value(f"{owner} property {key}", shape.properties[known], value, props.pos(key), legacy)
    return out


def _misspells(name: str, names: Iterable[str]) -> bool:
    """Whether `name` is another letter case of one of `names`, or one or two letters from one."""
    lower = name.lower()
    return any(lower == n.lower() or (abs(len(n) - len(name)) <= 2 and resource_types.typo_distance(lower, n.lower()) <= 2)
               for n in names)


def _misspelling_of(name: str, properties: dict[str, str], given: set[str]) -> str | None:
    """The property `name` misspells: one or two letters away, not set in the same mapping."""
    if "_" in name:
        return None
    best = None
    for known in properties:
        if known.lower() in given or abs(len(known) - len(name)) > 2:
            continue
        distance = resource_types.typo_distance(name.lower(), known.lower())
        if distance <= 2 and (best is None or distance < best[0]):
            best = (distance, known)
    return best[1] if best else None


def _branches(value: Any, pos: tuple[int, int]) -> Iterator[tuple[Any, tuple[int, int]]]:
    """The values `value` may take that are written here: itself, or each branch of an `Fn::If`
    (recursively); computed values and `ALIYUN::NoValue` are left out."""
    if isinstance(value, PosDict) and len(value) == 1 and isinstance(value.get("Fn::If"), PosList) and len(value["Fn::If"]) == 3:
        branches = value["Fn::If"]
        for branch, bpos in list(zip(branches, branches.item_pos))[1:]:
            yield from _branches(branch, bpos)
    elif not _computed(value) and value is not None:  # null: as if the property were not set
        yield value, pos


def _value(what: str, type_string: str, value: Any, pos: tuple[int, int], legacy: frozenset[str]) -> list[Finding]:
    out: list[Finding] = []
    for v, vpos in _branches(value, pos):
        options = resource_types.alternatives(type_string)
        found: list[Finding] = []
        for option in options:
            found = _match(what, option, v, vpos, legacy)
            if not found:
                break
        else:
            if len(options) > 1 or not found:
                found = [("ros.property-type", vpos, f"{what} must be {resource_types.describe(type_string)}, not {_kind(v)}")]
            out += found
    return out


def _match(what: str, t: str, v: Any, pos: tuple[int, int], legacy: frozenset[str]) -> list[Finding]:
    """Problems of value `v` against the single (non-union) type `t`; [] when it fits."""
    wrong: list[Finding] = [("ros.property-type", pos, f"{what} must be {resource_types.describe(t)}, not {_kind(v)}")]
    if t == "*":
        return []
    if t == "s":
        return [] if not isinstance(v, (dict, list)) else wrong
    if t == "n":
        ok = (isinstance(v, (int, float)) and not isinstance(v, bool)) or (isinstance(v, str) and _NUMBER.match(v))
        return [] if ok else wrong
    if t == "b":
        ok = isinstance(v, bool) or (isinstance(v, str) and v.strip().lower() in ("true", "false")) or v in (0, 1)
        return [] if ok else wrong
    if t.startswith("["):
        if not isinstance(v, list):
            return wrong
        out: list[Finding] = []
        positions = v.item_pos if isinstance(v, PosList) else [pos] * len(v)
        for i, (item, ipos) in enumerate(zip(v, positions)):
            out += _value(f"{what}[{i}]", t[1:-1], item, ipos, legacy)
        return out
    if t.startswith("{"):
        if not isinstance(v, dict):
            return wrong
        out = []
        for key, item in v.items():
            out += _value(f"{what}.{key}", t[1:-1], item, v.pos(key) if isinstance(v, PosDict) else pos, legacy)
        return out
    if t.startswith("#"):
        if not isinstance(v, PosDict):
            return wrong if not isinstance(v, dict) else []
        return _properties(what, resource_types.struct(int(t[1:])), v, pos, legacy, top=False)
    return []


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f'the string "{value[:40]}"'
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "null" if value is None else type(value).__name__



@rule("ros.unknown-attribute", "error", "`Fn::GetAtt` of an attribute that misspells one the resource's type returns", kind="ros")
def unknown_attribute(t: RosTemplate) -> Iterator[Diagnostic]:
    """`Fn::GetAtt: [Resource, Attribute]` (and `${Resource.Attribute}` in `Fn::Sub`) where the
    resource's type returns no such attribute but one a letter or two away, or in other letter
    case (`VpcID`); its attributes are those of ROS's CDK and 2021 documentation. Other unknown
    names are not reported: ROS's own published templates read attributes neither lists
    (RocketMQ 5 `UserName`, ResourceManager `CreateDate`). Nested stacks, custom resources and
    wait conditions return what they like."""
    resources = t.section("Resources")

    def problem(resource: str, attribute: str, pos: tuple[int, int]) -> Diagnostic | None:
        r = resources.get(resource)
        if not isinstance(r, dict) or not isinstance(r.get("Type"), str) or r["Type"] in OPEN_ATTRIBUTES:
            return None
        shape = resource_types.lookup(r["Type"])
        if shape is None or not shape.attributes or attribute in shape.attributes or not _misspells(attribute, shape.attributes):
            return None
        return diag(unknown_attribute, t.path, *pos, f'Fn::GetAtt: resource "{resource}" ({r["Type"]}) has no attribute '
                    f'"{attribute}"{hint(attribute, shape.attributes)}; it has {", ".join(sorted(shape.attributes))}')

    def walk(node: Any) -> Iterator[Diagnostic]:
        if isinstance(node, PosDict):
            if "ROSTemplateFormatVersion" in node and node is not t.doc:
                return  # a nested template: its own resources
            for key, value in node.items():
                found: list[Diagnostic | None] = []
                if key == "Fn::GetAtt" and isinstance(value, list) and len(value) == 2 \
                        and isinstance(value[0], str) and isinstance(value[1], str):
                    found.append(problem(value[0], value[1], node.pos(key)))
                elif key == "Fn::Sub":
                    text = value if isinstance(value, str) else value[0] if isinstance(value, list) and value and isinstance(value[0], str) else ""
                    found += [problem(m.group(1), m.group(2), node.pos(key)) for m in _SUB_ATTR.finditer(text)]
                yield from (d for d in found if d is not None)
                yield from walk(value)
        elif isinstance(node, PosList):
            for item in node:
                yield from walk(item)

    for section in ("Resources", "Outputs", "Conditions", "Locals", "Rules") if not t.transformed else ():
        yield from walk(t.doc.get(section))
