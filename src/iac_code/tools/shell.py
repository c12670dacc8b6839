"""What every `bash` run shares, in a local process or in the client's terminal: the
non-interactive environment, the sandbox around it, the output caps, cleaning terminal output,
and the result."""

from __future__ import annotations

import os
import re
import signal

from iac_code.redact import Redactor
from iac_code.tools.base import ToolContext, ToolResult
from iac_code.tools.sandbox import Launch, Sandbox, blocked_hint

HEAD_BYTES = 10_000
TAIL_BYTES = 20_000
"""The output kept for the model: its first and last bytes (the middle is replaced by a marker)."""

NO_EDITOR = (
    "echo 'iac-code: there is no terminal to edit text in. Pass the text as an argument instead, "
    "e.g. git commit -m \"message\", git merge --no-edit, git rebase --continue with GIT_EDITOR=true.' >&2; exit 1"
)
"""The editor commands get: fails at once, telling the model what to do instead of waiting for a person."""

ENV_OVERRIDES = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_EDITOR": NO_EDITOR,
    "GIT_SEQUENCE_EDITOR": NO_EDITOR,
    "EDITOR": NO_EDITOR,
    "VISUAL": NO_EDITOR,
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "DEBIAN_FRONTEND": "noninteractive",
    "TF_INPUT": "0",
    "CDPATH": "",
}
"""Set in every command's environment, so that nothing waits for a person (PROTOCOL.md, issue 10),
and `cd sub` goes where the permission rules resolved it (`shell_rules`: from the directory the
command is in), not to a `sub` a person's exported `CDPATH` finds elsewhere."""


def command_environment(secrets: Redactor, sandbox: Sandbox | None = None) -> dict[str, str]:
    """The environment of a command: the agent's without its credentials (`SECRET_ENV_NAMES` and
    any variable holding a secret value), plus `ENV_OVERRIDES`; in the `sandbox`, also without
    any credential variable and with its private `TMPDIR` (`Sandbox.environment`)."""
    env = secrets.environment(os.environ)
    env.update(ENV_OVERRIDES)
    return sandbox.environment(env) if sandbox is not None else env


def command_argv(command: str, ctx: ToolContext, sandboxed: bool) -> tuple[list[str], Sandbox | None]:
    """The argv running the bash `command` (`/bin/bash -c`) in the client's terminal, wrapped by
    the session's sandbox when `sandboxed` (the call's `sandbox` input) and the session has one;
    and that sandbox."""
    argv = ["/bin/bash", "-c", command]
    if not sandboxed or ctx.sandbox is None:
        return argv, None
    return ctx.sandbox.wrap(argv, ctx.cwd, ctx.config_dir), ctx.sandbox


def command_launch(command: str, ctx: ToolContext, sandboxed: bool) -> tuple[Launch, Sandbox | None]:
    """How to start the bash `command` as a local process (`Sandbox.launch`), in the session's
    sandbox when `sandboxed` and the session has one; and that sandbox. Raises
    `landlock_exec.Unavailable` when the sandbox cannot confine it."""
    argv = ["/bin/bash", "-c", command]
    if not sandboxed or ctx.sandbox is None:
        return Launch(argv), None
    return ctx.sandbox.launch(argv, ctx.cwd, ctx.config_dir), ctx.sandbox


_ESCAPES = re.compile(r"\x1b(?:\][^\x07\x1b]*(?:\x07|\x1b\\)?|\[[0-?]*[ -/]*[@-~]|[ -/]*[0-~])")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_terminal_output(text: str) -> str:
    """`text` as a terminal would leave it, roughly: escape sequences and control characters
    removed, and of a line rewritten with carriage returns only its last version kept."""
    text = _ESCAPES.sub("", text).replace("\r\n", "\n")
    if "\r" in text:
        lines = []
        for line in text.split("\n"):
            parts = [p for p in line.split("\r") if p]
            lines.append(parts[-1] if parts else "")
        text = "\n".join(lines)
    return _CONTROLS.sub("", text)


def command_result(
    output: str,
    code: int | None,
    timed_out: bool,
    lingering: bool,
    timeout: float,
    killed_by: str | None = None,
    sandboxed: bool = False,
) -> ToolResult:
    """The result of a finished command: its kept `output`, then its exit status (`code`, a
    negative code or `killed_by` (a signal name) meaning killed by that signal). It fails unless it exited 0;
    a failed `sandboxed` command whose output looks like the sandbox stopped it ends with the
    sandbox's hint (`sandbox.blocked_hint`).

    `rawOutput` is `{"output": str, "exit_code": int | None, "timed_out": bool}`.
    """
    text = output.rstrip("\n") or "(no output)"
    if timed_out:
        status = f"Timed out after {timeout:g} s: the command and its process group were killed."
    elif killed_by is not None:
        status = f"Killed by signal {killed_by}."
    elif code is not None and code < 0:
        status = f"Killed by signal {signal_name(-code)}."
    else:
        status = f"Exit code: {code}"
    if lingering:
        status += "\n[A background process the command started is still running; its later output is not captured.]"
    hint = blocked_hint(text) if sandboxed and code != 0 and not timed_out else None
    if hint is not None:
        status += "\n" + hint
    return ToolResult(
        output=f"{text}\n\n{status}",
        is_error=timed_out or code != 0,
        raw_output={"output": text, "exit_code": code, "timed_out": timed_out},
    )


def cancelled_result(output: str) -> ToolResult:
    """The result of a command stopped by a cancel: what it printed until then."""
    text = output.rstrip("\n") or "(no output)"
    return ToolResult(
        output=f"{text}\n\nCancelled: the command and its process group were killed.",
        is_error=True,
        raw_output={"output": text, "exit_code": None, "timed_out": False, "cancelled": True},
    )


def signal_name(number: int) -> str:
    """`SIGKILL` for 9; the number itself for an unknown signal."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
