"""Prompt turns: sending what the prompt box submits, the queue, the turn's end, esc to cancel.

`TurnController` is the one owner of "a turn is running" (`busy`) and of the prompts queued
meanwhile; the app owns one, and its handlers and actions (enter, esc, ctrl+x, a turn's end)
call it. The `session/prompt` request runs in a worker; its answer (or failure) comes back as a
`TurnEnded` message through the conversation, in order with the turn's updates.

A prompt submitted while a turn runs (or while the agent starts) is queued: shown above the
prompt box, editable (`up` in the empty box takes the last one back) and removable (`ctrl+x`),
and sent when the turn ends, one per turn. A turn that ends cancelled (esc) or failed sends
nothing more: the queued prompts go back into the prompt box, to be sent or dropped by hand.
(A prompt submitted while the agent is stopped restarts it: the app queues it here and restarts
the agent, as `ctrl+r` does; it is sent once the session is back.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from iac_tui import messages
from iac_tui.app_protocols import Notify, RunWorker
from iac_tui.mentions import build_prompt
from iac_tui.sdk import acp
from iac_tui.session_manager import error_text
from iac_tui.state import SessionState

if TYPE_CHECKING:  # the SDK loads after the first paint (iac_tui.sdk)
    from acp.interfaces import Agent
    from acp.schema import AgentCapabilities

    from iac_tui.client import ContentBlock, TuiClient
    from iac_tui.widgets.conversation import Conversation
    from iac_tui.widgets.input_area import InputArea

GOES_ON = ("end_turn", "max_tokens", "max_turn_requests", "refusal")
"""Stop reasons after which the next queued prompt is sent (not `cancelled`, not a failure)."""


class TurnController:
    """The prompt turns of one app (see the module docstring).

    `state` is the app's `SessionState` (the session a prompt goes to), `project` the directory
    `@` mentions are read from. `agent()` is the agent to send requests to (None while it is
    down), `capabilities()` its `agentCapabilities` (None before `initialize`), `client()` the ACP
    client (None before the agent first started: a turn's end cancels its pending permission
    requests). `post` delivers messages to the conversation; `dock()` and `conversation()` are
    the input dock and the conversation (None while the app starts or tears down: then nothing
    is drawn); `notify` shows a toast; `changed()` is called when `busy`, the queue or the last
    turn's usage changed (the app redraws the status, the dock and the key bindings); `run` runs
    the requests in workers.
    """

    def __init__(
        self,
        state: SessionState,
        project: Path,
        *,
        agent: Callable[[], Agent | None],
        capabilities: Callable[[], AgentCapabilities | None],
        client: Callable[[], TuiClient | None],
        post: Callable[[Message], None],
        dock: Callable[[], InputArea | None],
        conversation: Callable[[], Conversation | None],
        notify: Notify,
        changed: Callable[[], None],
        run: RunWorker,
    ) -> None:
        self.state = state
        self.project = project
        self._agent = agent
        self._capabilities = capabilities
        self._client = client
        self._post = post
        self._dock = dock
        self._conversation = conversation
        self._notify = notify
        self._changed = changed
        self._run = run
        self._busy = False
        self.queued: list[str] = []
        """The prompts waiting for the turn to end (or the session to open), oldest first."""

    @property
    def busy(self) -> bool:
        """A turn is running: from just before the user's prompt is drawn until its end (or the agent's stop) is handled."""
        return self._busy

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self._changed()

    # ----- sending -----

    async def submit(self, text: str) -> None:
        """A prompt the person sent: start a turn with it, or queue it while a turn runs or the
        session is not open yet (it is sent when the turn ends, or the session opens)."""
        if self._busy or self.queued or self._agent() is None or self.state.session_id is None:
            self.queue_prompt(text)
            return
        await self.send_prompt(text)

    async def send_prompt(self, text: str) -> None:
        """Start a turn with `text` (the agent is ready and no turn runs)."""
        caps = self._capabilities()
        prompts = caps.prompt_capabilities if caps is not None else None
        embedded = bool(prompts is not None and prompts.embedded_context)
        images = bool(prompts is not None and prompts.image)
        blocks, attached = await asyncio.to_thread(build_prompt, text, self.project, embedded, images)
        conversation, dock = self._conversation(), self._dock()
        session_id = self.state.session_id
        if conversation is None or dock is None or session_id is None:  # the app is closing
            return
        self._set_busy(True)  # before the user's block shows: whoever sees the block sees the turn running
        await conversation.add_user(text, [a.path for a in attached])
        dock.indicator.start("Working…")
        self._run(self._prompt(session_id, blocks), group="turn", exit_on_error=False)

    async def _prompt(self, session_id: str, blocks: list[ContentBlock]) -> None:
        try:
            agent = self._agent()
            if agent is None:  # the agent stopped while the prompt was being built
                raise ConnectionError("the agent is not running")
            response = await agent.prompt(session_id=session_id, prompt=blocks)
        except acp.RequestError as exc:
            self._post(messages.TurnEnded(session_id, None, error=error_text(exc)))
        except ConnectionError:
            self._post(messages.TurnEnded(session_id, None, error=""))  # AgentStopped explains
        except Exception as exc:  # never leave the app "working" forever
            self._post(messages.TurnEnded(session_id, None, error=error_text(exc)))
        else:
            self._post(messages.TurnEnded(session_id, response.stop_reason, response.usage))

    # ----- the queue -----

    def queue_prompt(self, text: str) -> None:
        """Queue `text` for the end of the running turn (or the opening of the session)."""
        self.queued.append(text)
        self._show_queue()

    def take_queued(self) -> str | None:
        """Remove the newest queued prompt and return it (None when nothing is queued)."""
        if not self.queued:
            return None
        text = self.queued.pop()
        self._show_queue()
        return text

    def remove_queued(self) -> None:
        """Drop the newest queued prompt (ctrl+x)."""
        if self.take_queued() is not None:
            self._notify("Removed the queued prompt.")

    def _show_queue(self) -> None:
        dock = self._dock()
        if dock is not None:
            dock.queued.show_prompts(self.queued)
        self._changed()

    async def send_queued(self) -> None:
        """Send the oldest queued prompt, if the agent can take it now."""
        if self.queued and not self._busy and self._agent() is not None and self.state.session_id is not None:
            text = self.queued.pop(0)
            self._show_queue()
            await self.send_prompt(text)

    def unqueue_to_draft(self, why: str) -> None:
        """Put every queued prompt back into the prompt box (before the draft), saying `why`."""
        dock = self._dock()
        if not self.queued or dock is None:
            return
        draft = dock.prompt_box.text
        dock.prompt_box.set_draft("\n\n".join([*self.queued, draft] if draft.strip() else self.queued))
        self.queued.clear()
        self._show_queue()
        self._notify(f"{why}: your queued prompt is back in the prompt box (enter sends it).", severity="warning")

    # ----- the turn's end -----

    async def turn_ended(self, message: messages.TurnEnded, *, agent_stopped: bool) -> None:
        """The turn's answer (or failure) reached the app, after the conversation drew it:
        `busy` goes off, a permission request still pending is cancelled (it belongs to the turn
        that ended), and the next queued prompt is sent, or, after a cancel or a failure, the
        queue goes back into the prompt box (not when `agent_stopped`: the app puts it back then)."""
        self._set_busy(False)
        self._cancel_permissions()
        dock = self._dock()
        if dock is None:  # the app is closing (its widgets are gone)
            return
        dock.indicator.stop()
        if message.usage is not None:
            self.state.last_usage = message.usage
        self._changed()
        dock.focus_prompt()
        if message.stop_reason in GOES_ON:
            await self.send_queued()
        elif not agent_stopped:
            self.unqueue_to_draft("The turn was cancelled" if message.stop_reason == "cancelled" else "The prompt failed")

    def agent_stopped(self) -> None:
        """The agent's process ended: no turn runs any more (its `TurnEnded` may follow)."""
        self._set_busy(False)
        self._cancel_permissions()

    def _cancel_permissions(self) -> None:
        client = self._client()
        if client is not None:
            client.cancel_permissions()

    # ----- cancelling -----

    def cancel(self) -> None:
        """esc: ask the agent to cancel the running turn (`session/cancel`); its pending permission
        requests are answered `cancelled`. The turn ends when the agent answers the prompt."""
        dock = self._dock()
        if not self._busy or dock is None:
            return
        dock.indicator.start("Cancelling…")
        self._run(self._send_cancel(self.state.session_id), group="cancel", exit_on_error=False)

    async def _send_cancel(self, session_id: str | None) -> None:
        agent = self._agent()
        if agent is not None and session_id is not None:
            try:
                await agent.cancel(session_id=session_id)
            except Exception:
                pass
        self._cancel_permissions()
