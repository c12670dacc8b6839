"""The project's `.cfnlintrc`: the cfn-lint settings a CloudFormation template is checked with.

The nearest `.cfnlintrc` (or `.cfnlintrc.yaml`/`.yml`) in the template's directory or above it
(up to the directory holding `.git`) is read for `ignore_checks`, `include_checks`, `regions`
(`ALL_REGIONS` too), `templates` and `ignore_templates` (globs relative to the file's directory:
templates they leave out are not checked, and are listed with why). `append_rules` is never
used: it names Python rule modules cfn-lint would import, which would run the project's code;
a file that has it gets a warning saying so. Other keys are not read.
"""

from __future__ import annotations

import functools
import glob
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from iac_code.iac.diagnostics import Diagnostic
from iac_code.iac.rules import declare, diag
from iac_code.iac.cloudformation.lint import REGIONS, CfnOptions

NAMES = (".cfnlintrc", ".cfnlintrc.yaml", ".cfnlintrc.yml")
APPEND_RULES = declare("cfnlintrc.append-rules", "warning", "a `.cfnlintrc` with `append_rules`, which is not used (it would run the project's code)",
                       kind="cloudformation", doc="""
    cfn-lint imports the Python modules `append_rules` names; iac-code never runs code from the
    project it checks, so those rules are not run (the rest of the file is used).""")


INVALID = declare("cfnlintrc.invalid", "warning", "a `.cfnlintrc` that cannot be read as YAML (its settings are not used)", kind="cloudformation",
                  doc="""
    cfn-lint would stop on it; the templates are checked with the defaults instead, and this
    warning says where the file is wrong (often a glob starting with `*`, a YAML alias: quote it).""")


@dataclass(frozen=True, slots=True)
class CfnConfig:
    """A `.cfnlintrc` read: where it is, the cfn-lint `options` it gives, its template globs,
    and the line of `append_rules` (0: none)."""

    path: Path | None = None
    options: CfnOptions = field(default_factory=CfnOptions)
    templates: tuple[str, ...] = ()
    ignore_templates: tuple[str, ...] = ()
    append_rules_line: int = 0
    problem: tuple[int, str] | None = None  # (line, why) the file could not be read

    def excluded(self, template: Path) -> str | None:
        """Why `.cfnlintrc` leaves `template` out (its `templates` do not name it, or its
        `ignore_templates` do), or None."""
        if self.path is None:
            return None
        base = self.path.parent
        if self.templates and not _matches(template, base, self.templates):
            return f"not among the templates {self.path.name} lists"
        if self.ignore_templates and _matches(template, base, self.ignore_templates):
            return f"ignore_templates in {self.path.name}"
        return None

    def notes(self) -> Iterator[Diagnostic]:
        """The warnings about the file: unreadable, or with `append_rules`."""
        if self.path is not None and self.problem is not None:
            yield diag(INVALID, self.path, self.problem[0], 1, f"{self.path.name} is not used: {self.problem[1]}")
        if self.path is not None and self.append_rules_line:
            yield diag(APPEND_RULES, self.path, self.append_rules_line, 1,
                       "append_rules is not used: iac-code does not import rule modules from the project it checks (that would run its code)")


def _matches(template: Path, base: Path, patterns: tuple[str, ...]) -> bool:
    target = os.path.normpath(template.absolute())
    for pattern in patterns:
        full = pattern if os.path.isabs(pattern) else os.path.join(base, pattern)
        if any(os.path.normpath(os.path.abspath(p)) == target for p in glob.glob(full, recursive=True)):
            return True
    return False


def for_template(template: Path) -> CfnConfig:
    """The settings of the nearest `.cfnlintrc` above `template` (the defaults without one)."""
    return _nearest(template.absolute().parent)


def _nearest(directory: Path) -> CfnConfig:
    while True:
        for name in NAMES:
            try:
                st = (directory / name).stat()
            except OSError:
                continue
            return _read(directory / name, st.st_mtime_ns, st.st_size)
        if (directory / ".git").exists() or directory.parent == directory:
            return CfnConfig()
        directory = directory.parent


@functools.lru_cache(maxsize=64)
def _read(path: Path, _mtime_ns: int, _size: int) -> CfnConfig:  # the file's version is the cache key
    return read(path)  # once per version of the file


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value if isinstance(v, (str, int))) if isinstance(value, list) else ()


def read(path: Path) -> CfnConfig:
    """`path` read as a `.cfnlintrc` (YAML); a file that cannot be read or parsed gives the
    defaults and its `problem` (cfn-lint would stop with an error: the templates are still
    checked)."""
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
        conf = yaml.safe_load(text)
    except (OSError, UnicodeDecodeError) as exc:
        return CfnConfig(path, problem=(1, f"cannot read it ({exc})"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return CfnConfig(path, problem=((mark.line + 1) if mark else 1, f"not YAML ({getattr(exc, 'problem', None) or exc})"))
    if not isinstance(conf, dict):
        return CfnConfig(path, problem=(1, "not a mapping of settings"))
    regions = _strings(conf.get("regions"))
    if "ALL_REGIONS" in regions:
        from cfnlint.helpers import REGIONS as ALL

        regions = tuple(ALL)
    m = re.search(r"(?m)^append_rules\s*:", text)
    options = CfnOptions(regions=regions or REGIONS, ignore=_strings(conf.get("ignore_checks")), include=_strings(conf.get("include_checks")))
    return CfnConfig(path, options, _strings(conf.get("templates")), _strings(conf.get("ignore_templates")),
                     text.count("\n", 0, m.start()) + 1 if m and conf.get("append_rules") else 0)
