"""The help screen: every key binding, how prompts, mentions and permissions work, and the
session's MCP servers."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from iac_tui.widgets.mcp_status import McpStatus

HELP = """\
# iac-tui

Talk to the agent in the prompt at the bottom. It streams its answer, its reasoning (folded
when done) and the tools it runs, each in a panel that updates as the tool progresses.

## Prompt

| key | action |
|---|---|
| `enter` | send |
| `shift+enter`, `ctrl+j` | new line |
| `up` / `down` | previous / next prompt (on the first / last line) |
| `pageup` / `pagedown` | scroll the conversation; `end` follows the newest output again |
| `/` | the agent's commands (at the start of the prompt) |
| `@` | attach a project file (fuzzy search; `.gitignore` respected) |
| `tab`, `enter` | accept a completion; `esc` closes the list |

## While the agent works

| key | action |
|---|---|
| `esc` | cancel the turn (a pending permission is answered *cancelled*) |
| `a` / `A` | allow once / allow always |
| `r` / `R` | reject once / reject always |
| `up` / `down`, `enter` | choose a permission option |

## Everywhere

| key | action |
|---|---|
| `ctrl+s` | sessions: load (`enter`), fork (`f`) or start new (`n`) |
| `ctrl+n` | new session |
| `f2` / `f3` / `f4` | model / mode / thinking level |
| `ctrl+t` | show or hide all thoughts |
| `ctrl+o` | expand or fold all tool output |
| `tab` / `shift+tab` | move focus (`enter` on a panel folds or unfolds it) |
| `ctrl+r` | restart the agent after it stopped |
| `f5` | copy the focused block (a code block: its code; `c` on it does too), else the newest answer |
| `f8`, `/export [FILE]` | write the conversation as Markdown to a new file in the project |
| `enter` on the "pruned" note | open the blocks pruned from the view in the pager |
| `f1` | this help |
| `ctrl+q` | quit |
"""


class HelpScreen(ModalScreen[None]):
    """Key bindings and usage notes."""

    BINDINGS = [Binding("escape,f1,q", "dismiss(None)", "Close")]

    def __init__(self, mcp_servers: list[dict[str, object]] | None = None) -> None:
        super().__init__()
        self.mcp_servers = mcp_servers

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Markdown(HELP)
            yield McpStatus(self.mcp_servers, id="mcp-status")
