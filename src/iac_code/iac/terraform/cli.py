"""The `terraform` (or `tofu`) binary, when it is on PATH: `fmt -check -diff` and `validate`.

Never `init`, `plan` or `apply`. `fmt` reads files only. `validate` starts the provider plugins
that `terraform init` put under `.terraform/`, which are programs in the project's directory, so
it runs only when asked (`run_validate=True`, the command's `--terraform-validate`) and only in
an initialised directory. Both run with checkpoint calls off and a timeout; a failure to run
the binary is reported as nothing (the offline checks still stand).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from iac_code.iac.diagnostics import Diagnostic
from iac_code.iac.rules import declare, diag

FMT = declare("terraform.fmt", "warning", "`terraform fmt -check` would reformat the file (needs terraform on PATH)", kind="terraform", doc="""
    Reported by `terraform fmt -check -diff` (or `tofu`), which the engine runs on batches of
    files of many modules while the other rules run.""")
VALIDATE = declare("terraform.validate", "error", "`terraform validate` (needs terraform on PATH and an initialised directory)",
                   kind="terraform", doc="""
    `terraform validate -json` in directories `terraform init` has initialised, only with
    `--terraform-validate`: it starts the provider plugins under `.terraform/`.""")
VALIDATE_WARNING = declare("terraform.validate-warning", "warning", "a warning of `terraform validate` (deprecations, ...)", kind="terraform")
TIMEOUT_S = 60
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")


def binary() -> str | None:
    """The path of `terraform`, else `tofu`, on PATH, or None."""
    return shutil.which("terraform") or shutil.which("tofu")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_CLI_ARGS")}
    env.update({"CHECKPOINT_DISABLE": "1", "TF_IN_AUTOMATION": "1", "NO_COLOR": "1"})
    return env


Fmt = tuple[subprocess.Popen, list[Path], Path] | None
"""A started `terraform fmt`: its process, its files and its working directory (None: nothing runs)."""


FMT_BATCH = 500
"""Files per `terraform fmt` process (one process per directory cost 100 starts for 100 modules)."""


def fmt_start_all(files: list[Path]) -> list[Fmt]:
    """Start `terraform fmt -check -diff` on `files` of any directories without waiting: as few
    processes as `FMT_BATCH` allows, each run in the files' common directory."""
    targets = [f for f in files if f.name.endswith((".tf", ".tfvars"))]
    started = []
    for i in range(0, len(targets), FMT_BATCH):
        batch = targets[i : i + FMT_BATCH]
        started.append(fmt_start(Path(os.path.commonpath([f.absolute().parent for f in batch])), batch))
    return started


def fmt_start(directory: Path, files: list[Path]) -> Fmt:
    """Start `terraform fmt -check -diff` in `directory` on `files` (under it) without waiting."""
    exe = binary()
    targets = [f for f in files if f.name.endswith((".tf", ".tfvars"))]
    if exe is None or not targets:
        return None
    try:
        proc = subprocess.Popen([exe, "fmt", "-check", "-diff", "-no-color", *[_rel(f, directory) for f in targets]],
                                cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL, env=_env())
    except OSError:
        return None
    return proc, targets, directory


def _rel(path: Path, directory: Path) -> str:
    return os.path.relpath(path.absolute(), directory.absolute())


def fmt_finish(started: Fmt) -> list[Diagnostic]:
    """Wait for a `fmt_start` and turn its diff into warnings."""
    if started is None:
        return []
    proc, targets, directory = started
    try:
        stdout = proc.communicate(timeout=TIMEOUT_S)[0].decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return []
    if proc.returncode == 0:
        return []
    out, current, line = [], None, None
    names = [f.name for f in targets]
    by_name = {f.name: f for f in targets if names.count(f.name) == 1} | {str(f): f for f in targets} | {_rel(f, directory): f for f in targets}
    for text in stdout.splitlines():
        if text.startswith("--- "):
            name = text[4:].strip()
            name = name.removeprefix("old/")
            current = by_name.get(name) or by_name.get(Path(name).name)
            line = None
        elif current is not None and line is None and (m := _HUNK.match(text)):
            line = int(m.group(1))
        elif current is not None and line is not None and text[:1] in ("-", "+"):
            out.append(diag(FMT, current, line, 1,
                            "not in canonical format: `terraform fmt` would change this line"))
            current = None
        elif current is not None and line is not None and text.startswith(" "):
            line += 1
    listed = {d.file for d in out}
    lines = {text.strip() for text in stdout.splitlines()}
    for f in targets:
        if f not in listed and ({_rel(f, directory), str(f)} & lines or (f.name in lines and names.count(f.name) == 1)):
            out.append(diag(FMT, f, 1, 1, "not in canonical format (`terraform fmt`)"))
    return out


def accepts(text: str) -> bool | None:
    """Whether `terraform fmt -` (or tofu's) parses `text` (None: no binary, or it did not run):
    a syntax error of our parser that Terraform accepts is not an error."""
    exe = binary()
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, "fmt", "-no-color", "-"], input=text.encode("utf-8"), capture_output=True,
                              timeout=TIMEOUT_S, env=_env(), check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.returncode == 0


def validate(directory: Path) -> list[Diagnostic]:
    """`terraform validate -json` in an initialised `directory` (one with `.terraform/`), else []."""
    exe = binary()
    if exe is None or not (directory / ".terraform").is_dir():
        return []
    try:
        proc = subprocess.run([exe, "validate", "-json", "-no-color"], cwd=directory, capture_output=True,
                              text=True, encoding="utf-8", errors="replace", timeout=TIMEOUT_S, env=_env(), stdin=subprocess.DEVNULL, check=False)
        result = json.loads(proc.stdout or "{}")
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return []
    out = []
    for d in result.get("diagnostics", []) if isinstance(result, dict) else []:
        rng = d.get("range") or {}
        start = rng.get("start") or {}
        file = directory / rng["filename"] if rng.get("filename") else directory
        message = d.get("summary", "") + (f": {d['detail']}" if d.get("detail") else "")
        out.append(diag(VALIDATE if d.get("severity") == "error" else VALIDATE_WARNING, file, start.get("line", 1), start.get("column", 1), message))
    return out


def providers_schema(directory: Path) -> dict | None:
    """`terraform providers schema -json` in an initialised `directory` (one with `.terraform/`):
    the installed providers' own schemas (it starts their plugins), or None."""
    exe = binary()
    if exe is None or not (directory / ".terraform").is_dir():
        return None
    try:
        proc = subprocess.run([exe, "providers", "schema", "-json"], cwd=directory, capture_output=True, text=True,
                              encoding="utf-8", errors="replace", timeout=TIMEOUT_S, env=_env(), stdin=subprocess.DEVNULL, check=False)
        result = json.loads(proc.stdout or "null") if proc.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    return result if isinstance(result, dict) and isinstance(result.get("provider_schemas"), dict) else None
