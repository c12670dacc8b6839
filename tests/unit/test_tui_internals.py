"""`iac_tui/internals.py` reads private parts of the ACP SDK and of Textual: this fails loudly,
naming what moved, when a release changes them (re-read that module before widening the pins)."""

from __future__ import annotations

import asyncio

from acp._transport import memory_transport_pair
from acp.client.connection import ClientSideConnection
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

from iac_tui.internals import receive_task, stream_busy


class _Client:
    pass


async def test_the_client_connection_has_a_receive_task_that_ends_with_its_input() -> None:
    ours, theirs = memory_transport_pair()
    conn = ClientSideConnection(_Client(), ours)  # type: ignore[arg-type]  # no client method is called
    task = receive_task(conn)
    assert task is not None, "ClientSideConnection._conn._recv_task is gone: iac_tui.internals.receive_task"
    assert not task.done()
    await theirs.close()
    await ours.close()
    await asyncio.wait_for(asyncio.shield(task), 5)
    assert receive_task(object()) is None


async def test_a_markdown_stream_has_the_fields_stream_busy_reads() -> None:
    stream = MarkdownStream(Markdown())
    for name in ("_task", "_pending", "_new_markup"):
        assert hasattr(stream, name), f"MarkdownStream.{name} is gone: iac_tui.internals.stream_busy"
    assert isinstance(stream._new_markup, asyncio.Event) and isinstance(stream._pending, list)
    assert hasattr(stream._new_markup, "_waiters"), "asyncio.Event._waiters is gone: iac_tui.internals.stream_busy"
    assert not stream_busy(stream)  # no task yet
