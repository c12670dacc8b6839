"""The models the agent offers: the Claude models the installed `anthropic` SDK knows, plus `scripted`.

The Claude models are the SDK's own `anthropic.types.Model` type, a `Literal` of model ids read
with `typing.get_args`. Its module (`anthropic/types/model.py`, which imports only `typing`) is
loaded by itself rather than through `import anthropic`: the package costs over a second to
import, and the list is needed to answer `session/new`. If that module cannot be loaded (an SDK
that moved it), `FALLBACK_MODELS` stands in; `tests/provider/test_models.py` fails then.
"""

from __future__ import annotations

import importlib.util
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from iac_code.config import SCRIPTED_MODEL

DEFAULT_MODEL = "claude-sonnet-4-5"
FALLBACK_MODELS = ("claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5")
"""Offered when the SDK's model list cannot be read."""
_DATED = re.compile(r"-\d{8}$")


def _sdk_model_type() -> Any:
    """The SDK's `anthropic.types.Model` alias, from its module loaded alone (see the module docstring)."""
    spec = importlib.util.find_spec("anthropic")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the anthropic SDK is not installed")
    path = Path(next(iter(spec.submodule_search_locations)), "types", "model.py")
    module_spec = importlib.util.spec_from_file_location("_iac_code_anthropic_model", path)
    if module_spec is None or module_spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module.Model


def sdk_model_ids(model_type: Any) -> tuple[str, ...]:
    """The model ids in the `Literal` part of `model_type` (`Union[Literal[...], str]`), in order."""
    literals = [arg for arg in get_args(model_type) if get_origin(arg) is Literal]
    return tuple(value for literal in literals for value in get_args(literal) if isinstance(value, str))


@lru_cache(maxsize=1)
def claude_models() -> tuple[str, ...]:
    """Claude model ids from the installed SDK, in its order (newest first), dated snapshots left out."""
    try:
        ids = sdk_model_ids(_sdk_model_type())
    except Exception:  # noqa: BLE001 - any failure to load the SDK's module means: use the fallback
        return FALLBACK_MODELS
    undated = tuple(dict.fromkeys(m for m in ids if m.startswith("claude-") and not _DATED.search(m)))
    return undated or FALLBACK_MODELS


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
