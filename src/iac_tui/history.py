"""Prompt history: what the user sent, per project, for up/down recall.

Kept in memory and appended to a JSONL file (`{"cwd": ..., "text": ...}` per line); only the
entries of the current project are recalled.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

MAX_ENTRIES = 500


class PromptHistory:
    """Browse previous prompts with `previous()` / `next()`; `add()` records a sent prompt."""

    def __init__(self, path: Path | None, cwd: str) -> None:
        self.path = path
        self.cwd = cwd
        self.entries: list[str] = self._load()
        self._index = len(self.entries)
        self._draft = ""

    def _load(self) -> list[str]:
        if self.path is None:
            return []
        entries = []
        try:
            with open(self.path, encoding="utf-8") as handle:
                for line in handle:
                    try:
                        record = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(record, dict) and record.get("cwd") == self.cwd and isinstance(record.get("text"), str):
                        entries.append(record["text"])
        except OSError:
            return []
        return entries[-MAX_ENTRIES:]

    def add(self, text: str) -> None:
        """Record `text` as the newest entry and reset browsing."""
        if text.strip() and (not self.entries or self.entries[-1] != text):
            self.entries.append(text)
            if self.path is not None:
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    with open(self.path, "a", encoding="utf-8") as handle:
                        handle.write(json.dumps({"cwd": self.cwd, "text": text}) + "\n")
                    os.chmod(self.path, 0o600)
                except OSError:
                    pass
        self._index = len(self.entries)
        self._draft = ""

    def previous(self, current: str) -> str | None:
        """The entry before the one shown (None at the oldest); `current` is kept as the draft."""
        if self._index == len(self.entries):
            self._draft = current
        if self._index == 0:
            return None
        self._index -= 1
        return self.entries[self._index]

    def next(self) -> str | None:
        """The entry after the one shown, the draft after the newest, None when not browsing."""
        if self._index >= len(self.entries):
            return None
        self._index += 1
        return self.entries[self._index] if self._index < len(self.entries) else self._draft
