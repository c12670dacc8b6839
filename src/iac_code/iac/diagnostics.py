"""The finding every validator rule produces.

A `Diagnostic` names a file (absolute path), a 1-based line and column, a severity (`error`,
`warning`, `info`), the id of the rule that found it (see `iac.rules`) and a message written for
a person or a model. `diag(rule, ...)` is how a rule makes one: the severity is the rule's. A
file found but not checked is a `Skipped`, with its reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from iac_code.iac.rules import Rule

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


def diag(rule: Rule, file: Path, line: int, column: int, message: str) -> Diagnostic:
    """A finding of `rule` (its id and severity) at 1-based `line`/`column` of `file` (both
    clamped to be >= 1: an unknown position is the file's start)."""
    return Diagnostic(file, max(int(line or 1), 1), max(int(column or 1), 1), rule.severity, rule.id, message)
