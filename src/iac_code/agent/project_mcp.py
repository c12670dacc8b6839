"""A project's own `.mcp.json`: its servers start only after the person approved that file once.
This module owns that decision: it reads the file, remembers the answer and asks the question.

A `.mcp.json` in the session's cwd names commands the agent would run, so opening a cloned
repository must not start them (PROTOCOL.md, MCP servers).

- What is asked about: `find` reads the file into `ProjectServers`, whose digest covers the file
  and the content of the local files its stdio commands name inside the project (`python
  server.py`: `server.py`; a directory named: all of it; `python -m pkg.server`: `pkg/`), so a
  change to either asks again. `describe` shows a server as the question does: its whole command
  line, its `env`, its URL and headers, secrets masked (`masked`).
- The memory: `decision`/`remember`, per file and per content, in `<config dir>/mcp-approvals.json`
  (`{"<real path>": {"sha256": ..., "decision": "allow"|"reject"}}`).
- The question (`approved_servers`): it goes through the session's permission prompter like a tool
  call (the client sees a `tool_call` titled "Start the MCP servers of this project's .mcp.json"
  with the servers, their whole command lines and env (secrets masked), that stdio servers run
  outside the command sandbox, then the permission request): `allow_once` starts them for this
  session, `allow_always` also remembers the file (this content, and that of the local files its
  commands name), `reject_once` skips them for this session, `reject_always` remembers the
  refusal; the `_once` answers are not written. Without a prompter (nobody to ask) the servers are
  not started and the person is told.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
import shlex
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from iac_code.agent.permissions import PermissionPrompter, PermissionRequest, every_option
from iac_code.core.events import EventSink, Location, Notice, TextContent, ToolCallStarted, ToolCallUpdated
from iac_code.mcp_client.servers import McpConfigError, McpServerSpec, read_mcp_json, specs_from_config

log = logging.getLogger(__name__)

FILE_NAME = ".mcp.json"
APPROVALS = "mcp-approvals.json"
TITLE = "Start the MCP servers of this project's .mcp.json"
TOOL_NAME = ".mcp.json"
"""The name the prompter sees (headless: `--allow .mcp.json` approves the file for one run)."""

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


async def approved_servers(
    cwd: Path, config_dir: Path, emit: EventSink, prompter: PermissionPrompter | None
) -> ProjectServers | Literal["cancelled"] | None:
    """The project's servers when they may start now; None when there are none or they may not;
    `cancelled` when the person cancelled the prompt while asked."""
    found = find(cwd)
    if found is None:
        return None
    if not found.specs:
        for problem in found.problems:
            await emit(Notice(f"\n\nThis project's .mcp.json was not used: {problem}.\n\n"))
        return None
    remembered = decision(found, config_dir)
    if remembered == "allow":
        return found
    if remembered == "reject":
        log.info("not starting the servers of %s: rejected earlier", found.path)
        return None
    if prompter is None:
        await emit(Notice("\n\nThis project's .mcp.json was not approved, so its MCP servers were not started.\n\n"))
        return None
    call_id = f"mcp_json_{uuid.uuid4().hex[:12]}"
    raw_input = {"file": str(found.path), "servers": found.summary(), "files": found.files or {}}
    listing = "\n".join(f"- {name}: {what}" for name, what in found.summary().items())
    question = f"{found.path} starts these MCP servers:\n{listing}"
    if any(s.transport == "stdio" for s in found.specs):
        question += (
            "\n\nIts stdio servers run outside the command sandbox, as you, with your environment "
            "and the network."
        )
    if found.files:
        question += "\n\nApproving it always covers these files as they are now (a change asks again): " + ", ".join(found.files)
    where = [Location(str(found.path))]
    await emit(ToolCallStarted(call_id, TITLE, kind="execute", status="pending", raw_input=raw_input, locations=where))
    try:
        answer = await prompter.ask(
            PermissionRequest(
                tool_call_id=call_id,
                tool_name=TOOL_NAME,
                title=TITLE,
                kind="execute",
                raw_input=raw_input,
                content=[TextContent(question)],
                locations=where,
                options=every_option("this .mcp.json and the files it runs (as they are now)" if found.files else "this .mcp.json (as it is now)"),
            )
        )
    except asyncio.CancelledError:  # the prompt was cancelled while asking: end the call, then stop
        await emit(ToolCallUpdated(call_id, status="failed", raw_output={"error": "Cancelled."}, content=[TextContent("Cancelled.")]))
        raise
    if answer == "allow_always":
        remember(found, config_dir, "allow")
    elif answer == "reject_always":
        remember(found, config_dir, "reject")
    if answer in ("allow_once", "allow_always"):
        await emit(ToolCallUpdated(call_id, status="completed", content=[TextContent(f"Starting:\n{listing}")]))
        return found
    text = "Cancelled." if answer == "cancelled" else "Not started: this project's .mcp.json was not approved."
    await emit(ToolCallUpdated(call_id, status="failed", raw_output={"error": text}, content=[TextContent(text)]))
    return "cancelled" if answer == "cancelled" else None
