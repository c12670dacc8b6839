"""The conversation as Markdown: what export writes, copy takes, and pruning keeps.

`block_markdown(block, agent_name)` is one conversation block as Markdown. The agent's answers
are their source exactly as streamed (code blocks byte for byte, fence lines included); the user's
prompts, thoughts, tool calls (title, status, text output in a fence), plans and notes get a
small Markdown frame of their own. A transcript is the blocks' Markdown joined by a blank line.
"""

from __future__ import annotations

from textual.widget import Widget

from iac_tui.widgets.agent_error import AgentError
from iac_tui.widgets.code import CodeBlock
from iac_tui.widgets.message import AgentMessage, UserMessage
from iac_tui.widgets.note import Note
from iac_tui.widgets.plan import PlanView
from iac_tui.widgets.thought import Thought
from iac_tui.widgets.tool_call import ToolCallPanel
from iac_tui.widgets.welcome import Welcome

PLAN_MARKS = {"completed": "x", "in_progress": "~", "pending": " "}


def fenced(text: str, info: str = "") -> str:
    """`text` in a code fence longer than any backtick run inside it (so it cannot end early)."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}{'' if text.endswith(chr(10)) or not text else chr(10)}{fence}\n"


def block_markdown(block: Widget, agent_name: str = "Agent") -> str | None:
    """Block `block` of the conversation as Markdown (None for blocks with nothing to keep: the welcome)."""
    if isinstance(block, AgentMessage):
        return f"**{agent_name}:**\n\n{block.source}"
    if isinstance(block, UserMessage):
        attached = "".join(f"\n- attached: `{name}`" for name in block.attachments)
        return f"## You\n\n{block.text}\n{attached}"
    if isinstance(block, Thought):
        quoted = "\n".join(f"> {line}" if line else ">" for line in block.body.source.splitlines())
        return f"> *Thought*\n>\n{quoted}\n"
    if isinstance(block, ToolCallPanel):
        head = f"**Tool call:** {block.title or block.kind} ({block.status})\n"
        output = block.output_text()
        return head + ("\n" + fenced(output) if output else "")
    if isinstance(block, PlanView):
        lines = [f"- [{PLAN_MARKS.get(e.status, ' ')}] {e.content}" for e in block.entries]
        return "**Plan:**\n\n" + "\n".join(lines) + "\n"
    if isinstance(block, AgentError):
        return f"*Agent stopped: {block.reason}*\n"
    if isinstance(block, Note):
        return f"*{block.text}*\n"
    if isinstance(block, CodeBlock):
        return block.source
    if isinstance(block, Welcome):
        return None
    return None


def join(parts: list[str]) -> str:
    """Markdown parts as one document: each ends with a newline, a blank line between them."""
    return "\n".join(part if part.endswith("\n") else part + "\n" for part in parts if part)
