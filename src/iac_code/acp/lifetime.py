"""The signals that end the server (PROTOCOL.md, Process lifetime): SIGTERM, SIGINT and SIGHUP.

Both transports (`acp/stdio.py`, `acp/http.py`) install them with `shutdown_signals` and answer
each the same way: stop taking input, `IacAgent.shutdown()` every connection's agent (running
tools stopped, history written, MCP servers stopped), let what is still cleaning up finish
(`let_cleanups_finish`, bounded), exit with status 128 + the signal number.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable, Iterator

log = logging.getLogger(__name__)

SHUTDOWN_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


@contextlib.contextmanager
def shutdown_signals(on_signal: Callable[[int], None]) -> Iterator[list[int]]:
    """Call `on_signal(signum)` in the running loop on each shutdown signal while inside.

    Yields the list of signals received so far (the first one decides the exit status).
    """
    loop = asyncio.get_running_loop()
    received: list[int] = []

    def handle(signum: int) -> None:
        if not received:
            log.info("received %s: shutting down", signal.Signals(signum).name)
        received.append(signum)
        on_signal(signum)

    for sig in SHUTDOWN_SIGNALS:
        loop.add_signal_handler(sig, handle, sig)
    try:
        yield received
    finally:
        for sig in SHUTDOWN_SIGNALS:
            loop.remove_signal_handler(sig)


async def let_cleanups_finish(timeout: float) -> None:
    """Wait up to `timeout` seconds for the loop's other tasks (a cancelled tool stopping its
    processes, a last update being written) to end; what is still running is then cancelled by
    `asyncio.run` on the way out."""
    others = asyncio.all_tasks() - {asyncio.current_task()}
    if others:
        _, late = await asyncio.wait(others, timeout=timeout)
        if late:
            log.warning("%d task(s) still running at exit", len(late))
