"""Moving credentials out of iac-tui's environment block at start (PROTOCOL.md, Command sandbox).

A process's initial environment stays readable in `/proc/<pid>/environ` for its whole life, to
every process of the same user: a command run outside a sandbox (one the person let out, or on a
machine where none works) could read the model's key there, in the app as in the agent (which
moves its own the same way). So the app, when its environment block holds credentials (names
saying KEY, TOKEN, SECRET, PASSWORD, CREDENTIALS, AUTH), execs itself again without them and
receives them through a pipe, whose read end's number is the one variable
`IAC_TUI_CREDENTIALS_FD`. The second image puts them back into `os.environ`: the agent it starts
(and restarts) gets them from there, its environment block holds none.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys

CREDENTIALS_FD = "IAC_TUI_CREDENTIALS_FD"
MAX_BYTES = 60_000
"""What is handed off at most: a pipe holds 64 KiB before a write would wait for its reader."""

_CREDENTIAL_NAME = re.compile(
    r"(?:^|_)(?:TOKENS?|SECRETS?|PASSWORD|PASSWD|PASS|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?|AUTH)(?:_|$)",
    re.IGNORECASE,
)


def is_credential_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a credential (`ANTHROPIC_API_KEY`,
    `ANTHROPIC_AUTH_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`, ...)."""
    return bool(_CREDENTIAL_NAME.search(name))


def hand_off_credentials() -> None:
    """Call first thing as the program's entry point: when credentials are in the environment
    block, re-exec this process (same pid, same arguments) without them; in the re-executed
    process, take them back from the pipe into `os.environ`. Does nothing where exec is not
    possible or nothing is to be moved. Never returns in the first case."""
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
