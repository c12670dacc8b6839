"""Who decides whether a tool call may run: one `PermissionGate` per turn, called once per call.

The gate classifies the call (the real paths it touches, the rules it needs), decides once from
the session's mode and saved rules, asks the client when needed, saves the answer as a rule, and
hands the tool the target it checked: the paths come from `Tool.paths` through the call's own
`ToolContext.resolve`, which resolves each path once per call, so `run` opens exactly the file
that was checked and approved. Rules (PROTOCOL.md, Permissions):

- read-only tools inside the session cwd run without asking; reads outside it (symlinks
  resolved, a multi-linked file counting as outside) or of files holding secrets
  (`paths.is_sensitive`) ask, except in `bypass_permissions`; `web_fetch` asks per host, except
  for the documentation hosts (`web_fetch.DOCUMENTATION_HOSTS`);
- `write_file`/`edit_file` ask in `default`, run in `accept_edits`, `sandboxed_commands` and
  `bypass_permissions`, and
  are refused in `plan`; a write to a sensitive path (`.git/`, `.iac-code/`, the config dir,
  `.env*`, `.ssh/`, `.aws/`, `.kube/`, `.aliyun/`, shell start-up files) asks in every mode but
  `bypass_permissions`, a write outside the cwd asks in every mode, and no saved rule covers either;
- `bash`, `agent` and other tools (MCP) ask in `default` and `accept_edits`, run in
  `bypass_permissions`, and are refused in `plan`, except a `bash` command run in the sandbox
  (`tools.sandbox`, with the project read-only there), which asks as in `default`; in
  `sandboxed_commands` a `bash` command run in the sandbox runs unasked (the OS boundary holds
  it) and every other `bash`, `agent` or other call asks as in `accept_edits`. A command run
  outside the sandbox (its input `sandbox: false`, with a `reason`) is asked about in words that
  say so, and its saved rules are its own ("exactly `terraform init` outside the sandbox"): a
  rule for sandboxed commands never covers it, nor the reverse. Where no sandbox is under the
  call (none works, `sandboxed` False, or the call leaves it) a saved bash rule is the exact
  command line;
- `allow_always`/`reject_always` save a rule, never a blank cheque: edits of non-sensitive files
  inside the cwd; a bash program and subcommand with its safe options, or an exact command line
  (`shell_rules`), every part of a compound command needing its own; sub-agent runs; reads in one
  directory outside the cwd; fetches from one host; one named other tool.
  A call with a part no rule may cover (sensitive or outside paths, `rm -r`, `sudo`, a command
  that cannot be parsed) is offered only `allow_once`/`reject_once`. A saved rejection wins over
  every mode.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from iac_code.agent.shell_rules import describe as describe_rules
from iac_code.agent.shell_rules import parts as shell_parts
from iac_code.core.events import Location, ToolContent, ToolKind
from iac_code.core.vocabulary import PermissionMode, PermissionOptionKind
from iac_code.tools.base import Category, Tool, ToolContext, ToolInput, ToolPreview
from iac_code.tools.paths import is_inside, is_sensitive
from iac_code.tools.web_fetch import DOCUMENTATION_HOSTS, fetch_host

log = logging.getLogger(__name__)

Answer = PermissionOptionKind | Literal["cancelled"]
"""The user's decision, by permission option kind; `cancelled` means the prompt was cancelled."""

PERMISSION_DENIED = "Permission denied."
"""What the model receives for a call the user (or a saved rule) rejected (PROTOCOL.md)."""

PLAN_MODE_REFUSAL = (
    "Plan mode is read-only: {tool} was not run. Describe the change you would make instead; "
    "the user can switch modes to let you apply it."
)


class PermissionCancelled(Exception):
    """The client answered a permission request with `cancelled`: the turn ends `cancelled`."""


@dataclass(slots=True)
class Verdict:
    """The policy's decision for one call: run it, ask the client, or refuse it with `reason`."""

    action: Literal["allow", "ask", "deny"]
    reason: str = ""


@dataclass(frozen=True, slots=True)
class PermissionOption:
    """One answer offered to the user: `kind` (also the option id) and a `name` that says which
    rule an `always` answer saves ("Always allow `terraform fmt` commands")."""

    kind: PermissionOptionKind
    name: str


def every_option(subject: str) -> list[PermissionOption]:
    """The four options, the `always` ones naming `subject` ("edits in this project")."""
    return [
        PermissionOption("allow_once", "Allow once"),
        PermissionOption("allow_always", f"Always allow {subject}"),
        PermissionOption("reject_once", "Reject once"),
        PermissionOption("reject_always", f"Always reject {subject}"),
    ]


