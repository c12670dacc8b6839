"""The command sandbox (PROTOCOL.md, Command sandbox): the one owner of what a command can reach.

`detect(setting)` finds the backend that works here (`backends`); `policy.command_policy` says
what one command may write, read and reach; a session's `Sandbox` turns a command's argv into the
argv that runs it under that policy (`Sandbox.wrap`, for the client's terminal:
`tools/bash_terminal.py`) or how to start it as a local process (`Sandbox.launch`: bubblewrap's
argv, or for Landlock the command itself and the confinement its forked child applies before the
exec, `tools/bash.py`), and gives its environment (`Sandbox.environment`). `blocked_hint` tells the model when a failure looks like the
sandbox's doing. `protect_agent` keeps the agent's own process out of its commands' reach.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from iac_code.redact import is_credential_name
from iac_code.tools.sandbox.backends import INSTALL_HINT, Backend, Detection, confinement, detect, wrap
from iac_code.tools.sandbox.policy import HOME_SECRETS, Policy, command_policy

log = logging.getLogger(__name__)

__all__ = [
    "HOME_SECRETS",
    "INSTALL_HINT",
    "Backend",
    "Detection",
    "Launch",
    "Policy",
    "Sandbox",
    "blocked_hint",
    "command_policy",
    "detect",
    "protect_agent",
    "wrap",
]


@dataclass(slots=True)
class Launch:
    """How to start one command as a local process: `argv`, and `preexec` (None, or what the
    forked child calls just before its exec: `landlock_exec.Confinement.apply`). Use it as a
    context manager around the start: leaving it releases what the confinement holds here."""

    argv: list[str]
    preexec: Callable[[], None] | None = None
    close: Callable[[], None] | None = None

    def __enter__(self) -> Launch:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.close is not None:
            self.close()


@dataclass(frozen=True, slots=True)
class Sandbox:
    """How a session's commands are sandboxed: `backend` (not "none"), the session's private
    directory `space` (from `private_space`: its `tmp/` is the commands' writable `TMPDIR`, its
    read-only empty file `blank` is what they see in place of a hidden file), and whether the
    project is writable (False in `plan` mode)."""

    backend: Backend
    space: Path
    project_writable: bool = True

    @property
    def tmpdir(self) -> Path:
        """The commands' private temp dir (`TMPDIR`), writable."""
        return self.space / "tmp"

    def policy(self, cwd: Path, config_dir: Path) -> Policy:
        """The policy of a command run now in `cwd` (see `policy.command_policy`)."""
        return command_policy(
            cwd, config_dir, self.tmpdir, blank=self.space / "blank", project_writable=self.project_writable
        )

    def wrap(self, argv: list[str], cwd: Path, config_dir: Path) -> list[str]:
        """The argv that runs `argv` in `cwd` inside the sandbox."""
        policy = self.policy(cwd, config_dir)
        if not policy.complete:
            log.warning("the project %s is too large to search whole for secret files: only those found are hidden", cwd)
        return wrap(self.backend, policy, argv)

    def launch(self, argv: list[str], cwd: Path, config_dir: Path) -> Launch:
        """How to start `argv` in `cwd` inside the sandbox as a local process: bubblewrap's argv;
        for Landlock `argv` itself with the confinement prepared here (ruleset, seccomp program)
        and applied by the forked child (no second interpreter). Raises `landlock_exec.Unavailable`
        when the confinement cannot be prepared (the command must not run)."""
        policy = self.policy(cwd, config_dir)
        if not policy.complete:
            log.warning("the project %s is too large to search whole for secret files: only those found are hidden", cwd)
        if self.backend != "landlock":
            return Launch(wrap(self.backend, policy, argv))
        confined = confinement(policy)
        return Launch(list(argv), confined.apply, confined.close)

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """`env` for a sandboxed command: no variable whose name says it holds a credential
        (`redact.is_credential_name`), `TMPDIR` the private temp dir."""
        out = {k: v for k, v in env.items() if not is_credential_name(k)}
        out["TMPDIR"] = str(self.tmpdir)
        return out

    def overrides(self, names: Iterable[str]) -> dict[str, str]:
        """What to set on top of an environment holding the variables `names` (an editor's, which
        cannot be unset through ACP) for a sandboxed command: credential variables blank, `TMPDIR`."""
        return {**{n: "" for n in names if is_credential_name(n)}, "TMPDIR": str(self.tmpdir)}


def private_space() -> Path:
    """A new private directory (mode 0700) for one session's sandbox: `tmp/` (the commands'
    `TMPDIR`) and `blank` (an empty read-only file). Remove it with `remove_space`."""
    space = Path(os.path.realpath(tempfile.mkdtemp(prefix="iac-code-sandbox-")))
    (space / "tmp").mkdir(mode=0o700)
    blank = space / "blank"
    blank.touch(mode=0o444)
    return space


def remove_space(path: Path) -> None:
    """Remove a session's sandbox directory and what its commands left in `TMPDIR` (errors ignored)."""
    shutil.rmtree(path, ignore_errors=True)


_WRITE = re.compile(r"read-only file system|permission denied|operation not permitted", re.IGNORECASE)
_NETWORK = re.compile(
    r"network is unreachable|could not resolve|temporary failure in name resolution|name or service not known"
    r"|no such host|address family not supported|connection refused|failed to connect|unable to connect"
    r"|couldn't connect|dial tcp|getaddrinfo|no address associated",
    re.IGNORECASE,
)

WRITE_HINT = "the sandbox lets a command write only in the project (not in .git/ or the other protected paths) and in $TMPDIR, and read no credentials"
NETWORK_HINT = "the sandbox has no network (loopback included)"


def blocked_hint(output: str) -> str | None:
    """The fixed hint ending a failed sandboxed command's result when its output looks like the
    sandbox stopped it (a read-only file system, a permission refused, no network), else None."""
    causes = [hint for pattern, hint in ((_WRITE, WRITE_HINT), (_NETWORK, NETWORK_HINT)) if pattern.search(output)]
    if not causes:
        return None
    return (
        f"[Blocked by the sandbox? {'; '.join(causes)}. If the command needs more, ask to run it outside "
        "the sandbox: call bash again with `sandbox: false` and a `reason`.]"
    )


def protect_agent() -> None:
    """Make this process non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`): its `/proc/<pid>/environ`,
    `mem` and `fd` then belong to root, out of reach of the commands it runs as the same user
    (Landlock does not hide them; bubblewrap's PID namespace does). Linux only; failures ignored."""
    if sys.platform != "linux":
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE


def describe(detection: Detection) -> str:
    """What `iac-code sandbox --check` (doctor) prints: the backend in use, and why each other does not work."""
    lines = [f"sandbox setting: {detection.setting}", f"in use: {detection.backend} ({detection.describe()})"]
    for name, problem in (("bwrap", detection.bwrap), ("landlock", detection.landlock)):
        lines.append(f"{name}: " + ("works" if problem is None else problem))
    if detection.bwrap is not None:
        lines.append(f"to sandbox with bubblewrap: {INSTALL_HINT}")
    return "\n".join(lines)
