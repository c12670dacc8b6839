"""Copy and export: what f5 copies, and the conversation written by f8 and `/export [FILE]`.

f5 copies the focused block (a code block: its body, byte for byte; a thought or a tool call: its
Markdown, `iac_tui.transcript`), or else the newest answer's source Markdown as it was streamed;
the app puts it on the clipboard with `App.copy_to_clipboard` (OSC 52: the terminal puts it on
the system clipboard). f8 writes `Conversation.transcript()` (pruned blocks included) to a new
file `conversation-<UTC time>.md` in the project; `/export FILE` to FILE (relative to the
project), which must not exist yet. Either way a note in the conversation says where it went.
Functions of what they are given (the conversation, the focused widget, the project); the app's
actions call them.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual.dom import DOMNode
from textual.widget import Widget

from iac_tui import messages
from iac_tui.display import project_relative
from iac_tui.widgets.prompt import Command

if TYPE_CHECKING:
    from iac_tui.widgets.conversation import Conversation

EXPORT_COMMAND = Command("export", "write the conversation to a Markdown file (iac-tui)", "file name")


def block_to_copy(conversation: Conversation, focused: DOMNode | None) -> str | None:
    """What f5 copies (see the module docstring) with `focused` the app's focused widget, or None
    when there is nothing to copy yet."""
    from iac_tui import transcript  # (the blocks' modules load behind the first paint: `iac_tui.sdk`)
    from iac_tui.widgets.code import CodeBlock
    from iac_tui.widgets.message import AgentMessage

    node = focused
    while isinstance(node, Widget) and node is not conversation:
        if isinstance(node, CodeBlock):
            return node.code
        if conversation.is_block(node):
            return node.source if isinstance(node, AgentMessage) else transcript.block_markdown(node, conversation.agent_name)
        node = node.parent
    answers = [block for block in conversation.blocks if isinstance(block, AgentMessage)]
    return answers[-1].source if answers else None


def export_conversation(conversation: Conversation, project: Path, name: str | None = None) -> messages.Notice:
    """Write the conversation as Markdown to `name` (relative to `project`; None: a new
    `conversation-<UTC time>.md`), never over an existing file. Returns the note for the
    conversation: where it went, or why not (the file exists, or cannot be written)."""
    if name is None:
        name = f"conversation-{datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%d-%H%M%S')}.md"
    path = (project / Path(name).expanduser()).resolve()
    shown = project_relative(str(path), project)
    text = conversation.transcript()
    try:
        with path.open("x", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except FileExistsError:
        return messages.Notice(f"Not exported: {shown} exists (give another file name: /export FILE).", "error")
    except OSError as exc:
        return messages.Notice(f"Not exported: {exc.strerror or exc} ({shown}).", "error")
    return messages.Notice(f"Exported the conversation to {shown} ({len(text):,} characters).")


def export_request(text: str) -> str | None:
    """The file `text` asks `/export` to write ("" for none given: a new file is named), or None
    when `text` is not the app's own `/export` command (it goes to the agent)."""
    name, _, argument = text.strip().partition(" ")
    if name != "/" + EXPORT_COMMAND.name:
        return None
    return argument.strip()
