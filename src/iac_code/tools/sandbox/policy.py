"""What a sandboxed command may reach (PROTOCOL.md, Command sandbox): the policy of one command.

Writable: the session's cwd (unless the project is read-only, as in `plan` mode) and the
session's private temp dir. Everything else is read-only. Inside the cwd, read-only: the agent's
cache dir (`configdir.cache_dir()`: the parser tables it loads) and every path a
write to which `tools.paths.is_sensitive` calls sensitive (`.git` with a worktree's or
submodule's `.git` file and the `gitdir:` it names, `.iac-code/`, `.terraform/`, `.mcp.json`,
shell start-up files, ...). Hidden (not readable): the credential locations of the home directory
(`HOME_SECRETS`), the agent's config dir, the agents' sockets (`ssh-agent`, Docker), and every
file inside the cwd that a read of is sensitive (`.env*`, keys, credentials, state files).

Paths are found when the command starts; only existing paths are listed (nothing is created in the
project to serve as a mount point). A path that is the cwd or holds it is never hidden.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from iac_code.configdir import cache_dir
from iac_code.tools.paths import is_inside, sensitive_parts

HOME_SECRETS = (
    ".ssh", ".aws", ".aliyun", ".kube", ".azure", ".config/gcloud", ".config/gh", ".docker/config.json",
    ".gnupg", ".netrc", ".npmrc", ".pypirc", ".vault-token", ".terraform.d/credentials.tfrc.json",
    ".terraformrc", ".git-credentials", ".pgpass", ".oci", ".config/glab-cli", ".config/hub", ".config/doctl",
    ".cargo/credentials.toml", ".s3cfg", ".boto", ".bash_history", ".zsh_history", ".history", ".psql_history",
    ".mysql_history", ".python_history",
)  # fmt: skip
"""Where people keep credentials in their home directory: hidden from every sandboxed command."""

AGENT_SOCKETS = ("/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock", "/run/podman/podman.sock")
"""Sockets that hand out more than the sandbox allows (a container runtime is root on the host)."""

UNSEARCHED_DIRS = frozenset({
    "node_modules", "site-packages", "dist-packages", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
})
"""Directories of installed dependencies and caches, not searched for secrets (they hold thousands
of files and none of the person's own)."""

MAX_PROJECT_ENTRIES = 50_000
"""The walk of the project for protected paths gives up after this many entries (`Policy.complete`)."""


@dataclass(frozen=True, slots=True)
class Policy:
    """The file system and network a sandboxed command gets. Paths are real and absolute.

    `writable` trees may be changed; `read_only` paths inside them only read; `hidden` paths
    (files or directories, anywhere) not read at all: a hidden directory looks empty, a hidden
    file looks like `blank` (an empty read-only file outside the writable trees) where a backend
    can show it so; `network` False: no network, loopback included. `complete` False: the project
    was too large to search whole for protected paths.
    """

    cwd: Path
    writable: tuple[Path, ...]
    blank: Path
    read_only: tuple[Path, ...] = ()
    hidden: tuple[Path, ...] = ()
    network: bool = False
    complete: bool = True


def command_policy(
    cwd: Path,
    config_dir: Path,
    tmpdir: Path,
    *,
    blank: Path,
    project_writable: bool = True,
    home: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> Policy:
    """The policy of a command run in `cwd` (real) with the private temp dir `tmpdir` and the
    empty file `blank`; `home` defaults to the user's home directory, `environ` (for
    `SSH_AUTH_SOCK`) to `os.environ`."""
    environ = os.environ if environ is None else environ
    home = Path(os.path.realpath(home or Path.home()))
    read_only, hidden, complete = project_paths(cwd, config_dir)
    if not project_writable:  # all of it is read-only; its secrets stay hidden
        read_only = []
    else:
        read_only += _own_cache_inside(cwd)
    outside = [home / name for name in HOME_SECRETS] + [Path(config_dir), *map(Path, AGENT_SOCKETS)]
    if environ.get("SSH_AUTH_SOCK"):
        outside.append(Path(environ["SSH_AUTH_SOCK"]))
    for path in outside:
        if not os.path.lexists(path):  # most are not there: one lstat, not a realpath's
            continue
        real = Path(os.path.realpath(path))
        if os.path.lexists(real) and not is_inside(cwd, real):
            hidden.append(real)
    writable = (tmpdir, cwd) if project_writable else (tmpdir,)
    return Policy(
        cwd=cwd,
        writable=writable,
        blank=blank,
        read_only=tuple(dict.fromkeys(read_only)),
        hidden=tuple(dict.fromkeys(hidden)),
        complete=complete,
    )


def _own_cache_inside(cwd: Path) -> list[Path]:
    """The agent's cache dir when it lies inside the project `cwd` (the project is the home
    directory, or `XDG_CACHE_HOME` points into it): read-only, made first if need be, since the
    agent unpickles what is in it (elsewhere the cache dir is read-only as all outside the project)."""
    cache = Path(os.path.realpath(cache_dir()))
    if not is_inside(cache, cwd) or cache == cwd:
        return []
    try:
        cache.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return []
    return [cache]


def project_paths(cwd: Path, config_dir: Path) -> tuple[list[Path], list[Path], bool]:
    """(read-only paths, hidden paths, whether the walk was complete) inside the project `cwd`.

    A protected directory is not entered (all of it is protected), nor are a directory symlink
    (what it leads to is protected where it is) and the dependency and cache directories of
    `UNSEARCHED_DIRS`; the walk gives up after `MAX_PROJECT_ENTRIES` entries.
    """
    read_only: list[Path] = []
    hidden: list[Path] = []
    config = os.path.realpath(config_dir)
    stack = [(os.fspath(cwd), tuple(part.casefold() for part in cwd.parts[-2:]))]
    count = 0
    while stack:
        directory, parts = stack.pop()
        try:
            with os.scandir(directory) as it:
                found = list(it)
        except OSError:
            continue
        count += len(found)
        if count > MAX_PROJECT_ENTRIES:
            return read_only, hidden, False
        for entry in found:
            here = (*parts[-2:], entry.name.casefold())  # the directories entered are not sensitive
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if entry.path == config or sensitive_parts(here):
                hidden.append(Path(entry.path))
            elif sensitive_parts(here, writing=True):
                read_only.append(Path(entry.path))
                if here[-1] == ".git" and not is_dir:
                    read_only.extend(_gitdir(Path(entry.path), cwd))
            elif is_dir and here[-1] not in UNSEARCHED_DIRS:
                stack.append((entry.path, here))
    return read_only, hidden, True


def _gitdir(dot_git: Path, cwd: Path) -> list[Path]:
    """The `gitdir:` a `.git` file names (a worktree or submodule), when it is inside `cwd`."""
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return []
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            target = Path(os.path.realpath(dot_git.parent / line.removeprefix("gitdir:").strip()))
            return [target] if target.exists() and is_inside(target, cwd) else []
    return []
