"""`bash` in the client's terminal, when the client offers terminals (PROTOCOL.md, "What the
server uses of clientCapabilities"; ACP `terminal/*`).

The command runs as `/bin/bash -c <command>` through `terminal/create` in the session's cwd, inside
the session's sandbox like a local run (the editor runs the sandbox's argv: `bwrap …` or
`python -I -S landlock_exec.py …`), with the non-interactive environment of a local run
(`shell.ENV_OVERRIDES`) and the agent's credential variables blanked (in the sandbox also every
credential variable the agent knows of, and `TMPDIR` its private temp dir). Its tool call embeds `{"type": "terminal", "terminalId"}` at once, so the editor
shows it live. The agent waits with `terminal/wait_for_exit` (bounded by the call's timeout),
then reads `terminal/output` for the model, kept like a local run's: the first `HEAD_BYTES` and the
last `TAIL_BYTES`. While the output is short the agent also polls it, to keep its head should the
client later drop the oldest output (it keeps at most `OUTPUT_BYTE_LIMIT` bytes). On timeout or
cancel the terminal is killed; in every case it is released once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os

from iac_code.core.events import TerminalContent, TextContent, ToolContent
from iac_code.redact import SECRET_ENV_NAMES
from iac_code.tools.sandbox import Sandbox
from iac_code.tools.base import ToolContext, ToolResult
from iac_code.tools.client_interfaces import (
    ClientError,
    ClientTerminals,
    TerminalExit,
    TerminalOutput,
)
from iac_code.tools.shell import (
    ENV_OVERRIDES,
    HEAD_BYTES,
    TAIL_BYTES,
    cancelled_result,
    clean_terminal_output,
    command_result,
)

log = logging.getLogger(__name__)

OUTPUT_BYTE_LIMIT = 1 << 20
"""`outputByteLimit` asked of the client: output it keeps beyond this is dropped from the start."""
POLL_INTERVAL = 0.5
"""Seconds between `terminal/output` polls while the output's head is not yet kept."""
CLEANUP_TIMEOUT = 5.0
"""Seconds allowed for kill/output/release after a cancel."""


async def run_in_terminal(argv: list[str], sandbox: Sandbox | None, timeout: float, ctx: ToolContext) -> ToolResult:
    """Run `argv` (the command, wrapped by `sandbox` if it runs in it) in a client terminal (see
    the module docstring). Client failures are results the model can act on; a cancel kills and
    releases the terminal, keeps what it printed in `ctx.partial`, and re-raises."""
    terminals = ctx.terminals
    assert terminals is not None
    env = {**ENV_OVERRIDES, **{name: "" for name in sorted(SECRET_ENV_NAMES)}}
    if sandbox is not None:  # the editor's own environment is likely the agent's: blank those credentials
        env.update(sandbox.overrides(os.environ))
    creating = asyncio.ensure_future(terminals.create(argv[0], argv[1:], env, ctx.cwd, OUTPUT_BYTE_LIMIT))
    try:
        terminal_id = await asyncio.shield(creating)
    except ClientError as exc:
        return ToolResult.error(f"The editor could not start a terminal: {exc}. The command did not run.")
    except asyncio.CancelledError:  # the terminal may come into being after all: stop and release it
        with contextlib.suppress(ClientError, TimeoutError, asyncio.CancelledError):
            async with asyncio.timeout(CLEANUP_TIMEOUT):
                terminal_id = await creating
                ctx.partial = await _stop(terminals, terminal_id, None)
                await _release(terminals, terminal_id)
        creating.cancel()
        raise
    shown: list[ToolContent] = [TerminalContent(terminal_id)]
    head: str | None = None
    try:
        with contextlib.suppress(Exception):  # showing it live is best effort
            await ctx.report(shown)
        waiter = asyncio.ensure_future(terminals.wait_for_exit(terminal_id))
        timed_out = False
        try:
            async with asyncio.timeout(timeout):
                head = await _keep_head(terminals, terminal_id, waiter)
                ended = await waiter
        except TimeoutError:
            timed_out = True
            await terminals.kill(terminal_id)
            ended = TerminalExit()
        finally:
            waiter.cancel()
        final = await terminals.output(terminal_id)
        if final.exit is not None:
            ended = final.exit
    except ClientError as exc:
        return ToolResult(
            output=f"The editor's terminal failed: {exc}. The command may have run in part.",
            is_error=True,
            content=[*shown, TextContent(f"The editor's terminal failed: {exc}.")],
        )
    except asyncio.CancelledError:
        ctx.partial = await _stop(terminals, terminal_id, head)
        raise
    finally:
        await _release(terminals, terminal_id)
    result = command_result(
        _kept(head, final), ended.exit_code, timed_out, False, timeout, ended.signal, sandboxed=sandbox is not None
    )
    result.content = shown  # the client shows the terminal's output and exit status itself
    return result


async def _keep_head(terminals: ClientTerminals, terminal_id: str, waiter: asyncio.Future[TerminalExit]) -> str | None:
    """Poll the output until the command ends or its first `HEAD_BYTES` are seen; those, or None
    if the client had already dropped part of them."""
    while not waiter.done():
        await asyncio.wait({waiter}, timeout=POLL_INTERVAL)
        if waiter.done():
            return None
        seen = await terminals.output(terminal_id)
        if seen.truncated:
            return None
        if len(seen.output.encode("utf-8", "replace")) >= HEAD_BYTES:
            return seen.output
    return None


def _kept(head: str | None, final: TerminalOutput) -> str:
    """The output for the model: all of it when it fits, else its head and tail with a marker."""
    data = final.output.encode("utf-8", "replace")
    if not final.truncated and len(data) <= HEAD_BYTES + TAIL_BYTES:
        return clean_terminal_output(final.output)
    tail = data[-TAIL_BYTES:]
    if not final.truncated:
        first = data[:HEAD_BYTES]
        omitted = f"{len(data) - len(first) - len(tail):,} bytes of output omitted"
    elif head is not None:
        first = head.encode("utf-8", "replace")[:HEAD_BYTES]
        omitted = "part of the output omitted"
    else:
        first, omitted = b"", "earlier output omitted"
    text = clean_terminal_output(first.decode("utf-8", "replace")) if first else ""
    return f"{text}\n[... {omitted} ...]\n" + clean_terminal_output(tail.decode("utf-8", "replace"))


async def _stop(terminals: ClientTerminals, terminal_id: str, head: str | None) -> ToolResult:
    """After a cancel: kill the terminal and return what it printed (as a cancelled result)."""
    output = ""
    try:
        async with asyncio.timeout(CLEANUP_TIMEOUT):
            await terminals.kill(terminal_id)
            output = _kept(head, await terminals.output(terminal_id))
    except (ClientError, TimeoutError) as exc:
        log.debug("could not kill or read terminal %s after a cancel: %s", terminal_id, exc)
    result = cancelled_result(output)
    result.content = [TerminalContent(terminal_id), TextContent("Cancelled: the command was killed.")]
    return result


async def _release(terminals: ClientTerminals, terminal_id: str) -> None:
    """`terminal/release`, once, whatever happened (a failure is only logged)."""
    try:
        async with asyncio.timeout(CLEANUP_TIMEOUT):
            await terminals.release(terminal_id)
    except (ClientError, TimeoutError, asyncio.CancelledError) as exc:
        log.debug("could not release terminal %s: %s", terminal_id, exc)
