"""The rule one simple command could match, from its words (PROTOCOL.md, Permissions).

- A program on the safe list (`shell_safe.SAFE`) used with options from its list gets the rule
  of the program and subcommand (`git status`, `cat`); with any other option, none (it asks).
- A program (or subcommand) not on the list gets a rule for its exact command line
  (`exactly make build`), except a program that escalates, runs a command given to it, downloads,
  or destroys (`NO_RULE_PROGRAMS`, `DANGEROUS_SUBCOMMANDS`), a command using an option that runs
  a command, names a config, template or output file, or skips a confirmation
  (`NO_RULE_OPTIONS`, `DANGEROUS_FLAGS`, `dangerous_option`), `rm -r` and `chmod -R`: those get none.
- A program given by its path (`./deploy.sh`) or after variable assignments gets none.
"""

from __future__ import annotations

from dataclasses import dataclass

from iac_code.agent.shell_options import Parsed, Program, Spec
from iac_code.agent.shell_paths import leaves_cwd
from iac_code.agent.shell_safe import SAFE
from iac_code.agent.shell_scripts import find_parse

NO_RULE_PROGRAMS = frozenset(
    {
        # escalate or run another command given as arguments
        "sudo", "doas", "su", "pkexec", "env", "xargs", "eval", "exec", "command", "builtin", "nohup",
        "time", "timeout", "nice", "ionice", "watch", "strace", "parallel", "flock", "setsid", "chroot",
        "source", ".", "trap", "coproc", "compgen", "complete", "fc", "unshare", "nsenter", "script",
        # editors run commands given as options (`vim -es -c '!cmd'`)
        "vi", "vim", "nvim", "ex", "emacs",
        # set variables from their input (`read PATH <<< .` makes the next `ls` run ./ls)
        "read", "mapfile", "readarray", "getopts", "export", "declare", "typeset", "local", "set",
        # change what a later word runs: `hash -p ./evil ls`, `enable -f x.so`, `shopt -s expand_aliases`
        "alias", "unalias", "hash", "enable", "shopt",
        # shells and interpreters: their argument is a program
        "bash", "sh", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "python", "python3", "perl", "ruby",
        "node", "deno", "bun", "php", "lua", "gawk", "mawk", "nawk", "busybox", "osascript",
        # download a package named on the command line and run it
        "npx", "pnpx", "bunx", "uvx", "pipx",
        # reach the network, or local files by URL (`curl file:///…`), with settings from files (`curl -K`)
        "curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "sftp", "scp", "rsync", "ssh",
        # destroy data
        "dd", "shred", "mkfs", "fdisk", "parted", "wipefs", "truncate",
    }
)
"""Programs no rule is ever saved for: each call asks (PROTOCOL.md: deletes, downloads-and-runs, escalates)."""

DANGEROUS_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "terraform": frozenset({"destroy"}), "tofu": frozenset({"destroy"}), "terragrunt": frozenset({"destroy"}),
    "pulumi": frozenset({"destroy"}), "cdk": frozenset({"destroy"}), "kubectl": frozenset({"delete"}),
    "helm": frozenset({"uninstall", "delete"}),
    "git": frozenset({"clean", "push", "reset", "config"}),  # config writes .git/config, which runs code
    "npm": frozenset({"exec", "x"}), "pnpm": frozenset({"dlx", "exec"}), "yarn": frozenset({"dlx"}),  # like npx
}
"""Words that, anywhere in a command of the program, destroy infrastructure or history or run a
downloaded package: no rule is saved for such a command."""

NO_RULE_OPTIONS: dict[str, tuple[str, ...]] = {
    "git": ("-c", "--config-env", "--exec-path", "--git-dir", "--work-tree", "-O", "--open-files-in-pager",
            "-x", "--extcmd", "--exec", "--upload-pack", "--receive-pack", "-u", "--template", "--output",
            "--ext-diff", "foreach", "run"),
    "tar": ("--to-command", "--checkpoint-action", "-I", "--use-compress-program", "--info-script",
            "--new-volume-script", "-F", "-P", "--absolute-names", "--transform", "--xform"),
    "zip": ("-TT", "--unzip-command"),
    "make": ("--eval", "-E"),
}
"""Options (and words) with which a program runs a command it is given, reads settings from a file,
or writes outside the project (`git grep -O'sh -c …'`, `tar --to-command=…`, `tar -P`, `make
--eval`): no rule covers a call using one, also with an attached value (`-Ocmd`, `--exec=cmd`)."""

