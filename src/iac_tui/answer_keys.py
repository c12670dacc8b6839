"""The letters that answer a permission request, by the option's kind (never its position).

Shared by the docked question (`widgets/permission.py`) and the full-screen diff reviewer it can
open (`screens/diff_review.py`), so both answer with the same keys and the same guard.
"""

from __future__ import annotations

KIND_KEYS = {"allow_once": "a", "allow_always": "A", "reject_once": "r", "reject_always": "R"}
"""ACP `PermissionOptionKind` -> the letter that picks the first option of that kind."""
ANSWER_LETTERS = frozenset(KIND_KEYS.values())
LETTER_GRACE = 0.5
"""Seconds an answer letter waits for a next key that would make it the start of a word."""
