"""Small formatting helpers shared by the widgets: token counts, paths, times."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path


def format_tokens(count: int) -> str:
    """950 -> `950`, 12_345 -> `12.3k`, 200_000 -> `200k`, 1_500_000 -> `1.5M`."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        value = count / 1000
        return f"{value:.1f}k".replace(".0k", "k") if value < 100 else f"{value:.0f}k"
    value = count / 1_000_000
    return f"{value:.1f}M".replace(".0M", "M")


def home_relative(path: str | Path) -> str:
    """`path` with the home directory written as `~`."""
    text = str(path)
    home = os.path.expanduser("~")
    if home not in ("", "/") and (text == home or text.startswith(home + os.sep)):
        return "~" + text[len(home) :]
    return text


def project_relative(path: str, root: Path) -> str:
    """`path` relative to the project `root` when it lies inside it, else home-relative."""
    try:
        rel = Path(path).relative_to(root)
    except ValueError:
        return home_relative(path)
    return str(rel) if str(rel) != "." else "."


def strip_root(text: str, root: Path) -> str:
    """`text` with `root/` prefixes removed, so paths read relative to the project."""
    prefix = str(root).rstrip(os.sep) + os.sep
    return text.replace(prefix, "") if prefix in text else text


def format_time(iso: str | None) -> str:
    """An ISO 8601 time as local `YYYY-MM-DD HH:MM` (empty when unknown or unparsable)."""
    if not iso:
        return ""
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M")
