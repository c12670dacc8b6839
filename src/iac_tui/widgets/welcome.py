"""The greeting at the top of a new session: which agent, and the first keys to know."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


class Welcome(Static):
    """Names the agent (`agent_name`) and the project, and lists the main keys."""

    def __init__(self, agent_name: str, project_label: str) -> None:
        text = Content.assemble(
            Content.from_markup("[b $text-accent]iac-tui[/]  [dim]connected to[/] [b]$agent[/b]\n", agent=agent_name),
            Content.from_markup("[dim]Working in[/] $project\n", project=project_label),
            Content.from_markup(
                "[b]/[/b] [dim]commands[/dim]   [b]@[/b] [dim]attach a file[/dim]   "
                "[b]ctrl+s[/b] [dim]sessions[/dim]   [b]f1[/b] [dim]help[/dim]"
            ),
        )
        super().__init__(text)