@dataclass(slots=True)
class PermissionRequest:
    """What the client is asked about: the tool call as it will run, and the options offered
    (by default all four, unnamed by rule: callers that save a rule say which in `options`)."""

    tool_call_id: str
    tool_name: str
    title: str
    kind: ToolKind
    raw_input: dict[str, Any]
    content: list[ToolContent] = field(default_factory=list)
    locations: list[Location] = field(default_factory=list)
    options: list[PermissionOption] = field(default_factory=lambda: every_option("calls like this"))


class PermissionPrompter(Protocol):
    """Asks the user (through the client) whether a call may run."""

    async def ask(self, request: PermissionRequest) -> Answer:
        """Return the kind of the option the user chose, or `cancelled`."""
        ...


@dataclass(slots=True)
class Classified:
    """What the policy knows of one call.

    `paths` are the real paths it touches; `outside` whether one is outside the cwd, `exposed`
    whether one is outside it or sensitive;
    `rules` the saved rules that must all hold for it to run unasked (empty: nothing to ask for a
    read; a None entry: a part no rule may cover); `subject` names those rules for the user;
    `rejects` the rules a saved rejection matches and "Always reject" saves (default: `rules`; a
    bash command's program and subcommand), named by `reject_subject`; `sandboxed` whether it is
    a command that will run in the OS sandbox.
    """

    tool_name: str
    category: Category
    paths: list[Path]
    outside: bool
    exposed: bool
    rules: list[str | None]
    subject: str
    rejects: list[str] | None = None
    reject_subject: str = ""
    sandboxed: bool = False

    @property
    def savable(self) -> bool:
        """Whether an `always` answer can save rules that cover this very call."""
        return bool(self.rules) and all(r is not None for r in self.rules)


OUTSIDE_SANDBOX = "outside the sandbox: "
"""The prefix of a saved rule for commands run outside the sandbox (never equal to a sandboxed one)."""


class PermissionPolicy:
    """The session's permission state: its mode, the rules saved by `always` answers, and whether
    its commands run in the OS sandbox (`sandboxed`: a sandbox backend works in this session)."""

    def __init__(self, mode: PermissionMode = "default", *, sandboxed: bool = True) -> None:
        self.mode: PermissionMode = mode
        self.sandboxed = sandboxed
        self.allowed: set[str] = set()
        self.rejected: set[str] = set()

    def classify(self, tool: Tool, params: ToolInput, ctx: ToolContext) -> Classified:
        """Classify a call of `tool` (see `Classified`). Raises whatever `tool.paths` raises."""
        paths = tool.paths(params, ctx)
        writing = tool.category == "write"
        linked = [p for p in paths if ctx.multi_linked(p)]  # may be another name of a file outside
        sensitive = [p for p in paths if is_sensitive(p, ctx.config_dir, writing=writing) or p in linked]
        outside = [p for p in paths if not is_inside(p, ctx.cwd) or p in linked]
        exposed = bool(sensitive or outside)
        if tool.name == "web_fetch":  # per host (PROTOCOL.md, Permissions)
            host = fetch_host(str(getattr(params, "url", "")))
            rules: list[str | None] = [] if host in DOCUMENTATION_HOSTS else [f"fetch {host}" if host else None]
            return Classified(tool.name, tool.category, paths, False, False, rules, f"fetches from `{host}`")
        if tool.category == "read":
            dirs = sorted({str(p if p.is_dir() else p.parent) for p in outside if p not in sensitive})
            rules = [None] * len(sensitive) + [f"read {d}" for d in dirs]
            subject = "reads in " + ", ".join(f"`{d}`" for d in dirs)
        elif writing:
            rules, subject = [None if exposed else "edit"], "edits in this project"
        elif tool.name == "bash":
            sandboxed = self.sandboxed and getattr(params, "sandbox", True) is not False
            # with no sandbox under the call (none here, or it asks to leave it), rules are exact lines
            found = shell_parts(str(getattr(params, "command", "")), ctx.cwd, ctx.config_dir, exact=not sandboxed)
            rules = [p.rule for p in found]
            subject = describe_rules([r for r in rules if r])
            rejects = [p.family for p in found if p.family]
            reject_subject = describe_rules(rejects)
            if self.sandboxed and not sandboxed:  # rules of their own, named so
                rules = [OUTSIDE_SANDBOX + r if r else None for r in rules]
                rejects = [OUTSIDE_SANDBOX + r for r in rejects]
                subject += " outside the sandbox"
                reject_subject += " outside the sandbox" if reject_subject else ""
            call = Classified(tool.name, tool.category, paths, bool(outside), exposed, rules, subject, sandboxed=sandboxed)
            call.rejects, call.reject_subject = rejects, reject_subject
            return call
        elif tool.name == "agent":
            rules, subject = ["agent"], "sub-agent runs in this session"
        else:
            rules, subject = [f"tool {tool.name}"], f"`{tool.name}` calls"
        return Classified(tool.name, tool.category, paths, bool(outside), exposed, rules, subject)

    def decide(self, call: Classified) -> Verdict:
        """Decide for `call` once: `allow`, `ask` or `deny` (see the module docstring)."""
        if any(r in self.rejected for r in (call.rejects if call.rejects is not None else call.rules) if r):
            return Verdict("deny", PERMISSION_DENIED)
        covered = all(r is not None and r in self.allowed for r in call.rules)
        if call.category == "read":
            return Verdict("allow" if covered or self.mode == "bypass_permissions" else "ask")
        if self.mode == "plan" and not call.sandboxed:
            return Verdict("deny", PLAN_MODE_REFUSAL.format(tool=call.tool_name))
        if call.category == "write" and call.outside:
            return Verdict("ask")  # outside the project: asks even in bypass_permissions
        if self.mode == "bypass_permissions":
            return Verdict("allow")
        if call.category == "write" and not call.exposed and self.mode in ("accept_edits", "sandboxed_commands"):
            return Verdict("allow")
        if call.tool_name == "bash" and call.sandboxed and self.mode == "sandboxed_commands":
            return Verdict("allow")  # the sandbox holds it; a call leaving it (or none here) asks
        return Verdict("allow" if call.rules and covered else "ask")

    def options(self, call: Classified) -> list[PermissionOption]:
        """The options offered for `call`: `always` ones only when their rule would cover it."""
        if not call.savable:
            return [PermissionOption("allow_once", "Allow once"), PermissionOption("reject_once", "Reject once")]
        options = every_option(call.subject)
        if call.reject_subject:
            options[3] = PermissionOption("reject_always", f"Always reject {call.reject_subject}")
        return options

    def remember(self, call: Classified, answer: Answer) -> None:
        """Save the rules of `call` for an `always` answer (an `always` answer for a call that
        has no savable rule counts as its `once` form)."""
        if not call.savable:
            return
        if answer == "allow_always":
            self.allowed.update(r for r in call.rules if r)
        elif answer == "reject_always":
            self.rejected.update(r for r in (call.rejects if call.rejects is not None else call.rules) if r)


