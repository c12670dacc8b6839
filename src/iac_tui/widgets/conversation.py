"""The conversation: a scrolling column of blocks that follows its bottom while it grows.

It follows new output unless the person scrolls up (Textual's anchor, released by a scroll);
scrolling back to the bottom, `follow()`, sending a prompt or entering another session follow
again. While it does not follow, it counts the blocks added below (`unread`) and posts
`FollowChanged` on every change (for the badge).

Blocks are user messages, agent messages, thoughts, tool-call panels, plans and notes. Text
chunks go to the open message or thought (a new block starts when the kind of content changes);
tool calls are found by id and updated in place; each turn has one plan, updated in place and
moved to the bottom when it changes.

A long session would grow without end (memory, and the layout work of every keystroke), so
once the blocks take more than `max_rows` rows the oldest finished blocks are pruned down to
`PRUNE_TO` of it, while the view follows the bottom (never under the reader's eyes). The last
two turns (the one running, or just received, and the one before) are never pruned, however
long. What is pruned is kept as Markdown (`iac_tui.transcript`): the note at the top says how
many blocks went, and enter or a click on it opens them in the pager; `transcript()` (export)
includes them. The session itself is untouched: loading it again shows everything.

The blocks sit in pages (`iac_tui.widgets.parking`): a page far out of view is parked, so that a
layout pass costs what is near the view, not what the session holds.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.content import Content
from textual.css.query import NoMatches
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget

from iac_tui import config, messages
from iac_tui.messages import PermissionAnswer
from iac_tui.widgets.agent_error import AgentError
from iac_tui.widgets.note import Note, PrunedNote
from iac_tui.widgets.parking import PAGE_BLOCKS, Page, Parking
from iac_tui.widgets.plan import PlanView
from iac_tui.widgets.welcome import Welcome

if TYPE_CHECKING:  # the SDK loads after the first paint; the blocks are imported where used (`iac_tui.sdk`)
    from acp.schema import PlanEntry, ToolCallUpdate

    from iac_tui.terminals import Terminal
    from iac_tui.widgets.message import AgentMessage, UserMessage
    from iac_tui.widgets.thought import Thought
    from iac_tui.widgets.tool_call import AnyToolCall, ToolCallPanel

PRUNE_TO = 0.6  # of max_rows
STOP_REASONS = {
    "cancelled": ("Cancelled.", "warning"),
    "max_tokens": ("Stopped: the model reached its output token limit (max_tokens).", "warning"),
    "max_turn_requests": ("Stopped: the turn reached its limit of model requests (max_turn_requests).", "warning"),
    "refusal": ("Stopped: the model refused to go on (refusal).", "warning"),
}


class Conversation(VerticalScroll, can_focus=False):
    """The conversation view of one session; `root` is the project dir (for relative paths);
    `max_rows` (default `config.max_conversation_rows()`) bounds what it keeps; `project_label`
    is how the welcome names the project.

    It receives the agent's messages (`iac_tui.messages`) itself and draws them; they bubble on
    to the app afterwards."""

    BLANK = True  # drawn as its background: see `iac_tui.widgets.auto_height`

    @dataclass
    class FollowChanged(Message):
        """Following the bottom started or stopped, or `unread` blocks were added below the view."""

        following: bool
        unread: int

    def __init__(self, root: Path, max_rows: int | None = None, project_label: str = "") -> None:
        super().__init__(id="conversation")
        self.root = root
        self.project_label = project_label
        self.agent_name = "the agent"  # set by the app from `initialize`, for the welcome
        self.max_rows = max_rows or config.max_conversation_rows()
        self.pruned = 0  # blocks pruned so far
        self.pruned_markdown: list[str] = []  # what they showed (`iac_tui.transcript`)
        self._prune_pending = False
        self._streaming: AgentMessage | Thought | UserMessage | None = None
        self._tools: dict[str, ToolCallPanel] = {}
        self._plan: PlanView | None = None
        self._terminals: dict[str, Terminal] = {}  # client terminals by id
        self.following = True
        self.unread = 0
        self.parking = Parking(self, self._live)

    def on_mount(self) -> None:
        self.anchor()
        self.screen.screen_layout_refresh_signal.subscribe(self, lambda _screen: self.parking.after_layout())
        # the first diff would pay Pygments' start-up; pay it in the background once the app runs
        self.set_timer(1.0, lambda: self.run_worker(_warm_up_highlighting, thread=True, exit_on_error=False, group="warm-up"))

    # ----- what the agent says: the client posts it here, in arrival order -----
    # Each message then bubbles up to the app, which keeps the session state and the status bar.
    # What is still queued when the app closes is handled during the close, when nothing mounts
    # any more (a new block's own mounts would raise): it is dropped (`closing`).

    @property
    def closing(self) -> bool:
        """The app is closing (or gone): the agent's messages are not drawn any more."""
        return not self.is_attached

    async def on_message_chunk(self, message: messages.MessageChunk) -> None:
        if self.closing:
            return
        if message.attachment is not None:
            await self.user_attachment(message.attachment)
        elif message.role == "user":
            await self.user_text(message.text)
        else:
            await self.agent_text(message.text)

    async def on_thought_chunk(self, message: messages.ThoughtChunk) -> None:
        if self.closing:
            return
        await self.thought_text(message.text)

    async def on_tool_call(self, message: messages.ToolCall) -> None:
        if self.closing:
            return
        await self.tool_call(message.update)

    async def on_terminal_output(self, message: messages.TerminalOutput) -> None:
        if self.closing:
            return
        await self.terminal_output(message.terminal)

    async def on_plan_changed(self, message: messages.PlanChanged) -> None:
        if self.closing:
            return
        await self.plan(message.entries)

    async def on_permission_requested(self, message: messages.PermissionRequested) -> None:
        if self.closing:
            return
        await self.awaiting_permission(message.tool_call, message.reply)

    async def on_session_entered(self, message: messages.SessionEntered) -> None:
        if self.closing:
            return
        await self.clear()

    async def on_session_opened(self, message: messages.SessionOpened) -> None:
        if self.closing:
            return
        await self.close_open()
        if message.how == "new":
            await self.welcome(self.agent_name, self.project_label)
        if message.note:
            await self.note(message.note)
        elif message.how == "load":
            await self.note("Session loaded.")

    async def on_notice(self, message: messages.Notice) -> None:
        if self.closing:
            return
        await self.note(message.text, message.variant)

    async def on_turn_ended(self, message: messages.TurnEnded) -> None:
        if self.closing:
            return
        await self.close_open()
        self.interrupt_unfinished()
        if message.error:
            await self.note(f"The prompt failed: {message.error}", "error")
        elif message.stop_reason and message.stop_reason != "end_turn":
            text, variant = STOP_REASONS.get(message.stop_reason, (f"Stopped: {message.stop_reason}.", "warning"))
            await self.note(text, variant)

    async def on_agent_stopped(self, message: messages.AgentStopped) -> None:
        if self.closing:
            return
        self.interrupt_unfinished()
        await self.agent_error(message.reason, message.stderr_tail, message.log_path)

    # ----- following the bottom -----

    def follow(self) -> None:
        """Follow the bottom again (scrolls to the end)."""
        self.anchor()
        self._set_following(True)

    def release_anchor(self) -> None:
        """A scroll away from the end (by the person): stop following."""
        super().release_anchor()
        self._set_following(False)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.parking.near_view()  # before the next paint
        if not self.following and new_value >= self.max_scroll_y:  # back at the bottom: Textual re-anchors too
            self._set_following(True)

    def _set_following(self, following: bool) -> None:
        changed = following != self.following or (following and self.unread)
        if following:
            self.unread = 0
        self.following = following
        if changed:
            self.post_message(self.FollowChanged(following, self.unread))

    @property
    def blocks(self) -> list[Widget]:
        """The blocks, top to bottom (the pruned note, then those of every page)."""
        out: list[Widget] = []
        for child in self.children:
            if isinstance(child, Page):
                out.extend(child.children)
            else:
                out.append(child)
        return out

    def is_block(self, widget: Widget) -> bool:
        """Whether `widget` is one of the blocks (not a part of one)."""
        return widget.parent is self or (isinstance(widget.parent, Page) and widget.parent.parent is self)

    async def _add(self, widget: Widget, *, turn: bool = False) -> None:
        """Add a block at the bottom; `turn`: it starts a turn (a page may start with it)."""
        last = self.children[-1] if self.children else None
        if not isinstance(last, Page) or (turn and len(last.children) >= PAGE_BLOCKS):
            last = Page()
            await self.mount(last)
        self.parking.watch(last)  # (woken, if the reader had left it far behind)
        await last.mount(widget)
        if not self.following:
            self.unread += 1
            self.post_message(self.FollowChanged(False, self.unread))
        self._schedule_prune()

    def watch_virtual_size(self, size: Size) -> None:
        """Layout changed the blocks' height: check it against `max_rows`. A check scheduled when
        a block was added can run before layout (inside an `App.batch_update` Textual runs
        `call_after_refresh` callbacks at once) and count the new block as 0 rows; the laid-out
        height, which Textual sets here, is what pruning measures."""
        if size.height > self.max_rows:
            self._schedule_prune()

    def _schedule_prune(self) -> None:
        """Check the rows once the screen is laid out (after a block is added or finished)."""
        if not self._prune_pending:
            self._prune_pending = True
            self.call_after_refresh(self._prune)

    def _rows(self, widget: Widget) -> int:
        return widget.outer_size.height + widget.styles.margin.top + widget.styles.margin.bottom

    def _removable(self, widget: Widget) -> bool:
        """A finished block: not streaming, not a running or pending tool call, not the plan."""
        from iac_tui.widgets.tool_call import ToolCallPanel

        if widget is self._streaming or widget is self._plan or isinstance(widget, PlanView):
            return False
        if isinstance(widget, ToolCallPanel):
            return widget.finished and not widget.awaiting_permission
        return True

    def _live(self, widget: Widget) -> bool:
        """A block whose height may still change: streaming, a running or pending tool call, a
        question, the turn's plan (never parked)."""
        from iac_tui.widgets.tool_call import ToolCallPanel

        if widget is self._streaming or widget is self._plan:
            return True
        return isinstance(widget, ToolCallPanel) and (not widget.finished or widget.awaiting_permission)

    def _kept_from(self, blocks: list[Widget]) -> int:
        """The index of the first block of the last two turns (they are never pruned)."""
        from iac_tui.widgets.message import UserMessage

        starts = [i for i, block in enumerate(blocks) if isinstance(block, UserMessage)]
        return starts[-2] if len(starts) >= 2 else (starts[0] if starts else len(blocks) - 1)

    async def _prune(self) -> None:
        """Remove the oldest finished blocks once the blocks take more than `max_rows` rows."""
        from iac_tui import transcript
        from iac_tui.widgets.tool_call import ToolCallPanel

        self._prune_pending = False
        blocks = [b for b in self.blocks if not isinstance(b, PrunedNote)]
        total = sum(self._rows(b) for b in blocks)
        if total <= self.max_rows or not self.following:  # not while the reader is scrolled up
            return
        target = int(self.max_rows * PRUNE_TO)
        doomed: list[Widget] = []
        for block in blocks[: self._kept_from(blocks)]:
            if total <= target:
                break
            if self._removable(block):
                doomed.append(block)
                total -= self._rows(block)
        if not doomed:
            return
        for block in doomed:
            if isinstance(block, ToolCallPanel):
                self._tools.pop(block.tool_call_id, None)
            markdown = transcript.block_markdown(block, self.agent_name)
            if markdown:
                self.pruned_markdown.append(markdown)
        self.pruned += len(doomed)
        with self.app.batch_update():
            pages: dict[Widget, list[Widget]] = {}
            for block in doomed:
                pages.setdefault(block.parent, []).append(block)  # type: ignore[arg-type]  # a mounted block's parent is its page, a Widget
            for page, gone in pages.items():
                if len(gone) == len(page.children):
                    await page.remove()
                else:
                    await page.remove_children(gone)
                    if isinstance(page, Page):  # woken after the removal: parked meanwhile (a layout
                        self.parking.watch(page)  # may run while this awaits), it would keep the height of what it lost
            text = f"… {self.pruned:,} earlier blocks were pruned to keep the app fast: enter or a click opens them (ctrl+s loads the whole session again)"
            notes = self.query_children(PrunedNote)
            if notes:
                note = notes.first()
                note.text = text
                note.update(Content(text))
            else:
                await self.mount(PrunedNote(text, lambda: transcript.join(self.pruned_markdown)), before=0)

    def transcript(self) -> str:
        """The whole conversation as Markdown, pruned blocks included (`iac_tui.transcript`)."""
        from iac_tui import transcript

        parts = list(self.pruned_markdown)
        for block in self.blocks:
            if not isinstance(block, PrunedNote):
                markdown = transcript.block_markdown(block, self.agent_name)
                if markdown:
                    parts.append(markdown)
        return transcript.join(parts)

    async def close_open(self, collapse_thought: bool = True) -> None:
        """Finish the streaming message or thought, if any."""
        from iac_tui.widgets.message import AgentMessage
        from iac_tui.widgets.thought import Thought

        block, self._streaming = self._streaming, None
        if isinstance(block, AgentMessage):
            await block.finish()
        elif isinstance(block, Thought):
            await block.finish(collapse=collapse_thought)
        if block is not None:
            self._schedule_prune()

    # ----- content -----

    async def add_user(self, text: str, attachments: list[str] | None = None) -> UserMessage:
        """A prompt the user sent (starts a new turn)."""
        from iac_tui.widgets.message import UserMessage

        await self.close_open()
        self._plan = None
        message = UserMessage(text, attachments)
        await self._add(message, turn=True)
        self.follow()
        return message

    async def _replayed_user(self) -> UserMessage:
        from iac_tui.widgets.message import UserMessage

        if not isinstance(self._streaming, UserMessage):
            await self.close_open()
            self._plan = None
            self._streaming = UserMessage()
            await self._add(self._streaming, turn=True)
        return self._streaming

    async def user_text(self, text: str) -> None:
        """A replayed user message chunk."""
        (await self._replayed_user()).append(text)

    async def user_attachment(self, name: str) -> None:
        """A file attached to a replayed user message."""
        (await self._replayed_user()).attach(name)

    async def agent_text(self, text: str) -> None:
        """An agent message chunk."""
        from iac_tui.widgets.message import AgentMessage

        if not isinstance(self._streaming, AgentMessage):
            await self.close_open()
            self._streaming = AgentMessage()
            await self._add(self._streaming)
        await self._streaming.write(text)

    async def thought_text(self, text: str) -> None:
        """An agent thought chunk."""
        from iac_tui.widgets.thought import Thought

        if not isinstance(self._streaming, Thought):
            await self.close_open()
            self._streaming = Thought()
            await self._add(self._streaming)
        await self._streaming.write(text)

    def tool_panel(self, tool_call_id: str) -> ToolCallPanel | None:
        """The panel of a tool call, if it is shown."""
        return self._tools.get(tool_call_id)

    async def tool_call(self, update: AnyToolCall) -> ToolCallPanel:
        """A `tool_call` or `tool_call_update` (an update for an unknown id starts a panel)."""
        from iac_tui.widgets.tool_call import ToolCallPanel

        panel = self._tools.get(update.tool_call_id)
        if panel is None:
            await self.close_open()
            panel = ToolCallPanel(update.tool_call_id, self.root, self._terminals)
            self._tools[update.tool_call_id] = panel
            await self._add(panel)
        await panel.apply(update)
        return panel

    async def awaiting_permission(self, tool_call: ToolCallUpdate, reply: PermissionAnswer) -> ToolCallPanel:
        """Show a permission request's tool call (a panel marked as waiting until `reply` is settled)."""
        panel = await self.tool_call(tool_call)
        panel.set_awaiting_permission(True)
        def settled(_: object) -> None:
            with contextlib.suppress(NoMatches):  # the panel went away with its session
                panel.set_awaiting_permission(False)

        reply.future.add_done_callback(settled)
        if self._plan is not None and self._plan.is_attached:
            self._place_plan()
        return panel

    async def terminal_output(self, terminal: Terminal) -> None:
        """A client terminal printed or exited: refresh the calls showing it."""
        self._terminals[terminal.id] = terminal
        for panel in self._tools.values():
            if panel.shows_terminal(terminal.id):
                await panel.terminal_changed()

    async def plan(self, entries: list[PlanEntry]) -> PlanView:
        """The turn's plan: updated in place, and moved to the bottom if other blocks followed it,
        but never below a tool call that awaits approval (it would push the diff off the screen).

        A tool call running when the plan arrives is the one that published it: its output
        (the same list as text) is folded.
        """
        for panel in reversed(list(self._tools.values())):
            if panel.status == "in_progress":
                panel.fold_output()
                break
        if self._plan is None or not self._plan.is_attached:
            await self.close_open()
            self._plan = PlanView(entries)
            await self._add(self._plan)
            return self._plan
        self._plan.set_entries(entries)
        await self.close_open()
        self._place_plan()
        return self._plan

    def _place_plan(self) -> None:
        """Put the plan at the bottom, or just above the first tool call awaiting approval."""
        from iac_tui.widgets.tool_call import ToolCallPanel

        plan = self._plan
        assert plan is not None
        page = plan.parent  # the turn's page: its blocks are the turn's
        assert isinstance(page, Page)
        children = list(page.children)
        awaiting = next((c for c in children if isinstance(c, ToolCallPanel) and c.awaiting_permission), None)
        if awaiting is not None:
            index = children.index(awaiting)
            if index == 0 or children[index - 1] is not plan:
                page.move_child(plan, before=awaiting)
        elif children[-1] is not plan:
            page.move_child(plan, after=children[-1])

    async def note(self, text: str, variant: str = "info") -> Note:
        """A note (stop reason, error, session event)."""
        await self.close_open()
        note = Note(text, variant)
        await self._add(note)
        return note

    async def welcome(self, agent_name: str, project_label: str) -> None:
        """Greet a new, empty session."""
        if not self.blocks:
            await self._add(Welcome(agent_name, project_label))

    async def agent_error(self, reason: str, stderr_tail: list[str], log_path: str | None) -> AgentError:
        """The agent stopped: show why and how to restart."""
        await self.close_open()
        block = AgentError(reason, stderr_tail, log_path)
        await self._add(block)
        self.follow()
        return block

    async def clear(self) -> None:
        """Remove every block (a different session is shown next)."""
        await self.close_open()
        self._tools.clear()
        self._terminals.clear()
        self._plan = None
        self.pruned = 0
        self.pruned_markdown = []
        self.parking.forget()
        await self.remove_children()
        self.follow()

    def interrupt_unfinished(self) -> int:
        """Mark every tool call still pending or running as interrupted (the turn or the agent
        ended without a final update for it); returns how many there were."""
        unfinished = [panel for panel in self._tools.values() if not panel.finished]
        for panel in unfinished:
            panel.interrupt()
        return len(unfinished)

    def focus_newest(self) -> bool:
        """Focus the newest block that takes the focus (a tool call or a thought); False if none."""
        from iac_tui.widgets.thought import Thought
        from iac_tui.widgets.tool_call import ToolCallPanel

        for block in reversed(self.blocks):
            if isinstance(block, (ToolCallPanel, Thought)) and block.focusable:
                block.focus()
                return True
        return False

    def thoughts(self) -> list[Thought]:
        """Every thought block."""
        from iac_tui.widgets.thought import Thought

        return list(self.query(Thought))

    def tool_panels(self) -> list[ToolCallPanel]:
        """Every tool-call panel, top to bottom."""
        from iac_tui.widgets.tool_call import ToolCallPanel

        return list(self.query(ToolCallPanel))


def _warm_up_highlighting() -> None:
    from iac_tui.widgets.diff import warm_up_highlighting

    warm_up_highlighting()
