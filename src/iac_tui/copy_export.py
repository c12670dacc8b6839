"""Copy and export for the app: f5 copies a block, f8 and `/export [FILE]` write the conversation.

Mixed into `IacTui`. f5 copies the focused block (a code block: its body, byte for byte; a
thought or a tool call: its Markdown, `iac_tui.transcript`), or else the newest answer's source
Markdown as it was streamed, with `App.copy_to_clipboard` (OSC 52: the terminal puts it on the
system clipboard). f8 writes `Conversation.transcript()` (pruned blocks included) to a new file
`conversation-<UTC time>.md` in the project; `/export FILE` to FILE (relative to the project),
which must not exist yet. Either way a note in the conversation says where it went.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App
from textual.dom import DOMNode
from textual.widget import Widget

from iac_tui import messages, transcript
from iac_tui.display import project_relative
from iac_tui.widgets.code import CodeBlock
from iac_tui.widgets.message import AgentMessage
from iac_tui.widgets.prompt import Command

if TYPE_CHECKING:
    from textual.message import Message

    from iac_tui.widgets.conversation import Conversation

    _App = App[None]  # the type checker sees the mixin as the App it is mixed into
else:
    _App = object

EXPORT_COMMAND = Command("export", "write the conversation to a Markdown file (iac-tui)", "file name")


class CopyExportActions(_App):
    """Copy and export of `IacTui` (see the module docstring); `self` is the app."""

    if TYPE_CHECKING:  # what copy and export use of IacTui
        project: Path

        @property
        def conversation(self) -> Conversation: ...
        def post_to_conversation(self, message: Message) -> None: ...

    def action_copy_block(self) -> None:
        text = self.block_to_copy()
        if text is None:
            self.notify("Nothing to copy yet.", severity="warning")
            return
        self.copy_to_clipboard(text)
        self.notify(f"Copied {len(text):,} characters.")

    def block_to_copy(self) -> str | None:
        """What f5 copies (see the module docstring), or None."""
        conversation = self.conversation
        node: DOMNode | None = self.focused
        while isinstance(node, Widget) and node is not conversation:
            if isinstance(node, CodeBlock):
                return node.code
            if conversation.is_block(node):
                return node.source if isinstance(node, AgentMessage) else transcript.block_markdown(node, conversation.agent_name)
            node = node.parent
        answers = [block for block in conversation.blocks if isinstance(block, AgentMessage)]
        return answers[-1].source if answers else None

    def action_export(self) -> None:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
        self.export_conversation(f"conversation-{stamp}.md")

    def export_conversation(self, name: str) -> Path | None:
        """Write the conversation as Markdown to `name` (relative to the project); a note says where,
        or why not (the file exists, or cannot be written). Returns the path written."""
        path = (self.project / Path(name).expanduser()).resolve()
        shown = project_relative(str(path), self.project)
        text = self.conversation.transcript()
        try:
            with path.open("x", encoding="utf-8", newline="") as handle:
                handle.write(text)
        except FileExistsError:
            self.post_to_conversation(messages.Notice(f"Not exported: {shown} exists (give another file name: /export FILE).", "error"))
            return None
        except OSError as exc:
            self.post_to_conversation(messages.Notice(f"Not exported: {exc.strerror or exc} ({shown}).", "error"))
            return None
        self.post_to_conversation(messages.Notice(f"Exported the conversation to {shown} ({len(text):,} characters)."))
        return path

    def local_command(self, text: str) -> bool:
        """Run `text` if it is one of the app's own slash commands (`/export [FILE]`); True if it was."""
        name, _, argument = text.strip().partition(" ")
        if name != "/" + EXPORT_COMMAND.name:
            return False
        if argument.strip():
            self.export_conversation(argument.strip())
        else:
            self.action_export()
        return True
