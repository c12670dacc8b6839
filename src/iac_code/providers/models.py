"""The models the agent offers: the Claude models the installed `anthropic` SDK knows, plus `scripted`.

The list is read from the SDK's `ModelParam` type by parsing its source, without importing the
SDK (importing `anthropic` costs seconds, and the list is needed to answer `session/new`).
"""

from __future__ import annotations

import ast
import importlib.util
import re
from functools import lru_cache
from pathlib import Path

from iac_code.config import SCRIPTED_MODEL

DEFAULT_MODEL = "claude-sonnet-4-5"
_FALLBACK = ("claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5")
_DATED = re.compile(r"-\d{8}$")


@lru_cache(maxsize=1)
def claude_models() -> tuple[str, ...]:
    """Claude model ids from the installed SDK, newest first, dated snapshots left out."""
    try:
        spec = importlib.util.find_spec("anthropic")
        if spec is None or not spec.submodule_search_locations:
            return _FALLBACK
        source = Path(next(iter(spec.submodule_search_locations)), "types", "model_param.py").read_text()
        ids = [
            node.value
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("claude-")
        ]
    except (OSError, SyntaxError, ValueError):
        return _FALLBACK
    seen: dict[str, None] = {}
    for model_id in ids:
        if not _DATED.search(model_id):
            seen.setdefault(model_id, None)
    return tuple(seen) or _FALLBACK


def available_models() -> list[str]:
    """Every model id a session may choose: the Claude models, then `scripted`."""
    return [*claude_models(), SCRIPTED_MODEL]


def default_claude_model() -> str:
    """The newest Sonnet the SDK knows (a balance of speed and skill), else `DEFAULT_MODEL`."""
    return next((m for m in claude_models() if "sonnet" in m), DEFAULT_MODEL)


def model_display_name(model_id: str) -> str:
    """A human name: `claude-sonnet-4-5` -> `Claude Sonnet 4.5`, `scripted` -> `Scripted (offline)`."""
    if model_id == SCRIPTED_MODEL:
        return "Scripted (offline)"
    parts = model_id.split("-")
    if parts and parts[0] == "claude":
        words = [p.capitalize() for p in parts[1:] if not p.isdigit()]
        digits = [p for p in parts[1:] if p.isdigit()]
        return " ".join(["Claude", *words, ".".join(digits)]).strip()
    return model_id
