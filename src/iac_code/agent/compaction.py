"""Context compaction: summarise older turns so a long session fits the model's context window.

The conversation is cut at the start of a prompt turn (a user message typed by the user): the
most recent `keep_turns` turns are kept whole and everything before is summarised by the model.
When the kept turns alone would fill more than `KEEP_SHARE` of the context window (one long turn
of many tool calls), the cut moves forward into the turn, to the start of an assistant message.
Either way a `tool_use` and its `tool_result` stay on the same side of the cut.

The summary request shows the model the older messages with their tool uses and tool results
written out as text (results abridged to `RESULT_CHARS`), so it needs no tool definitions (the
Messages API rejects `tool_use` blocks in a request without tools) and no thinking signatures.
The summary then replaces the older messages, and the conversation's journal persists the
replacement, so a reloaded session continues from the compacted history.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from iac_code.core.conversation import (
    ContentBlock,
    Conversation,
    ImageBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    estimate_tokens,
    user_text,
)
from iac_code.core.provider import (
    MessageDone,
    ModelRequest,
    Provider,
    ProviderError,
    Usage,
)

THRESHOLD = 0.8
"""Compact when the conversation uses this share of the context window."""

KEEP_SHARE = 0.5
"""The most of the context window the messages kept whole may use."""

SUMMARY_MAX_TOKENS = 4096
RESULT_CHARS = 4000
"""Characters of each tool result (and of each tool input) shown to the summary request."""

SUMMARY_INSTRUCTION = (
    "Summarise the conversation so far for your own later use; it will replace the messages above. "
    "Keep: the user's goals and constraints, decisions taken, files read or changed (with paths and "
    "what changed), commands run and their outcome, open problems and next steps. If the user's "
    "latest request is still being worked on, quote it verbatim and say what remains to do. Be "
    "specific and concise; write it as notes, not as a reply to the user."
)
SUMMARY_SYSTEM = "You write compact, faithful summaries of coding sessions on infrastructure-as-code projects."
SUMMARY_OPEN = "<summary of the earlier conversation>"
SUMMARY_CLOSE = "</summary of the earlier conversation>"
ACK = "Understood. I have the summary of our earlier conversation and will continue from it."


@dataclass(slots=True)
class Outcome:
    """A finished compaction: token estimates before and after, and the summary request's usage.

    When the summary would not have made the conversation smaller (`shrunk` false), the
    conversation was left as it was."""

    before_tokens: int
    after_tokens: int
    usage: Usage

    @property
    def shrunk(self) -> bool:
        """Whether the summary replaced the older messages (it was smaller than them)."""
        return self.after_tokens < self.before_tokens

    def notice(self) -> str:
        """The notice the client is shown (PROTOCOL.md: `A -> B tokens`); a compaction that did
        not shrink the context says so instead of reporting it done."""
        if not self.shrunk:
            return (
                f"\n\n_context not compacted: a summary would not be smaller ({self.before_tokens} -> "
                f"{self.after_tokens} tokens); the conversation is kept as it was_\n\n"
            )
        return f"\n\n_context compacted: {self.before_tokens} -> {self.after_tokens} tokens_\n\n"


def needed(used_tokens: int, context_window: int) -> bool:
    """Whether a conversation of `used_tokens` should be compacted before the next request."""
    return used_tokens >= context_window * THRESHOLD


@dataclass(slots=True)
class ContextMeter:
    """How full the context window is during one turn, in tokens.

    `tokens` is what the last model request used (its prompt and its output) and covers the first
    `messages` messages of the conversation; the messages added since are estimated. `futile` is
    set once a summary would not have made the conversation smaller: not tried again this turn.
    """

    tokens: int = 0
    messages: int = 0
    futile: bool = False

    def measure(self, usage: Usage, messages: int) -> int:
        """Record a model request's `usage`, `messages` being the conversation's length with its
        answer; returns the tokens the conversation now uses."""
        self.tokens, self.messages = usage.context_tokens + usage.output_tokens, messages
        return self.tokens

    def due(self, messages: list[Message], context_window: int) -> bool:
        """Whether `messages` (the conversation) should be compacted before the next request."""
        used = self.tokens + estimate_tokens(messages[self.messages :]) if self.messages else estimate_tokens(messages)
        return not self.futile and needed(used, context_window)

    def compacted(self, outcome: Outcome, messages: int) -> None:
        """Record a compaction's `outcome`, `messages` being the conversation's length after it."""
        self.futile = not outcome.shrunk
        if outcome.shrunk:
            self.tokens, self.messages = outcome.after_tokens, messages


def cut_index(messages: list[Message], keep_turns: int, keep_tokens: int | None = None) -> int:
    """Index of the first message kept whole; 0 when there is nothing to summarise.

    The cut is the start of the `keep_turns`-th last prompt turn. If the messages from there on
    estimate above `keep_tokens`, it moves to the first later assistant message from which they
    fit, or to the last assistant message if none does. A cut is never placed at a message of
    tool results, so every kept `tool_result` keeps its `tool_use`.
    """
    starts = [i for i, m in enumerate(messages) if m.is_prompt]
    cut = starts[-keep_turns] if 1 <= keep_turns <= len(starts) else 0
    if keep_tokens is None:
        return cut
    suffix = [0] * (len(messages) + 1)  # suffix[i]: estimated tokens of messages[i:]
    for i in range(len(messages) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + estimate_tokens([messages[i]])
    if suffix[cut] <= keep_tokens:
        return cut
    safe = [i for i in range(cut + 1, len(messages)) if messages[i].role == "assistant" or messages[i].is_prompt]
    return next((i for i in safe if suffix[i] <= keep_tokens), safe[-1] if safe else cut)


async def compact(conversation: Conversation, provider: Provider, model: str, keep_turns: int = 1) -> Outcome | None:
    """Summarise all but the last `keep_turns` turns (see the module docstring).

    Returns None when there is nothing to summarise. Raises `ProviderError` when the summary
    request fails; the conversation is then left unchanged, as it is when the summary would not
    be smaller than what it replaces (`Outcome.shrunk`).
    """
    messages = conversation.messages
    keep_tokens = int(provider.context_window(model) * KEEP_SHARE)
    cut = cut_index(messages, keep_turns, keep_tokens)
    if cut == 0:
        return None
    older, kept = messages[:cut], messages[cut:]
    request = ModelRequest(
        model=model,
        system=SUMMARY_SYSTEM,
        messages=[*written_out(older), user_text(SUMMARY_INSTRUCTION)],
        max_tokens=SUMMARY_MAX_TOKENS,
        purpose="compaction",
    )
    done: MessageDone | None = None
    async for event in provider.stream(request):
        if isinstance(event, MessageDone):
            done = event
    if done is None or not done.message.text().strip():
        raise ProviderError("incomplete", "the summary request returned no text")
    summary = user_text(f"{SUMMARY_OPEN}\n{done.message.text().strip()}\n{SUMMARY_CLOSE}")
    if kept[0].role == "assistant":  # cut inside a turn: the summary answers for the user's side
        replacement = [summary, *kept]
    else:
        replacement = [summary, Message(role="assistant", content=[TextBlock(text=ACK)]), *kept]
    outcome = Outcome(before_tokens=estimate_tokens(messages), after_tokens=estimate_tokens(replacement), usage=done.usage)
    if outcome.shrunk:
        conversation.replace(replacement, "compaction")
    return outcome


def written_out(messages: list[Message]) -> list[Message]:
    """`messages` with tool uses, tool results and images as text blocks and thinking left out.

    Roles and order are kept; messages left empty are dropped.
    """
    names = {b.id: b.name for m in messages for b in m.content if isinstance(b, ToolUseBlock)}
    out: list[Message] = []
    for message in messages:
        content: list[ContentBlock] = []
        for block in message.content:
            if isinstance(block, TextBlock):
                content.append(block)
            elif isinstance(block, ImageBlock):
                content.append(TextBlock(text=f"[image: {block.name or block.media_type}]"))
            elif isinstance(block, ToolUseBlock):
                content.append(TextBlock(text=f"[tool use: {block.name} {_abridged(json.dumps(block.input))}]"))
            elif isinstance(block, ToolResultBlock):
                label = "failed" if block.is_error else "result"
                name = names.get(block.tool_use_id, "tool")
                content.append(TextBlock(text=f"[tool {label} of {name}]\n{_abridged(block.content)}"))
        if content:
            out.append(Message(role=message.role, content=content))
    return out


def _abridged(text: str) -> str:
    if len(text) <= RESULT_CHARS:
        return text
    return f"{text[:RESULT_CHARS]}\n[... {len(text) - RESULT_CHARS} more characters left out]"
