"""The iac-tui application: layout, key bindings, and the glue between the agent and the widgets.

The agent runs as a separate process. `AgentConnection` (in a Textual worker on the app's own
loop) spawns it and keeps the ACP connection; `TuiClient` turns what the agent sends into
messages (`iac_tui.messages`) that the handlers below route to the widgets, in arrival order.
Requests to the agent (prompt, cancel, sessions, settings) run in workers too, so the UI never
waits on the agent. The app owns the objects that decide: `agents` (`AgentController`: the
agent's runs and state), `turns` (`TurnController`: the prompt turns and the queue),
`session_actions` (`SessionActions`: the pickers, a new session) and `sessions`
(`SessionManager`: the session requests); each is given what it uses, and the app's key actions
and message handlers (which Textual wants on the app) call them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual.app import ComposeResult
from textual.message import Message
from textual.widget import Widget

from iac_tui import config
from iac_tui.agent_control import AgentController, AgentLaunch, sandbox_warning
from iac_tui.copy_export import EXPORT_COMMAND, block_to_copy, export_conversation, export_request
from iac_tui import key_bindings, messages
from iac_tui.display import home_relative
from iac_tui.file_index import ProjectFiles
from iac_tui.gc_pacing import TICK, GcPacer
from iac_tui.history import PromptHistory
from iac_tui.key_echo import KeyEchoApp
from iac_tui.launch import AgentCommand, default_agent_command
from iac_tui.quit_signals import QuitSignals
from iac_tui.session_actions import SessionActions
from iac_tui.session_manager import FirstSession, SessionManager, error_text
from iac_tui.state import SessionState
from iac_tui.turns import TurnController
from iac_tui.widgets.badge import FollowBadge
from iac_tui.widgets.conversation import Conversation
from iac_tui.widgets.footer import FittedFooter
from iac_tui.widgets.input_area import InputArea
from iac_tui.widgets.permission import describe
from iac_tui.widgets.prompt import Command, PromptArea
from iac_tui.widgets.status import StatusBar
from iac_tui.widgets.working import WorkingIndicator

if TYPE_CHECKING:  # the SDK loads after the first paint (iac_tui.sdk)
    from acp.schema import InitializeResponse

    from iac_tui.client import TuiClient

W = TypeVar("W", bound=Widget)

SESSION_TIMEOUT = 60.0  # for the first session (new, load or resume) after the agent started


class IacTui(KeyEchoApp):
    """The terminal client. `project` is the directory the agent works in.

    `agent` replaces the default `iac-code acp` command; `model`/`mode` are applied to the first
    session; `resume` loads a session by id and `continue_last` the project's most recent one.
    `env` adds variables to the agent's environment. `animations=False` stops the spinner and the
    cursor blink (for snapshots); `cwd_label` replaces the directory shown in the status bar,
    `usage_labels` (context, last turn) its token figures once known; `log_file` is the agent's
    stderr log (default: a new file in `log_dir` per run).
    `connection_factory(client)` replaces the agent process with another connection that has
    `AgentConnection`'s interface (an in-process agent, for benchmarks). `gc_pacing=False` leaves
    Python's full collections to Python (tests: there the heap is the test runner's, which the
    pacer's first whole collection walked at every app start).
    """

    CSS_PATH = "app.tcss"
    TITLE = "iac-tui"
    ENABLE_COMMAND_PALETTE = False
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-medium"), (100, "-normal"), (140, "-wide")]

    BINDINGS = key_bindings.BINDINGS  # and when each applies: `check_action`

    def __init__(
        self,
        project: str | Path = ".",
        *,
        agent: AgentCommand | None = None,
        model: str | None = None,
        mode: str | None = None,
        resume: str | None = None,
        continue_last: bool = False,
        env: Mapping[str, str] | None = None,
        animations: bool = True,
        log_dir: Path | None = None,
        history_file: Path | None = None,
        cwd_label: str | None = None,
        usage_labels: tuple[str, str] | None = None,
        log_file: Path | None = None,
        connection_factory: Callable[[TuiClient], Any] | None = None,
        initial_prompt: str | None = None,
        gc_pacing: bool = True,
    ) -> None:
        super().__init__()
        self.initial_prompt = initial_prompt
        self.project = Path(project).expanduser().resolve()
        self.first_session = FirstSession(resume, continue_last, model, mode)
        self.animations = animations
        self.usage_labels = usage_labels
        self.cwd_label = cwd_label or home_relative(self.project)
        self.history = PromptHistory(history_file, str(self.project))
        self.state = SessionState()
        self._gatherer = messages.Gatherer(self._deliver)
        self.gc_pacer = GcPacer(lambda: self.typed_at)
        """Python's full garbage collections, run where they do not stall a key (`iac_tui.gc_pacing`)."""
        self._pace_gc = gc_pacing
        launch = AgentLaunch(agent or default_agent_command(), dict(env or {}), log_dir or config.logs_dir(), log_file, connection_factory)
        self.agents = AgentController(
            launch,
            self.project,
            self.state,
            post=self.post_to_conversation,
            changed=self.refresh_bindings,
            ready=self._agent_ready,
            stopped=self._agent_stopped,
            run=self.run_worker,
        )
        self.sessions = SessionManager(
            self.state,
            self.project,
            self.post_to_conversation,
            agent=lambda: self.agents.agent,
            capabilities=lambda: self.agents.capabilities,
            changed=self.refresh_status,
            notify=lambda text: self.notify(text, severity="error"),
        )
        self.quit_signals = QuitSignals(self.exit)
        self.project_files = ProjectFiles(self.project, on_first=self._files_listed)
        self.turns = TurnController(
            self.state,
            self.project,
            agent=lambda: self.agents.agent,
            capabilities=lambda: self.agents.capabilities,
            client=lambda: self.agents.client,
            post=self.post_to_conversation,
            dock=lambda: self.find(InputArea),
            conversation=lambda: self.find(Conversation),
            notify=self.notify,
            changed=self._turn_changed,
            run=self.run_worker,
        )
        self.session_actions = SessionActions(
            self.sessions,
            busy=lambda: self.turns.busy,
            screens=self,
            notify=self.notify,
            post=self.post_to_conversation,
            run=self.run_worker,
        )
        self.action_checks = key_bindings.ActionChecks(
            turns=self.turns, agents=self.agents, state=self.state, sessions=self.sessions, conversation=lambda: self.find(Conversation)
        )

    def _files_listed(self) -> None:
        prompt_box = self.find(PromptArea)
        if prompt_box is not None:  # the completion can show them now
            prompt_box.update_completion()

    # ----- layout -----

    def compose(self) -> ComposeResult:
        yield Conversation(self.project, project_label=self.cwd_label)
        yield InputArea(self.history, self.project_files.list, animate=self.animations)
        yield StatusBar(self.usage_labels)
        yield FittedFooter()

    @property
    def conversation(self) -> Conversation:
        """The conversation view."""
        return self.query_one(Conversation)

    @property
    def input_area(self) -> InputArea:
        """The input dock (badge, indicator, question, prompt box)."""
        return self.query_one(InputArea)

    @property
    def prompt_box(self) -> PromptArea:
        """The prompt editor."""
        return self.input_area.prompt_box

    @property
    def indicator(self) -> WorkingIndicator:
        """The working indicator."""
        return self.input_area.indicator

    @property
    def status(self) -> StatusBar:
        """The status bar."""
        return self.query_one(StatusBar)

    def on_load(self) -> None:
        """The app runs, its first screen not yet drawn: the pacer takes over Python's full
        collections now, so that none runs during the first paint (`iac_tui.gc_pacing`)."""
        if self._pace_gc:
            self.gc_pacer.start()

    def on_mount(self) -> None:
        prompt = self.prompt_box
        prompt.take_queued = self.turns.take_queued
        if self.initial_prompt:
            prompt.load_text(self.initial_prompt)
            prompt.move_cursor(prompt.document.end)
        prompt.focus()
        self.status.set_cwd(self.cwd_label)
        self.status.set_title("starting the agent…")
        self.indicator.start("Starting the agent…", hint="")
        self.call_after_refresh(self.agents.start)  # behind the first paint: see `AgentController.start`
        if self._pace_gc:  # full collections paced around keys (iac_tui.gc_pacing; started in on_load)
            self.set_interval(TICK, self.gc_pacer.tick)
        if not self.is_headless:
            self.quit_signals.install()

    # ----- quitting (iac_tui.quit_signals) -----

    async def on_unmount(self) -> None:
        """The app is quitting, however it was asked to: stop the agent, its process group and
        the client terminals it created, before the process ends (at once after a hangup)."""
        self.gc_pacer.stop()
        await self.agents.shutdown()
        self.quit_signals.end_after_hangup()

    # ----- the agent's messages -----

    def post_to_conversation(self, message: Message) -> None:
        """Deliver one of the agent's messages (or of the app's own requests) to the
        conversation, in order; it bubbles on to the app once drawn. Runs of text chunks are
        joined on the way (`messages.Gatherer`). Dropped once the app is tearing down (the
        workers that post outlive the widgets)."""
        self._gatherer.post(message)

    def _deliver(self, message: Message) -> None:
        conversation = self.find(Conversation)
        if conversation is not None:
            conversation.post_message(message)

    def find(self, kind: type[W]) -> W | None:
        """The app's one widget of type `kind`, or None (the app is starting or tearing down:
        code running in workers or callbacks uses this, never `query_one`, which raises then).
        Cheap enough to call per message: Textual caches the answer until the screen's children
        change (a query collecting every match walked the whole DOM: 12% of the app's CPU while a
        long answer streamed, `bench/tui_answer.py`)."""
        return self.query_one_optional(kind)

    # ----- the agent's runs (iac_tui.agent_control) -----

    async def _agent_ready(self, response: InitializeResponse, restarted: bool) -> None:
        """`initialize` answered: show what it said, and open the first session (after a restart,
        reattach the one shown) within SESSION_TIMEOUT (else the agent is stopped: ctrl+r restarts)."""
        status = self.find(StatusBar)
        if status is not None:
            status.set_sandbox(sandbox_warning(response))
        conversation = self.find(Conversation)
        if conversation is not None:
            conversation.agent_name = self.agents.name
        try:
            async with asyncio.timeout(SESSION_TIMEOUT):
                if restarted and self.state.session_id:
                    await self.sessions.reattach(self.state.session_id)
                else:
                    await self.sessions.open_first(self.first_session)
                    self.first_session = FirstSession()  # a restart does not apply them again
        except TimeoutError:  # alive but mute: without a session the app is stuck, so stop it (ctrl+r restarts)
            self.agents.stop(f"The agent did not open a session within {SESSION_TIMEOUT:.0f} s.")
        except Exception as exc:  # the agent refused or went away; say so and keep running
            self.post_to_conversation(messages.Notice(f"Could not open a session: {error_text(exc)}", "error"))
            self.turns.unqueue_to_draft("No session opened")
        indicator = self.find(WorkingIndicator)
        if not self.turns.busy and indicator is not None:
            indicator.stop()  # "Starting the agent…"

    def _agent_stopped(self) -> None:
        """A run ended (`agents.state` says so; its `AgentStopped` follows): no turn runs."""
        self.turns.agent_stopped()
        indicator = self.find(WorkingIndicator)
        if indicator is not None:
            indicator.stop()  # ("Starting the agent…", "Working…")

    async def on_session_opened(self, message: messages.SessionOpened) -> None:
        self.refresh_status()
        self.refresh_bindings()
        await self.turns.send_queued()  # typed while the agent started

    # ----- prompt turns (iac_tui.turns) -----

    async def on_prompt_area_submitted(self, message: PromptArea.Submitted) -> None:
        text = message.text
        name = export_request(text)
        if name is not None:  # the app's own slash command
            self.action_export(name or None)
            return
        if self.agents.state == "stopped":
            self.turns.queue_prompt(text)
            self.post_to_conversation(messages.Notice("The agent had stopped: restarting it to send your prompt."))
            self.action_restart_agent()
            return
        await self.turns.submit(text)

    async def on_turn_ended(self, message: messages.TurnEnded) -> None:
        self.project_files.stale()  # the turn may have changed them
        await self.turns.turn_ended(message, agent_stopped=self.agents.state == "stopped")

    def action_cancel_turn(self) -> None:
        self.turns.cancel()

    def action_remove_queued(self) -> None:
        self.turns.remove_queued()

    def _turn_changed(self) -> None:
        """A turn started or ended, or the queue changed: the dock, the status and the key bindings follow."""
        input_area = self.find(InputArea)
        if input_area is not None:
            input_area.working = self.turns.busy
        self.refresh_status()
        self.refresh_bindings()

    def refresh_bindings(self) -> None:
        """Refresh the footer's key bindings, unless the app's screens are gone: updates still
        arrive while it tears down, and Textual's own would raise ScreenStackError then."""
        if self.screen_stack:
            super().refresh_bindings()

    # ----- status -----

    def refresh_status(self) -> None:
        """Show the current session's facts in the status bar (none while the app tears down)."""
        status = self.find(StatusBar)
        if status is not None:
            status.show_session(self.state, agent_stopped=self.agents.state == "stopped")

    # ----- session state from the agent (drawn by the conversation, then bubbled here) -----

    def on_usage_changed(self, message: messages.UsageChanged) -> None:
        self.state.context_used, self.state.context_size = message.used, message.size
        if message.cost is not None:
            self.state.cost = message.cost
        self.refresh_status()

    def on_commands_changed(self, message: messages.CommandsChanged) -> None:
        self.state.commands = message.commands
        hints = [] if any(c.name == EXPORT_COMMAND.name for c in message.commands) else [EXPORT_COMMAND]
        for command in message.commands:
            root = command.input.root if command.input is not None else None
            hints.append(Command(command.name, command.description, root.hint if root is not None else None))
        input_area = self.find(InputArea)  # the update may come while the app tears down
        if input_area is not None:
            input_area.prompt_box.commands = hints

    def on_mode_changed(self, message: messages.ModeChanged) -> None:
        self.state.set_mode(message.mode_id)
        self.refresh_status()

    def on_config_changed(self, message: messages.ConfigChanged) -> None:
        self.state.config_options = message.options
        self.refresh_status()
        self.refresh_bindings()

    def on_mcp_status_changed(self, message: messages.McpStatusChanged) -> None:
        self.state.mcp_servers[message.session_id] = message.servers

    def on_session_info_changed(self, message: messages.SessionInfoChanged) -> None:
        if message.title:
            self.state.title = message.title
            self.refresh_status()

    # ----- permissions -----

    def on_permission_requested(self, message: messages.PermissionRequested) -> None:
        """The conversation showed the call; the docked question asks (and owns the request from here).

        A request that comes when no turn runs (after its turn ended: `claude-agent-acp` was seen
        doing it) is answered `cancelled` at once, and its panel says so: nothing runs outside a
        turn the person started. It is judged here, in arrival order with the turn's end."""
        conversation, input_area = self.find(Conversation), self.find(InputArea)
        panel = conversation.tool_panel(message.tool_call.tool_call_id) if conversation else None
        if panel is None or input_area is None:  # the session was left meanwhile, or the app is closing
            message.reply.answer(None)
            return
        if not self.turns.busy:
            message.reply.answer(None)
            panel.asked_late()
            return
        subject = describe(message.tool_call, panel.kind, panel.title, self.project)
        input_area.question.ask(message, panel.kind, subject)
        self.bell()

    def on_prompt_area_tabbed(self, message: PromptArea.Tabbed) -> None:
        self.conversation.focus_newest()

    def on_prompt_area_paged(self, message: PromptArea.Paged) -> None:
        """Page up/down from the prompt box scrolls the conversation (up stops following it; down to
        the bottom follows again, as `end` does)."""
        if message.up:
            self.conversation.scroll_page_up(animate=False)
        else:
            self.conversation.scroll_page_down(animate=False)

    # ----- following the conversation's bottom -----

    def on_conversation_follow_changed(self, message: Conversation.FollowChanged) -> None:
        input_area = self.find(InputArea)
        if input_area is not None:
            input_area.show_follow(message.following, message.unread)
        self.refresh_bindings()

    def on_follow_badge_clicked(self, message: FollowBadge.Clicked) -> None:
        self.action_follow()

    def action_follow(self) -> None:
        self.conversation.follow()

    # ----- the agent stopped -----

    def on_agent_stopped(self, message: messages.AgentStopped) -> None:
        """Drawn by the conversation; the state was recorded when the stop was known (`AgentController`)."""
        if self.agents.state == "stopped":  # not restarted meanwhile
            self.turns.unqueue_to_draft("The agent stopped")
        self.refresh_status()

    def action_restart_agent(self) -> None:
        if self.agents.state != "stopped":
            return
        self.status.set_title("restarting the agent…")
        self.indicator.start("Restarting the agent…", hint="")
        self.agents.start(restart=True)

    # ----- actions -----

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.action_checks.check(action, parameters)

    # ----- copy and export (iac_tui.copy_export) -----

    def action_copy_block(self) -> None:
        text = block_to_copy(self.conversation, self.focused)
        if text is None:
            self.notify("Nothing to copy yet.", severity="warning")
            return
        self.copy_to_clipboard(text)
        self.notify(f"Copied {len(text):,} characters.")

    def action_export(self, name: str | None = None) -> None:
        """f8 (to a new file) and `/export [FILE]`: write the conversation; a note says where."""
        self.post_to_conversation(export_conversation(self.conversation, self.project, name))

    def action_pick(self, category: str) -> None:
        self.session_actions.pick(category)

    def action_new_session(self) -> None:
        self.session_actions.new_session()

    def action_sessions(self) -> None:
        self.session_actions.open_picker()

    def action_help(self) -> None:
        from iac_tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.state.mcp_servers.get(self.state.session_id or "")))

    def action_toggle_thoughts(self) -> None:
        self.conversation.parking.wake_all()  # many blocks change height
        thoughts = self.conversation.thoughts()
        expand = any(not t.expanded for t in thoughts)
        for thought in thoughts:
            thought.expanded = expand

    def action_toggle_outputs(self) -> None:
        self.conversation.parking.wake_all()  # many blocks change height
        panels = self.conversation.tool_panels()
        parts = [p for panel in panels for p in panel.expandables()]
        expand = not any(p.expanded for p in parts)
        for panel in panels:
            panel.set_expanded(expand)

