"""The finding every validator rule produces.

A `Diagnostic` names a file (absolute path), a 1-based line and column, a severity (`error`,
`warning`, `info`), the id of the rule that found it (see `iac.rules`) and a message written for
a person or a model; `iac.rules.diag(rule, ...)` is how a rule makes one (the severity is the
rule's). A file found but not checked is a `Skipped`, with its reason. `hint` is how a message
offers the name that was probably meant.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

_LINE_NUMBERS = re.compile(r"(line |at |\.tf:|\.yaml:|\.yml:|\.tfvars:|\.json:)\d+")
Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: `file` absolute, `line`/`column` 1-based."""

    file: Path
    line: int
    column: int
    severity: Severity
    rule: str
    message: str

    def sort_key(self) -> tuple[str, int, int, str, str]:
        """Order of reports: by file, position, then rule."""
        return (str(self.file), self.line, self.column, self.rule, self.message)

    def identity(self) -> tuple[str, str, str]:
        """What stays the same when lines shift: file, rule and message with the line numbers it
        quotes blanked (used to find *new* problems)."""
        return (str(self.file), self.rule, _LINE_NUMBERS.sub(r"\1#", self.message))


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file that was found but not checked, and why (`reason`, for a person: "a Helm
    template ...")."""

    file: Path
    reason: str


def hint(name: str, names: Iterable[object], cutoff: float = 0.75) -> str:
    """` (did you mean "x"?)` for the closest of `names` (as strings) to `name` when it is at
    least `cutoff` alike (difflib's ratio, 0-1), else ""."""
    close = difflib.get_close_matches(name, [str(n) for n in names], n=1, cutoff=cutoff)
    return f' (did you mean "{close[0]}"?)' if close else ""
