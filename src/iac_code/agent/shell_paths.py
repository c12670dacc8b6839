"""Which paths a `bash` command's arguments may name, for its permission rule (`shell_rules`).

PROTOCOL.md (Permissions): sensitive paths are never covered by a saved rule, and a rule saved in a
project covers the project. A command gets no rule when an argument names a sensitive path by its
text (`.git/hooks/x`, `~/.netrc`, `key.pem`, in any letter case, as an option's attached value
`-t.git/hooks`, or through a glob that can match a hidden name `.gi?/`), may leave the cwd by its
text (absolute, `~`, `..`), or resolves, through symlinks, outside the cwd or to a sensitive path
(`docs/pre-commit` when `docs` links to `.git/hooks`); a regular file with more than one hard
link counts as outside. A recursive read (`grep -r`, `rg`, `diff -r`, a Helm chart) gets no rule
when the tree it reads holds a sensitive file, a link leading out or a multi-linked file. The
sensitive names are the file tools' (`tools.paths`): one list for both.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

from iac_code.tools.paths import (
    CONTROL_DIR_NAMES,
    CONTROL_FILE_NAMES,
    SENSITIVE_CONFIG_DIRS,
    is_inside,
    is_sensitive,
    multi_linked,
    resolve,
    sensitive_name,
)

SENSITIVE_NAMES = frozenset(name.casefold() for name in CONTROL_DIR_NAMES | CONTROL_FILE_NAMES | {".iac-code"})
"""Path components that make an argument name a path sensitive to write (`cp x .git/hooks/x`), also
at the end of a longer word (`-t.git`); the names sensitive to read are `paths.sensitive_name`'s."""

DEVICE_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
"""Device files an argument or redirection may name without touching a file."""

MAX_WALKED = 20_000
"""A recursive read whose tree has more entries than this is taken to reach a sensitive file."""


def names_sensitive(word: str, *, glob: bool = True) -> bool:
    """Whether the argument `word` may name a sensitive path (`.git/hooks/x`, `~/.ssh`, `.env.prod`,
    `HEAD:id_rsa`), also as an option's attached value (`-t.git/hooks`, `--output=.env`), in any
    letter case (a case-insensitive disk opens `.GIT/config` as `.git/config`), or, when bash may
    expand it (`glob`), through a glob that can match a hidden name (`.gi?/config`)."""
    pieces = re.split(r"[/=:,]", word.casefold())
    for i, part in enumerate(pieces):
        short = part[2:] if part.startswith("-") and not part.startswith("--") else part
        if (
            any(part.endswith(name) for name in SENSITIVE_NAMES)
            or ".env" in part
            or sensitive_name(part)
            or sensitive_name(short)
            or (part == ".config" and i + 1 < len(pieces) and pieces[i + 1] in SENSITIVE_CONFIG_DIRS)
        ):
            return True
        if glob and part.startswith(".") and any(c in part for c in "*?["):
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


def exposes(arguments: Iterable[str], cwd: Path, config_dir: Path, root: Path | None = None) -> bool:
    """Whether one of `arguments`, resolved from the real directory `cwd` through symlinks, is
    outside `root` (default `cwd`: the project), sensitive to write, or a multi-linked file."""
    root = root or cwd
    for argument in arguments:
        if argument in DEVICE_FILES:
            continue
        try:
            real = resolve(cwd, argument)
        except (OSError, ValueError):
            return True
        if not is_inside(real, root) or is_sensitive(real, config_dir, writing=True) or multi_linked(real):
            return True
    return False


def reaches_sensitive(top: Path, root: Path, config_dir: Path, *, hidden: bool = True, only: tuple[str, ...] = ()) -> bool:
    """Whether a recursive read of the real path `top` may read a secret: a file sensitive to read
    (`is_sensitive`), a symbolic link leading outside `root` or to a sensitive path, a
    multi-linked file, or more than `MAX_WALKED` entries to look at. Without `hidden`, names
    starting with `.` are skipped as the reader skips them (`rg` without `--hidden`); with `only`
    (`grep --include='*.tf'`, `rg -g '*.tf'`), files whose name matches none of these globs are
    not read (links are counted whatever their name)."""
    if not top.is_dir():
        return is_sensitive(top, config_dir) or multi_linked(top)

    def read(name: str) -> bool:
        return not only or any(fnmatch.fnmatchcase(name, pattern) for pattern in only)

    try:
        for entry in _entries_below(top, hidden):
            path = Path(entry.path)
            if entry.is_symlink():
                real = Path(os.path.realpath(path))
                if not is_inside(real, root) or is_sensitive(real, config_dir):
                    return True
            elif entry.is_dir(follow_symlinks=False):
                if is_sensitive(path, config_dir) and not only:
                    return True
            elif not read(entry.name):
                continue
            elif is_sensitive(path, config_dir):
                return True
            elif entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_nlink > 1:
                return True
    except _TooMany:
        return True
    return False


