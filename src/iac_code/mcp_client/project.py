"""A project's own `.mcp.json`: its servers start only after the person approved that file once.

A `.mcp.json` in the session's cwd names commands the agent would run, so opening a cloned
repository must not start them. The decision is remembered per file and per content in
`<config dir>/mcp-approvals.json` (`{"<real path>": {"sha256": ..., "decision": "allow"|"reject"}}`),
where the digest covers the file and the content of the local files its stdio commands name
inside the project (`python server.py`: `server.py`; a directory named: all of it; `python -m
pkg.server`: `pkg/`), so a change to either asks again
(PROTOCOL.md, MCP servers). `allow_once`/`reject_once` hold for the session only and are not
written. `describe` shows a server as the question does: its whole command line, its `env`, its
URL and headers, secrets masked (`masked`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from iac_code.mcp_client.servers import McpConfigError, McpServerSpec, read_mcp_json, specs_from_config

log = logging.getLogger(__name__)

FILE_NAME = ".mcp.json"
APPROVALS = "mcp-approvals.json"

Decision = Literal["allow", "reject"]


_SECRET_NAME = re.compile(r"key|token|secret|passw|auth|credential|cookie|session|private", re.IGNORECASE)
_TOKEN_LIKE = re.compile(r"[A-Za-z0-9_\-+=.]{20,}")


def masked(name: str, value: str) -> str:
    """`value` as the question shows it: whole, unless `name` says it is a secret (`API_KEY`,
    `Authorization`) or it looks like a token (20 or more letters, digits and `-_+=.` with both
    letters and digits); then its first 4 characters and its length (`sk-a… (51 characters)`)."""
    secret = _SECRET_NAME.search(name) is not None
    token = _TOKEN_LIKE.fullmatch(value) is not None and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    if not (secret or token) or not value:
        return value
    return f"{value[:4]}… ({len(value)} characters, masked)"


def describe(spec: McpServerSpec) -> str:
    """One server for the approval question: the command line (quoted as a shell would need it)
    and its `env`, or the URL and its headers, secret values masked."""
    if spec.transport == "stdio":
        text = shlex.join([spec.command, *spec.args])
        extra = " ".join(f"{k}={masked(k, v)}" for k, v in spec.env.items())
        return text + (f"  (env: {extra})" if extra else "")
    headers = ", ".join(f"{k}: {masked(k, v)}" for k, v in spec.headers.items())
    return f"{spec.url} ({spec.transport})" + (f"  (headers: {headers})" if headers else "")


@dataclass(frozen=True, slots=True)
class ProjectServers:
    """A project's `.mcp.json` as read now: its servers, its unusable entries, the local files its
    commands name (path -> sha256 of the content) and the digest of all of it."""

    path: Path
    digest: str
    specs: list[McpServerSpec]
    problems: list[str]
    files: dict[str, str] | None = None

    def summary(self) -> dict[str, str]:
        """Server name -> what starting it does (`describe`), for the approval request."""
        return {s.name: describe(s) for s in self.specs}


MAX_TREE_FILES = 2_000
MAX_TREE_BYTES = 32 << 20
"""A directory a command names is digested whole up to this many files and bytes; a larger one
gets a digest that matches nothing, so its server asks every time."""


def local_files(specs: list[McpServerSpec], cwd: Path) -> dict[str, str]:
    """The files and directories inside the project (`cwd`) that the stdio servers' commands
    name, relative path -> the sha256 of their content now (`missing` when unreadable): as the
    command or an argument (`./server.sh`, `python tools/mcp.py`, `--script=x.js`), a directory
    (`node ./srv`, `python srv/`: every file below it) and the package of `python -m pkg.server`
    (`pkg/` or `pkg.py`, what Python imports from the cwd)."""
    found: dict[str, str] = {}
    root = Path(os.path.realpath(cwd))
    for spec in specs:
        if spec.transport != "stdio":
            continue
        words = (spec.command, *spec.args)
        for i, word in enumerate(words):
            candidates = {word, word.split("=", 1)[-1]}
            module = word[2:] if word.startswith("-m") and len(word) > 2 else (word if i and words[i - 1] == "-m" else "")
            if module:
                top = module.split(".")[0]
                candidates |= {top, top + ".py"}
            for candidate in candidates:
                if not candidate or candidate.startswith("-"):
                    continue
                path = Path(os.path.normpath(root / os.path.expanduser(candidate)))
                if path != root and root not in path.parents:
                    continue
                if path.is_file():
                    found[str(path.relative_to(root))] = _file_digest(path)
                elif path.is_dir():  # `node .` runs the project itself: all of it is covered
                    found[str(path.relative_to(root)) + "/"] = _tree_digest(path)
    return dict(sorted(found.items()))


def _tree_digest(top: Path) -> str:
    """The sha256 of every file's relative name and content below `top` (links by their target
    text), or a digest that matches nothing for a tree over `MAX_TREE_FILES`/`MAX_TREE_BYTES`."""
    digest = hashlib.sha256()
    files = size = 0
    for directory, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")  # written only with the person's approval
        for name in sorted(filenames):
            path = Path(directory, name)
            files += 1
            try:
                size += path.lstat().st_size
            except OSError:
                pass
            if files > MAX_TREE_FILES or size > MAX_TREE_BYTES:
                log.warning("%s is too large to remember: its .mcp.json asks every time", top)
                return "too-large-" + os.urandom(16).hex()
            digest.update(str(path.relative_to(top)).encode("utf-8", "surrogateescape") + b"\0")
            content = os.readlink(path) if path.is_symlink() else _file_digest(path)
            digest.update(content.encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 16):
                digest.update(chunk)
    except OSError:
        return "missing"
    return digest.hexdigest()


def find(cwd: Path) -> ProjectServers | None:
    """The `.mcp.json` of the project rooted at `cwd`, or None when there is none.

    A file that cannot be parsed is returned with no servers and the reason in `problems`.
    """
    path = cwd / FILE_NAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return ProjectServers(path, "", [], [f"{path}: {exc.strerror or exc}"])
    try:
        specs, problems = specs_from_config(read_mcp_json(path))
    except McpConfigError as exc:
        return ProjectServers(path, hashlib.sha256(raw).hexdigest(), [], [str(exc)])
    files = local_files(specs, cwd)
    digest = hashlib.sha256(raw + json.dumps(files, sort_keys=True).encode() if files else raw).hexdigest()
    return ProjectServers(path, digest, specs, problems, files)


def _approvals(config_dir: Path) -> dict[str, Any]:
    try:
        data = json.loads((config_dir / APPROVALS).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable %s: %s", config_dir / APPROVALS, exc)
        return {}
    return data if isinstance(data, dict) else {}


def decision(project: ProjectServers, config_dir: Path) -> Decision | None:
    """The remembered decision for this file with this content, or None (ask)."""
    entry = _approvals(config_dir).get(str(project.path.resolve()))
    if isinstance(entry, dict) and entry.get("sha256") == project.digest and entry.get("decision") in ("allow", "reject"):
        return entry["decision"]
    return None


def remember(project: ProjectServers, config_dir: Path, choice: Decision) -> None:
    """Remember `choice` for this file with this content (written atomically; failures are logged)."""
    data = _approvals(config_dir)
    data[str(project.path.resolve())] = {"sha256": project.digest, "decision": choice}
    target = config_dir / APPROVALS
    try:
        config_dir.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{APPROVALS}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
        os.replace(tmp, target)
    except OSError as exc:
        log.warning("could not remember the .mcp.json decision in %s: %s", target, exc)
