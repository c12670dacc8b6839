"""Path rules shared by the tools and the permission policy.

Every path a tool receives is resolved against the session's cwd and then through symlinks
(`os.path.realpath`), and containment is decided on that real path, so a link inside the
project that points outside it counts as outside.
"""

from __future__ import annotations

import os
from pathlib import Path

SENSITIVE_DIR_NAMES = frozenset({".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker"})
SENSITIVE_FILE_NAMES = frozenset(
    {
        "credentials",
        ".netrc",
        ".pgpass",
        ".git-credentials",
        "id_rsa",
        "id_ed25519",
        "credentials.tfrc.json",  # Terraform CLI / HCP Terraform API tokens
        "application_default_credentials.json",  # gcloud
    }
)
PLAIN_CONFIG_DIRS = frozenset({".ssh", ".aws", ".azure"})
"""Sensitive directories whose `config` file holds settings, not secrets (unlike `.kube/config`)."""


def resolve(cwd: Path, path: str | os.PathLike[str]) -> Path:
    """The absolute real path of `path` (relative paths are taken from `cwd`; `~` is expanded)."""
    p = Path(os.path.expanduser(os.fspath(path)))
    if not p.is_absolute():
        p = cwd / p
    return Path(os.path.realpath(p))


def is_inside(path: Path, root: Path) -> bool:
    """Whether the real path `path` is `root` or below it (`root` must be real too)."""
    return path == root or root in path.parents


def is_sensitive(path: Path, config_dir: Path) -> bool:
    """Whether reading `path` could expose secrets: `.ssh`, cloud credentials, `.env` files, the config dir."""
    real_config = Path(os.path.realpath(config_dir))
    if is_inside(path, real_config):
        return True
    plain_config = path.name == "config" and path.parent.name in PLAIN_CONFIG_DIRS
    if any(part in SENSITIVE_DIR_NAMES for part in path.parts[:-1]) and not plain_config:
        return True
    if path.parts and path.name in SENSITIVE_DIR_NAMES:
        return True
    name = path.name
    return name in SENSITIVE_FILE_NAMES or name == ".env" or name.startswith(".env.") or name.endswith(".pem")


def display(path: Path, cwd: Path) -> str:
    """`path` relative to `cwd` when inside it, else absolute: how titles name files."""
    if is_inside(path, cwd) and path != cwd:
        return str(path.relative_to(cwd))
    return str(path)
