"""What to launch as the agent: the command line and its environment.

The default agent is `iac-code acp`, started as `<this python> -m iac_code acp` (a separate
program: the app never imports it). `--agent "CMD ARGS"` names any other ACP agent.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AgentCommand:
    """An agent's command line (program first)."""

    argv: tuple[str, ...]

    @property
    def program(self) -> str:
        """The executable."""
        return self.argv[0]

    @property
    def args(self) -> tuple[str, ...]:
        """The arguments after the executable."""
        return self.argv[1:]

    def __str__(self) -> str:
        return shlex.join(self.argv)


def default_agent_command() -> AgentCommand:
    """`iac-code acp`, run by the same Python interpreter as this app."""
    return AgentCommand((sys.executable, "-m", "iac_code", "acp"))


def parse_agent_command(text: str) -> AgentCommand:
    """Split a shell-style command line (`--agent "CMD ARGS"`); ValueError when it is empty or unbalanced."""
    argv = shlex.split(text)
    if not argv:
        raise ValueError("the agent command is empty")
    return AgentCommand(tuple(argv))


def agent_environment(base: Mapping[str, str] | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The agent's environment: the user's whole environment, plus `extra`.

    Exported shell functions (`BASH_FUNC_*`, values starting with `()`) are left out, and
    `PYTHONUNBUFFERED=1` is added unless set.

    The ACP SDK's spawner keeps only HOME/LOGNAME/PATH/SHELL/TERM/USER unless told otherwise,
    which would hide `ANTHROPIC_*`, `IAC_CODE_*`, `LANG`, proxies and whatever another agent needs.
    The agent runs on the user's behalf, like a program started from their shell, so it gets
    the environment the user started this app with.
    """
    env = {k: v for k, v in (os.environ if base is None else base).items() if not v.startswith("()")}
    env.setdefault("PYTHONUNBUFFERED", "1")  # a Python agent's stderr reaches the log as it happens
    if extra:
        env.update(extra)
    return env
