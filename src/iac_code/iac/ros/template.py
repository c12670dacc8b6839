"""An Alibaba Cloud ROS template (`ROSTemplateFormatVersion`) as the rules of kind `ros` see it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from iac_code.iac.yamlsyntax import PosDict, PosList

T = TypeVar("T")

VERSION = "2015-09-01"


def is_ros(doc: Any) -> bool:
    """A ROS template: a mapping with `ROSTemplateFormatVersion`."""
    return isinstance(doc, dict) and "ROSTemplateFormatVersion" in doc


@dataclass(eq=False)
class RosTemplate:
    """What the rules of kind `ros` check: one template `doc` (positions from `yamlsyntax`) read
    from `path`. A section of the wrong shape reads as empty (`ros.structure` reports it);
    `shared` keeps analyses several rules use."""

    path: Path
    doc: PosDict
    shared: dict[str, Any] = field(default_factory=dict)

    def once(self, name: str, compute: Callable[[], T]) -> T:
        """The analysis `name` of this template, computed on first use (one name, one type)."""
        if name not in self.shared:
            self.shared[name] = compute()
        return self.shared[name]

    def section(self, name: str) -> PosDict:
        """The top-level mapping `name` (empty when absent or not a mapping)."""
        value = self.doc.get(name)
        return value if isinstance(value, PosDict) else PosDict()

    @property
    def transformed(self) -> bool:
        """A `Transform` (Aliyun::Serverless, Aliyun::Terraform) gives resources other shapes."""
        return "Transform" in self.doc


def items(value: Any, pos: tuple[int, int]) -> Iterator[tuple[Any, tuple[int, int]]]:
    """(item, position) of a list, or of a single value at `pos`."""
    if isinstance(value, PosList):
        yield from zip(value, value.item_pos)
    elif value is not None:
        yield value, pos