class PermissionGate:
    """Admits or refuses one tool call at a time for a turn: classify, decide, ask, remember.

    `prompter` asks the client (None: every call that would ask is refused).
    """

    def __init__(self, policy: PermissionPolicy, prompter: PermissionPrompter | None) -> None:
        self.policy = policy
        self.prompter = prompter

    async def admit(
        self,
        tool: Tool,
        params: ToolInput,
        ctx: ToolContext,
        *,
        tool_call_id: str,
        raw_input: dict[str, Any],
        title: str,
        locations: list[Location],
    ) -> str | None:
        """Decide whether the call may run, asking the client if the policy says so.

        Returns None when it may run (with `ctx` holding the paths it checked, resolved once: the
        tool must run with this `ctx`), else the error message the model receives.
        Raises `PermissionCancelled` when the client answers `cancelled`.
        """
        try:
            call = self.policy.classify(tool, params, ctx)
        except Exception as exc:  # a tool bug fails its call, not the turn
            log.exception("tool %s failed computing its paths", tool.name)
            return f"{tool.name} failed unexpectedly: {type(exc).__name__}: {exc}"
        verdict = self.policy.decide(call)
        if verdict.action == "deny":
            return verdict.reason
        if verdict.action == "allow":
            return None
        preview = await _preview(tool, params, ctx)
        if preview is not None and preview.error:
            return preview.error
        if self.prompter is None:
            return PERMISSION_DENIED
        answer = await self.prompter.ask(
            PermissionRequest(
                tool_call_id=tool_call_id,
                tool_name=tool.name,
                title=title,
                kind=tool.kind,
                raw_input=raw_input,
                content=preview.content if preview else [],
                locations=(preview.locations if preview and preview.locations else locations),
                options=self.policy.options(call),
            )
        )
        if answer == "cancelled":
            raise PermissionCancelled
        self.policy.remember(call, answer)
        return PERMISSION_DENIED if answer.startswith("reject") else None


async def _preview(tool: Tool, params: ToolInput, ctx: ToolContext) -> ToolPreview | None:
    try:
        return await tool.preview(params, ctx)
    except (asyncio.CancelledError, PermissionCancelled):
        raise
    except Exception as exc:
        log.exception("tool %s failed computing its preview", tool.name)
        return ToolPreview(error=f"{tool.name} failed unexpectedly: {type(exc).__name__}: {exc}")
