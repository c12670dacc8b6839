"""The HCL parser's built tables (a pickle the agent loads: iac/terraform/hcl.tables_file) and the
command sandbox: a sandboxed command reads the agent's tables from the cache dir, so a sandboxed
`iac-code validate` does not build them again (~3-7 s), and it can never change them, not even
where the project holds the cache dir. Commands run in the real sandbox of each backend
(`Sandbox.wrap`, as the agent runs them in an editor's terminal)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from iac_code.iac.terraform import hcl
from iac_code.tools.sandbox import Sandbox, private_space, remove_space
from sandbox_rig import backend  # noqa: F401 - fixture

BIN = str(Path(sys.executable).parent)


def sandboxed(backend: str, project: Path, command: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`command` run by bash in the sandbox of `backend` in `project` (a session's private space)."""
    space = private_space()
    try:
        sandbox = Sandbox(backend, space)  # type: ignore[arg-type]
        argv = sandbox.wrap(["bash", "-c", command], project, project.parent / "iac-config")
        full_env = sandbox.environment({"PATH": os.pathsep.join([BIN, "/usr/bin", "/bin"]), "HOME": env["HOME"], **env})
        return subprocess.run(argv, cwd=project, env=full_env, capture_output=True, text=True, timeout=60, check=False)
    finally:
        remove_space(space)


@pytest.fixture
def tables() -> Path:
    """The tables of this process's parser, built (or loaded) once where the agent keeps them."""
    hcl.parse("a = 1\n")
    found = hcl.tables_file()
    assert found is not None and found.exists(), found
    return found


@pytest.mark.parametrize("where", ["home", "project"])
def test_a_sandboxed_command_cannot_change_the_agents_tables(tmp_path, backend, monkeypatch, where):
    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    # the cache dir in the home directory, or inside the project (not there yet: the policy makes it)
    cache_home = home / ".cache" if where == "home" else project / ".cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    name = hcl.tables_name()
    if where == "home":
        (cache_home / "iac-code").mkdir(parents=True, mode=0o700)
        (cache_home / "iac-code" / name).write_bytes(b"the agent's tables\n")
    attack = (
        f'mkdir -p "$XDG_CACHE_HOME/iac-code"; echo planted > "$XDG_CACHE_HOME/iac-code/{name}";'
        f' echo planted > "$XDG_CACHE_HOME/iac-code/other"; rm -f "$XDG_CACHE_HOME/iac-code/{name}";'
        ' mv "$XDG_CACHE_HOME/iac-code" "$XDG_CACHE_HOME/moved"; ls -la "$XDG_CACHE_HOME/iac-code"'
    )
    done = sandboxed(backend, project, attack, {"HOME": str(home), "XDG_CACHE_HOME": str(cache_home)})
    assert done.returncode == 0, done.stderr  # the last `ls` sees the directory still there
    kept = sorted(p.name for p in (cache_home / "iac-code").iterdir())
    assert kept == ([name] if where == "home" else [])
    if where == "home":
        assert (cache_home / "iac-code" / name).read_bytes() == b"the agent's tables\n"
    assert not (cache_home / "moved").exists()


def test_a_sandboxed_parse_loads_the_agents_tables_and_builds_none(tmp_path, backend, tables):
    project, home = tmp_path / "proj", tmp_path / "home"
    project.mkdir()
    cache_home = tables.parent.parent  # where this process keeps them (lark's check covers their path)
    # lark's logger says where it loads its tables from and where it saves the ones it built
    parse = (
        "python -c 'import logging; from iac_code.iac.terraform import hcl;"
        " logging.getLogger(\"lark\").setLevel(logging.DEBUG); hcl.parse(\"a = 1\\n\")'; ls -A \"$TMPDIR\""
    )
    done = sandboxed(backend, project, parse, {"HOME": str(home), "XDG_CACHE_HOME": str(cache_home)})
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("Loading grammar from cache") == 1, done.stderr
    assert str(tables) in done.stderr
    assert "Saving grammar" not in done.stderr, done.stderr
    assert done.stdout == ""  # nothing kept in the command's private TMPDIR either
