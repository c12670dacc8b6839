"""The set of tools a session offers, by name."""

from __future__ import annotations

from collections.abc import Iterable

from iac_code.core.provider import ToolSpec
from iac_code.tools.base import Tool


class ToolRegistry:
    """Tools by name, in the order they are offered to the model."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"duplicate tool name {tool.name!r}")
            self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        """The tool called `name`, or None."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Tool names in offer order."""
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        """What the model is told about each tool."""
        return [ToolSpec(t.name, t.description, t.input_schema()) for t in self._tools.values()]

    def read_only(self) -> ToolRegistry:
        """The subset of tools in the `read` category (offered to sub-agents)."""
        return ToolRegistry(t for t in self._tools.values() if t.category == "read")


def default_registry() -> ToolRegistry:
    """Every tool of the agent, in offer order."""
    from iac_code.tools import all_tools

    return ToolRegistry(all_tools())
