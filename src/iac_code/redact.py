"""Keeping secrets out of logs, session files, tool environments and tool results.

A secret is the value of a configured credential: the Anthropic API key and auth token, the
HTTP transport's token (`IAC_CODE_HTTP_TOKEN`) and any other secret setting. Values shorter
than `MIN_SECRET_CHARS` are not treated as secrets (replacing "x" everywhere would wreck text).
A secret is found as it is, reversed (`rev`), hex-encoded (`xxd -p`, `od -An -tx1`: whitespace
or colons between the bytes allowed) and base64-encoded (standard or URL alphabet, at any of the
three byte alignments a longer text can give it, wrapped lines allowed).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Mapping
from typing import Any

MIN_SECRET_CHARS = 8
REDACTED = "[REDACTED]"

SECRET_ENV_NAMES = frozenset({"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "IAC_CODE_HTTP_TOKEN"})
"""Environment variables that hold the agent's credentials; commands the model runs never get them."""

_CREDENTIAL_NAME = re.compile(
    r"(?:^|_)(?:TOKENS?|SECRETS?|PASSWORD|PASSWD|PASS|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?|AUTH)(?:_|$)",
    re.IGNORECASE,
)


def is_credential_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a credential (`AWS_SECRET_ACCESS_KEY`,
    `GITHUB_TOKEN`, `TF_TOKEN_app_terraform_io`, `ARM_CLIENT_SECRET`, `DB_PASSWORD`, ...) or is one
    of `SECRET_ENV_NAMES`. Sandboxed commands get none of them (PROTOCOL.md, Command sandbox)."""
    return name in SECRET_ENV_NAMES or bool(_CREDENTIAL_NAME.search(name))


def _variants(secret: str) -> list[str]:
    """Regular expressions for `secret` as it is, reversed, hex- and base64-encoded."""
    data = secret.encode("utf-8", "surrogatepass")
    found = [re.escape(secret), re.escape(secret[::-1])]
    for hexed in (data.hex(), data.hex().upper()):
        found.append(r"[\s:]*".join(hexed[i : i + 2] for i in range(0, len(hexed), 2)))
    for shift in range(3):  # the secret's first byte at each position of a 3-byte base64 group
        encoded = base64.b64encode(bytes(shift) + data).decode("ascii")
        core = encoded[-(-8 * shift // 6) : 8 * (shift + len(data)) // 6]  # the characters only it decides
        for text in (core, core.replace("+", "-").replace("/", "_")):
            found.append(r"\s*".join(re.escape(c) for c in text))
    return found


class Redactor:
    """Replaces known secret values in text with `[REDACTED]`."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        # longest first, so a secret that contains another is replaced whole
        self._secrets = sorted({s for s in secrets if s and len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True)
        variants = dict.fromkeys(v for s in self._secrets for v in _variants(s))
        self._pattern = re.compile("|".join(sorted(variants, key=len, reverse=True))) if variants else None

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def __call__(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(REDACTED, text)

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
