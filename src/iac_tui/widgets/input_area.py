"""Everything between the conversation and the status bar, and who owns the keys there.

From top to bottom: the follow badge, the working indicator, the prompts queued for the end of
the turn, the completion list, the docked permission question and the prompt box. While a question is pending it owns the keyboard: the
prompt box is disabled (its draft is kept, and keys typed meanwhile edit its end), the
working indicator makes room; when the last question is settled the prompt box takes the keys
back.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Vertical

from iac_tui.history import PromptHistory
from iac_tui.widgets.badge import FollowBadge
from iac_tui.widgets.completion import CompletionList
from iac_tui.widgets.permission import PermissionQuestion
from iac_tui.widgets.prompt import PromptArea
from iac_tui.widgets.queued import QueuedPrompts
from iac_tui.widgets.working import WorkingIndicator

PLACEHOLDER = "Ask the agent…   / commands · @ files · f1 help"


class InputArea(Vertical):
    """The input dock; `files()` lists the project's files for `@` completion, `animate` False
    stills the spinner and the cursor (snapshots)."""

    def __init__(self, history: PromptHistory, files: Callable[[], list[str]], animate: bool = True) -> None:
        super().__init__(id="input-area")
        self.history = history
        self.files = files
        self.animated = animate  # not `animate`: that is Widget.animate(), which Textual calls
        self.working = False  # a turn runs (the indicator comes back after a question)
        self.following = True
        self.unread = 0

    def compose(self) -> ComposeResult:
        yield FollowBadge()
        yield WorkingIndicator(animate=self.animated)
        yield QueuedPrompts(id="queued")
        yield CompletionList()
        yield PermissionQuestion(last_typed=lambda: self.prompt_box.last_key_at)
        yield PromptArea(self.history, cursor_blink=self.animated, placeholder=PLACEHOLDER)

    def on_mount(self) -> None:
        prompt_box = self.prompt_box
        prompt_box.completion = self.query_one(CompletionList)
        prompt_box.files = self.files

    @property
    def prompt_box(self) -> PromptArea:
        """The prompt editor."""
        return self.query_one(PromptArea)

    @property
    def queued(self) -> QueuedPrompts:
        """The prompts waiting for the turn to end."""
        return self.query_one(QueuedPrompts)

    @property
    def question(self) -> PermissionQuestion:
        """The docked permission question."""
        return self.query_one(PermissionQuestion)

    @property
    def indicator(self) -> WorkingIndicator:
        """The working indicator."""
        return self.query_one(WorkingIndicator)

    def focus_prompt(self) -> None:
        """Give the keys to the prompt box, unless it has them."""
        if not isinstance(self.app.focused, PromptArea):
            self.prompt_box.focus()

    def on_permission_question_changed(self, message: PermissionQuestion.Changed) -> None:
        self._refresh_badge()
        prompt_box = self.prompt_box
        prompt_box.disabled = message.pending > 0
        if message.pending:
            self.indicator.stop()
            return
        prompt_box.focus()
        if self.working:
            self.indicator.start("Working…")

    def on_permission_question_typed(self, message: PermissionQuestion.Typed) -> None:
        self.prompt_box.type_at_end(message.keys)

    def show_follow(self, following: bool, unread: int) -> None:
        """The conversation follows its bottom, or not (`unread` blocks came below the view)."""
        self.following, self.unread = following, unread
        self._refresh_badge()

    def _refresh_badge(self) -> None:
        self.query_one(FollowBadge).show_state(self.following, self.unread, self.question.current is not None)
