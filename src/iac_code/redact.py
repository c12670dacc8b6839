"""Keeping secrets out of logs and session files."""

from __future__ import annotations


class Redactor:
    """Replaces known secret values in text with `[REDACTED]`."""

    def __init__(self, secrets: list[str]) -> None:
        self._secrets = [s for s in secrets if s]

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, "[REDACTED]")
        return text
