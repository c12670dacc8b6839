"""The app's keys: its bindings, in the footer's order, and when each of their actions applies.

`BINDINGS` is `IacTui.BINDINGS` (f1 first: the footer cuts from the end when the terminal is
narrow). The actions are the App's `action_*` methods (Textual looks for them there), and they
call the objects the App owns. `ActionChecks.check` is the App's `check_action`: an action that
does not apply now (cancel with no turn running, restart with the agent running...) is hidden
from the footer and its key does nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType

if TYPE_CHECKING:
    from iac_tui.agent_control import AgentController
    from iac_tui.session_manager import SessionManager
    from iac_tui.state import SessionState
    from iac_tui.turns import TurnController
    from iac_tui.widgets.conversation import Conversation

BINDINGS: list[BindingType] = [
    Binding("f1", "help", "Help"),
    Binding("escape", "cancel_turn", "Cancel"),
    Binding("ctrl+s", "sessions", "Sessions"),
    Binding("ctrl+n", "new_session", "New"),
    Binding("f2", "pick('model')", "Model"),
    Binding("f3", "pick('mode')", "Mode"),
    Binding("f4", "pick('thought_level')", "Thinking"),
    Binding("ctrl+t", "toggle_thoughts", "Thoughts"),
    Binding("ctrl+o", "toggle_outputs", "Outputs"),
    Binding("ctrl+r", "restart_agent", "Restart agent"),
    Binding("f5", "copy_block", "Copy", show=False),  # (not in the footer: it is full; f1 and README list them)
    Binding("f8", "export", "Export", show=False),
    Binding("ctrl+x", "remove_queued", "Drop queued", priority=True),  # (else the prompt box's cut)
    Binding("end", "follow", "Follow", priority=True),
]


class ActionChecks:
    """Whether each of the app's actions applies now, from the objects the App owns;
    `conversation()` is the conversation view, None while the app starts or tears down."""

    def __init__(
        self,
        *,
        turns: TurnController,
        agents: AgentController,
        state: SessionState,
        sessions: SessionManager,
        conversation: Callable[[], Conversation | None],
    ) -> None:
        self._turns = turns
        self._agents = agents
        self._state = state
        self._sessions = sessions
        self._conversation = conversation

    def check(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Textual's `App.check_action`: True runs the action and shows its key, False hides it
        (None would show it disabled). Actions not named here always apply."""
        if action == "cancel_turn":
            return True if self._turns.busy else False
        if action == "restart_agent":
            return True if self._agents.state == "stopped" else False
        if action == "remove_queued":
            return bool(self._turns.queued)
        if action == "pick" and parameters:
            return self._agents.state == "ready" and self._state.setting(str(parameters[0])) is not None
        if action == "sessions":
            return self._agents.state == "ready" and self._sessions.session_capability("list")
        if action == "new_session":
            return self._agents.state == "ready"
        if action == "follow":  # hidden while following, so that `end` stays the prompt box's key
            # (a lookup the App caches, not a query: the footer asks on every refresh, and a query walks every block)
            conversation = self._conversation()
            return conversation is not None and not conversation.following
        return True
