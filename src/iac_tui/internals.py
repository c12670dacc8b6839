"""The one module of iac-tui that reads private parts of its libraries (agent-client-protocol 0.12,
Textual 8.2), as `iac_code/acp/sdk_patch.py` is for the agent.

Neither library offers these in public: when the agent's stdout ends (the SDK's receive task), and
when a `MarkdownStream` has rendered everything written to it. `tests/unit/test_tui_internals.py`
builds the real objects and fails, naming what moved, when a release changes them: re-read this
module before widening the pins in pyproject.toml.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.widgets.markdown import MarkdownStream


def receive_task(agent: object) -> asyncio.Task[Any] | None:
    """The receive task of the SDK's `ClientSideConnection` `agent` (`_conn._recv_task`): it ends
    when the agent's stdout does. None where `agent` has none."""
    task = getattr(getattr(agent, "_conn", None), "_recv_task", None)
    return task if isinstance(task, asyncio.Task) else None


def stream_busy(stream: MarkdownStream) -> bool:
    """Whether `stream`'s task still has text to render: some pending, its event set, or the task
    not parked on that event (`_task`, `_pending`, `_new_markup` and the event's `_waiters`)."""
    event = stream._new_markup
    task = stream._task
    return task is not None and not task.done() and (bool(stream._pending) or event.is_set() or not getattr(event, "_waiters", True))
