"""A project's own `.mcp.json`: its servers start only after the person approved that file once.

A `.mcp.json` in the session's cwd names commands the agent would run, so opening a cloned
repository must not start them. The decision is remembered per file and per content in
`<config dir>/mcp-approvals.json` (`{"<real path>": {"sha256": ..., "decision": "allow"|"reject"}}`):
a changed file is asked about again. `allow_once`/`reject_once` hold for the session only and
are not written.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from iac_code.mcp.servers import McpConfigError, McpServerSpec, read_mcp_json, specs_from_config

log = logging.getLogger(__name__)

FILE_NAME = ".mcp.json"
APPROVALS = "mcp-approvals.json"

Decision = Literal["allow", "reject"]


@dataclass(frozen=True, slots=True)
class ProjectServers:
    """A project's `.mcp.json` as read now: its servers, its unusable entries, its content hash."""

    path: Path
    digest: str
    specs: list[McpServerSpec]
    problems: list[str]

    def summary(self) -> dict[str, str]:
        """Server name -> what starting it does (the command line or the URL), for the approval request."""
        return {s.name: s.describe() for s in self.specs}


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
    digest = hashlib.sha256(raw).hexdigest()
    try:
        specs, problems = specs_from_config(read_mcp_json(path))
    except McpConfigError as exc:
        return ProjectServers(path, digest, [], [str(exc)])
    return ProjectServers(path, digest, specs, problems)


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
