"""The app's prompt turns: sending what the prompt box submits, the turn's end, and esc to cancel.

Mixed into `IacTui`. The `session/prompt` request runs in a worker; its answer (or failure)
comes back as a `TurnEnded` message through the conversation, in order with the turn's updates.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual import work

from iac_tui import messages
from iac_tui.mentions import build_prompt
from iac_tui.sdk import acp
from iac_tui.sessions import error_text
from iac_tui.widgets.prompt import PromptArea


class TurnActions:
    """Turn handling of `IacTui` (see the module docstring); `self` is the app."""

    async def on_prompt_area_submitted(self, message: PromptArea.Submitted) -> None:
        text = message.text
        if self.local_command(text):
            return
        if self.agent is None or self.state.session_id is None:
            self.prompt_box.load_text(text)
            self.notify("The agent is not ready." + (" Press ctrl+r to restart it." if self.agent_state == "stopped" else ""), severity="warning")
            return
        if self.busy:
            self.prompt_box.load_text(text)
            self.notify("The agent is still working: wait, or press esc to cancel.", severity="warning")
            return
        prompts = getattr(self.capabilities, "prompt_capabilities", None)
        embedded = bool(getattr(prompts, "embedded_context", False))
        blocks, attached = await asyncio.to_thread(build_prompt, text, self.project, embedded)
        self.busy = True  # before the user's block shows: whoever sees the block sees the turn running
        await self.conversation.add_user(text, [a.path for a in attached])
        self.indicator.start("Working…")
        self._run_turn(self.state.session_id, blocks)

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

    def on_turn_ended(self, message: messages.TurnEnded) -> None:
        self.busy = False
        self.indicator.stop()
        if self.client is not None:  # a request still pending belongs to the turn that ended
            self.client.cancel_permissions()
        if message.usage is not None:
            self.state.last_usage = message.usage
        self.refresh_status()
        self.project_files.stale()  # the turn may have changed them
        if not isinstance(self.focused, PromptArea):
            self.prompt_box.focus()

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
