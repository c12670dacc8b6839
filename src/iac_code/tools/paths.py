"""Path rules shared by the tools and the permission policy.

Every path a tool receives is resolved against the session's cwd and then through symlinks
(`os.path.realpath`), and containment is decided on that real path, so a link inside the
project that points outside it counts as outside.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from pathlib import Path

from iac_code.configdir import cache_dir

SENSITIVE_DIR_NAMES = frozenset({".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".aliyun", ".oci"})
"""Directories whose files hold keys and tokens (PROTOCOL.md, Permissions: sensitive paths)."""
SENSITIVE_CONFIG_DIRS = frozenset({"gcloud", "gh", "glab-cli", "hub", "doctl"})
"""Directories (or files) under `.config/` that hold tokens (`~/.config/gcloud`,
`~/.config/gh/hosts.yml`, GitLab's `glab-cli`, `hub`, DigitalOcean's `doctl`)."""
SENSITIVE_FILE_NAMES = frozenset(
    {
        "credentials",  # ~/.aws/credentials and the like
        ".netrc",
        ".pgpass",
        ".git-credentials",
        ".npmrc",  # registry tokens
        ".pypirc",
        ".vault-token",
        ".terraformrc",  # Terraform CLI settings, with `credentials` blocks
        "terraform.rc",
        "credentials.tfrc.json",  # Terraform CLI / HCP Terraform API tokens
        "application_default_credentials.json",  # gcloud
        "credentials.toml",  # cargo registry tokens
        ".s3cfg",  # s3cmd
        ".boto",  # gsutil
        ".history",
    }
)
SENSITIVE_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore")
"""Private keys and key stores, by extension."""
_SSH_KEY = re.compile(r"id_(rsa|dsa|ecdsa|ed25519|xmss)([-_.][^/]*)?")
"""An ssh private key's name (`id_rsa`, `id_ed25519_sk`, `id_ecdsa.old`; not `id_rsa.pub`)."""

PLAIN_CONFIG_DIRS = frozenset({".ssh", ".aws", ".azure"})
"""Sensitive directories whose `config` file holds settings, not secrets (unlike `.kube/config`)."""

CONTROL_DIR_NAMES = frozenset({".git", ".iac-code", ".aliyun", ".terraform", ".vscode", ".idea", ".tflint.d"}) | SENSITIVE_DIR_NAMES
"""Directories whose files, once written, run code or redirect credentials (git hooks and config,
ssh and cloud CLI config, the agent's own settings, the provider plugins `terraform` starts, the
editor's tasks and settings (`.vscode/tasks.json` runs on opening the folder, `settings.json` can
switch an assistant's approvals off), the plugins `tflint` starts): writes anywhere in them are
sensitive."""
CONTROL_FILE_NAMES = frozenset(
    {
        ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
        ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".cshrc", ".tcshrc", ".inputrc", ".gitconfig",
        ".terraformrc", ".npmrc", ".pypirc", ".mcp.json", ".gitmodules", ".tflint.hcl", ".checkov.yaml",
        ".checkov.yml",
    }
)
"""Shell start-up files and tool settings that run code or hold tokens (`.gitmodules` names what
git clones; `.tflint.hcl` the plugins tflint starts; `.checkov.yaml` Python checks checkov loads):
writing them is sensitive."""


def sensitive_name(name: str) -> bool:
    """Whether a file called `name` (one path component, any letter case) holds secrets by its name
    alone: `.env*`, ssh private keys (`id_rsa`, `id_ed25519`, …), `*.pem *.key *.p12 *.pfx *.jks
    *.keystore`, `*.tfstate*`, `credentials*.json`, `*kubeconfig*`, shell and REPL histories
    (`.bash_history`, `.psql_history`, …) and the files of
    `SENSITIVE_FILE_NAMES` (PROTOCOL.md, Permissions: sensitive paths)."""
    name = name.casefold()
    return (
        name in SENSITIVE_FILE_NAMES
        or name.startswith(".env")  # .env, .env.prod, .envrc
        or name.endswith(SENSITIVE_SUFFIXES)
        or (_SSH_KEY.fullmatch(name) is not None and not name.endswith(".pub"))
        or ".tfstate" in name  # terraform.tfstate, x.tfstate.backup
        or (name.startswith("credentials") and name.endswith(".json"))
        or "kubeconfig" in name
        or name.endswith("_history")  # .bash_history, .psql_history: secrets typed on command lines
    )


MAX_SCANNED_ENTRIES = 10_000
"""A directory is searched for a name in another normal form only up to this many entries."""


