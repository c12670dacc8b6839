"""An edit's files as data (no widgets): what the question and the panels count and compare.

Kept apart from `iac_tui.widgets.diff` (the views, built on textual-diff-view and Pygments) so
that the docked permission question, drawn with the first screen, imports none of that.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

MANY_FILES = 2  # an edit of more files than this is better reviewed full screen
LONG_DIFF = 40  # ... and so is one whose changed lines exceed this


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file of an edit: `old_text` None means a new file. `path` is what titles show."""

    path: str
    old_text: str | None
    new_text: str

    @property
    def key(self) -> tuple[str, str | None, str]:
        """Identity of the change (a panel re-renders only a change it has not shown)."""
        return (self.path, self.old_text, self.new_text)


def diff_counts(old_text: str | None, new_text: str) -> tuple[int, int]:
    """(lines added, lines removed) between two texts (a new file: all lines added)."""
    old = (old_text or "").splitlines()
    new = new_text.splitlines()
    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed


def wants_review(changes: list[FileChange]) -> bool:
    """True when an edit is better reviewed full screen (`screens.diff_review`): several files, or a long diff."""
    if not changes:
        return False
    if len(changes) > MANY_FILES:
        return True
    return sum(sum(diff_counts(c.old_text, c.new_text)) for c in changes) > LONG_DIFF
