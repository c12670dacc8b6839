"""Headless mode: `iac-code -p PROMPT` runs one prompt turn in the current directory and prints it.

Writes and commands run only when the permission mode or `--allow` lets them; any call that
would ask a person is refused instead, and the model receives `Permission denied.`. `--allow bash`
lets commands run in the sandbox; a command that asks to run outside it needs
`--allow bash-outside-sandbox`.
MCP servers come from the config file's `mcpServers`; a project's `.mcp.json` is used only if
it was approved before (in iac-tui or an editor) or with `--allow .mcp.json`. Server failures
are reported on stderr.

Output formats (stdout):
- `text`: the answer text as it streams; tool activity and notices go to stderr;
- `json`: one object at the end: `{"type": "result", "session_id", "stop_reason", "result",
  "usage", "error", "is_error", "tool_calls": [{"id", "title", "status"}]}`;
- `stream-json`: one JSON object per line for every event (`{"type": "text_delta", ...}`,
  `"tool_call_started"`, `"tool_call_updated"`, `"plan_updated"`, ...), then the result object.

Exit status: 0 when the turn ends normally (or at the output token limit), 2 when it reaches the
limit of model requests (`max_turn_requests`), 1 for errors, refusals and cancellation.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from typing import Any, TextIO

from iac_code.agent.loop import TurnResult
from iac_code.agent.permissions import Answer, PermissionRequest
from iac_code.agent.session import Session
from iac_code.config import CREDENTIALS_HELP, SCRIPTED_MODEL, Settings
from iac_code.core import events
from iac_code.core.conversation import TextBlock
from iac_code.core.vocabulary import OutputFormat
from iac_code.mcp_client.servers import specs_from_config
from iac_code.session_store.journal import StorageError
from iac_code.session_store.store import SessionInUse, SessionNotFound, SessionStore

EXIT_OK, EXIT_ERROR, EXIT_TURN_LIMIT = 0, 1, 2


OUTSIDE_SANDBOX = "bash-outside-sandbox"
"""The `--allow` name of `bash` calls that ask to run outside the command sandbox."""


class HeadlessPrompter:
    """Answers permission requests without a person: tools in `allow` run, others are rejected
    (a `bash` call with `sandbox: false` is allowed by `OUTSIDE_SANDBOX`, not by `bash`)."""

    def __init__(self, allow: set[str]) -> None:
        self.allow = allow

    async def ask(self, request: PermissionRequest) -> Answer:
        """`allow_once` for allowed tools, else `reject_once`."""
        name = request.tool_name
        if name == "bash" and request.raw_input.get("sandbox") is False:
            name = OUTSIDE_SANDBOX
        return "allow_once" if name in self.allow else "reject_once"


def _event_type(event: events.Event) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(event).__name__).lower()


def event_json(event: events.Event) -> dict[str, Any]:
    """An event as a JSON object with a `type` (`text_delta`, `tool_call_started`, ...)."""
    return {"type": _event_type(event), **dataclasses.asdict(event)}


class Printer:
    """Writes a turn's events in one output format."""

    def __init__(self, fmt: OutputFormat, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> None:
        self.fmt = fmt
        self.out = out
        self.err = err
        self.answer: list[str] = []
        self.titles: dict[str, str] = {}
        self.status: dict[str, str] = {}
        self._paragraph = False  # a tool call came after the last text: start a new paragraph
        self._mid_line = False  # the answer text written last did not end a line

    async def emit(self, event: events.Event) -> None:
        """Receive one event of the turn."""
        if isinstance(event, events.TextDelta):
            if self._paragraph:
                self._paragraph = False
                self.answer.append("\n\n")
                if self.fmt == "text":
                    self.out.write("\n\n" if self._mid_line else "\n")
            self.answer.append(event.text)
        elif isinstance(event, events.ToolCallStarted):
            self._paragraph = bool(self.answer)
            self.titles[event.tool_call_id] = event.title
            self.status[event.tool_call_id] = event.status
        elif isinstance(event, events.ToolCallUpdated):
            if event.title:
                self.titles[event.tool_call_id] = event.title
            if event.status:
                self.status[event.tool_call_id] = event.status
        if self.fmt == "stream-json":
            self.out.write(json.dumps(event_json(event)) + "\n")
            self.out.flush()
        elif self.fmt == "text":
            self._text(event)

    def _text(self, event: events.Event) -> None:
        if isinstance(event, events.TextDelta):
            self.out.write(event.text)
            self.out.flush()
            self._mid_line = not event.text.endswith("\n")
            return
        if self._mid_line and self.err is self.out:
            self.out.write("\n")
            self._mid_line = False
        if isinstance(event, events.ToolCallUpdated) and event.status in ("completed", "failed"):
            mark = "done" if event.status == "completed" else "failed"
            detail = ""
            if event.status == "failed" and isinstance(event.raw_output, dict):
                # {"error": text} from most tools; bash reports {"output", "exit_code", "timed_out"}
                lines = str(event.raw_output.get("error") or "").splitlines()
                if lines:
                    detail = ": " + lines[0][:200]
                elif event.raw_output.get("exit_code") is not None:
                    detail = f": exit code {event.raw_output['exit_code']}"
            self.err.write(f"[{mark}] {self.titles.get(event.tool_call_id, event.tool_call_id)}{detail}\n")
        elif isinstance(event, events.Notice):
            self.err.write(event.text.strip() + "\n")

    def finish(self, session: Session, result: TurnResult) -> None:
        """Write the end of the turn."""
        if self.fmt == "text":
            if self.answer and not "".join(self.answer).endswith("\n"):
                self.out.write("\n")
            if result.stop_reason != "end_turn":
                self.err.write(f"(stopped: {result.stop_reason})\n")
            return
        u = result.usage
        summary = {
            "type": "result",
            "session_id": session.id,
            "stop_reason": result.stop_reason,
            "result": "".join(self.answer),
            "usage": {
                "input_tokens": u.input_tokens,
                "output_tokens": u.output_tokens,
                "cache_read_tokens": u.cache_read_tokens,
                "cache_write_tokens": u.cache_write_tokens,
                "total_tokens": u.total_tokens,
            },
            "error": result.error,
            "is_error": exit_status(result) == EXIT_ERROR,
            "tool_calls": [{"id": i, "title": t, "status": self.status.get(i, "")} for i, t in self.titles.items()],
        }
        self.out.write(json.dumps(summary) + "\n")
        self.out.flush()


def exit_status(result: TurnResult) -> int:
    """The process exit status for a finished turn (see the module docstring)."""
    if result.error or result.stop_reason in ("refusal", "cancelled"):
        return EXIT_ERROR
    if result.stop_reason == "max_turn_requests":
        return EXIT_TURN_LIMIT
    return EXIT_OK


def open_session(cwd: str, settings: Settings, store: SessionStore, resume: str | None, continue_last: bool) -> Session:
    """The session to run in: `resume` by id, the most recent one of `cwd`, or a new one.

    Raises `SessionNotFound` when the session to resume does not exist.
    """
    if resume:
        return Session.restore(resume, cwd, settings, store)
    if continue_last:
        page = store.list(cwd, limit=1)
        if not page.sessions:
            raise SessionNotFound(f"no earlier session in {cwd}")
        return Session.restore(page.sessions[0].session_id, cwd, settings, store)
    return Session.create(cwd, settings, store)


async def run_prompt(
    prompt: str,
    *,
    cwd: str,
    settings: Settings,
    output_format: OutputFormat = "text",
    allow: set[str] | None = None,
    resume: str | None = None,
    continue_last: bool = False,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> int:
    """Run `prompt` as one turn in `cwd` and print it; returns the exit status."""
    store = SessionStore(settings.sessions_dir, settings.secrets())
    try:
        session = open_session(cwd, settings, store, resume, continue_last)
    except SessionNotFound as exc:
        err.write(f"iac-code: session not found: {exc}\n")
        return EXIT_ERROR
    except SessionInUse as exc:
        err.write(f"iac-code: session {exc} is in use by another iac-code process\n")
        return EXIT_ERROR
    except StorageError as exc:
        err.write(f"iac-code: {exc}\n")
        return EXIT_ERROR
    try:
        return await _run_in(session, prompt, settings, output_format, allow, out, err)
    except StorageError as exc:  # the history could not be written: say why (PROTOCOL.md, Storage)
        err.write(f"iac-code: {exc}\n")
        return EXIT_ERROR
    finally:
        await session.close()


async def _run_in(
    session: Session, prompt: str, settings: Settings, output_format: OutputFormat,
    allow: set[str] | None, out: TextIO, err: TextIO,
) -> int:  # fmt: skip
    if settings.model:
        session.set_model(settings.model)
    if session.model != SCRIPTED_MODEL and not settings.has_credentials:
        err.write(f"iac-code: {CREDENTIALS_HELP}\n")
        return EXIT_ERROR
    printer = Printer(output_format, out, err)
    specs, problems = specs_from_config(settings.mcp_servers)

    async def report(text: str) -> None:
        err.write(text + "\n")

    session.mcp.report = report
    if specs or problems:
        session.start_mcp(specs, problems)
    result = await session.prompt([TextBlock(text=prompt)], printer.emit, HeadlessPrompter(allow or set()))
    printer.finish(session, result)
    return exit_status(result)

