"""The sandbox's policy (what is writable, read-only, hidden), the argv each backend gets, the
hint on a blocked command, and the redactor's encodings (tools/sandbox, redact.py)."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from iac_code.redact import REDACTED, Redactor, is_credential_name
from iac_code.tools.sandbox import blocked_hint, command_policy
from iac_code.tools.sandbox.backends import bwrap_argv, landlock_argv


@pytest.fixture
def machine(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(project, home, config dir) with protected and secret paths in them."""
    root = Path(os.path.realpath(tmp_path))
    project, home, config = root / "proj", root / "home", root / "home" / ".iac-code"
    for rel in (".git/hooks", ".terraform/providers", ".iac-code", "sub/.git", "node_modules/pkg", "modules/vpc"):
        (project / rel).mkdir(parents=True)
    for rel in (".env", "sub/.env.prod", ".envrc", ".mcp.json", "deploy.pem", "main.tf", "modules/vpc/main.tf",
                "node_modules/pkg/.env", ".bashrc"):
        (project / rel).write_text("x")
    (project / "wt").mkdir()
    (project / "wt" / ".git").write_text(f"gitdir: {project / '.git' / 'worktrees' / 'wt'}\n")
    (project / ".git" / "worktrees" / "wt").mkdir(parents=True)
    for rel in (".ssh", ".aws", ".config/gcloud", ".docker"):
        (home / rel).mkdir(parents=True)
    (home / ".docker" / "config.json").write_text("{}")
    (home / ".netrc").write_text("machine x")
    config.mkdir()
    return project, home, config


def test_the_project_is_writable_its_control_paths_read_only_its_secrets_hidden(machine, tmp_path):
    project, home, config = machine
    policy = command_policy(project, config, tmp_path / "tmp", blank=tmp_path / "blank", home=home, environ={})
    assert policy.writable == (tmp_path / "tmp", project)
    assert set(policy.read_only) == {project / p for p in (".git", ".terraform", ".iac-code", ".mcp.json", ".bashrc",
                                                           "sub/.git", "wt/.git", ".git/worktrees/wt")}
    assert set(policy.hidden) == {project / ".env", project / "sub/.env.prod", project / ".envrc", project / "deploy.pem",
                                  home / ".ssh", home / ".aws", home / ".config/gcloud", home / ".docker/config.json",
                                  home / ".netrc", config}
    assert policy.network is False and policy.complete


def test_a_worktree_opened_on_its_own_has_its_git_file_read_only(machine, tmp_path):
    project, home, config = machine
    wt = project / "wt"
    policy = command_policy(wt, config, tmp_path / "tmp", blank=tmp_path / "blank", home=home, environ={})
    assert policy.read_only == (wt / ".git",)  # its gitdir is outside `wt`: read-only as everything else


def test_plan_mode_leaves_only_the_temp_dir_writable(machine, tmp_path):
    project, home, config = machine
    policy = command_policy(project, config, tmp_path / "tmp", blank=tmp_path / "blank", home=home, environ={},
                            project_writable=False)  # fmt: skip
    assert policy.writable == (tmp_path / "tmp",) and policy.read_only == ()
    assert project / ".env" in policy.hidden


def test_a_hidden_place_holding_the_project_is_not_hidden(machine, tmp_path):
    _, home, config = machine
    inside = home / ".aws" / "infra"
    inside.mkdir()
    policy = command_policy(inside, config, tmp_path / "tmp", blank=tmp_path / "blank", home=home, environ={})
    assert home / ".aws" not in policy.hidden and home / ".ssh" in policy.hidden


def test_the_ssh_agent_socket_is_hidden(machine, tmp_path):
    project, home, config = machine
    sock = tmp_path / "agent.sock"
    sock.write_text("")
    policy = command_policy(project, config, tmp_path / "tmp", blank=tmp_path / "blank", home=home,
                            environ={"SSH_AUTH_SOCK": str(sock)})  # fmt: skip
    assert sock in policy.hidden


def test_bwrap_binds_writable_then_read_only_then_hidden(machine, tmp_path):
    project, home, config = machine
    policy = command_policy(project, config, tmp_path / "tmp", blank=tmp_path / "blank", home=home, environ={})
    argv = bwrap_argv(policy, ["/bin/bash", "-c", "true"])
    assert argv[:8] == ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    assert argv.index(str(project)) < argv.index(str(project / ".git")) < argv.index(str(project / ".env"))
    assert argv[argv.index(str(project / ".env")) - 1] == str(tmp_path / "blank")  # a file: the blank file over it
    assert argv[argv.index(str(home / ".ssh")) - 1] == "--tmpfs"  # a directory: an empty tmpfs
    for flag in ("--unshare-pid", "--unshare-net", "--die-with-parent", "--new-session"):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    assert argv[-4:] == ["--", "/bin/bash", "-c", "true"]


