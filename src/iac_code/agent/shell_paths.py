"""Which paths a `bash` command's arguments may name, for its permission rule (`shell_rules`).

PROTOCOL.md (Permissions): sensitive paths are never covered by a saved rule, and a rule saved in a
project covers the project. A command gets no rule when an argument names a sensitive path by its
text (`.git/hooks/x`, `~/.netrc`, `key.pem`, in any letter case, as an option's attached value
`-t.git/hooks`, or through a glob that can match a hidden name `.gi?/`), may leave the cwd by its
text (absolute, `~`, `..`), or resolves, through symlinks, outside the cwd or to a sensitive path
(`docs/pre-commit` when `docs` links to `.git/hooks`). The sensitive names are the file tools'
(`tools.paths`): one list for both.
"""

from __future__ import annotations

import re
from pathlib import Path

from iac_code.tools.paths import (
    CONTROL_DIR_NAMES,
    CONTROL_FILE_NAMES,
    SENSITIVE_FILE_NAMES,
    is_inside,
    is_sensitive,
    resolve,
)

SENSITIVE_NAMES = frozenset(
    name.casefold()
    for name in CONTROL_DIR_NAMES
    | CONTROL_FILE_NAMES
    | SENSITIVE_FILE_NAMES
    | {".git", ".iac-code"}
)
"""Path components that make an argument name a sensitive path: the names `tools.paths` holds
sensitive for the file tools (PROTOCOL.md), so a command naming one (`cp x .git/hooks/pre-commit`,
`cat ~/.netrc`) gets no rule, like a write or a read of it with a file tool. Names ending `.pem`
and holding `.env` count too."""

DEVICE_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
"""Device files an argument or redirection may name without touching a file."""


def names_sensitive(word: str) -> bool:
    """Whether the argument `word` may name a sensitive path (`.git/hooks/x`, `~/.ssh`, `.env.prod`),
    also as an option's attached value (`-t.git/hooks`, `--output=.env`), in any letter case (a
    case-insensitive disk opens `.GIT/config` as `.git/config`), or through a glob that can match a
    hidden name (`.gi?/config`)."""
    for part in re.split(r"[/=]", word.casefold()):
        if (
            any(part.endswith(name) for name in SENSITIVE_NAMES)
            or ".env" in part
            or part.endswith(".pem")
        ):
            return True
        if part.startswith(".") and any(c in part for c in "*?["):
            return True
    return False


def leaves_cwd(word: str) -> bool:
    """Whether the argument `word` names a path that may be outside the session's cwd: absolute,
    from `~`, or through `..` (also as an option's value, `--file=/x`, `-C/x`). A rule saved in a
    project covers the project: `grep -r key ~` reads every secret of the home directory."""
    for piece in word.split("="):
        if piece.startswith("-") and not piece.startswith("--"):
            piece = piece[2:]
        if piece in DEVICE_FILES:
            continue
        if piece.startswith(("/", "~")) or ".." in piece.split("/"):
            return True
    return False


def exposes(arguments: tuple[str, ...], cwd: Path, config_dir: Path) -> bool:
    """Whether one of `arguments` resolves (from the real `cwd`, through symlinks) outside `cwd` or
    to a path that is sensitive to write."""
    for argument in arguments:
        try:
            real = resolve(cwd, argument)
        except (OSError, ValueError):
            return True
        if not is_inside(real, cwd) or is_sensitive(real, config_dir, writing=True):
            return True
    return False
