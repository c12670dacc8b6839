"""Keeping secrets out of logs, session files, tool environments and tool results.

A secret is the value of a configured credential: the Anthropic API key and auth token, the
HTTP transport's token (`IAC_CODE_HTTP_TOKEN`) and any other secret setting. Values shorter
than `MIN_SECRET_CHARS` are not treated as secrets (replacing "x" everywhere would wreck text).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

MIN_SECRET_CHARS = 8
REDACTED = "[REDACTED]"

SECRET_ENV_NAMES = frozenset({"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "IAC_CODE_HTTP_TOKEN"})
"""Environment variables that hold the agent's credentials; commands the model runs never get them."""


class Redactor:
    """Replaces known secret values in text with `[REDACTED]`."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        # longest first, so a secret that contains another is replaced whole
        self._secrets = sorted({s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def value(self, value: Any) -> Any:
        """`value` (a JSON-like structure of dicts, lists and strings) with every string redacted."""
        if not self._secrets:
            return value
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value

    def environment(self, environ: Mapping[str, str], names: Iterable[str] = SECRET_ENV_NAMES) -> dict[str, str]:
        """`environ` without the variables named in `names` and without any variable whose value
        contains a secret (a key copied under another name)."""
        hidden = frozenset(names)
        return {
            k: v
            for k, v in environ.items()
            if k not in hidden and not any(s in v for s in self._secrets)
        }