def test_landlock_is_a_python_program_with_the_policy_as_arguments(machine, tmp_path):
    project, home, config = machine
    policy = command_policy(project, config, tmp_path / "tmp", blank=tmp_path / "blank", home=home, environ={})
    argv = landlock_argv(policy, ["/bin/bash", "-c", "true"])
    assert argv[1:3] == ["-I", "-S"] and argv[3].endswith("landlock_exec.py")
    assert ["--write", str(project)] == argv[argv.index(str(project)) - 1 : argv.index(str(project)) + 1]
    assert "--network" not in argv and argv[-4:] == ["--", "/bin/bash", "-c", "true"]


@pytest.mark.parametrize(
    ("output", "hint"),
    [
        ("touch: cannot touch '.git/x': Read-only file system", "write only in the project"),
        ("cat: /home/u/.ssh/id_rsa: Permission denied", "read no credentials"),
        ("curl: (6) Could not resolve host: registry.terraform.io", "no network"),
        ("Error: Failed to install provider\n dial tcp: lookup registry.terraform.io: no such host", "no network"),
        ("bash: connect: Network is unreachable", "no network"),
    ],
)
def test_a_failure_the_sandbox_may_have_caused_gets_the_hint(output, hint):
    said = blocked_hint(output)
    assert said is not None and hint in said and "`sandbox: false` and a `reason`" in said


def test_an_ordinary_failure_gets_no_hint():
    assert blocked_hint("Error: Unsupported argument\n  on main.tf line 3") is None


SECRET = "sk-ant-unit-0123456789abcdefXYZ"


@pytest.mark.parametrize(
    "form",
    [
        SECRET,
        SECRET[::-1],
        SECRET.encode().hex(),
        SECRET.encode().hex().upper(),
        " ".join(f"{b:02x}" for b in SECRET.encode()),
        *(base64.b64encode(p + SECRET.encode() + b"!").decode() for p in (b"", b"a", b"ab")),
        base64.urlsafe_b64encode(b"a" + SECRET.encode()).decode(),
        "\n".join(base64.b64encode(b"prefix=" + SECRET.encode())[i : i + 10].decode() for i in range(0, 60, 10)),
    ],
)
def test_the_redactor_finds_a_secret_reversed_and_encoded(form):
    text = Redactor([SECRET])(f"before {form} after")
    assert REDACTED in text
    assert SECRET not in text and SECRET[::-1] not in text


def test_the_redactor_leaves_other_text_alone():
    text = "terraform fmt -recursive\nQUJDREVGR0g=\n6869"
    assert Redactor([SECRET])(text) == text


@pytest.mark.parametrize("name", ["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "TF_TOKEN_app_terraform_io",
                                  "ARM_CLIENT_SECRET", "ALICLOUD_ACCESS_KEY", "DB_PASSWORD", "ANTHROPIC_API_KEY", "NPM_TOKEN"])
def test_credential_variables_are_known_by_their_names(name):
    assert is_credential_name(name)


@pytest.mark.parametrize("name", ["PATH", "HOME", "TF_INPUT", "GIT_ASKPASS", "KUBECONFIG", "TOKENIZERS_PARALLELISM", "AWS_REGION"])
def test_other_variables_are_not_credentials(name):
    assert not is_credential_name(name)


def test_the_agents_cache_dir_is_read_only_also_inside_the_project(machine, tmp_path, monkeypatch):
    project, home, config = machine
    monkeypatch.setenv("XDG_CACHE_HOME", str(project / ".cache"))  # not there yet: made, so it can be bound
    policy = command_policy(project, config, tmp_path / "tmp", blank=tmp_path / "blank", home=home, environ={})
    assert project / ".cache" / "iac-code" in policy.read_only and (project / ".cache" / "iac-code").is_dir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))  # outside the project: read-only as all else
    policy = command_policy(project, config, tmp_path / "tmp", blank=tmp_path / "blank", home=home, environ={})
    assert not [p for p in policy.read_only if "iac-code" in p.parts]
