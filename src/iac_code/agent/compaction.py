"""Context compaction: summarise older turns so a long session fits the model's context window.

The conversation is cut at the start of a prompt turn (a user message typed by the user), so a
`tool_use` and its `tool_result` are never separated. Everything before the cut is summarised
by the model; the most recent `keep_turns` turns are kept whole. The result replaces the
conversation (and is persisted as such by its journal).
"""

from __future__ import annotations

from dataclasses import dataclass

from iac_code.agent.conversation import Conversation, Message, TextBlock, estimate_tokens, user_text
from iac_code.providers.base import MessageDone, ModelRequest, Provider, ProviderError, Usage

THRESHOLD = 0.8
"""Compact when the conversation uses this share of the context window."""

SUMMARY_INSTRUCTION = (
    "Summarise the conversation so far for your own later use; it will replace the messages above. "
    "Keep: the user's goals and constraints, decisions taken, files read or changed (with paths and "
    "what changed), commands run and their outcome, open problems and next steps. Be specific and "
    "concise; write it as notes, not as a reply to the user."
)
SUMMARY_SYSTEM = "You write compact, faithful summaries of coding sessions on infrastructure-as-code projects."
ACK = "Understood. I have the summary of our earlier conversation and will continue from it."


@dataclass(slots=True)
class Outcome:
    """A finished compaction: token estimates before and after, and the summary request's usage."""

    before_tokens: int
    after_tokens: int
    usage: Usage

    def notice(self) -> str:
        """The notice the client is shown (PROTOCOL.md: `A -> B tokens`)."""
        return f"\n\n_context compacted: {self.before_tokens} -> {self.after_tokens} tokens_\n\n"


def needed(used_tokens: int, context_window: int) -> bool:
    """Whether a conversation of `used_tokens` should be compacted before the next request."""
    return used_tokens >= context_window * THRESHOLD


def cut_index(messages: list[Message], keep_turns: int) -> int:
    """Index of the first message kept whole: the start of the `keep_turns`-th last prompt turn.

    Returns 0 when there is nothing older than the kept turns to summarise.
    """
    starts = [i for i, m in enumerate(messages) if m.is_prompt]
    if len(starts) < keep_turns or keep_turns < 1:
        return 0
    return starts[-keep_turns]


async def compact(conversation: Conversation, provider: Provider, model: str, keep_turns: int = 1) -> Outcome | None:
    """Summarise all but the last `keep_turns` turns; None when there is nothing to summarise.

    Raises `ProviderError` when the summary request fails (the conversation is left unchanged).
    """
    messages = conversation.messages
    cut = cut_index(messages, keep_turns)
    if cut == 0:
        return None
    older, kept = messages[:cut], messages[cut:]
    before = estimate_tokens(messages)
    request = ModelRequest(
        model=model,
        system=SUMMARY_SYSTEM,
        messages=[*older, user_text(SUMMARY_INSTRUCTION)],
        max_tokens=4096,
        purpose="compaction",
    )
    done: MessageDone | None = None
    async for event in provider.stream(request):
        if isinstance(event, MessageDone):
            done = event
    if done is None or not done.message.text().strip():
        raise ProviderError("incomplete", "the summary request returned no text")
    summary = done.message.text().strip()
    replacement = [
        user_text(f"<summary of the earlier conversation>\n{summary}\n</summary of the earlier conversation>"),
        Message(role="assistant", content=[TextBlock(text=ACK)]),
        *kept,
    ]
    conversation.replace(replacement, "compaction")
    return Outcome(before_tokens=before, after_tokens=estimate_tokens(replacement), usage=done.usage)