DANGEROUS_FLAGS = frozenset({"-auto-approve", "--auto-approve", "--force", "--hard", "--no-verify"})
"""Flags that skip a confirmation or a safety check."""

DANGEROUS_LONG_OPTIONS = (
    "--output", "--template", "--config", "--eval", "--filter", "--compress-program", "--use-compress-program",
    "--to-command", "--exec", "--transform", "--absolute-names", "--upload-pack", "--receive-pack", "--rsh",
    "--checkpoint-action", "--post-renderer", "--kubeconfig", "--init-file", "--rcfile", "--load", "--plugin",
    "--pager", "--editor", "--shell", "--command", "--script", "--preprocessor",
)
"""Long options that run a command or name a config, template or output file, in many programs."""
_DANGEROUS_WORDS = ("exec", "command", "program", "script", "eval", "filter", "output", "template", "config", "hook", "plugin", "pager", "editor", "shell")

PATHLESS_PROGRAMS = frozenset({"echo", "printf", "true", "false", ":", "test", "[", "expr", "seq", "sleep"})
"""Programs that never open a file named by an argument: an argument whose value is only known
when the command runs (`echo "$(whoami)"`) cannot make them touch a sensitive path."""


@dataclass(slots=True)
class Cover:
    """What one simple command's rule needs: `rule` (None: no rule; `exact` True: the rule is the
    command's exact line), the words that name files (`paths`), the roots of a recursive read and
    whether it reads hidden names, whether it writes files, where `git` starts looking for its
    repository (`git_from`), and the directory a `cd` moves to."""

    rule: str | None
    exact: bool = False
    paths: tuple[str, ...] = ()
    roots: tuple[str, ...] = ()
    hidden: bool = True
    writes: bool = True
    git_from: str | None = None
    cd: str | None = None
    only: tuple[str, ...] = ()
    """The name globs a recursive read is limited to (`grep --include`, `rg -g`); empty: all files."""
    program: str = ""
    """The program run (found on PATH when it runs: it must not be a file in the project)."""
    shows_tracked: bool = False
    """It prints files the repository tracks (`git show`, `git log -p`, `git diff`)."""
    family: str | None = None
    """The program and subcommand of an exact-line rule (`terraform apply`): what "Always reject"
    saves, so that a rejection covers every form of the command, not one line."""


NONE = Cover(None)


def dangerous_option(word: str) -> bool:
    """Whether the long option `word` (or an abbreviation GNU getopt would expand, `--out`) runs a
    command or names a config, template or output file by its name (`--compress-program`,
    `--output-file`, `--config`)."""
    if not word.startswith("--") or word == "--":
        return False
    name = word.split("=", 1)[0]
    if any(w in name for w in _DANGEROUS_WORDS):
        return True
    return any(o.startswith(name) or name.startswith(o) for o in DANGEROUS_LONG_OPTIONS if len(name) >= 4)


def cover(words: list[str | None]) -> Cover:
    """The rule the simple command `words` (None: a word only known when it runs, a glob) could
    match; see the module docstring."""
    program = words[0] if words else None
    if not program or program in NO_RULE_PROGRAMS or program.startswith("mkfs") or "=" in program or "/" in program:
        return NONE
    if program in PATHLESS_PROGRAMS:
        if program == "printf" and any(w is None or w.startswith("-v") for w in words[1:]):  # `printf -v PATH .`
            return NONE
        return Cover(program, writes=False, program=program)
    entry = SAFE.get(program)
    if isinstance(entry, Program):
        split = entry.split(words[1:])
        if split is None:
            return NONE
        options, sub, rest = split
        if sub is None:  # `git --version`: the program's own options only
            return _listed(program, entry.globals, options)
        spec = entry.subcommands.get(sub)
        if spec is None:
            return _exact(words, f"{program} {sub}" if sub else program) if entry.exact_others else NONE
        parsed = spec.parse(rest)
        if parsed is not None:
            parsed.paths[:0] = options.paths
            git_from = "/".join(options.paths) or "." if program == "git" else None  # `git -C a -C b`: a/b
            return _listed(f"{program} {sub}", spec, parsed, git_from)
        return NONE
    if isinstance(entry, Spec):
        parsed = find_parse(words[1:]) if program == "find" else entry.parse(words[1:])
        return NONE if parsed is None else _listed(program, entry, parsed)
    return _exact(words)


