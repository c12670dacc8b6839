"""Which sandbox backend works here, and the argv that runs a command under it.

Backends, in order of preference (PROTOCOL.md, Command sandbox): bubblewrap (`bwrap`, when
installed and able to make its namespaces here), Landlock (Linux >= 5.13, `landlock_exec.py`:
applied in the forked child before the exec of a local command, `confinement`, or run as a
program where an argv is needed, `landlock_argv`), none. The setting `sandbox` (`IAC_CODE_SANDBOX`) is `auto`
(the first that works), `bwrap` or `landlock` (that one, else none) or `off`.
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from iac_code.core.vocabulary import SandboxSetting
from iac_code.tools.sandbox import landlock_exec
from iac_code.tools.sandbox.policy import Policy

Backend = Literal["bwrap", "landlock", "none"]

LANDLOCK_EXEC = Path(__file__).with_name("landlock_exec.py")
"""The Landlock backend's program: run as `python -I -S landlock_exec.py … -- PROGRAM ARG…`."""

INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
PROBE_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class Detection:
    """What was found: the `backend` in use for `setting`, and for each backend None when it
    works here or the reason it does not (`bwrap`, `landlock`)."""

    setting: SandboxSetting
    backend: Backend
    bwrap: str | None
    landlock: str | None

    def describe(self) -> str:
        """One line for people: which backend runs commands, or that none does and why."""
        if self.backend == "bwrap":
            return "commands run in a bubblewrap sandbox"
        if self.backend == "landlock":
            return "commands run in a Landlock sandbox"
        if self.setting == "off":
            return "commands are not sandboxed here: IAC_CODE_SANDBOX=off"
        return "commands are not sandboxed here: install bubblewrap"


@functools.cache
def detect(setting: SandboxSetting = "auto") -> Detection:
    """The backends that work on this machine (probed once per process and setting)."""
    bwrap, landlock = bwrap_problem(), landlock_problem()
    choices: dict[SandboxSetting, tuple[Backend, ...]] = {"auto": ("bwrap", "landlock"), "bwrap": ("bwrap",), "landlock": ("landlock",)}
    wanted = choices.get(setting, ())
    works = {"bwrap": bwrap is None, "landlock": landlock is None}
    backend: Backend = next((b for b in wanted if works[b]), "none")
    return Detection(setting, backend, bwrap, landlock)


def bwrap_problem() -> str | None:
    """None when `bwrap` runs a command with the namespaces the policy uses, else why not."""
    program = shutil.which("bwrap")
    if program is None:
        return "bwrap is not installed"
    probe = [program, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-ipc",
             "--unshare-net", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--", "/bin/true"]  # fmt: skip
    try:
        done = subprocess.run(probe, capture_output=True, timeout=PROBE_TIMEOUT, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap could not be run: {exc}"
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return "bwrap cannot make its namespaces here (user namespaces disabled?): " + (reason[-1] if reason else f"exit {done.returncode}")
    return None


def landlock_problem() -> str | None:
    """None when the kernel enforces Landlock, else why not."""
    if sys.platform != "linux":
        return "Landlock is a Linux feature"
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        version = libc.syscall(ctypes.c_long(444), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    except (OSError, AttributeError) as exc:
        return f"cannot ask the kernel about Landlock: {exc}"
    if version < 1:
        err = ctypes.get_errno()
        why = "not enabled in this kernel" if err == 95 else "not in this kernel (Linux >= 5.13)"
        return f"Landlock is {why} ({os.strerror(err)})"
    return None


def wrap(backend: Backend, policy: Policy, argv: list[str]) -> list[str]:
    """The argv that runs `argv` in `policy.cwd` under `backend` ("none": `argv` itself)."""
    if backend == "bwrap":
        return bwrap_argv(policy, argv)
    if backend == "landlock":
        return landlock_argv(policy, argv)
    return list(argv)


def bwrap_argv(policy: Policy, argv: list[str]) -> list[str]:
    """bubblewrap: the whole file system read-only, a fresh /dev and /proc (in a PID namespace:
    no process of the agent's is visible), the writable trees bound read-write, then the
    read-only paths inside them, then the hidden ones (an empty read-only tmpfs over a directory,
    the policy's empty `blank` file over a file); no network namespace shared; a new terminal session (no keystrokes
    pushed into the editor's terminal); no capabilities (as root too: root keeps them in bwrap
    otherwise, and could unmount the read-only binds); killed when the agent dies."""
    out = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for path in policy.writable:
        out += ["--bind", str(path), str(path)]
    for path in policy.read_only:
        out += ["--ro-bind", str(path), str(path)]
    for path in policy.hidden:
        if path.is_dir() and not path.is_symlink():
            out += ["--tmpfs", str(path), "--remount-ro", str(path)]
        else:
            out += ["--ro-bind", str(policy.blank), str(path)]
    out += ["--unshare-pid", "--unshare-ipc"]
    if not policy.network:
        out.append("--unshare-net")
    out += ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--chdir", str(policy.cwd), "--", *argv]
    return out


def landlock_argv(policy: Policy, argv: list[str]) -> list[str]:
    """Landlock (see `landlock_exec.py`), run by this Python in isolated mode."""
    out = [sys.executable, "-I", "-S", str(LANDLOCK_EXEC), "--blank", str(policy.blank)]
    for flag, paths in (("--write", policy.writable), ("--read-only", policy.read_only), ("--hide", policy.hidden)):
        for path in paths:
            out += [flag, str(path)]
    if policy.network:
        out.append("--network")
    return [*out, "--", *argv]


def confinement(policy: Policy) -> landlock_exec.Confinement:
    """The Landlock confinement of `policy` for a command started by this process (its forked
    child calls `apply` before the exec; call `close` once it has started). Raises
    `landlock_exec.Unavailable`."""
    return landlock_exec.Confinement(
        [str(p) for p in policy.writable],
        [str(p) for p in policy.read_only],
        [str(p) for p in policy.hidden],
        blank=str(policy.blank),
        network=policy.network,
    )
