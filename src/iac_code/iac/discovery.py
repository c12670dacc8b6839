"""Finding IaC files under paths, and reading them safely.

`discover(paths)` walks directories (never following directory links; skipping `.git`,
`.terraform` and what `.gitignore` files in the tree and above it ignore) and keeps Terraform
files by name, YAML files, and JSON/`.template` files whose content looks like IaC. A file named
explicitly is always kept. `Reader` reads text with limits: a huge, binary or non-UTF-8 file
becomes a diagnostic instead of text.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pathspec

from iac_code.iac.diagnostics import Diagnostic, Skipped
from iac_code.iac.rules import declare, diag
from iac_code.iac.terraform.module import tf_kind

UNREADABLE = declare("file.unreadable", "error", "the file cannot be read", kind="file")
BINARY = declare("file.binary", "error", "an IaC file that is binary data", kind="file")
ENCODING = declare("file.encoding", "error", "an IaC file that is not valid UTF-8", kind="file")

MAX_BYTES = 5 << 20
SKIP_DIRS = {".git", ".terraform", ".terragrunt-cache", "node_modules", "__pycache__", ".venv"}
YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json", ".template")
_IAC_JSON = re.compile(rb'(?m)"(AWSTemplateFormatVersion|ROSTemplateFormatVersion|Resources|apiVersion)"\s*:'
                       rb'|^(AWSTemplateFormatVersion|ROSTemplateFormatVersion|Resources)\s*:')  # or a YAML .template


def candidate(path: Path) -> bool:
    """Whether the name alone makes `path` worth a look."""
    name = path.name
    return tf_kind(path) is not None or name.endswith(YAML_SUFFIXES) or name.endswith(JSON_SUFFIXES)


def discover(paths: list[Path]) -> list[Path]:
    """The IaC files under `paths` (absolute, sorted, without duplicates)."""
    found: dict[Path, None] = {}
    for p in paths:
        p = p.absolute()
        if p.is_dir():
            for f in _walk(p):
                found[f] = None
        elif p.exists():
            found[p] = None
    return sorted(found)


def _ancestor_specs(root: Path) -> list[tuple[Path, pathspec.PathSpec]]:
    specs: list[tuple[Path, pathspec.PathSpec]] = []
    for parent in reversed(root.parents):
        if (parent / ".git").exists():
            specs = []
        spec = _spec(parent)
        if spec is not None:
            specs.append((parent, spec))
    return specs


def _spec(directory: Path) -> pathspec.PathSpec | None:
    try:
        text = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(text.splitlines())


def _ignored(path: Path, is_dir: bool, specs: list[tuple[Path, pathspec.PathSpec]]) -> bool:
    result = False
    for base, spec in specs:
        try:
            rel = path.relative_to(base).as_posix()
        except ValueError:
            continue
        res = spec.check_file(rel + ("/" if is_dir else ""))
        if res.include is not None:
            result = bool(res.include)
    return result


def _walk(root: Path) -> Iterator[Path]:
    inherited = _ancestor_specs(root)
    stack = [(root, inherited)]
    while stack:
        directory, specs = stack.pop()
        own = _spec(directory)
        if own is not None:
            specs = [*specs, (directory, own)]
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name, reverse=True)
        except OSError:
            continue
        for e in entries:
            path = Path(e.path)
            try:
                if e.is_dir(follow_symlinks=False):
                    if e.name not in SKIP_DIRS and not _ignored(path, True, specs):
                        stack.append((path, specs))
                    continue
                if not e.is_file():
                    continue
            except OSError:
                continue
            if candidate(path) and not _ignored(path, False, specs) and _looks_iac(path):
                yield path


def _looks_iac(path: Path) -> bool:
    if not path.name.endswith(JSON_SUFFIXES) or tf_kind(path) is not None:
        return True
    try:
        with open(path, "rb") as f:
            head = f.read(64 << 10)
    except OSError:
        return False
    return bool(_IAC_JSON.search(head))


class Reader:
    """Reads files once per run; `overlay` maps paths to text to use instead of the disk's
    (None: the file is treated as absent)."""

    def __init__(self, overlay: dict[Path, str | None] | None = None) -> None:
        self.overlay = dict(overlay or {})
        self._texts: dict[Path, str | Diagnostic | Skipped] = {}

    def exists(self, path: Path) -> bool:
        """Whether `path` exists for this run (overlay first)."""
        if path in self.overlay:
            return self.overlay[path] is not None
        return path.is_file()

    def __call__(self, path: Path) -> str | Diagnostic | Skipped:
        """The text of `path`; a diagnostic when it is binary, not UTF-8 or unreadable; a
        `Skipped` when it is larger than `MAX_BYTES`."""
        overlaid = self.overlay.get(path)
        if overlaid is not None:
            return overlaid
        if path not in self._texts:
            self._texts[path] = _read(path)
        return self._texts[path]


def _read(path: Path) -> str | Diagnostic | Skipped:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            return Skipped(path, f"larger than {MAX_BYTES >> 20} MiB ({size:,} bytes)")
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        return diag(UNREADABLE, path, 1, 1, f"cannot read the file: {exc.strerror or exc}")
    if b"\x00" in data[:8192]:
        return diag(BINARY, path, 1, 1, "the file is binary data, not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return diag(ENCODING, path, line, col, f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})")
    return text.removeprefix("\ufeff")
