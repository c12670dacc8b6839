"""Moving credentials out of the agent's environment block at start (PROTOCOL.md, Command sandbox).

A process's initial environment stays readable in `/proc/<pid>/environ` for its whole life, to
every process of the same user (or to root): a command the agent runs outside a sandbox could
read the API key there. So the agent, when its environment holds credentials
(`redact.is_credential_name`: the Anthropic key and token, cloud and registry secrets), execs
itself again without them and receives them through a pipe, whose read end's number is the one
variable `IAC_CODE_CREDENTIALS_FD`. The second image puts them back into `os.environ` (the
variables its code and its children see, kept on the heap), not into its environment block.
"""

from __future__ import annotations

import json
import os
import stat
import sys

from iac_code.redact import is_credential_name

CREDENTIALS_FD = "IAC_CODE_CREDENTIALS_FD"
MAX_BYTES = 60_000
"""What is handed off at most: a pipe holds 64 KiB before a write would wait for its reader."""


def hand_off_credentials() -> None:
    """Call first thing in a process that runs commands: when credentials are in the environment
    block, re-exec this process (same pid, same arguments) without them; in the re-executed
    process, take them back from the pipe. Does nothing where exec is not possible or nothing is
    to be moved. Never returns in the first case."""
    fd = os.environ.pop(CREDENTIALS_FD, None)
    if fd is not None:
        _receive(fd)
        return
    moved = {name: value for name, value in os.environ.items() if is_credential_name(name)}
    payload = json.dumps(moved).encode("utf-8", "surrogateescape")
    if not moved or len(payload) > MAX_BYTES or not hasattr(os, "execve"):
        return
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, payload)
    finally:
        os.close(write_fd)
    os.set_inheritable(read_fd, True)
    env = {name: value for name, value in os.environ.items() if name not in moved}
    env[CREDENTIALS_FD] = str(read_fd)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)


def _receive(fd: str) -> None:
    """Read the handed-off credentials from the pipe `fd` into `os.environ` (a bad `fd` is ignored)."""
    try:
        number = int(fd)
        if not stat.S_ISFIFO(os.fstat(number).st_mode):
            return
        with os.fdopen(number, "rb") as pipe:
            data = json.loads(pipe.read(MAX_BYTES + 1).decode("utf-8", "surrogateescape"))
    except (OSError, ValueError):
        return
    if isinstance(data, dict):
        os.environ.update({str(k): str(v) for k, v in data.items() if is_credential_name(str(k))})
