"""What the sandbox tests share: the backends that work here, a project and home with fake
secrets in them, a view of every file outside the project, and a loopback server that counts
who reached it. The assertions are made from outside the agent: files, what the client received,
what is under the config dir."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from iac_code.configdir import cache_dir
from iac_code.tools.sandbox import detect

BACKENDS = ("bwrap", "landlock")

SSH_KEY = "FAKE-SSH-KEY-0f1e2d3c4b5a"
AWS_FILE_KEY = "FAKE-AWS-FILE-9a8b7c6d5e"
DOTENV_SECRET = "FAKE-DOTENV-1a2b3c4d5e6f"
AGENT_ENV_SECRET = "FAKE-AGENT-ENV-7e6d5c4b3a"
"""In the agent's environment as AWS_SECRET_ACCESS_KEY: the redactor does not know it."""
API_KEY = "sk-ant-FAKE-sandbox-test-0123456789"
SECRETS = (SSH_KEY, AWS_FILE_KEY, DOTENV_SECRET, AGENT_ENV_SECRET, API_KEY)
BIN = str(Path(sys.executable).parent)  # iac-code, rg
CACHE_HOME = str(cache_dir().parent)
"""The person's own cache (XDG_CACHE_HOME), beside the fake home: the HCL parser's tables are
there, as on a machine where the agent has parsed HCL before (tests/test_sandbox_parser_cache.py)."""


def require(backend: str) -> None:
    """Skip, saying why, unless `backend` works on this machine."""
    found = detect(backend)  # type: ignore[arg-type]
    if found.backend != backend:
        pytest.skip(f"the {backend} sandbox does not work here: {found.bwrap if backend == 'bwrap' else found.landlock}")


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    require(request.param)
    return request.param


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@dataclass
class Place:
    """A temporary machine: `project` (a git repository with a `.env`), `home` (keys and cloud
    credentials), `outside` (a file beside the project)."""

    root: Path
    project: Path = field(init=False)
    home: Path = field(init=False)
    outside: Path = field(init=False)

    def __post_init__(self) -> None:
        self.project = self.root / "proj"
        self.home = self.root / "home"
        self.outside = self.root / "outside.txt"
        (self.home / ".ssh").mkdir(parents=True)
        (self.home / ".ssh" / "id_rsa").write_text(f"-----BEGIN KEY-----\n{SSH_KEY}\n")
        (self.home / ".aws").mkdir()
        (self.home / ".aws" / "credentials").write_text(f"[default]\naws_secret_access_key = {AWS_FILE_KEY}\n")
        (self.home / ".bashrc").write_text("# bashrc\n")
        self.outside.write_text("outside\n")
        self.project.mkdir()
        (self.project / "main.tf").write_text('resource "null_resource" "x" {}\n')
        git(self.project, "init", "-q")
        git(self.project, "config", "user.email", "t@example.com")
        git(self.project, "config", "user.name", "t")
        git(self.project, "add", "main.tf")
        git(self.project, "commit", "-q", "-m", "first")
        (self.project / ".env").write_text(f"SECRET={DOTENV_SECRET}\n")

    def env(self, backend: str, mode: str = "bypass_permissions", **extra: str) -> dict[str, str]:
        """The agent's environment: this home, `backend`, `mode`, a key and a cloud secret."""
        return {
            "HOME": str(self.home),
            "XDG_CACHE_HOME": CACHE_HOME,
            "PATH": os.pathsep.join([BIN, os.environ.get("PATH", "")]),
            "IAC_CODE_SANDBOX": backend,
            "IAC_CODE_PERMISSION_MODE": mode,
            "ANTHROPIC_API_KEY": API_KEY,
            "AWS_SECRET_ACCESS_KEY": AGENT_ENV_SECRET,
            **extra,
        }

    def outside_files(self) -> dict[str, str]:
        """Every file under the root but the project's work tree and the agent's own (its
        config dir, logs, scripts): `.git/` is included. Path -> digest and mode."""
        seen = {}
        for path in sorted(self.root.rglob("*")):
            rel = path.relative_to(self.root)
            if rel.parts[0] in ("iac-config", "agent-stderr.log") or rel.name.startswith("script-"):
                continue
            if rel.parts[0] == "proj" and (len(rel.parts) < 2 or rel.parts[1] != ".git"):
                continue
            if path.is_file() and not path.is_symlink():
                seen[str(rel)] = hashlib.sha256(path.read_bytes()).hexdigest() + oct(path.stat().st_mode)
            elif path.is_dir():
                seen[str(rel)] = "dir"
        return seen

    def leaked(self, agent) -> list[str]:
        """The fake secrets found in what the client received or under the config dir."""
        places = [json.dumps(agent.raw), json.dumps([repr(u) for ups in agent.client.updates.values() for u in ups])]
        places += [p.read_text(errors="replace") for p in agent.config_dir.rglob("*") if p.is_file()]
        return [s for s in SECRETS if any(s in text for text in places)]


class LoopbackServer:
    """A TCP server on 127.0.0.1 that answers `HTTP/1.0 200` and counts its connections, and a
    UDP socket on the same port that counts the datagrams it receives."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", self.port))
        self.connections = 0
        self.datagrams = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        threading.Thread(target=self._receive, daemon=True).start()

    def _receive(self) -> None:
        while True:
            try:
                self.udp.recv(4096)
            except OSError:
                return
            self.datagrams += 1

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(4096)
                    conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 13\r\n\r\nloopback-ok\r\n")
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()
        self.udp.close()


@pytest.fixture
def loopback():
    server = LoopbackServer()
    yield server
    server.close()


def bash(command: str, **extra) -> dict:
    return {"blocks": [{"type": "tool_use", "name": "bash", "input": {"command": command, **extra}}]}


DONE = {"blocks": [{"type": "text", "text": "done"}]}


def results(agent, sid: str) -> list:
    """The final update of each tool call, in order."""
    return [ups[-1] for ups in agent.tool_calls(sid).values()]


def output(update) -> str:
    """What a finished bash call's panel shows."""
    return "\n".join(c.content.text for c in update.content or [] if c.type == "content")
