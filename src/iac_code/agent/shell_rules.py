"""What a `bash` command is, for permission rules: its parts and the rule each part could match.

PROTOCOL.md (Permissions): a saved bash rule names a program and its subcommand (`terraform fmt`,
`git status`) and covers only the options of that program's safe list (`shell_safe`); another
program gets a rule for its exact command line (`shell_cover`); a compound command (`;`, `&&`,
`||`, `|`, `$(…)`, backticks, redirection to a file) matches only when every part matches; a
command that deletes, downloads-and-runs or escalates never gets a rule. The command is parsed with
tree-sitter-bash (MIT), and only the shell syntax listed in `_STRUCTURE` is understood: anything
else (loops, functions, `if`, a program name that is not a literal word, a syntax error) makes the
whole command opaque, so it always asks.

`parts(command)` returns one `Part` per simple command (also those inside `$(…)`, backticks and
`<(…)`) and per redirection to a file. A part's `rule` is the text a saved rule must equal, or
None when no rule may ever cover it. With the session's cwd, each part's paths are checked from
every directory the command may be in when it runs (after a `cd`), globs as bash expands them
now, recursive reads on the trees they read, and `git` on the repository it would use.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from iac_code.agent.shell_cover import PATHLESS_PROGRAMS, Cover, cover
from iac_code.agent.shell_paths import (
    DEVICE_FILES,
    LINK_CARRIERS,
    exposes,
    foreign_repository,
    glob_matches,
    holds_link,
    leaves_cwd,
    names_sensitive,
    reaches_sensitive,
    runs_from,
    tracks_sensitive,
)
from iac_code.tools.paths import resolve

if TYPE_CHECKING:  # the parser is imported with the first command it reads (~16 ms of an agent's start)
    import tree_sitter


@dataclass(frozen=True, slots=True)
class Part:
    """One simple command or file redirection of a command line; `rule` as in the module docstring.

    `paths` are its literal arguments that name files, `globs` its unquoted patterns (bash expands
    them when it runs); `cover` what else its rule needs checked (`shell_cover.Cover`)."""

    text: str
    rule: str | None
    paths: tuple[str, ...] = ()
    globs: tuple[str, ...] = ()
    cover: Cover | None = None

    @property
    def family(self) -> str | None:
        """The rule "Always reject" saves for this part: its program and subcommand (`terraform
        apply` for the exact line `terraform apply -no-color`), else its `rule`."""
        return (self.cover.family if self.cover else None) or self.rule


READ_REDIRECT = "<"
"""The provisional rule of an input redirection (`< file`): it is covered when its file passes the
path checks (then it is dropped from the parts), else it is a part no rule covers."""

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

_BRACES = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")

_SUBSTITUTIONS = ("command_substitution", "process_substitution")


class Opaque(Exception):
    """The command uses syntax this module does not understand."""


def _source(node: tree_sitter.Node) -> str:
    """The text of `node` (a tree parsed from bytes keeps it; tree-sitter types `Node.text` as
    None only for trees read through a callback)."""
    return (node.text or b"").decode("utf-8", "replace")


@functools.cache
def _parser() -> tree_sitter.Parser:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parts(command: str, cwd: Path | None = None, config_dir: Path | None = None, *, exact: bool = False) -> list[Part]:
    """The parts of `command` (see the module docstring); an opaque command is one part with no rule.

    With `cwd` (real) and `config_dir`, a part gets no rule either when, from a directory the
    command may be in when it runs (`cwd`, or after a `cd`), an argument or a glob's match resolves
    through symlinks outside `cwd`, to a sensitive path (`tools.paths`, as for a write) or to a
    multi-linked file (`cp x docs/pre-commit` when `docs` links to `.git/hooks`, `cd sub && cat
    key` when `sub/key` links to `~/.ssh/id_rsa`); when a glob may expand to an option (a name
    starting with `-`) or after another part that writes; when its recursive read reaches a
    sensitive file (`grep -r PASSWORD .` with a `.env`); or when `git` would use a repository the
    agent could have made (`shell_paths.foreign_repository`).

    With `exact` (the session's commands run without a sandbox: PROTOCOL.md, Command sandbox), every
    part that could have a rule gets the rule for its exact text instead (`exact_rule`)."""
    try:
        root = _parser().parse(command.encode("utf-8", "surrogatepass")).root_node
        if root.has_error or _hides_substitution(root) or _evaluates_strings(root):
            raise Opaque
        found: list[Part] = []
        _walk(root, found)
        if not found:
            raise Opaque
    except (Opaque, UnicodeError, RecursionError):
        return [Part(command.strip(), None)]
    if cwd is not None and config_dir is not None:
        found = _checked(found, cwd, config_dir)
    found = [p for p in found if p.rule != READ_REDIRECT]
    if exact:
        found = [replace(p, rule=exact_rule(p.text)) if p.rule else p for p in found]
    return found


def _checked(found: list[Part], cwd: Path, config_dir: Path) -> list[Part]:
    """`found` with the rule of each part that fails a check of `parts` taken away."""
    dirs = [cwd]
    checked: list[Part] = []
    writers = sum(1 for p in found if p.rule and p.rule != READ_REDIRECT and (p.cover is None or p.cover.writes))
    for part in found:
        how = part.cover
        if part.rule and not _passes(part, dirs, cwd, config_dir, writers):
            part = Part(part.text, None)
        checked.append(part)
        if how is not None and how.cd is not None:
            dirs = list(dict.fromkeys([*dirs, *(_resolved(d, how.cd) for d in dirs)]))
    return checked


def _passes(part: Part, dirs: list[Path], cwd: Path, config_dir: Path, writers: int) -> bool:
    how = part.cover or Cover(part.rule)
    for directory in dirs:
        if exposes(part.paths, directory, config_dir, root=cwd):
            return False
        roots = list(how.roots)
        named = list(part.paths)
        for pattern in part.globs:
            matches = glob_matches(pattern, directory)
            others_write = writers > (1 if how.writes else 0)
            if matches is None or others_write or any(m.startswith("-") for m in matches):
                return False
            if exposes(matches, directory, config_dir, root=cwd):
                return False
            named += matches
            if how.roots:
                roots += matches
        if how.program in LINK_CARRIERS and holds_link(named, directory):
            return False
        if any(reaches_sensitive(_resolved(directory, r), cwd, config_dir, hidden=how.hidden, only=how.only) for r in roots):
            return False
        if how.git_from is not None:
            start = _resolved(directory, how.git_from)
            if foreign_repository(start, cwd) or (how.shows_tracked and tracks_sensitive(start, config_dir)):
                return False
    return not runs_from(how.program, cwd)


def _resolved(directory: Path, path: str) -> Path:
    try:
        return resolve(directory, path)
    except (OSError, ValueError):
        return directory / path


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
        elif node.is_named and node.type not in _INERT_LEAVES and (b"`" in (node.text or b"") or b"$(" in (node.text or b"")):
            return True
    return False


_SAFE_EXPANSION_OPERATORS = frozenset({"#", ":-", "-", ":+", "+", ":?", "?", "%", "%%", "##", "/", "//", "/#", "/%", "^", "^^", ",", ",,", ":"})
"""`${x…}` operators that only read `x` and print a word (`:=`/`=` assign, `@P` prompt-expands,
`!` is indirect: see `_evaluates_strings`)."""
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})


def _evaluates_strings(root: tree_sitter.Node) -> bool:
    """Whether bash may run code written inside a string of the command: an arithmetic context
    evaluates a variable's value or a quoted string as an expression, and an array subscript in
    it runs the `$(…)` it holds (`echo $(( 'a[$(id)]' ))`, `[[ 'a[$(id)]' -eq 1 ]]`, `test -v
    'a[$(id)]'`, `${a[x]}`, `${x:y}`, `${!x}`); `${x@P}` expands a value as a prompt, command
    substitutions included; `${x:='…'}` sets the value those read. Such a command is opaque.
    Arithmetic on numbers (`$((1+2))`), `${#x}`, `${x:-y}`, `${x%.tf}`, `${x:1:2}` are not."""
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        kind = node.type
        if kind == "arithmetic_expansion":
            if any(c.is_named and c.type not in ("number", "binary_expression", "unary_expression", "parenthesized_expression")
                   for c in _descendants(node)):
                return True
        elif kind == "expansion":
            children = node.children
            operators = [c.type for c in children if not c.is_named and c.type not in ("${", "}")]
            if "!" in operators or any(op not in _SAFE_EXPANSION_OPERATORS for op in operators):
                return True
            if any(c.type in ("subscript", "ERROR") for c in children):
                subscript = next(c for c in children if c.type in ("subscript", "ERROR"))
                index = [c for c in subscript.named_children if c.type != "variable_name"]
                if subscript.type == "ERROR" or not all(c.type == "number" or c.text in (b"@", b"*") for c in index):
                    return True
            if ":" in operators:  # `${x:offset:length}` evaluates both as arithmetic
                after = children[[c.type for c in children].index(":") + 1 :]
                if not all(c.type in ("number", ":", "}") for c in after):
                    return True
        elif kind == "test_operator":
            operator = _source(node)
            if operator in ("-v", "-R"):
                return True
            parent = node.parent
            if operator in _ARITHMETIC_TESTS and parent is not None and any(
                c.type != "number" for c in parent.named_children if c.id != node.id
            ):
                return True
        elif kind == "command":
            words = [c for c in node.named_children if c.type != "command_name"]
            name = node.child_by_field_name("name")
            if name is not None and _source(name) in ("test", "[") and any(_literal(w) in ("-v", "-R") for w in words):
                return True
    return False


def _descendants(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    found, stack = [], list(node.children)
    while stack:
        child = stack.pop()
        found.append(child)
        stack.extend(child.children)
    return found


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
        out.append(Part(_source(node), None))
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
    """A redirection to a file is a part no rule covers; `2>&1` and `/dev/null` are not files; an
    input redirection (`< file`) is a `READ_REDIRECT` part when its file is a literal path that
    may be checked (`wc -l < ~/.ssh/id_rsa` is a read of that key)."""
    operator = next((c.type for c in node.children if not c.is_named), "")
    target = node.child_by_field_name("destination")
    if target is None:
        return []
    text = _literal(target)
    whole = _source(node)
    if text in DEVICE_FILES or operator == "<<<":
        return []
    if operator in (">&", "<&") and (target.type == "number" or text == "-"):
        return []
    if operator == "<":
        readable = text is not None and not leaves_cwd(text) and not names_sensitive(text)
        return [Part(whole, READ_REDIRECT if readable else None, (text,) if text else ())]
    return [Part(whole, None)]


def _literal(node: tree_sitter.Node) -> str | None:
    """The word `node` stands for, unquoted; None when it has expansions (its value is not known)."""
    kind = node.type
    text = _source(node)
    if kind in ("word", "number"):
        return None if any(c in text for c in "$`*?[") else text.replace("\\", "")
    if kind == "raw_string":
        return text[1:-1]
    if kind == "string":
        inner = node.named_children
        if all(c.type == "string_content" for c in inner):
            return "".join(_source(c) for c in inner)
        return None
    if kind == "concatenation":
        pieces = [_literal(c) for c in node.named_children]
        known = [p for p in pieces if p is not None]
        return "".join(known) if len(known) == len(pieces) else None
    return None


def _simple(node: tree_sitter.Node) -> Part:
    text = _source(node)
    if node.type == "test_command":
        return Part(text, "test", cover=Cover("test", writes=False))
    if node.type == "declaration_command":  # export / local / declare / readonly / typeset
        return Part(text, None)
    words: list[str | None] = []
    expanded = False  # an argument whose value is only known when the command runs
    sensitive = False  # an argument that names a sensitive path by its text
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
            raw = _source(child)
            sensitive = sensitive or names_sensitive(_unquoted(child), glob=child.type in ("word", "concatenation"))
            if literal is None and child.type == "word" and "$" not in raw and "`" not in raw:
                globs.append(raw)  # `*.tf`: bash expands it to names when the command runs
            elif literal is None or _braces(child):  # `$X`, `$(…)`, `$'\x74'`, `{a,b}`
                expanded = True
        else:
            raise Opaque
    pathless = bool(words) and words[0] in PATHLESS_PROGRAMS
    if expanded and not pathless:
        return Part(text, None)  # `cp x "$(printf .git)/hooks/x"`: the path is not known until it runs
    if any(leaves_cwd(g) for g in globs) and not pathless:
        return Part(text, None)  # `cat /etc/*`, `grep -r key ~/*`
    how = cover(words)
    if how.rule is None:
        return Part(text, None)
    if how.exact and sensitive:  # any word may be a file to a program without a safe list
        return Part(text, None)
    if any(names_sensitive(p, glob=False) for p in how.paths) or any(names_sensitive(g) for g in globs):
        return Part(text, None)  # a safe list knows which words are files (`jq .key` names none)
    rule = exact_rule(text) if how.exact else how.rule
    return Part(text, rule, () if pathless else how.paths, () if pathless else tuple(globs), how)


def _braces(node: tree_sitter.Node) -> bool:
    """Whether bash may brace-expand the argument `node` (`{~,.}`, `.gi{t,}`, `{1..3}`) into words
    other than its text; quoted braces count too (the test is on the text)."""
    return node.type != "raw_string" and _BRACES.search(_source(node)) is not None


def _unquoted(node: tree_sitter.Node) -> str:
    """The text of an argument with its quotes and backslashes removed (expansions left as written)."""
    return re.sub(r"[\\'\"]", "", _source(node))
