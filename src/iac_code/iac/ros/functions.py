"""The rule of intrinsic function shapes in ROS templates (`Fn::Join`, `Fn::Select`, `Fn::If`, ...)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from iac_code.iac.diagnostics import Diagnostic
from iac_code.iac.rules import diag, rule
from iac_code.iac.ros.template import RosTemplate
from iac_code.iac.yamlsyntax import PosDict, PosList

# name -> (minimum items, maximum items) of the list form; Fn::Select takes a default and an
# error message after [index, list] (ROS's own templates, e.g. aliyun/ros-templates' OOS cases)
SHAPES = {"Fn::Join": (2, 2), "Fn::Select": (2, 4), "Fn::If": (3, 3), "Fn::Equals": (2, 2),
          "Fn::FindInMap": (3, 3), "Fn::Split": (2, 2), "Fn::GetAtt": (2, 2), "Fn::Replace": (2, 2)}
STRING_OK = {"Fn::GetAtt", "Fn::Sub", "Fn::Base64Encode", "Fn::Base64Decode"}


def _calls(node: Any) -> Iterator[tuple[str, Any, tuple[int, int]]]:
    if isinstance(node, PosDict):
        for key, value in node.items():
            if isinstance(key, str) and key.startswith("Fn::"):
                yield key, value, node.pos(key)
            yield from _calls(value)
    elif isinstance(node, PosList):
        for item in node:
            yield from _calls(item)


@rule("ros.function", "error", "an intrinsic function (Fn::Join, Fn::Select, Fn::If, ...) with the wrong arguments", kind="ros")
def function(t: RosTemplate) -> Iterator[Diagnostic]:
    """The list forms: `Fn::Join` [delimiter, [values]], `Fn::Select` [index, list, default?,
    message?], `Fn::If`
    [condition, then, else], `Fn::Equals`, `Fn::Split`, `Fn::Replace` two items, `Fn::FindInMap`
    three, `Fn::GetAtt` [resource, attribute] or "resource.attribute"."""
    for name, value, pos in _calls(t.doc):
        shape = SHAPES.get(name)
        if shape is None or (name in STRING_OK and isinstance(value, str)):
            continue
        if not isinstance(value, list):
            yield diag(function, t.path, *pos, f"{name} takes a list of {shape[0]} items")
        elif not shape[0] <= len(value) <= shape[1]:
            count = f"{shape[0]}" if shape[0] == shape[1] else f"{shape[0]} to {shape[1]}"
            yield diag(function, t.path, *pos, f"{name} takes {count} items, not {len(value)}")
        elif name == "Fn::Join" and not isinstance(value[1], (list, dict)):
            yield diag(function, t.path, *pos, "Fn::Join takes [delimiter, [values...]]: the values must be a list")
