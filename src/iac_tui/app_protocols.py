"""What the app lends the objects it owns (`turns.TurnController`, `session_actions.SessionActions`):
a few of its own methods, each typed by the small protocol below that it satisfies.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, Protocol, TypeVar

from textual.notifications import SeverityLevel
from textual.screen import Screen

T = TypeVar("T")


class Notify(Protocol):
    """Shows a toast (`App.notify`)."""

    def __call__(self, message: str, *, severity: SeverityLevel = "information") -> None: ...


class RunWorker(Protocol):
    """Runs `work` in one of the app's workers, of `group` (`App.run_worker`): an `exclusive`
    one cancels the group's others first; an error in it does not end the app when
    `exit_on_error` is False."""

    def __call__(self, work: Coroutine[Any, Any, None], *, group: str, exit_on_error: bool, exclusive: bool = False) -> object: ...


class Screens(Protocol):
    """The app's screen stack (`App.push_screen`, `App.push_screen_wait`): a modal picker is
    pushed, and its choice comes to `callback` or, in a worker, as the awaited result."""

    def push_screen(self, screen: Screen[T], callback: Callable[[T | None], None]) -> object: ...

    async def push_screen_wait(self, screen: Screen[T]) -> T: ...
