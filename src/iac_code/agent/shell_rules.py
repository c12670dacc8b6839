"""What a `bash` command is, for permission rules: its parts and the rule each part could match.

PROTOCOL.md (Permissions): a saved bash rule names a program and its subcommand (`terraform fmt`,
`git status`); a compound command (`;`, `&&`, `||`, `|`, `$(…)`, backticks, redirection to a
file) matches only when every part matches; a command that deletes, downloads-and-runs or
escalates never gets a rule. The command is parsed with tree-sitter-bash (MIT), and only the shell
syntax listed in `_STRUCTURE` is understood: anything else (loops, functions, `if`, a program name
that is not a literal word, a syntax error) makes the whole command opaque, so it always asks.

`parts(command)` returns one `Part` per simple command (also those inside `$(…)`, backticks and
`<(…)`) and per redirection to a file. A part's `rule` is the text a saved rule must equal, or
None when no rule may ever cover it (redirection to a file, `rm -r`, `sudo`, an interpreter, a
program given by its path, a command prefixed with variable assignments, an opaque command).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import tree_sitter
import tree_sitter_bash

from iac_code.agent.shell_paths import (
    DEVICE_FILES,
    exposes,
    leaves_cwd,
    names_sensitive,
)


@dataclass(frozen=True, slots=True)
class Part:
    """One simple command or file redirection of a command line; `rule` as in the module docstring."""

    text: str
    rule: str | None
    paths: tuple[str, ...] = ()
    """Its literal arguments that may name files (an option's value after `=` included)."""


SUBCOMMAND_PROGRAMS: dict[str, frozenset[str]] = {
    "git": frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"}),
    "kubectl": frozenset({"-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server"}),
    "helm": frozenset({"-n", "--namespace", "--kube-context", "--kubeconfig"}),
    "docker": frozenset({"-H", "--host", "-c", "--context", "--config", "-l", "--log-level"}),
    "podman": frozenset({"--connection", "--url"}),
    "aws": frozenset({"--profile", "--region", "--output", "--endpoint-url", "--query"}),
    "aliyun": frozenset({"--profile", "-p", "--region", "--mode"}),
    "gcloud": frozenset({"--project", "--account", "--configuration"}),
    "az": frozenset({"--subscription"}),
    "make": frozenset({"-C", "-f", "--file", "--directory", "-j", "-o", "-W"}),
    "iac-code": frozenset({"-p", "--prompt", "--output-format", "--permission-mode", "--allow", "--model", "--max-turns", "--resume"}),
    **{p: frozenset() for p in (
        "terraform", "tofu", "terragrunt", "packer", "pulumi", "cdk", "cdktf", "sam", "kustomize", "ros",
        "npm", "pnpm", "yarn", "pip", "pip3", "uv", "poetry", "cargo", "go", "gh", "glab", "brew",
        "apt", "apt-get", "systemctl", "ansible-galaxy", "tflint", "checkov", "eksctl", "doctl", "vault",
        "nomad", "consul", "infracost", "serverless", "sls", "flux", "argocd", "istioctl", "minikube", "kind",
        "k3d", "skaffold", "gsutil", "oci",
    )},
}
"""Programs whose first non-flag word is a subcommand, with their global flags that take a value."""

NO_RULE_PROGRAMS = frozenset(
    {
        # escalate or run another command given as arguments
        "sudo", "doas", "su", "pkexec", "env", "xargs", "eval", "exec", "command", "builtin", "nohup",
        "time", "timeout", "nice", "ionice", "watch", "strace", "parallel", "flock", "setsid", "chroot",
        "source", ".", "ssh", "trap", "coproc", "compgen", "complete", "fc",
        # editors run commands given as options (`vim -es -c '!cmd'`)
        "vi", "vim", "nvim", "ex", "emacs",
        # set variables from their input (`read PATH <<< .` makes the next `ls` run ./ls)
        "read", "mapfile", "readarray", "getopts",
        # change what a later word runs: `hash -p ./evil ls`, `enable -f x.so`, `shopt -s expand_aliases`
        "alias", "unalias", "hash", "enable", "shopt",
        # shells and interpreters: their argument is a program
        "bash", "sh", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "python", "python3", "perl", "ruby",
        "node", "deno", "bun", "php", "lua", "awk", "gawk", "osascript",
        # download a package named on the command line and run it
        "npx", "pnpx", "bunx", "uvx", "pipx",
        # destroy data
        "dd", "shred", "mkfs", "fdisk", "parted", "wipefs", "truncate",
    }
)
"""Programs no rule is ever saved for: each call asks (PROTOCOL.md: deletes, downloads-and-runs, escalates)."""

DANGEROUS_SUBCOMMANDS = frozenset(
    {
        "terraform destroy", "tofu destroy", "terragrunt destroy", "pulumi destroy", "cdk destroy",
        "kubectl delete", "helm uninstall", "helm delete", "git clean", "git push", "git reset",
        "npm exec", "npm x", "pnpm dlx", "pnpm exec", "yarn dlx",  # download a package and run it, like npx
        "git config",  # writes .git/config, which runs code (core.fsmonitor, core.hooksPath)
    }
)
"""Subcommands that destroy infrastructure or history: no rule is saved for them."""

RUNS_ARGUMENT: dict[str, tuple[str, ...]] = {
    "git grep": ("-O", "--open-files-in-pager"),
    "git difftool": ("-x", "--extcmd"),
    "git rebase": ("-x", "--exec"),
    "git fetch": ("--upload-pack",),
    "git pull": ("--upload-pack",),
    "git clone": ("-u", "--upload-pack", "--config"),
    "git ls-remote": ("--upload-pack",),
    "git archive": ("--exec",),
    "git submodule": ("foreach",),
    "git bisect": ("run",),
    "tar": ("--to-command", "--checkpoint-action", "-I", "--use-compress-program", "--info-script", "--new-volume-script", "-F"),
    "rsync": ("-e", "--rsh", "--rsync-path"),
    "scp": ("-S",),
    "zip": ("-TT", "--unzip-command"),
    "iac-code": ("-p", "--prompt", "--continue", "--resume"),  # runs an agent on the prompt given (with its own --allow)
}
"""Options (and words) with which a rule's command runs another command it is given: no rule covers
a call using one (`git grep -O'sh -c …'`, `tar --to-command=…`, `git submodule foreach …`)."""

DANGEROUS_FLAGS = frozenset(
    {"-auto-approve", "--auto-approve", "--force", "--hard", "--no-verify", "-c", "--exec-path", "--config-env"}
)
"""Flags that skip a confirmation or a safety check, or (`git -c`) run configured code, on any
program with a subcommand."""

_STRUCTURE = frozenset({"program", "list", "pipeline", "redirected_statement", "subshell", "negated_command", "comment"})
"""Syntax whose parts are simply the commands inside it."""

_ARGUMENTS = frozenset(
    {
        "word", "string", "raw_string", "concatenation", "number", "simple_expansion", "expansion",
        "command_substitution", "process_substitution", "ansi_c_string", "translated_string",
        "arithmetic_expansion", "brace_expression", "string_content", "variable_name", "test_operator",
        "unary_expression", "binary_expression", "parenthesized_expression", "regex", "extglob_pattern",
    }
)
"""Nodes allowed inside an argument (command substitutions in them are parts of their own)."""

_HEREDOC_STATEMENTS = frozenset({"command", "pipeline", "list", "redirected_statement", "subshell", "negated_command"})
"""What tree-sitter puts inside a heredoc redirect when the line goes on after `<<EOF`."""

_INERT_LEAVES = frozenset({"raw_string", "ansi_c_string", "comment", "heredoc_start", "heredoc_end"})
_PATHLESS_PROGRAMS = frozenset({"echo", "printf", "true", "false", ":", "test", "[", "expr", "seq", "sleep"})
"""Programs that never open a file named by an argument: an argument whose value is only known
when the command runs (`echo "$(whoami)"`) cannot make them touch a sensitive path."""

_BRACES = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")

_SUBSTITUTIONS = ("command_substitution", "process_substitution")


class Opaque(Exception):
    """The command uses syntax this module does not understand."""


@functools.cache
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parts(command: str, cwd: Path | None = None, config_dir: Path | None = None, *, exact: bool = False) -> list[Part]:
    """The parts of `command` (see the module docstring); an opaque command is one part with no rule.

    With `cwd` (real) and `config_dir`, a part with an argument that resolves, through symlinks, to
    a path outside `cwd` or to a sensitive one (`tools.paths`, as for a write) gets no rule either:
    `cp x docs/pre-commit` when `docs` links to `.git/hooks`.

    With `exact` (the session's commands run without a sandbox: PROTOCOL.md, Command sandbox), every
    part that could have a rule gets the rule for its exact text instead (`exact_rule`)."""
    try:
        root = _parser().parse(command.encode("utf-8", "surrogatepass")).root_node
        if root.has_error or _hides_substitution(root):
            raise Opaque
        found: list[Part] = []
        _walk(root, found)
        if not found:
            raise Opaque
    except (Opaque, UnicodeError, RecursionError):
        return [Part(command.strip(), None)]
    if cwd is not None and config_dir is not None:
        found = [Part(p.text, None) if p.rule and exposes(p.paths, cwd, config_dir) else p for p in found]
    if exact:
        found = [Part(p.text, exact_rule(p.text), p.paths) if p.rule else p for p in found]
    return found


EXACT = "exactly "
"""How a rule for one exact command line starts (the rest is the line: `exactly make build`)."""


def exact_rule(text: str) -> str:
    """The rule that covers the simple command `text` and nothing else."""
    return EXACT + text


def describe(rules: list[str]) -> str:
    """The rules `rules` in words, for a permission option's name ("Always allow " + this):
    "`git status` and `cat` commands", "exactly `make build`", or both joined by "and"."""
    programs = [f"`{r}`" for r in dict.fromkeys(rules) if not r.startswith(EXACT)]
    exact = [f"`{r[len(EXACT):]}`" for r in dict.fromkeys(rules) if r.startswith(EXACT)]
    said = [" and ".join(programs) + " commands"] if programs else []
    if exact:
        said.append("exactly " + " and ".join(exact))
    return " and ".join(said)


def _hides_substitution(root: tree_sitter.Node) -> bool:
    """Whether a word tree-sitter left unparsed holds `$(` or a backtick that bash would run
    (`${X:-`rm x`}`, a backtick in a heredoc body): the command is then opaque."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count:
            stack.extend(node.children)
        elif node.is_named and node.type not in _INERT_LEAVES and (b"`" in node.text or b"$(" in node.text):
            return True
    return False


def _walk(node: tree_sitter.Node, out: list[Part]) -> None:
    kind = node.type
    if kind in _STRUCTURE or not node.is_named:
        for child in node.children:
            _walk(child, out)
    elif kind in ("command", "test_command", "declaration_command"):
        out.append(_simple(node))
        _nested_redirects(node, out)
        _substitutions(node, out)
    elif kind == "variable_assignment":  # `PATH=./bin` alone changes what later commands run
        out.append(Part(node.text.decode("utf-8", "replace"), None))
        _substitutions(node, out)
    elif kind == "file_redirect":
        out.extend(_redirect(node))
        _substitutions(node, out)
    elif kind in ("heredoc_redirect", "herestring_redirect"):  # `cat <<EOF > x`: the `> x` is inside
        _nested_redirects(node, out)
        _substitutions(node, out)
        for child in node.named_children:  # `cat <<EOF | sh`: the rest of the line is inside too
            if child.type in _HEREDOC_STATEMENTS:
                _walk(child, out)
    else:
        raise Opaque


def _substitutions(node: tree_sitter.Node, out: list[Part]) -> None:
    """Walk the commands inside `$(…)`, backticks and `<(…)` anywhere below `node`."""
    for child in node.named_children:
        if child.type in _SUBSTITUTIONS:
            for inner in child.named_children:
                _walk(inner, out)
        elif child.type not in _STRUCTURE:
            _substitutions(child, out)


def _nested_redirects(node: tree_sitter.Node, out: list[Part]) -> None:
    """The file redirections below `node` (`>out.txt echo hi`), outside command substitutions."""
    for child in node.named_children:
        if child.type == "file_redirect":
            out.extend(_redirect(child))
        elif child.type not in _SUBSTITUTIONS:
            _nested_redirects(child, out)


def _redirect(node: tree_sitter.Node) -> list[Part]:
    """A redirection to a file is a part no rule covers; `2>&1` and `/dev/null` are not files."""
    operator = next((c.type for c in node.children if not c.is_named), "")
    target = node.child_by_field_name("destination")
    if target is None:
        return []
    text = _literal(target)
    if operator in ("<", "<<<") or text in DEVICE_FILES:
        return []
    if operator in (">&", "<&") and (target.type == "number" or text == "-"):
        return []
    return [Part(node.text.decode("utf-8", "replace"), None)]


def _literal(node: tree_sitter.Node) -> str | None:
    """The word `node` stands for, unquoted; None when it has expansions (its value is not known)."""
    kind = node.type
    text = node.text.decode("utf-8", "replace")
    if kind in ("word", "number"):
        return None if any(c in text for c in "$`*?[") else text.replace("\\", "")
    if kind == "raw_string":
        return text[1:-1]
    if kind == "string":
        inner = node.named_children
        if all(c.type == "string_content" for c in inner):
            return "".join(c.text.decode("utf-8", "replace") for c in inner)
        return None
    if kind == "concatenation":
        pieces = [_literal(c) for c in node.named_children]
        return None if any(p is None for p in pieces) else "".join(pieces)  # type: ignore[arg-type]
    return None


def _simple(node: tree_sitter.Node) -> Part:
    text = node.text.decode("utf-8", "replace")
    if node.type == "test_command":
        return Part(text, "test")
    if node.type == "declaration_command":  # export / local / declare / readonly / typeset
        return Part(text, None)
    words: list[str | None] = []
    expanded = False  # an argument whose value is only known when the command runs
    globs: list[str] = []
    for child in node.named_children:
        if child.type == "variable_assignment":  # `LD_PRELOAD=x ls`: the environment changes the program
            return Part(text, None)
        if child.type in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
            continue
        if child.type == "command_name":
            words.append(_literal(child.named_children[0]) if child.named_children else None)
        elif child.type in _ARGUMENTS:
            literal = _literal(child)
            words.append(literal)
            raw = child.text.decode("utf-8", "replace")
            if names_sensitive(_unquoted(child)):
                return Part(text, None)
            if literal is None and child.type == "word" and "$" not in raw and "`" not in raw:
                globs.append(raw)  # `docs/*`: bash lists the directory before the first pattern
            elif literal is None or _braces(child):  # `$X`, `$(…)`, `$'\x74'`, `{a,b}`
                expanded = True
        else:
            raise Opaque
    if expanded and words and words[0] not in _PATHLESS_PROGRAMS:
        return Part(text, None)  # `cp x "$(printf .git)/hooks/x"`: the path is not known until it runs
    if any(leaves_cwd(g) for g in globs) and words[0] not in _PATHLESS_PROGRAMS:
        return Part(text, None)  # `cat /etc/*`, `grep -r key ~/*`
    paths = [piece for w in words[1:] if w for piece in w.split("=")[0 if w[0] != "-" else 1 :] if piece]
    paths += [d for d in map(_glob_directory, globs) if d]
    if words and words[0] in _PATHLESS_PROGRAMS:
        paths = []
    return Part(text, rule_of(words), tuple(paths))


def _braces(node: tree_sitter.Node) -> bool:
    """Whether bash may brace-expand the argument `node` (`{~,.}`, `.gi{t,}`, `{1..3}`) into words
    other than its text; quoted braces count too (the test is on the text)."""
    return node.type != "raw_string" and _BRACES.search(node.text.decode("utf-8", "replace")) is not None


def _glob_directory(pattern: str) -> str:
    """The directory a glob lists, before its first pattern character (`docs/*.sh` -> `docs`; `*.tf` -> "")."""
    first = min((i for i in (pattern.find(c) for c in "*?[") if i >= 0), default=len(pattern))
    return pattern[: max(pattern.rfind("/", 0, first), 0)]


def _unquoted(node: tree_sitter.Node) -> str:
    """The text of an argument with its quotes and backslashes removed (expansions left as written)."""
    return re.sub(r"[\\'\"]", "", node.text.decode("utf-8", "replace"))


def rule_of(words: list[str | None]) -> str | None:
    """The rule a simple command `words` (None: a word with expansions) could match, or None."""
    if not words or words[0] is None:
        return None
    program = words[0]
    if program in NO_RULE_PROGRAMS or program.startswith("mkfs") or "=" in program:
        return None
    if "/" in program:  # `./deploy.sh`: the file can change after the rule is saved
        return None
    if any(w is not None and names_sensitive(w) for w in words[1:]):
        return None
    if program not in _PATHLESS_PROGRAMS and any(w is not None and leaves_cwd(w) for w in words[1:]):
        return None
    if program in ("cd", "pushd") and (len(words) == 1 or "-" in words[1:]):  # `cd` alone goes home
        return None
    if program == "printf" and any(w is None or w.startswith("-v") for w in words[1:]):  # `printf -v PATH .`
        return None
    if program == "rm" and any(w is None or _deletes_recursively(w) for w in words[1:]):
        return None
    if program == "find" and any(w is None or w in ("-exec", "-execdir", "-ok", "-okdir", "-delete") for w in words[1:]):
        return None
    if program in ("chmod", "chown", "chgrp") and any(w is None or w in ("-R", "--recursive") for w in words[1:]):
        return None
    value_flags = SUBCOMMAND_PROGRAMS.get(program)
    if value_flags is None:
        return None if _runs_argument(program, words) else program
    sub: str | None = None
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
            continue
        if word is None:
            return None
        if word.startswith("-"):
            skip = word in value_flags
            continue
        sub = word
        break
    if any(w.split("=", 1)[0] in DANGEROUS_FLAGS for w in words[1:] if w is not None):
        return None
    rule = f"{program} {sub}" if sub is not None else program
    return None if rule in DANGEROUS_SUBCOMMANDS or _runs_argument(rule, words) else rule


def _runs_argument(rule: str, words: list[str | None]) -> bool:
    """Whether `words` use one of `RUNS_ARGUMENT[rule]`, also with an attached value (`-Ocmd`, `--exec=cmd`)."""
    flags = RUNS_ARGUMENT.get(rule, ())
    for word in words[1:]:
        if word is None:
            continue
        for flag in flags:
            short = len(flag) == 2 and flag[0] == "-"
            if word == flag or word.startswith(flag + "=") or (short and word.startswith(flag)):
                return True
    return False


def _deletes_recursively(word: str) -> bool:
    """Whether an `rm` argument is a recursive or forced flag (`-r`, `-Rf`, `--recursive`, `--force`)."""
    if word in ("--recursive", "--force", "--no-preserve-root"):
        return True
    return word.startswith("-") and not word.startswith("--") and any(c in word for c in "rRf")
