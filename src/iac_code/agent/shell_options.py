"""How a command's words are checked against a program's safe list (`shell_safe.SAFE`).

PROTOCOL.md (Permissions): a saved bash rule covers a program (and its subcommand) only with the
options its safe list names. A `Spec` is one such list, written as a string of option names, each
with a mark saying what follows it:

| mark | meaning | e.g. |
|---|---|---|
| none | a flag (no value) | `-l`, `--all` |
| `?` | a flag with an optional value attached with `=` | `--color?` |
| `=` | a value that is not a file (attached or the next word) | `-n=`, `--sort=` |
| `@` | a value that names a file: its path is checked like an operand | `-f@`, `--file@` |
| `!` | a value that is a script, checked by the spec's `script` | `-e!` |
| `==` / `=@` | two values: a name and a plain value / a file | `--arg==`, `--rawfile=@` |

Short options cluster (`-la`; a valued one ends its cluster: `-n5`, `-tx`); long options take
their value after `=` or as the next word; `--` ends the options. `terraform`-style programs
(`go_style`) take every option as one word (`-check`, `-chdir=x`). An option not on the list,
also an abbreviation of a listed one (GNU and git accept `--out` for `--output`), leaves the
command uncovered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["flag", "optional", "plain", "path", "script", "two", "name_path"]
_MARKS: dict[str, Kind] = {"==": "two", "=@": "name_path", "?": "optional", "=": "plain", "@": "path", "!": "script"}


@dataclass(slots=True)
class Parsed:
    """A command's words as its spec reads them: the options given (name, value; a flag's value is
    None), the operands, the words that name files (operands and `@` values), and the scripts."""

    options: list[tuple[str, str | None]] = field(default_factory=list)
    operands: list[str | None] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)

    def given(self, names: frozenset[str]) -> bool:
        """Whether one of the options `names` (or `name=value` for a given value) was given."""
        return any(n in names or f"{n}={v}" in names for n, v in self.options)


def _table(options: str) -> dict[str, Kind]:
    table: dict[str, Kind] = {}
    for token in options.split():
        for mark, kind in _MARKS.items():
            if token.endswith(mark) and len(token) > len(mark) + 1:
                table[token[: -len(mark)]] = kind
                break
        else:
            table[token] = "flag"
    return table


@dataclass(frozen=True)
class Spec:
    """The safe list of one program or subcommand, and why it is safe (one line, for people).

    `first`: what the first operand is unless one of `instead` was given (`pattern`, not a file:
    grep's; `script`: checked by `script`, with the `!` values, joined by newlines). `operands`:
    `paths` (checked as files) or `plain`; at most `max_operands`. `recursive`: the options that
    make it read whole trees (`*`: always; the trees are its file operands), `walks`: options whose
    values are trees it reads (`kubectl -f DIR`), `only`: the name globs of the files it reads in
    them (`*.tf`; links are checked whatever their name), `hidden`: the options that make it read
    hidden names too (else it reads them whenever it is recursive, unless `skips_hidden`). `writes`: it changes
    files (a glob in the same command line is then not covered). `check`: a last word on the parse.
    """

    why: str
    options: str = ""
    first: Literal["", "pattern", "script"] = ""
    instead: str = ""
    script: Callable[[str], bool] | None = None
    operands: Literal["paths", "plain"] = "paths"
    max_operands: int | None = None
    numeric: bool = False
    go_style: bool = False
    recursive: str = ""
    walks: str = ""
    only: str = ""
    skips_hidden: bool = False
    hidden: str = ""
    writes: bool = False
    shows_content: bool = False
    """It prints the content of the files a repository tracks (`git show`): not covered where the
    repository tracks a sensitive file (`shell_paths.tracks_sensitive`)."""
    check: Callable[[Parsed], bool] | None = None
    table: dict[str, Kind] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "table", _table(self.options))

    def parse(self, args: list[str | None]) -> Parsed | None:
        """`args` (the words after the program or subcommand; None for a glob) read with this
        spec, or None when one is not on the list or the spec's checks refuse them."""
        parsed = Parsed()
        words = list(args)
        i = 0
        only_operands = False
        while i < len(words):
            word = words[i]
            i += 1
            if word is None or only_operands or word == "-" or not word.startswith("-"):
                parsed.operands.append(word)
                continue
            if word == "--":
                only_operands = True
                continue
            taken = self._option(word, words, i, parsed)
            if taken is None:
                return None
            i += taken
        return parsed if self._accepts(parsed) else None

    def _option(self, word: str, words: list[str | None], i: int, parsed: Parsed) -> int | None:
        """Record the option `word` (the words after it start at `i`); returns how many of those
        it took as values, or None when it is not on the list."""
        if self.numeric and word[1:].isdigit():
            parsed.options.append(("-NUM", word[1:]))
            return 0
        if word.startswith("--") or self.go_style:
            name, eq, value = word.partition("=")
            if self.go_style:
                name = "-" + name.lstrip("-")
            return self._valued(name, value if eq else None, words, i, parsed)
        for j, letter in enumerate(word[1:], start=2):
            name = "-" + letter
            kind = self.table.get(name)
            if kind is None:
                return None
            if kind == "flag":
                parsed.options.append((name, None))
                continue
            rest = word[j:]
            return self._valued(name, rest or None, words, i, parsed)
        return 0

    def _valued(self, name: str, attached: str | None, words: list[str | None], i: int, parsed: Parsed) -> int | None:
        kind = self.table.get(name)
        if kind is None:
            return None
        if kind in ("flag", "optional"):
            if attached is not None and (kind == "flag" and not (self.go_style and attached in ("true", "false"))):
                return None
            parsed.options.append((name, attached))
            return 0
        count = 2 if kind in ("two", "name_path") else 1
        values = [attached] if attached is not None and count == 1 else words[i : i + count]
        if len(values) < count or any(v is None for v in values) or (attached is not None and count == 2):
            return None
        value = values[-1]
        assert value is not None
        if kind in ("path", "name_path"):
            parsed.paths.append(value)
        elif kind == "script":
            parsed.scripts.append(value)
        parsed.options.append((name, value))
        return 0 if attached is not None else count

    def _accepts(self, parsed: Parsed) -> bool:
        operands = parsed.operands
        if self.first and not parsed.given(frozenset(self.instead.split())):
            if not operands or operands[0] is None:
                return False
            head = operands.pop(0)
            assert head is not None
            if self.first == "script":
                parsed.scripts.insert(0, head)
        if self.script is not None and parsed.scripts and not self.script("\n".join(parsed.scripts)):
            return False
        if self.max_operands is not None and len(operands) > self.max_operands:
            return False
        if self.operands == "paths":
            parsed.paths.extend(o for o in operands if o is not None)
        elif None in operands:
            return False
        return self.check is None or self.check(parsed)

    def reads_recursively(self, parsed: Parsed) -> bool:
        """Whether the command reads whole directory trees (`grep -r`, `rg`, `diff -r`)."""
        return self.recursive == "*" or parsed.given(frozenset(self.recursive.split()))

    def reads_hidden(self, parsed: Parsed) -> bool:
        """Whether its recursive read takes in hidden names (`rg` only with `--hidden` or `-uu`)."""
        if not self.skips_hidden:
            return True
        return parsed.given(frozenset(self.hidden.split())) or sum(n == "-u" for n, _ in parsed.options) >= 2


@dataclass(frozen=True)
class Program:
    """A program with subcommands: the options it takes before the subcommand (`git -C dir`), and
    the safe list of each subcommand a rule may cover (`git status`)."""

    globals: Spec
    subcommands: dict[str, Spec]
    exact_others: bool = True
    """Whether another subcommand may get an exact-line rule (not `iac-code`'s: it runs an agent)."""

    def split(self, args: list[str | None]) -> tuple[Parsed, str | None, list[str | None]] | None:
        """The global options before the subcommand, the subcommand (None: there is none) and the
        words after it; None when a global option is not on the list."""
        parsed = Parsed()
        i = 0
        while i < len(args):
            word = args[i]
            i += 1
            if word is None:
                return None
            if word == "--" or not word.startswith("-"):
                return parsed, (None if word == "--" else word), args[i:]
            taken = self.globals._option(word, args, i, parsed)
            if taken is None:
                return None
            i += taken
        return parsed, None, []
