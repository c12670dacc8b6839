"""A tool call's panel, updated in place as `tool_call_update`s arrive.

The header (kind icon, title, status), the input line and the body are composed once; an
update changes only what it carries: statics are updated, the output text is replaced inside
its widget, and a diff widget is mounted only for a diff it has not shown yet. Text content that
is Markdown (a fenced block, as Claude's adapter sends command output) is rendered as Markdown.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalGroup, VerticalGroup
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from iac_tui.display import project_relative, strip_root
from iac_tui.file_changes import MANY_FILES, FileChange
from iac_tui.widgets.diff import EditDiff, counts_label
from iac_tui.widgets.tool_output import ToolOutput, is_markdown
from iac_tui.widgets.tool_text import input_summary, output_text

if TYPE_CHECKING:  # the SDK loads after the first paint (iac_tui.sdk)
    from acp.schema import (
        ContentToolCallContent,
        FileEditToolCallContent,
        TerminalToolCallContent,
        ToolCallLocation,
        ToolCallProgress,
        ToolCallStart,
        ToolCallUpdate,
    )

    from iac_tui.terminals import Terminal

    ToolCallContent = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent
    AnyToolCall = ToolCallStart | ToolCallProgress | ToolCallUpdate
    """A `tool_call`, a `tool_call_update`, or a permission request's tool call."""

KIND_ICONS = {
    "read": "📖",
    "edit": "📝",
    "delete": "🧹",
    "move": "📦",
    "search": "🔍",
    "execute": "💻",
    "think": "💭",
    "fetch": "🌐",
    "switch_mode": "🔀",
    "other": "🔧",
}
STATUS_LABELS = {
    "pending": ("○ pending", "-pending"),
    "in_progress": ("◐ running", "-running"),
    "completed": ("✔ done", "-completed"),
    "failed": ("✘ failed", "-failed"),
    "interrupted": ("⊘ interrupted", "-interrupted"),  # ours: the turn or the agent ended before the call did
    "asked_late": ("⊘ asked after its turn ended: cancelled", "-interrupted"),  # ours: see `asked_late()`
}
STATUS_CLASSES = ("-pending", "-running", "-completed", "-failed", "-interrupted", "-awaiting")
"""The panel's class per state (one at a time)."""
# (lines shown folded, show the last lines) per kind
PREVIEW = {"read": (0, False), "search": (6, False), "fetch": (6, False), "execute": (12, True)}
DEFAULT_PREVIEW = (10, False)
OPEN_DIFFS = 3  # diffs of one call shown open at first (the rest as one-line headers)
OPEN_DIFF_ROWS = 60  # ... as long as their changed lines stay under this
LISTED_DIFFS = 8  # diffs listed one per line; more are summed up in one line


