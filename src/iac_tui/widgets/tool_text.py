"""What a tool call's panel says in words: the input line and the text of a bare `rawOutput`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from iac_tui.display import project_relative


def input_summary(raw_input: Any, root: Path, *, has_diff: bool = False) -> str:
    """The part of a tool's input a person wants to see: the command, path, pattern or URL.

    Without any of those, the input's scalar values as `key=value`; a multi-line string value is
    shown as its lines under `key:`, or left out when the call draws a diff (`has_diff`: OpenCode
    sends the same change as a `diff` string in its input).
    """
    if not isinstance(raw_input, dict) or not raw_input:
        return ""
    if isinstance(raw_input.get("command"), str):
        return "$ " + raw_input["command"]
    parts = []
    for key in ("pattern", "glob", "query", "url"):
        if isinstance(raw_input.get(key), str):
            parts.append(raw_input[key])
            break
    for key in ("path", "file_path", "filepath", "filePath"):
        if isinstance(raw_input.get(key), str):
            path = raw_input[key]
            path = project_relative(path, root) if path.startswith("/") else path
            parts.append(("in " if parts else "") + path)
            break
    if not parts:
        for key in ("prompt", "description"):
            if isinstance(raw_input.get(key), str):
                return raw_input[key].strip().splitlines()[0] if raw_input[key].strip() else ""
        scalars: list[str] = []
        blocks: list[str] = []
        for key, value in raw_input.items():
            if isinstance(value, str) and "\n" in value.strip():
                if not has_diff:
                    blocks.append(f"{key}:\n" + value.rstrip("\n"))
            elif isinstance(value, str | int | float | bool):
                scalars.append(f"{key}={json.dumps(value, ensure_ascii=False)}")
        return "\n".join(filter(None, [" ".join(scalars), *blocks]))
    return " ".join(parts)


def output_text(raw_output: Any) -> str:
    """Text to show for a `rawOutput` when the update carried no content."""
    if raw_output is None:
        return ""
    if isinstance(raw_output, str):
        return raw_output
    if isinstance(raw_output, dict):
        for key in ("output", "error", "text", "result"):
            if isinstance(raw_output.get(key), str):
                return raw_output[key]
    return json.dumps(raw_output, indent=2, ensure_ascii=False)
