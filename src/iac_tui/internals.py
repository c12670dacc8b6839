"""The one module of iac-tui that reads private parts of its libraries (agent-client-protocol 0.12,
Textual 8.2, textual-diff-view 0.1), as `iac_code/acp/sdk_patch.py` is for the agent.

None of them offers these in public: when the agent's stdout ends (the SDK's receive task), whether
a `DiffView` has its highlighted lines already, a `DiffView` guessing languages with another
function than Textual's (it calls `textual.highlight.guess_language` through the module, at call
time), and the class of the footer's keys (`FooterKey`, in the private `textual.widgets._footer`).
`tests/unit/test_tui_internals.py` builds the real objects and fails, naming what moved, when a
release changes them: re-read this module before widening the pins in pyproject.toml.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
