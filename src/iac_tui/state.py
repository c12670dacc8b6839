"""What the app knows about the agent and the current session (plain data, no widgets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from iac_tui.sdk import acp

if TYPE_CHECKING:  # the SDK loads after the first paint (iac_tui.sdk)
    from acp.schema import (
        AvailableCommand,
        Cost,
        ForkSessionResponse,
        LoadSessionResponse,
        NewSessionResponse,
        ResumeSessionResponse,
        SessionConfigOptionBoolean,
        SessionConfigOptionSelect,
        SessionConfigSelectGroup,
        SessionConfigSelectOption,
        SessionModeState,
        Usage,
    )

    ConfigOption: TypeAlias = SessionConfigOptionSelect | SessionConfigOptionBoolean
    """An entry of `configOptions` (the SDK's union, told apart by `type`)."""

    SessionResponse: TypeAlias = NewSessionResponse | LoadSessionResponse | ForkSessionResponse | ResumeSessionResponse


@dataclass(slots=True)
class Choice:
    """One value a session setting can take."""

    value: str
    name: str
    description: str | None = None


@dataclass(slots=True)
class Setting:
    """A session setting the user can switch: from a `configOptions` select, or from `modes`."""

    id: str
    name: str
    category: str | None
    current: str
    choices: list[Choice]
    via_modes: bool = False  # change it with session/set_mode rather than set_config_option

    @property
    def current_name(self) -> str:
        """The display name of the current value."""
        return next((c.name for c in self.choices if c.value == self.current), self.current)


def _choices(options: list[SessionConfigSelectOption] | list[SessionConfigSelectGroup]) -> list[Choice]:
    out: list[Choice] = []
    for item in options:
        if isinstance(item, acp.schema.SessionConfigSelectGroup):
            out.extend(Choice(o.value, o.name, o.description) for o in item.options)
        else:
            out.append(Choice(item.value, item.name, item.description))
    return out


@dataclass
class SessionState:
    """The current session as the agent described it."""

    session_id: str | None = None
    title: str | None = None
    config_options: list[ConfigOption] = field(default_factory=list)
    modes: SessionModeState | None = None
    commands: list[AvailableCommand] = field(default_factory=list)
    context_used: int | None = None
    context_size: int | None = None
    last_usage: Usage | None = None
    cost: Cost | None = None
    """The session's cost so far, as the agent last reported it (`usage_update.cost`), or None."""
    mcp_servers: dict[str, list[dict[str, object]]] = field(default_factory=dict)
    """The MCP servers each session reported (by session id; kept across `reset`: the report may
    arrive before the session is entered)."""

    def reset(self, session_id: str | None) -> None:
        """Forget everything about the previous session."""
        self.session_id = session_id
        self.title = None
        self.config_options = []
        self.modes = None
        self.commands = []
        self.context_used = self.context_size = None
        self.last_usage = None
        self.cost = None

    def apply_session_response(self, response: SessionResponse | None) -> None:
        """Take `modes` and `configOptions` from a new/load/fork/resume response (each is optional:
        an agent without them keeps what the app knew)."""
        if response is None:
            return
        if response.config_options is not None:
            self.config_options = list(response.config_options)
        if response.modes is not None:
            self.modes = response.modes

    def settings(self) -> list[Setting]:
        """Every switchable setting: the select config options, plus `modes` if no option covers the mode."""
        out = []
        for option in self.config_options:
            if option.type == "select":
                # one of ACP's names, or the SDK's dict for an object an agent sent: not one this app knows
                category = option.category if isinstance(option.category, str) else None
                out.append(Setting(option.id, option.name, category, option.current_value, _choices(option.options)))
        if self.modes is not None and not any(s.category == "mode" for s in out):
            choices = [Choice(m.id, m.name, m.description) for m in self.modes.available_modes]
            out.append(Setting("mode", "Mode", "mode", self.modes.current_mode_id, choices, via_modes=True))
        return out

    def setting(self, category: str) -> Setting | None:
        """The setting of a category (`mode`, `model`, `thought_level`), if the agent offers one."""
        return next((s for s in self.settings() if s.category == category), None)

    def set_mode(self, mode_id: str) -> None:
        """Record a `current_mode_update`."""
        if self.modes is not None:
            self.modes.current_mode_id = mode_id
        for option in self.config_options:
            if option.category == "mode" and option.type == "select":
                option.current_value = mode_id
