"""Where the terminal app keeps its files (logs, prompt history).

It shares the agent's config dir (`~/.iac-code`, or `$IAC_CODE_CONFIG_DIR`) so that one setting
moves both, but reads nothing the agent writes.
"""

from __future__ import annotations

import os
from pathlib import Path


def config_dir() -> Path:
    """`$IAC_CODE_CONFIG_DIR` or `~/.iac-code`."""
    override = os.environ.get("IAC_CODE_CONFIG_DIR")
    return Path(override).expanduser() if override else Path.home() / ".iac-code"


def logs_dir() -> Path:
    """Where the agent's stderr logs go: `<config dir>/logs`."""
    return config_dir() / "logs"


def history_path() -> Path:
    """The prompt history file: `<config dir>/tui/history.jsonl`."""
    return config_dir() / "tui" / "history.jsonl"


DEFAULT_MAX_ROWS = 2500


def max_conversation_rows() -> int:
    """Rows the conversation keeps before it prunes its oldest blocks: `$IAC_TUI_MAX_ROWS`, default 2,500.

    Pruning cuts back to 60% of it (Toad's figures are 2,500 and 1,500); at least 200. A value
    that is not a whole number is ignored.
    """
    raw = os.environ.get("IAC_TUI_MAX_ROWS", "")
    try:
        value = int(raw) if raw.strip() else DEFAULT_MAX_ROWS
    except ValueError:
        value = DEFAULT_MAX_ROWS
    return max(value, 200)
