"""The validation engine: files -> kind -> the rules of that kind (`iac.rules`) -> diagnostics,
with ignore comments applied.

`validate(paths, options)` is what `iac-code validate` and the `validate` tool run;
`new_problems(path, before, after)` is the post-edit feedback (problems the edit introduced in
the file's module or template). Nothing from the project is executed: files are only read,
except that `terraform fmt` (and, when asked, `terraform validate`) run when the binary is on PATH.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from iac_code.iac import documents
from iac_code.iac.diagnostics import Diagnostic, Skipped
from iac_code.iac.discovery import Reader, discover
from iac_code.iac.options import Options, config_options  # noqa: F401 - config_options: the engine's public name
from iac_code.iac.rules import matches
from iac_code.iac.terraform import project
from iac_code.iac.terraform.module import tf_kind

_IGNORE = re.compile(r"iac-code:\s*ignore\[([^\]]*)\]")


@dataclass(slots=True)
class Outcome:
    """What a validation found: `diagnostics` (sorted), `checked` (each file checked -> the
    kind whose rules checked it: terraform, cloudformation, ros, kubernetes, helm, yaml, json,
    file for one that could not be read), `skipped` (files found but not checked, with why)."""

    diagnostics: list[Diagnostic]
    checked: dict[Path, str] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)


def validate(paths: list[Path], options: Options | None = None) -> list[Diagnostic]:
    """Diagnostics for the IaC files under `paths` (`check(...).diagnostics`)."""
    return check(paths, options).diagnostics


def check(paths: list[Path], options: Options | None = None) -> Outcome:
    """Validate the IaC files under `paths`: diagnostics sorted, ignore comments applied (the
    rules `options.ignore` names do not run), and which files were checked or skipped."""
    options = options or Options()
    reader = Reader(options.overlay)
    files = [f for f in discover(paths) if reader.exists(f)]
    files += [p for p, t in options.overlay.items() if t is not None and p not in files and any(p.is_relative_to(x.absolute()) or p == x.absolute() for x in paths)]
    result = Outcome([])
    out: list[Diagnostic] = []
    tf_dirs: dict[Path, list[Path]] = {}
    for f in files:
        if tf_kind(f) is not None:
            if options.kind in ("auto", "terraform"):
                tf_dirs.setdefault(f.parent, []).append(f)
            continue
        found, kind = documents.check(f, reader, options)
        out += found
        if isinstance(kind, Skipped):
            result.skipped.append(kind)
        elif kind is not None:
            result.checked[f] = kind
    only = project.complete_modules(paths, tf_dirs, reader)
    found, skipped = project.check(tf_dirs, reader, options)
    keep = lambda p: p.parent not in only or p in only[p.parent]  # noqa: E731 - named files of a completed module
    out += [d for d in found if keep(d.file)]
    result.skipped += [s for s in skipped if keep(s.file)]
    gone = {s.file for s in result.skipped}
    result.checked.update({f: "terraform" for fs in tf_dirs.values() for f in fs if keep(f) and f not in gone})
    result.diagnostics = finish(out, reader)
    result.skipped.sort(key=lambda s: str(s.file))
    return result


def finish(found: list[Diagnostic], reader: Reader) -> list[Diagnostic]:
    """Deduplicate, drop findings on lines carrying `iac-code: ignore[rule]` (or after a comment
    line carrying it), sort."""
    unique = {(d.file, d.line, d.column, d.rule, d.message): d for d in found}
    return sorted((d for d in unique.values() if not _comment_ignored(d, reader)), key=Diagnostic.sort_key)


def _comment_ignored(d: Diagnostic, reader: Reader) -> bool:
    text = reader(d.file)
    if not isinstance(text, str) or "iac-code:" not in text:
        return False
    lines = text.split("\n")
    for n in (d.line, d.line - 1):
        if 1 <= n <= len(lines):
            line = lines[n - 1]
            if n == d.line - 1 and not line.lstrip().startswith(("#", "//")):
                continue
            for m in _IGNORE.finditer(line):
                if matches(d.rule, [r.strip() for r in m.group(1).split(",") if r.strip()]):
                    return True
    return False


def scope_of(path: Path) -> Path:
    """What the post-edit check validates for an edited file: a Terraform file's directory
    (its module), otherwise the file itself."""
    return path.parent if tf_kind(path) is not None else path


def is_iac_path(path: Path) -> bool:
    """Whether an edit of `path` gets post-edit feedback (Terraform, YAML, JSON/template files)."""
    from iac_code.iac.discovery import candidate

    return candidate(path)


def new_problems(path: Path, before: str | None, after: str, options: Options | None = None) -> list[Diagnostic]:
    """Errors and warnings in `path`'s module/template with `after` as its text that were not
    there with `before` (None: the file did not exist). Matching ignores line numbers, so
    problems that only moved are not new. `terraform` is not run."""
    base = options or Options()
    path = path.absolute()
    scope = scope_of(path)

    def run(text: str | None) -> list[Diagnostic]:
        opts = Options(base.kind, base.ignore, base.kubernetes_version, False, False, {path: text})
        return [d for d in validate([scope], opts) if d.severity != "info"]

    old = Counter(d.identity() for d in run(before))
    out = []
    for d in run(after):
        if old[d.identity()] > 0:
            old[d.identity()] -= 1
        else:
            out.append(d)
    return out
