"""The status bar: project, session title, the agent's warning that its commands are not
sandboxed, model, mode, context use, the last turn's tokens and the session's cost (when the
agent reports one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.content import Content
from textual.widgets import Static

from iac_tui.display import format_tokens

if TYPE_CHECKING:  # the SDK loads after the first paint (iac_tui.sdk)
    from acp.schema import Cost, Usage

    from iac_tui.state import SessionState


def format_context(used: int | None, size: int | None) -> str:
    """`ctx 12.3k/200k 6%` (empty until the agent reports usage)."""
    if used is None:
        return ""
    if not size:
        return f"ctx {format_tokens(used)}"
    return f"ctx {format_tokens(used)}/{format_tokens(size)} {used * 100 // size}%"


def format_turn(usage: Usage | None) -> str:
    """The last prompt's tokens (`session/prompt`'s `usage`), `↑4.1k ↓120` (empty when unknown)."""
    if usage is None:
        return ""
    return f"↑{format_tokens(usage.input_tokens)} ↓{format_tokens(usage.output_tokens)}"


def sandbox_label(warning: str | None, width: int) -> str:
    """The not-sandboxed warning for a status bar `width` cells wide: the agent's whole sentence
    from 140 cells, "not sandboxed: <what to do>" from 100, else "not sandboxed"."""
    if not warning:
        return ""
    if width >= 140:
        return warning
    advice = warning.partition(":")[2].strip()
    return f"not sandboxed: {advice}" if width >= 100 and advice else "not sandboxed"


CURRENCY_SIGNS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}


def format_cost(cost: Cost | None) -> str:
    """The session's cost (`usage_update.cost`): `$0.42`, `€1.05`, `12.50 CHF` (empty when unknown)."""
    if cost is None:
        return ""
    amount, currency = cost.amount, cost.currency.upper()
    figure = f"{amount:,.2f}" if amount >= 0.01 or amount == 0 else f"{amount:.4f}"
    sign = CURRENCY_SIGNS.get(currency)
    return f"{sign}{figure}" if sign else f"{figure} {currency}".strip()


class StatusBar(HorizontalGroup):
    """One line of session facts, updated field by field. `usage_labels` (context, turn), when
    given, are shown instead of the figures once they are known (fixed pictures: the figures
    follow the agent's prompt, not this app)."""

    def __init__(self, usage_labels: tuple[str, str] | None = None) -> None:
        super().__init__()
        self.usage_labels = usage_labels
        self._sandbox_warning: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="status-cwd", markup=False)
        yield Static(id="status-title", markup=False)
        yield Static(id="status-sandbox", markup=False, classes="-empty")
        yield Static(id="status-model", markup=False)
        yield Static(id="status-mode", markup=False)
        yield Static(id="status-usage", markup=False)

    def _set(self, id: str, text: str) -> None:
        for widget in self.query(f"#{id}").results(Static):  # none while the app tears down
            widget.update(Content(text))
            widget.set_class(not text, "-empty")

    def set_cwd(self, label: str) -> None:
        """The project directory."""
        self._set("status-cwd", label)

    def set_title(self, title: str | None) -> None:
        """The session title (or what the app is doing when there is none)."""
        self._set("status-title", title or "")

    def set_sandbox(self, warning: str | None) -> None:
        """The agent's sentence saying its commands are not sandboxed, e.g. "commands are not
        sandboxed here: install bubblewrap" (None: they are, or the agent does not say); shorter
        in a smaller window (`sandbox_label`)."""
        self._sandbox_warning = warning
        self._set("status-sandbox", sandbox_label(warning, self.size.width))

    def on_resize(self) -> None:
        self._set("status-sandbox", sandbox_label(self._sandbox_warning, self.size.width))

    def set_model(self, name: str | None) -> None:
        """The current model's name."""
        self._set("status-model", name or "")

    def set_mode(self, name: str | None) -> None:
        """The current mode's name."""
        self._set("status-mode", name or "")

    def set_usage(self, used: int | None, size: int | None, turn: Usage | None, cost: Cost | None = None) -> None:
        """Context use, the last prompt's tokens and the session's cost (None: not reported)."""
        context, last = format_context(used, size), format_turn(turn)
        if self.usage_labels is not None:
            context, last = (self.usage_labels[0] if context else ""), (self.usage_labels[1] if last else "")
        parts = [p for p in (context, last, format_cost(cost)) if p]
        self._set("status-usage", "  ".join(parts))

    def show_session(self, state: SessionState, agent_stopped: bool) -> None:
        """Show the facts of the current session `state`: its title (or "agent stopped" when
        `agent_stopped`, "new session" before it has one, "starting the agent…" before a session),
        model, mode, context use, last turn and cost."""
        if agent_stopped:
            self.set_title("agent stopped")
        else:
            self.set_title(state.title or ("new session" if state.session_id else "starting the agent…"))
        model = state.setting("model")
        mode = state.setting("mode")
        self.set_model(model.current_name if model else None)
        self.set_mode(mode.current_name if mode else None)
        self.set_usage(state.context_used, state.context_size, state.last_usage, state.cost)
