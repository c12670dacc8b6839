"""Where iac-code keeps its files: the config dir, on its own so that reading it costs no import
of the settings machinery (pydantic), e.g. for `iac-code validate`'s `validate.ignore`; and the
cache dir, for what can be rebuilt."""

from __future__ import annotations

import os
from pathlib import Path


def default_config_dir() -> Path:
    """Return the config dir: `$IAC_CODE_CONFIG_DIR` or `~/.iac-code`."""
    override = os.environ.get("IAC_CODE_CONFIG_DIR")
    return Path(override).expanduser() if override else Path.home() / ".iac-code"


def cache_dir() -> Path:
    """Return the cache dir, for what iac-code can rebuild (the HCL parser's tables):
    `$XDG_CACHE_HOME/iac-code` (an absolute `XDG_CACHE_HOME` only, as the XDG spec says) or
    `~/.cache/iac-code`. Sandboxed commands may read it, never write it (tools/sandbox/policy.py)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "iac-code"
