"""How a validation runs: `Options`, and the `validate` settings of the config file."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from iac_code.core.vocabulary import ValidateKind
from iac_code.iac.rules import Selection

@dataclass(slots=True)
class Options:
    """How to validate: `kind` restricts the formats; `ignore` lists rule ids ("x.*" prefixes)
    whose rules do not run; `terraform_cli` allows `terraform fmt`; `terraform_validate` also
    `terraform validate`; `overlay` maps paths to the text to check instead of the disk's
    (None: absent); `after_edits`: post-edit feedback on; `workers`: processes checking a large
    Terraform project's modules (0: one per CPU; `iac-code validate` uses 0, the agent 1)."""

    kind: ValidateKind = "auto"
    ignore: tuple[str, ...] = ()
    kubernetes_version: str | None = None
    terraform_cli: bool = True
    terraform_validate: bool = False
    overlay: dict[Path, str | None] = field(default_factory=dict)
    after_edits: bool = True
    workers: int = 1

    @property
    def selection(self) -> Selection:
        """The rules that run."""
        return Selection(tuple(self.ignore))


def config_options(config_dir: Path) -> Options:
    """Options from `validate` in `<config_dir>/config.json`: `{"validate": {"ignore": [rule ids],
    "kubernetes_version": "1.30", "after_edits": true}}` (`after_edits` false turns post-edit
    feedback off; the environment variable `IAC_CODE_VALIDATE_AFTER_EDITS=0` too, and wins).
    A missing or malformed file or key gives the defaults."""
    try:
        conf = json.loads((config_dir / "config.json").read_text(encoding="utf-8")).get("validate") or {}
    except (OSError, ValueError, AttributeError):
        conf = {}
    if not isinstance(conf, dict):
        conf = {}
    ignore = conf.get("ignore")
    ignore = ignore if isinstance(ignore, list) else []
    version = conf.get("kubernetes_version")
    return Options(ignore=tuple(str(r) for r in ignore), kubernetes_version=str(version) if version else None,
                   after_edits=_flag(os.environ.get("IAC_CODE_VALIDATE_AFTER_EDITS"), conf.get("after_edits", True) is not False))


def _flag(env: str | None, default: bool) -> bool:
    if env is None or not env.strip():
        return default
    return env.strip().lower() not in ("0", "false", "no", "off")
