"""Where iac-code keeps its files: the config dir, on its own so that reading it costs no import
of the settings machinery (pydantic), e.g. for `iac-code validate`'s `validate.ignore`."""

from __future__ import annotations

import os
from pathlib import Path


def default_config_dir() -> Path:
    """Return the config dir: `$IAC_CODE_CONFIG_DIR` or `~/.iac-code`."""
    override = os.environ.get("IAC_CODE_CONFIG_DIR")
    return Path(override).expanduser() if override else Path.home() / ".iac-code"
