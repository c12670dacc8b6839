"""The scripts inside safe-listed commands: which `sed`, `awk`, `jq`/`yq` programs and `find`
expressions a saved rule covers (PROTOCOL.md, Permissions: no rule covers an option or command that
runs a program, writes a file or reads one the command line does not name).

Each check answers "only reads its input and prints": a `sed` script without `e`, `w`, `W`, `r`,
`R`, `a`/`i`/`c` text or an `e`/`w` flag of `s`; an `awk` program without `system`, pipes,
`getline`, `ENVIRON`, `ARGV` or a `>` after `print`; a `jq` filter without `env`, `$ENV`, modules;
a `find` expression of tests and printing actions only. Anything a check does not understand is
refused, so the command asks.
"""

from __future__ import annotations

import re

from iac_code.agent.shell_options import Parsed

_SED_SIMPLE = frozenset("=dDgGhHlnNpPqQxzF")
"""sed commands that take no argument (`l`, `q`, `Q` take an optional number)."""
_SED_S_FLAGS = frozenset("gpiImM0123456789")


def sed_script_ok(script: str) -> bool:
    """Whether the GNU sed `script` only edits the stream it prints (see the module docstring)."""
    i, n = 0, len(script)
    while True:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n:
            return True
        if script[i] == "#":
            i = _line_end(script, i)
            continue
        i = _sed_address(script, i)
        if i < 0:
            return False
        while i < n and script[i] in " \t!":
            i += 1
        if i >= n:
            return False
        command = script[i]
        i += 1
        if command in "{}":
            continue
        if command in _SED_SIMPLE:
            while i < n and script[i].isdigit():
                i += 1
        elif command in ":btT":  # a label, up to `;` or the line's end
            while i < n and script[i] not in ";\n":
                i += 1
        elif command in "sy":
            i = _sed_delimited(script, i, 2)
            if i < 0:
                return False
            if command == "s":
                while i < n and script[i] in _SED_S_FLAGS:
                    i += 1
        else:  # e, w, W, r, R, v, a, i, c and anything unknown
            return False
        while i < n and script[i] in " \t":
            i += 1
        if i < n and script[i] not in ";\n}#":
            return False


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end


def _sed_address(script: str, i: int) -> int:
    """The index after the address (or range) at `i`, or -1 for one not understood."""
    for part in range(2):
        if i < len(script) and (script[i].isdigit() or script[i] in "$+~"):
            i += 1
            while i < len(script) and (script[i].isdigit() or script[i] == "~"):
                i += 1
        elif i < len(script) and script[i] == "/":
            i = _sed_delimited(script, i, 1)
            while 0 <= i < len(script) and script[i] in "IM":
                i += 1
        elif i + 1 < len(script) and script[i] == "\\":
            i = _sed_delimited(script, i + 1, 1)
        elif part == 1:
            return -1  # a comma with no second address
        if i < 0 or part == 1 or i >= len(script) or script[i] != ",":
            return i
        i += 1
    return i


def _sed_delimited(script: str, i: int, fields: int) -> int:
    """The index after `fields` fields delimited by the character at `i` (`/a/b/`), or -1."""
    if i >= len(script) or script[i] in "\n\\":
        return -1
    delimiter = script[i]
    i += 1
    for _ in range(fields):
        while i < len(script) and script[i] != delimiter:
            i += 2 if script[i] == "\\" else 1
        if i >= len(script):
            return -1
        i += 1
    return i


_AWK_REFUSED = re.compile(r"system|getline|ENVIRON|PROCINFO|SYMTAB|FUNCTAB|ARGV|close|fflush|@|\|")
"""`SYMTAB`/`FUNCTAB` are gawk's indirect access to every variable and function by a name the
program can build (`SYMTAB["ENV" "IRON"]`)."""


def awk_program_ok(program: str) -> bool:
    """Whether the awk `program` only prints what it reads (see the module docstring). Only
    `print` and `printf` redirect output, so a `>` before the first of them is a comparison
    (`$3 > 5 {print $1}`); one after it is taken for a redirection."""
    if _AWK_REFUSED.search(program):
        return False
    first_print = program.find("print")
    return first_print < 0 or ">" not in program[first_print:]


_JQ_REFUSED = re.compile(r"\bENV\b|\benv\b|\bimport\b|\binclude\b|\bmodulemeta\b")
"""`ENV` as a word, not `$ENV`: jq 1.6 takes `$ ENV` (a space, a tab, a comment between) for it."""
_YQ_REFUSED = re.compile(r"\b(strenv|load\w*|eval|env\w*)\b|\bENV\b|\bimport\b|\binclude\b|\bmodulemeta\b")
_YQ_SUBCOMMANDS = frozenset({"e", "eval", "ea", "eval-all"})


def jq_filter_ok(program: str) -> bool:
    """Whether the jq `program` reads only its input: no environment (`env`, `$ENV`, also written
    `$ ENV`: where the agent's settings are), no modules from files (`import`, `include`,
    `modulemeta`)."""
    return _JQ_REFUSED.search(program) is None


def yq_expression_ok(program: str) -> bool:
    """Whether a yq expression (kislyuk's jq wrapper or mikefarah's yq) reads only its input: as
    `jq_filter_ok`, and none of yq's `env`, `strenv`, `envsubst` (the environment), `load…` (reads
    any file) or `eval`. A first
    word that is mikefarah's subcommand (`e`, `eval`) is refused: the expression after it would
    pass for a file."""
    return program.strip() not in _YQ_SUBCOMMANDS and _YQ_REFUSED.search(program) is None


_FIND_FLAGS = frozenset(
    "-print -print0 -ls -prune -quit -true -false -empty -readable -writable -executable -nouser "
    "-nogroup -depth -d -xdev -mount -noleaf -daystart -ignore_readdir_race -noignore_readdir_race "
    "-not -a -and -o -or ! ( ) ,".split()
)
_FIND_PLAIN = frozenset(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -regextype -lname -ilname "
    "-type -xtype -maxdepth -mindepth -size -mtime -mmin -atime -amin -ctime -cmin -perm -user "
    "-group -uid -gid -links -inum -used -printf -fstype".split()
)
_FIND_PATH = frozenset("-newer -anewer -cnewer -samefile".split())


def find_parse(args: list[str | None]) -> Parsed | None:
    """`find [-H|-P] [start…] [expression]` read as a safe list: the starting points are files,
    the expression only tests and prints (`-exec`, `-ok`, `-delete`, `-fprint…`, `-fls`,
    `-files0-from` and `-L`/`-follow`, which walk out through links, are not covered). find reads
    names, never contents: a sensitive file it lists is not read."""
    parsed = Parsed()
    i = 0
    while i < len(args) and args[i] in ("-H", "-P"):
        parsed.options.append((args[i] or "", None))
        i += 1
    while i < len(args) and (args[i] is None or not (args[i] or "").startswith(("-", "(", ")", "!", ","))):
        if args[i] is not None:
            parsed.paths.append(args[i] or "")
        parsed.operands.append(args[i])
        i += 1
    while i < len(args):
        word = args[i]
        i += 1
        if word in _FIND_FLAGS:
            parsed.options.append((word, None))
        elif word in _FIND_PLAIN or word in _FIND_PATH or (word or "").startswith("-newer"):
            if i >= len(args):
                return None
            value = args[i]
            i += 1
            if value is None:  # an unquoted glob: bash expands it before find sees it
                return None
            if word in _FIND_PATH or (len(word or "") == 8 and not (word or "").endswith("t")):  # -newerXY: Y=t is a time
                parsed.paths.append(value)
            parsed.options.append((word or "", value))
        else:
            return None
    return parsed