def _listed(rule: str, spec: Spec, parsed: Parsed, git_from: str | None = None) -> Cover:
    if any(leaves_cwd(p) or "://" in p for p in parsed.paths):  # `kubectl get -f https://…` fetches it
        return NONE
    roots: tuple[str, ...] = ()
    if spec.reads_recursively(parsed):
        roots = tuple(o for o in parsed.operands if o is not None) or (".",)
    walked = frozenset(spec.walks.split())
    roots += tuple(v for n, v in parsed.options if n in walked and v)
    cd = parsed.paths[0] if rule == "cd" and parsed.paths else None
    if rule == "cd" and (cd is None or cd == "-"):  # `cd` alone goes home, `cd -` back
        return NONE
    only = _only(rule, parsed) or tuple(spec.only.split())
    return Cover(
        rule, False, tuple(parsed.paths), roots, spec.reads_hidden(parsed), spec.writes, git_from, cd, only,
        rule.split()[0], spec.shows_content, rule,
    )


def _only(rule: str, parsed: Parsed) -> tuple[str, ...]:
    """The globs that limit a recursive read to the files whose name matches: `grep --include`'s,
    `rg -g`'s without `!` (none if one names a directory: then every file counts)."""
    names = {"grep": ("--include",), "rg": ("-g", "--glob")}.get(rule, ())
    globs = tuple(v for n, v in parsed.options if n in names and v and not v.startswith("!"))
    return () if any("/" in g for g in globs) else globs


def _exact(words: list[str | None], family: str | None = None) -> Cover:
    """The exact-line rule of an unlisted command, unless it is one no rule covers; its `family` is
    the program and its first word that is not an option (or the subcommand found by the caller)."""
    program = words[0] or ""
    args = words[1:]
    if program == "tar" and args and args[0] and not args[0].startswith("-"):  # `tar xPf x.tar`: old-style options
        args = ["-" + args[0], *args[1:]]
    if any(w is not None and leaves_cwd(w) for w in args):
        return NONE
    dangerous = DANGEROUS_SUBCOMMANDS.get(program, frozenset())
    for word in args:
        if word is None:
            continue
        if word in dangerous or word.split("=", 1)[0] in DANGEROUS_FLAGS or dangerous_option(word):
            return NONE
        if _given(word, NO_RULE_OPTIONS.get(program, ())):
            return NONE
    if program == "rm" and any(w is None or _deletes_recursively(w) for w in args):
        return NONE
    if program in ("chmod", "chown", "chgrp") and any(w is None or w in ("-R", "--recursive") for w in args):
        return NONE
    paths = tuple(piece for w in args if w for piece in w.split("=")[0 if w[0] != "-" else 1 :] if piece)
    git_from = "." if program == "git" else None
    cd = args[0] if program in ("pushd", "popd") and args and args[0] else None
    if program in ("pushd", "popd") and cd is None:
        return NONE
    if family is None:
        sub = next((w for w in args if w and not w.startswith("-")), None)
        family = f"{program} {sub}" if sub else program
    return Cover("", True, paths, git_from=git_from, cd=cd, program=program, family=family)


def _given(word: str, options: tuple[str, ...]) -> bool:
    """Whether `word` is one of `options`, also with an attached value (`-Ocmd`, `--exec=cmd`) or, for a
    short one, anywhere in a cluster (`-xPf`)."""
    cluster = word.startswith("-") and not word.startswith("--")
    for option in options:
        short = len(option) == 2 and option[0] == "-"
        if word == option or word.startswith(option + "=") or (short and cluster and option[1] in word[1:]):
            return True
    return False


def _deletes_recursively(word: str) -> bool:
    """Whether an `rm` argument is a recursive or forced flag (`-r`, `-Rf`, `--recursive`, `--force`)."""
    if word in ("--recursive", "--force", "--no-preserve-root"):
        return True
    return word.startswith("-") and not word.startswith("--") and any(c in word for c in "rRf")
