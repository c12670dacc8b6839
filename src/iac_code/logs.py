"""Logging for the agent: stderr (warnings and above) and a rotating file under `<config dir>/logs/`.

stdout is reserved for protocol messages, so nothing here ever writes to it. Known secret values
are replaced by `[REDACTED]` in every record.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys

from iac_code.config import Settings
from iac_code.redact import Redactor


class _RedactingFilter(logging.Filter):
    def __init__(self, redact: Redactor) -> None:
        super().__init__()
        self._redact = redact

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = self._redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            # formatted here once; the handlers' Formatter reuses `exc_text` instead of the exception
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self._redact(record.stack_info)
        return True


def setup_logging(settings: Settings, name: str = "iac-code") -> None:
    """Send logs to stderr (WARNING+) and `<config dir>/logs/<name>.log` (at `settings.log_level`)."""
    root = logging.getLogger()
    root.handlers.clear()
    level = logging.getLevelName(settings.log_level.upper())
    root.setLevel(level if isinstance(level, int) else logging.INFO)
    redacting = _RedactingFilter(Redactor(settings.secrets()))
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")

    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(logging.WARNING)
    stderr.setFormatter(fmt)
    stderr.addFilter(redacting)
    root.addHandler(stderr)

    try:
        settings.logs_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        file = logging.handlers.RotatingFileHandler(
            settings.logs_dir / f"{name}.log", maxBytes=5 * 1024 * 1024, backupCount=3, encoding="utf-8"
        )
    except OSError as exc:
        root.warning("cannot write the log file in %s: %s", settings.logs_dir, exc)
    else:
        file.setFormatter(fmt)
        file.addFilter(redacting)
        root.addHandler(file)
    for noisy in ("httpx", "httpcore", "anthropic"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