class ToolCallPanel(VerticalGroup, can_focus=True):
    """One tool call (`tool_call_id`); `root` is the project dir (paths are shown relative to it)."""

    BINDINGS = [
        Binding("enter,space", "toggle_expanded", "Expand/collapse", show=False),
        Binding("p", "pager", "Pager"),
        Binding("v", "review", "Review diffs"),
    ]

    def __init__(self, tool_call_id: str, root: Path, terminals: Mapping[str, Terminal] | None = None) -> None:
        super().__init__(classes="-pending")
        self.tool_call_id = tool_call_id
        self.root = root
        self.terminals: Mapping[str, Terminal] = terminals if terminals is not None else {}
        self.kind = "other"
        self.title = ""
        self.status = "pending"
        self.raw_input: Any = None
        self.raw_output: Any = None
        self.content: list[ToolCallContent] = []
        self.locations: list[ToolCallLocation] = []
        self.awaiting_permission = False
        self.folded_output = False
        self.all_files_listed = False

    def compose(self) -> ComposeResult:
        with HorizontalGroup(classes="tool-header"):
            yield Static(classes="tool-icon", markup=False)
            yield Static(classes="tool-title", markup=False)
            yield Static(classes="tool-status", markup=False)
        yield Static(classes="tool-input", markup=False)
        yield VerticalGroup(classes="tool-body")
        yield Static(classes="tool-more-files", markup=False)

    @property
    def body(self) -> VerticalGroup:
        """The container of the output and diffs."""
        return self.query_one(".tool-body", VerticalGroup)

    async def apply(self, update: AnyToolCall) -> None:
        """Merge a `tool_call` / `tool_call_update` (or a permission request's tool call); None fields are unchanged."""
        if update.kind:
            self.kind = update.kind
        if update.title:
            self.title = update.title
        if update.status and not (self.awaiting_permission and update.status == "pending"):
            self.status = update.status
        if update.raw_input is not None:
            self.raw_input = update.raw_input
        if update.raw_output is not None:
            self.raw_output = update.raw_output
        if update.locations is not None:
            self.locations = list(update.locations)
        content_changed = update.content is not None
        if update.content is not None:
            self.content = list(update.content)
        self._refresh_header()
        if content_changed or self.raw_output is not None or update.status:
            await self._refresh_body()

    def fold_output(self) -> None:
        """Show this call's text output folded to one line (e.g. it repeats what another block shows)."""
        self.folded_output = True
        for child in self.query(ToolOutput):
            child.preview_lines = 0
            child.refresh_text()

    @property
    def finished(self) -> bool:
        """True once the call ended (completed, failed, interrupted or asked late)."""
        return self.status in ("completed", "failed", "interrupted", "asked_late")

    def asked_late(self) -> None:
        """The agent asked to run this call after its turn had ended; the request was answered
        `cancelled` (an agent bug: nothing may run outside a turn the person started)."""
        self.status = "asked_late"
        self.awaiting_permission = False
        self._refresh_header()

    def interrupt(self) -> None:
        """Mark an unfinished call as interrupted: its turn or its agent ended without a final update."""
        if not self.finished:
            self.status = "interrupted"
            self.awaiting_permission = False
            self._refresh_header()

    def set_awaiting_permission(self, waiting: bool) -> None:
        """Show (or stop showing) that the call waits for the user's approval."""
        self.awaiting_permission = waiting
        self._refresh_header()

    def _refresh_header(self) -> None:
        if not self.is_mounted or not self.query(".tool-icon"):  # not composed yet, or being torn down
            return
        label, cls = STATUS_LABELS.get(self.status, (self.status, "-pending"))
        if self.awaiting_permission:
            label, cls = "? needs approval", "-awaiting"
        if not self.has_class(cls):
            # one style pass over the panel, and only when its state changes: a pass reaches every
            # diff in the body, and textual-diff-view's DiffView recomposes on each
            self.remove_class(*STATUS_CLASSES, update=False)
            self.add_class(cls)
        self.query_one(".tool-icon", Static).update(KIND_ICONS.get(self.kind, KIND_ICONS["other"]))
        title = strip_root(self.title or "tool call", self.root)
        self.query_one(".tool-title", Static).update(Content(title))
        self.query_one(".tool-status", Static).update(label)
        has_diff = any(item.type == "diff" for item in self.content)
        summary = input_summary(self.raw_input, self.root, has_diff=has_diff)
        if summary and summary.removeprefix("$ ") in title:
            summary = ""
        if not summary and self.locations and not self.raw_input:
            summary = ", ".join(project_relative(loc.path, self.root) for loc in self.locations[:3])
        input_line = self.query_one(".tool-input", Static)
        input_line.update(Content(summary))
        input_line.display = bool(summary)

    def _wanted_body(self) -> list[tuple[str, Any]]:
        """What the body should show, from the content (text merged; diffs one each)."""
        items: list[tuple[str, Any]] = []
        texts: list[str] = []
        from_terminal = False

        def flush() -> None:
            nonlocal from_terminal
            if texts:
                text = "\n".join(texts)
                items.append(("markdown" if not from_terminal and is_markdown(text) else "text", text))
                texts.clear()
            from_terminal = False

        for item in self.content:
            if item.type == "diff":
                flush()
                items.append(("diff", item))
            elif item.type == "content":
                block = item.content
                texts.append(block.text if block.type == "text" else f"[{block.type}]")
            elif item.type == "terminal":
                texts.append(self._terminal_text(item.terminal_id))
                from_terminal = True
        flush()
        if not items and self.status in ("completed", "failed"):
            text = output_text(self.raw_output)
            if text:
                items.append(("text", text))
        return items

    def _terminal_text(self, terminal_id: str) -> str:
        """What a client terminal shows: its output so far (how it ended is `exit_status`)."""
        terminal = self.terminals.get(terminal_id)
        return "" if terminal is None else terminal.output.replace("\r\n", "\n")

    def shows_terminal(self, terminal_id: str) -> bool:
        """True when this call's content embeds the client terminal `terminal_id`."""
        return any(item.type == "terminal" and item.terminal_id == terminal_id for item in self.content)

    async def terminal_changed(self) -> None:
        """A terminal this call shows printed something or exited: show it."""
        await self._refresh_body()

    def exit_status(self) -> str:
        """How a command ended, shown under its output: from its `rawOutput` (`exit status 3`,
        `timed out`), else from the client terminal it ran in (`killed by SIGKILL`)."""
        if self.kind != "execute":
            return ""
        raw = self.raw_output
        if isinstance(raw, dict):
            if raw.get("timed_out"):
                return "⏱ timed out"
            code = raw.get("exit_code")
            if isinstance(code, int):
                return f"{'✔' if code == 0 else '✘'} exit status {code}"
        for item in self.content:
            terminal = self.terminals.get(item.terminal_id) if item.type == "terminal" else None
            ended = terminal.exit_status if terminal is not None else None
            if ended is not None:
                if ended.signal is not None:
                    return f"✘ killed by {ended.signal}"
                return f"{'✔' if ended.exit_code == 0 else '✘'} exit status {ended.exit_code}"
        return ""

    async def _refresh_body(self) -> None:
        """Bring the body in line with the content: text replaced in place, unchanged diffs kept,
        new widgets mounted in one go (one layout, however many diffs)."""
        if not self.is_mounted:
            return
        body = self.body
        wanted = self._wanted_body()
        children = list(body.children)
        preview, tail = (0, False) if self.folded_output else PREVIEW.get(self.kind, DEFAULT_PREVIEW)
        failed = self.status == "failed"
        status = self.exit_status()
        texts = [strip_root(value, self.root) for kind, value in wanted if kind in ("text", "markdown")]
        code = self.raw_output.get("exit_code") if isinstance(self.raw_output, dict) else None
        if status and code is not None and texts and texts[-1].rstrip().endswith(f"Exit code: {code}"):
            status = ""  # the agent's own text says it
        result: list[Widget] = []
        open_rows = 0
        open_budget = 0 if len(self.diff_changes()) > MANY_FILES else OPEN_DIFFS
        text_index = 0
        for index, (kind, value) in enumerate(wanted):
            current = children[index] if index < len(children) else None
            if kind in ("text", "markdown"):
                text = texts[text_index]
                text_index += 1
                markdown = kind == "markdown"
                if isinstance(current, ToolOutput) and current.markdown == markdown:
                    current.set_text(text, error=failed, status=status)
                    result.append(current)
                    continue
                result.append(
                    ToolOutput(
                        text, preview_lines=max(preview, 8) if failed else preview, tail=tail,
                        terminal=self.kind == "execute", error=failed, status=status, markdown=markdown,
                    )
                )
                continue
            path = project_relative(value.path, self.root)
            if isinstance(current, EditDiff) and current.key == (path, value.old_text, value.new_text):
                result.append(current)
                continue
            diff = EditDiff(path, value.old_text, value.new_text, open=False)
            # the first diffs open, as long as they are short: the rest wait as one-line headers
            # (none opens for an edit of several files: the full-screen reviewer shows those)
            if open_budget and (index == 0 or (open_rows + diff.added + diff.removed <= OPEN_DIFF_ROWS and index < open_budget)):
                diff.set_reactive(EditDiff.is_open, True)
                diff.set_class(True, "-open")
            open_rows += diff.added + diff.removed
            result.append(diff)
        if [id(w) for w in result] == [id(w) for w in children]:
            return
        kept = {id(w) for w in result}
        with self.app.batch_update():
            stale = [c for c in children if id(c) not in kept]
            if stale:
                await body.remove_children(stale)
            pending = []
            previous: Widget | None = None
            for widget in result:
                if widget.parent is None:
                    if previous is not None:
                        pending.append(body.mount(widget, after=previous))
                    elif body.children:
                        pending.append(body.mount(widget, before=body.children[0]))
                    else:
                        pending.append(body.mount(widget))
                previous = widget
            for mounting in pending:
                await mounting
        self._list_files()

    def _list_files(self) -> None:
        """Show the first `LISTED_DIFFS` diffs; the rest are summed up in one line (`v` shows them all)."""
        diffs = [c for c in self.body.children if isinstance(c, EditDiff)]
        for index, diff in enumerate(diffs):
            diff.display = index < LISTED_DIFFS or self.all_files_listed
        more = self.query_one(".tool-more-files", Static)
        hidden = diffs[LISTED_DIFFS:] if not self.all_files_listed else []
        more.display = bool(hidden)
        if hidden:
            added, removed = sum(d.added for d in hidden), sum(d.removed for d in hidden)
            label = Content.from_markup("▸ $n more files  ", n=str(len(hidden)))
            more.update(Content.assemble(label, counts_label(added, removed), Content.from_markup("  [dim](click to list them · v to review)[/dim]")))

    def on_click(self, event: events.Click) -> None:
        widget = event.widget
        if widget is not None and widget.has_class("tool-more-files"):
            event.stop()
            self.all_files_listed = True
            self._list_files()

    def diff_changes(self) -> list[FileChange]:
        """The file changes this call shows (for the reviewer)."""
        return [
            FileChange(project_relative(item.path, self.root), item.old_text, item.new_text)
            for item in self.content
            if item.type == "diff"
        ]

    def output_text(self) -> str:
        """All the text output this call shows, unfolded (for the pager)."""
        return "\n".join(child.text for child in self.body.children if isinstance(child, ToolOutput))

    def expandables(self) -> list[ToolOutput | EditDiff]:
        """The folded parts of the body (outputs and diffs that can unfold)."""
        out: list[ToolOutput | EditDiff] = []
        for child in self.body.children:
            if isinstance(child, ToolOutput) and (child.can_expand or child.expanded):
                out.append(child)
            elif isinstance(child, EditDiff) and (child.long or not child.is_open):
                out.append(child)
        return out

    def set_expanded(self, expanded: bool) -> None:
        """Unfold or fold every part of the body."""
        for child in self.expandables():
            if isinstance(child, EditDiff):
                child.set_expanded(expanded)
            elif child.expanded != expanded:
                child.toggle()

    def action_pager(self) -> None:
        """Show the whole text output in the pager."""
        text = self.output_text()
        if text:
            from iac_tui.screens.pager import Pager

            self.app.push_screen(Pager(text, title=strip_root(self.title or "tool output", self.root), at_end=self.kind == "execute"))

    def action_review(self) -> None:
        """Show the diffs in the full-screen reviewer (while the call awaits approval, the
        question opens it, so that it can answer there)."""
        changes = self.diff_changes()
        if not changes:
            return
        from iac_tui.screens.diff_review import DiffReview
        from iac_tui.widgets.permission import PermissionQuestion

        for question in self.app.query(PermissionQuestion):
            ask = question.current
            if ask is not None and ask.request.tool_call.tool_call_id == self.tool_call_id:
                question.action_review()
                return
        self.app.push_screen(DiffReview(changes, title=strip_root(self.title or "edit", self.root)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pager":
            return any(isinstance(c, ToolOutput) for c in self.body.children)
        if action == "review":
            return any(isinstance(c, EditDiff) for c in self.body.children)
        return True

    def action_toggle_expanded(self) -> None:
        parts = self.expandables()
        if parts:
            self.set_expanded(not any(p.expanded for p in parts))
