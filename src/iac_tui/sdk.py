"""The ACP SDK (`acp`), loaded when first used, so that the app draws before it is imported.

Importing `acp` costs about 1.3 s (its pydantic schema; ~0.4 s less since its models are built
at their first use, `internals.sdk_models_on_first_use`); before, the app paid it before its first
paint. Modules that the app imports to draw itself take `acp` from here (`from iac_tui.sdk import
acp`): a stand-in module that imports the SDK on its first attribute access. Modules that use the
SDK's names at import time (the client, the connection, MCP settings) are imported by the app only
when it starts the agent, in a thread (`load()`), so that the prompt box takes keys meanwhile; so
are the conversation's block widgets (Markdown, code, diffs: ~0.1-0.2 s), which the first screen
does without (its modules import them where they are used).

The stand-in is not put in `sys.modules`: the import system keeps seeing one real `acp`. (The
standard library's `LazyLoader` was used before: with its lazy `acp` registered, an `import
acp.schema` elsewhere ran the schema module twice, once for `acp/__init__` and once for the
import, so the connection validated blocks against one copy of the classes and
`iac_tui.mentions` built them from the other: "Input should be a valid dictionary or instance of
TextContentBlock". Python 3.11's LazyLoader is not thread-safe either.)
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class _OnFirstUse(ModuleType):
    """Stands for the module of its name; the first attribute looked up imports it (the normal
    way, one module for everybody) and copies its namespace in."""

    def __getattr__(self, name: str) -> Any:
        module = importlib.import_module(self.__name__)
        self.__dict__.update(module.__dict__)
        return getattr(module, name)


acp = _OnFirstUse("acp")


BEHIND_THE_FIRST_PAINT = (
    # the SDK and the app's modules built on it: the agent's connection needs them
    "acp", "acp.schema", "iac_tui.client", "iac_tui.connection", "iac_tui.mcp_config",
    # then the conversation's blocks (Markdown, diffs), which the first screen does without
    "iac_tui.widgets.message", "iac_tui.widgets.thought", "iac_tui.widgets.tool_call", "iac_tui.transcript",
)  # fmt: skip


def load() -> None:
    """Import `BEHIND_THE_FIRST_PAINT` (blocking: call it in a thread). The app calls it once its
    first screen is drawn; the modules that draw that screen import none of these (a module
    imported on first use here is imported where it is used, as usual: importing is idempotent).
    The SDK's models are made without reading their source and built at their first use
    (`internals.sdk_models_on_first_use`)."""
    from iac_tui.internals import sdk_models_on_first_use

    with sdk_models_on_first_use():
        importlib.import_module("acp")
    for name in BEHIND_THE_FIRST_PAINT:
        importlib.import_module(name)
