"""The one module of iac-tui that reads private parts of its libraries (agent-client-protocol 0.12,
Textual 8.2, textual-diff-view 0.1, pydantic 2), as `iac_code/acp/sdk_patch.py` and `sdk_import.py`
are for the agent.

None of them offers these in public: when the agent's stdout ends (the SDK's receive task), whether
a `DiffView` has its highlighted lines already, a `DiffView` guessing languages with another
function than Textual's (it calls `textual.highlight.guess_language` through the module, at call
time), the class of the footer's keys (`FooterKey`, in the private `textual.widgets._footer`), and
pydantic building the SDK's models cheaply (`sdk_models_on_first_use`).
`tests/unit/test_tui_internals.py` builds the real objects and fails, naming what moved, when a
release changes them: re-read this module before widening the pins in pyproject.toml.
"""

from __future__ import annotations

import asyncio
import importlib
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.content import Content
    from textual.widgets._footer import FooterKey
    from textual_diff_view import DiffView


def receive_task(agent: object) -> asyncio.Task[Any] | None:
    """The receive task of the SDK's `ClientSideConnection` `agent` (`_conn._recv_task`): it ends
    when the agent's stdout does. None where `agent` has none."""
    task = getattr(getattr(agent, "_conn", None), "_recv_task", None)
    return task if isinstance(task, asyncio.Task) else None


def kept_highlighted_lines(view: DiffView) -> tuple[list[Content], list[Content]] | None:
    """The highlighted lines `view` computed and keeps (`DiffView._highlighted_code_lines`), None
    before it has (or after a style change made it forget them)."""
    return view._highlighted_code_lines


@contextmanager
def diff_views_guessing_with(guess: Callable[[str, str | None], str]) -> Iterator[None]:
    """Within: every `DiffView` guesses a file's language with `guess` (DiffView's
    `highlighted_code_lines` calls `textual.highlight.guess_language` at call time, so swapping the
    module's function is the only way in). Process-wide: keep no `await` inside."""
    from textual import highlight  # (Pygments with it: not imported before a diff needs it)

    textual_guess = highlight.guess_language
    highlight.guess_language = guess  # type: ignore[assignment]  # a module function swapped: the point
    try:
        yield
    finally:
        highlight.guess_language = textual_guess


def footer_key_type() -> type[FooterKey]:
    """The class of the keys Textual's `Footer.compose` yields (`textual.widgets` exports only `Footer`)."""
    from textual.widgets._footer import FooterKey

    return FooterKey


_PYDANTIC_LOCK = threading.Lock()


def _no_docstrings(cls: type[Any], use_inspect: bool = False) -> dict[str, str]:
    return {}


@contextmanager
def sdk_models_on_first_use() -> Iterator[None]:
    """Within: pydantic models made take no field description from their docstrings (the ACP SDK's
    models ask for them with `use_attribute_docstrings`: pydantic reads and parses each class's
    source, for descriptions only a JSON schema shows) and are built at their first use, not as
    they are made (`defer_build`): as `iac_code/acp/sdk_import.py` imports the SDK for the agent.
    For `sdk.load`'s import of the SDK: ~0.4 s of CPU less per app start. Process-wide while
    inside (the app's own modules make no pydantic model). Through pydantic's private
    `_fields.extract_docstrings_from_cls` and `_config.config_defaults`: a release that moved
    either leaves that part as pydantic does it."""
    with _PYDANTIC_LOCK, ExitStack() as undo:
        try:
            fields = importlib.import_module("pydantic._internal._fields")
            config = importlib.import_module("pydantic._internal._config")
        except ImportError:  # pragma: no cover - the SDK is then imported as it is
            yield
            return
        original = getattr(fields, "extract_docstrings_from_cls", None)
        if original is not None:
            setattr(fields, "extract_docstrings_from_cls", _no_docstrings)
            undo.callback(setattr, fields, "extract_docstrings_from_cls", original)
        defaults = getattr(config, "config_defaults", None)
        if isinstance(defaults, dict) and defaults.get("defer_build") is False:
            defaults["defer_build"] = True
            undo.callback(defaults.__setitem__, "defer_build", False)
        yield
