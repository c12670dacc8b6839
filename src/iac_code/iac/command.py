"""`iac-code validate [PATH ...]`: run the engine and print the diagnostics.

Exit status: 0 when there is no error (warnings and files not checked allowed), 1 when there is
at least one, 2 on bad usage (a PATH that does not exist, an unknown format or kind). The text
format's summary (stderr) counts the files checked and names those not checked.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from iac_code.core.vocabulary import ValidateFormat, ValidateKind
from iac_code.iac import report
from iac_code.iac.engine import Options, check



def run(
    paths: list[str],
    *,
    output_format: ValidateFormat = "text",
    kind: ValidateKind = "auto",
    ignore: list[str] | tuple[str, ...] = (),
    kubernetes_version: str | None = None,
    terraform_validate: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Validate `paths` (default: the current directory) and print in `output_format`; returns
    the exit status (module docstring). Paths in the output are relative to the first PATH
    (its directory when it is a file)."""
    out, err = out or sys.stdout, err or sys.stderr
    targets = [Path(p) for p in (paths or ["."])]
    missing = [str(p) for p in targets if not p.exists()]
    if missing:
        print(f"iac-code validate: no such file or directory: {', '.join(missing)}", file=err)
        return 2
    first = targets[0].absolute()
    base = first if first.is_dir() else first.parent
    options = Options(kind=kind, ignore=tuple(ignore), kubernetes_version=kubernetes_version,
                      terraform_validate=terraform_validate, workers=0)
    outcome = check(targets, options)
    diags, skipped = outcome.diagnostics, outcome.skipped
    if output_format == "json":
        out.write(report.as_json(diags, base, skipped, len(outcome.checked)))
    elif output_format == "sarif":
        from iac_code import __version__

        out.write(report.sarif(diags, base, __version__, skipped))
    else:
        out.write(report.text(diags, base))
        if skipped:
            print(f"iac-code validate: {report.not_checked(skipped, base)}", file=err)
        print(f"iac-code validate: {report.summary(diags, skipped, len(outcome.checked))}", file=err)
    return 1 if any(d.severity == "error" for d in diags) else 0
