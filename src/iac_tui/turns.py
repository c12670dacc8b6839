"""The app's prompt turns: sending what the prompt box submits, the queue, the turn's end, esc to cancel.

Mixed into `IacTui`. The `session/prompt` request runs in a worker; its answer (or failure)
comes back as a `TurnEnded` message through the conversation, in order with the turn's updates.

A prompt submitted while a turn runs (or while the agent starts) is queued: shown above the
prompt box, editable (`up` in the empty box takes the last one back) and removable (`ctrl+x`),
and sent when the turn ends, one per turn. A turn that ends cancelled (esc) or failed sends
nothing more: the queued prompts go back into the prompt box, to be sent or dropped by hand.
A prompt submitted while the agent is stopped restarts it (`ctrl+r` does the same by hand) and
waits in the queue until the session is back.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import App

from iac_tui import messages
from iac_tui.mentions import build_prompt
from iac_tui.sdk import acp
from iac_tui.session_manager import error_text
from iac_tui.widgets.prompt import PromptArea

if TYPE_CHECKING:
    from pathlib import Path

    from acp.interfaces import Agent
    from acp.schema import AgentCapabilities
    from textual.message import Message
    from textual.reactive import var

    from iac_tui.client import TuiClient
    from iac_tui.file_index import ProjectFiles
    from iac_tui.state import SessionState
    from iac_tui.widgets.conversation import Conversation
    from iac_tui.widgets.input_area import InputArea
    from iac_tui.widgets.working import WorkingIndicator

    _App = App[None]  # the type checker sees the mixin as the App it is mixed into
else:
    _App = object

GOES_ON = ("end_turn", "max_tokens", "max_turn_requests", "refusal")
"""Stop reasons after which the next queued prompt is sent (not `cancelled`, not a failure)."""


class TurnActions(_App):
    """Turn handling of `IacTui` (see the module docstring); `self` is the app."""

    queued: list[str]
    if TYPE_CHECKING:  # what the turns use of IacTui
        busy: var[bool]
        agent_state: var[str]
        state: SessionState
        client: TuiClient | None
        project: Path
        project_files: ProjectFiles

        @property
        def agent(self) -> Agent | None: ...
        @property
        def capabilities(self) -> AgentCapabilities | None: ...
        @property
        def conversation(self) -> Conversation: ...
        @property
        def input_area(self) -> InputArea: ...
        @property
        def prompt_box(self) -> PromptArea: ...
        @property
        def indicator(self) -> WorkingIndicator: ...
        def post_to_conversation(self, message: Message) -> None: ...
        def refresh_status(self) -> None: ...
        def local_command(self, text: str) -> bool: ...
        def action_restart_agent(self) -> None: ...

    async def on_prompt_area_submitted(self, message: PromptArea.Submitted) -> None:
        text = message.text
        if self.local_command(text):
            return
        if self.agent_state == "stopped":
            self.queue_prompt(text)
            self.post_to_conversation(messages.Notice("The agent had stopped: restarting it to send your prompt."))
            self.action_restart_agent()
            return
        if self.busy or self.queued or self.agent is None or self.state.session_id is None:
            self.queue_prompt(text)  # sent when the turn ends (or the session opens)
            return
        await self.send_prompt(text)

    async def send_prompt(self, text: str) -> None:
        """Start a turn with `text` (the agent is ready and no turn runs)."""
        prompts = self.capabilities.prompt_capabilities if self.capabilities is not None else None
        embedded = bool(prompts is not None and prompts.embedded_context)
        images = bool(prompts is not None and prompts.image)
        blocks, attached = await asyncio.to_thread(build_prompt, text, self.project, embedded, images)
        self.busy = True  # before the user's block shows: whoever sees the block sees the turn running
        await self.conversation.add_user(text, [a.path for a in attached])
        self.indicator.start("Working…")
        self._run_turn(self.state.session_id, blocks)

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

    def action_remove_queued(self) -> None:
        """Drop the newest queued prompt."""
        if self.take_queued() is not None:
            self.notify("Removed the queued prompt.")

    def _show_queue(self) -> None:
        self.input_area.queued.show_prompts(self.queued)
        self.refresh_bindings()

    async def send_queued(self) -> None:
        """Send the oldest queued prompt, if the agent can take it now."""
        if self.queued and not self.busy and self.agent is not None and self.state.session_id is not None:
            text = self.queued.pop(0)
            self._show_queue()
            await self.send_prompt(text)

    def unqueue_to_draft(self, why: str) -> None:
        """Put every queued prompt back into the prompt box (before the draft), saying `why`."""
        if not self.queued:
            return
        draft = self.prompt_box.text
        self.prompt_box.set_draft("\n\n".join([*self.queued, draft] if draft.strip() else self.queued))
        self.queued.clear()
        self._show_queue()
        self.notify(f"{why}: your queued prompt is back in the prompt box (enter sends it).", severity="warning")

    # ----- the turn -----

    @work(group="turn", exit_on_error=False)
    async def _run_turn(self, session_id: str, blocks: list[Any]) -> None:
        try:
            agent = self.agent
            if agent is None:  # the agent stopped while the prompt was being built
                raise ConnectionError("the agent is not running")
            response = await agent.prompt(session_id=session_id, prompt=blocks)
        except acp.RequestError as exc:
            self.post_to_conversation(messages.TurnEnded(session_id, None, error=error_text(exc)))
        except ConnectionError:
            self.post_to_conversation(messages.TurnEnded(session_id, None, error=""))  # AgentStopped explains
        except Exception as exc:  # never leave the app "working" forever
            self.post_to_conversation(messages.TurnEnded(session_id, None, error=error_text(exc)))
        else:
            self.post_to_conversation(messages.TurnEnded(session_id, response.stop_reason, response.usage))

    async def on_turn_ended(self, message: messages.TurnEnded) -> None:
        self.busy = False
        if self.client is not None:  # a request still pending belongs to the turn that ended
            self.client.cancel_permissions()
        if not self.screen_stack:  # the app is closing (its widgets are gone)
            return
        self.indicator.stop()
        if message.usage is not None:
            self.state.last_usage = message.usage
        self.refresh_status()
        self.project_files.stale()  # the turn may have changed them
        if not isinstance(self.focused, PromptArea):
            self.prompt_box.focus()
        if message.stop_reason in GOES_ON:
            await self.send_queued()
        elif self.agent_state != "stopped":  # (a stopped agent puts them back itself)
            self.unqueue_to_draft("The turn was cancelled" if message.stop_reason == "cancelled" else "The prompt failed")

    def action_cancel_turn(self) -> None:
        if not self.busy:
            return
        self.indicator.start("Cancelling…")
        self._send_cancel(self.state.session_id)

    @work(group="cancel", exit_on_error=False)
    async def _send_cancel(self, session_id: str | None) -> None:
        agent = self.agent
        if agent is not None and session_id is not None:
            try:
                await agent.cancel(session_id=session_id)
            except Exception:
                pass
        if self.client is not None:
            self.client.cancel_permissions()