class _TooMany(Exception):
    """A walk met more than `MAX_WALKED` entries."""


def _entries_below(top: Path, hidden: bool = True) -> Iterator[os.DirEntry[str]]:
    """Every entry below the directory `top`, depth first, a directory's entries before what is
    below them; directory links are not followed, and without `hidden` names starting with `.`
    (and what is below them) are skipped. Raises `_TooMany` past `MAX_WALKED` entries (skipped
    ones count)."""
    seen, pending = 0, [top]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue
        seen += len(entries)
        if seen > MAX_WALKED:
            raise _TooMany
        for entry in entries:
            if not hidden and entry.name.startswith("."):
                continue
            yield entry
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))


LINK_CARRIERS = frozenset({"cp", "mv"})
"""Programs that may carry a symbolic link's text to another directory (`mv` always; `cp` with
`-P`, `-d`, `-a`, `-r`)."""


def holds_link(arguments: Iterable[str], cwd: Path) -> bool:
    """Whether one of `arguments`, from the real directory `cwd`, is a symbolic link or a directory
    with one below it (or with more than `MAX_WALKED` entries). A relative link means another
    place once moved: `a/b/L -> ../../u` is `u` inside the project, and moved to `L` it is the
    directory above the project (`mv a/b/L L && grep -r x L`); so `cp`/`mv` of links get no rule."""
    for argument in arguments:
        if argument in DEVICE_FILES:
            continue
        path = Path(argument) if os.path.isabs(argument) else cwd / argument
        try:
            if path.is_symlink():
                return True
            if not path.is_dir():
                continue
        except OSError:
            return True
        try:
            if any(entry.is_symlink() for entry in _entries_below(path)):
                return True
        except _TooMany:
            return True
    return False


def glob_matches(pattern: str, cwd: Path) -> list[str] | None:
    """The names bash expands the glob `pattern` to in `cwd` now (hidden names only when the
    pattern's component starts with `.`, as bash without `dotglob`), or None when the pattern is
    one this function cannot expand as bash would (quotes, backslashes, `[^…]`, braces)."""
    if any(c in pattern for c in "'\"\\{}") or "[^" in pattern:
        return None
    return glob.glob(pattern, root_dir=cwd)


def foreign_repository(start: Path, root: Path) -> bool:
    """Whether `git` started in the real directory `start` may use a repository the agent could
    have made: on the way up from `start` to the first directory holding `.git`, a directory
    inside `root` that is itself a repository (`HEAD`, `objects/`, `refs/`: a bare one, whose
    `config` may run code through `core.fsmonitor`, `core.pager` or `diff.external`). A `.git`
    (written only with the person's approval) ends the search, as it ends git's."""
    for directory in (start, *start.parents):
        if os.path.lexists(directory / ".git"):
            return False
        if is_inside(directory, root) and (directory / "HEAD").is_file() and (directory / "objects").is_dir() and (directory / "refs").is_dir():
            return True
    return False


BUILTINS = frozenset(
    "cd pwd echo printf test [ true false : pushd popd dirs type kill wait jobs umask ulimit".split()
)
"""bash builtins: run as such, whatever PATH holds."""


def runs_from(program: str, root: Path) -> bool:
    """Whether running `program` by its name may run a file inside `root`: PATH (the agent's, which
    commands inherit) has a relative entry (`.`, an empty one) or one inside `root`, and the
    program is not a builtin. A `./ls` the agent wrote must not run under a rule for `ls`."""
    if not program or program in BUILTINS:
        return False
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            return True
        real = Path(os.path.realpath(entry))
        if is_inside(real, root) and (real / program).exists():
            return True
    return False


def tracks_sensitive(start: Path, config_dir: Path) -> bool:
    """Whether the repository `git` finds from `start` tracks a file sensitive to read (a
    committed `.env` that `git show HEAD` would print), by `git ls-files`; True when that cannot be
    told. Only for a repository `foreign_repository` accepts (its config is the person's).
    Files deleted from the index but left in history are not seen."""
    try:
        listed = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", "--no-optional-locks", "ls-files", "-z", "--full-name"],
            cwd=start, capture_output=True, timeout=10, check=False, stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return True
    if listed.returncode != 0:
        return False  # not a repository: git will not show anything either
    for name in listed.stdout.split(b"\0"):
        if name and is_sensitive(Path("/", os.fsdecode(name)), config_dir):
            return True
    return False
