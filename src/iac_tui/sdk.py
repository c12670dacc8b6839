"""The ACP SDK (`acp`), loaded when first used, so that the app draws before it is imported.

Importing `acp` costs about 1.3 s (its pydantic schema); before, the app paid it before its first
paint. Modules that the app imports to draw itself take `acp` from here (`from iac_tui.sdk import
acp`): a stand-in module (the standard library's `importlib.util.LazyLoader`) that runs the SDK's
import on the first attribute access. Modules that use the SDK's names at import time (the
client, the connection, MCP settings) are imported by the app only when it
starts the agent, in a thread (`load()`), so that the prompt box takes keys meanwhile.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType


def _lazy(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.loader is not None, f"{name} is not installed"
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


acp = _lazy("acp")


def load() -> None:
    """Import the SDK and the app's modules built on it (blocking: call it in a thread)."""
    for name in ("acp", "acp.schema", "iac_tui.client", "iac_tui.connection", "iac_tui.mcp"):
        importlib.import_module(name)
