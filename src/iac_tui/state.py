"""What the app knows about the agent and the current session (plain data, no widgets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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


def _choices(options: Any) -> list[Choice]:
    out: list[Choice] = []
    for item in options or []:
        if hasattr(item, "options"):  # a group of options
            out.extend(Choice(o.value, o.name, o.description) for o in item.options)
        else:
            out.append(Choice(item.value, item.name, item.description))
    return out


@dataclass
class SessionState:
    """The current session as the agent described it."""

    session_id: str | None = None
    title: str | None = None
    config_options: list[Any] = field(default_factory=list)
    modes: Any = None
    commands: list[Any] = field(default_factory=list)
    context_used: int | None = None
    context_size: int | None = None
    last_usage: Any = None
    cost: Any = None
    """The session's cost so far, as the agent last reported it (`usage_update.cost`), or None."""
    mcp_servers: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
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

    def apply_session_response(self, response: Any) -> None:
        """Take `modes` and `configOptions` from a new/load/fork/resume response."""
        if response is None:
            return
        if getattr(response, "config_options", None) is not None:
            self.config_options = list(response.config_options)
        if getattr(response, "modes", None) is not None:
            self.modes = response.modes

    def settings(self) -> list[Setting]:
        """Every switchable setting: the select config options, plus `modes` if no option covers the mode."""
        out = []
        for option in self.config_options:
            if getattr(option, "type", None) == "select":
                out.append(Setting(option.id, option.name, option.category, option.current_value, _choices(option.options)))
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
            if getattr(option, "category", None) == "mode" and getattr(option, "type", None) == "select":
                option.current_value = mode_id
