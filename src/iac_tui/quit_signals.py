"""How iac-tui quits on a signal: SIGHUP (the terminal window closed, `tmux kill-session`),
SIGTERM and SIGINT quit the app as ctrl+q does, so that the app's unmount stops the agent and
everything it started. Without this, Python dies at once and the agent, in a session of its own,
never hears it.

After a hangup the terminal is gone: what is still drawn goes to /dev/null, and once the agent
is stopped the process ends at once (status 129, 128 + SIGHUP): there is nothing to restore on
the terminal, and Textual 8.2's output thread may have died writing to it, after which its
driver's `close()` waits forever for that thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable


class QuitSignals:
    """The app's quit signals; `quit` asks the app to exit (`App.exit`)."""

    def __init__(self, quit: Callable[[], object]) -> None:
        self._quit = quit
        self.terminal_gone = False
        """A SIGHUP came: the terminal closed."""

    def install(self) -> None:
        """Handle the signals on the running loop (where the platform lets us; not in a thread)."""
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGHUP, self._hung_up)
            loop.add_signal_handler(signal.SIGTERM, self._quit)
            loop.add_signal_handler(signal.SIGINT, self._quit)

    def _hung_up(self) -> None:
        """The terminal is gone: what is still drawn goes to /dev/null, and the app quits."""
        self.terminal_gone = True
        with contextlib.suppress(OSError):
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
        self._quit()

    def end_after_hangup(self) -> None:
        """Once the agent is stopped: after a hangup, end the process now (status 129); else return."""
        if self.terminal_gone:
            os._exit(128 + signal.SIGHUP)