def resolve(cwd: Path, path: str | os.PathLike[str]) -> Path:
    """The absolute real path of `path` (relative paths are taken from `cwd`; `~` is expanded).

    When the path does not exist as typed, each missing name is looked up in the other Unicode
    normal form (a name typed in NFC finds a file stored in NFD, as macOS and some archives
    store them, and vice versa); names found nowhere stay as typed.
    """
    p = Path(os.path.expanduser(os.fspath(path)))
    if not p.is_absolute():
        p = cwd / p
    real = Path(os.path.realpath(p))
    if not os.path.lexists(real):
        return _other_normal_form(real) or real
    return real


def _other_normal_form(path: Path) -> Path | None:
    """`path` with each missing component replaced by an existing name equal to it under Unicode
    normalisation, resolved again; None when no component was found that way."""
    current = Path(path.anchor)
    parts = path.parts[1:]
    found_any = False
    for i, part in enumerate(parts):
        candidate = current / part
        if os.path.lexists(candidate):
            current = candidate
            continue
        match = _find_normalised(current, part)
        if match is None:
            current = current.joinpath(*parts[i:])
            break
        current, found_any = current / match, True
    return Path(os.path.realpath(current)) if found_any else None


def _find_normalised(directory: Path, name: str) -> str | None:
    """The entry of `directory` equal to `name` in NFC, or None."""
    if name.isascii():
        return None
    for form in ("NFC", "NFD"):
        other = unicodedata.normalize(form, name)
        if other != name and os.path.lexists(directory / other):
            return other
    wanted = unicodedata.normalize("NFC", name)
    try:
        with os.scandir(directory) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_SCANNED_ENTRIES:
                    break
                if not entry.name.isascii() and unicodedata.normalize("NFC", entry.name) == wanted:
                    return entry.name
    except OSError:
        pass
    return None


def is_inside(path: Path, root: Path) -> bool:
    """Whether the real path `path` is `root` or below it (`root` must be real too)."""
    return path == root or root in path.parents


def is_sensitive(path: Path, config_dir: Path, *, writing: bool = False) -> bool:
    """Whether reading `path` could expose secrets (`SENSITIVE_DIR_NAMES`, `.config/gcloud`,
    `.config/gh`, `sensitive_name`, the config dir), or, with `writing`, whether writing it could
    also run code or redirect credentials (anything under `.git/`, `.iac-code/`, `.terraform/`,
    `.vscode/`, `.idea/`, `.tflint.d/`, `.ssh/`, `.aws/`, `.kube/`, `.aliyun/`, shell start-up
    files, `.mcp.json`, `.gitmodules`, `.tflint.hcl`, `.checkov.yaml`, and the cache dir, whose
    parser tables iac-code unpickles; PROTOCOL.md, Permissions: "Sensitive paths"). Names are
    compared in any letter case. `path` must be real (symlinks resolved)."""
    real_config = Path(os.path.realpath(config_dir))
    if is_inside(path, real_config):
        return True
    if writing and is_inside(path, Path(os.path.realpath(cache_dir()))):
        return True
    # a case-insensitive disk opens `.GIT/config` as `.git/config`
    return sensitive_parts(tuple(part.casefold() for part in path.parts), writing=writing)


def sensitive_parts(parts: tuple[str, ...], *, writing: bool = False) -> bool:
    """`is_sensitive` for a path given as its components in lower case (`casefold`), the config
    dir aside: cheap enough to call for every entry of a project (the sandbox's walk)."""
    if not parts:
        return False
    name = parts[-1]
    parent = parts[-2] if len(parts) > 1 else ""
    if writing and (name in CONTROL_FILE_NAMES or any(part in CONTROL_DIR_NAMES for part in parts)):
        return True
    if writing and parent == "fish" and len(parts) > 2 and parts[-3] == ".config":
        return True
    if any(a == ".config" and b in SENSITIVE_CONFIG_DIRS for a, b in zip(parts, parts[1:], strict=False)):
        return True
    plain_config = name == "config" and parent in PLAIN_CONFIG_DIRS
    if any(part in SENSITIVE_DIR_NAMES for part in parts[:-1]) and not plain_config:
        return True
    if name in SENSITIVE_DIR_NAMES:
        return True
    return sensitive_name(name)


def multi_linked(path: Path) -> bool:
    """Whether `path` is a regular file with more than one hard link (`st_nlink > 1`): another of
    its names may be outside the project, so it counts as outside (PROTOCOL.md, Permissions).
    A link is not followed; a missing file is not multi-linked."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_nlink > 1


def display(path: Path, cwd: Path) -> str:
    """`path` relative to `cwd` when inside it, else absolute: how titles name files."""
    if is_inside(path, cwd) and path != cwd:
        return str(path.relative_to(cwd))
    return str(path)
