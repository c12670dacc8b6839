"""The permission policy decides from the tools' `paths()`: real paths, symlinks resolved."""

from __future__ import annotations

import os

import pytest

from iac_code.agent.permissions import PermissionPolicy
from iac_code.tools.edit_file import EditFileTool
from iac_code.tools.glob import GlobTool
from iac_code.tools.grep import GrepTool
from iac_code.tools.list_files import ListFilesTool
from iac_code.tools.read_file import ReadFileTool
from iac_code.tools.write_file import WriteFileTool


def decide(tool, raw, ctx, mode="default", policy=None):
    policy = policy or PermissionPolicy(mode)
    params = tool.parse(raw)
    assert not isinstance(params, str), params
    return policy.decide(policy.classify(tool, params, ctx)).action


@pytest.fixture
def layout(project, tmp_path):
    """An outside dir with a secret, and links from the project to it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.tf").write_text("")
    (project / "main.tf").write_text("")
    os.symlink(outside / "secret.tf", project / "innocent.tf")
    os.symlink(outside, project / "vendor")
    return outside


@pytest.mark.parametrize(
    ("tool", "raw"),
    [
        (ReadFileTool(), {"path": "main.tf"}),
        (ListFilesTool(), {}),
        (GlobTool(), {"pattern": "**/*.tf"}),
        (GrepTool(), {"pattern": "x"}),
    ],
)
def test_reads_inside_cwd_are_allowed(layout, ctx, tool, raw):
    assert decide(tool, raw, ctx) == "allow"


@pytest.mark.parametrize(
    ("tool", "raw"),
    [
        (ReadFileTool(), {"path": "innocent.tf"}),
        (ReadFileTool(), {"path": "vendor/secret.tf"}),
        (ReadFileTool(), {"path": "../outside/secret.tf"}),
        (ReadFileTool(), {"path": "/etc/hostname"}),
        (ReadFileTool(), {"path": ".env"}),
        (ReadFileTool(), {"path": ".env.production"}),
        (ReadFileTool(), {"path": "~/.ssh/id_ed25519"}),
        (ReadFileTool(), {"path": "~/.aws/credentials"}),
        (ListFilesTool(), {"path": "vendor"}),
        (GlobTool(), {"pattern": "vendor/**/*.tf"}),
        (GlobTool(), {"pattern": "../**/*.tf"}),
        (GrepTool(), {"pattern": "x", "path": "vendor"}),
        (GrepTool(), {"pattern": "x", "path": "innocent.tf"}),
    ],
)
def test_reads_outside_cwd_or_of_secrets_ask(layout, ctx, tool, raw):
    assert decide(tool, raw, ctx) == "ask"


@pytest.mark.parametrize(
    "path",
    [".kube/config", ".ssh/id_ed25519", ".aws/credentials", ".terraform.d/credentials.tfrc.json", "gcloud/application_default_credentials.json"],
)
def test_reads_of_credentials_inside_cwd_ask(layout, ctx, path):
    """A session whose cwd is the home directory must not read cluster or cloud credentials unasked."""
    assert decide(ReadFileTool(), {"path": path}, ctx) == "ask"


@pytest.mark.parametrize("path", [".ssh/config", ".aws/config", "modules/config"])
def test_plain_configuration_inside_cwd_is_read_without_asking(layout, ctx, path):
    assert decide(ReadFileTool(), {"path": path}, ctx) == "allow"


def test_reads_of_the_config_dir_ask(layout, ctx):
    ctx.config_dir.mkdir()
    assert decide(ReadFileTool(), {"path": str(ctx.config_dir / "config.json")}, ctx) == "ask"


@pytest.mark.parametrize(
    ("tool", "raw"),
    [
        (WriteFileTool(), {"path": "innocent.tf", "content": "x"}),
        (WriteFileTool(), {"path": "vendor/new.tf", "content": "x"}),
        (WriteFileTool(), {"path": "../outside/new.tf", "content": "x"}),
        (EditFileTool(), {"path": "innocent.tf", "old_string": "a", "new_string": "b"}),
        (EditFileTool(), {"path": "/etc/hosts", "old_string": "a", "new_string": "b"}),
    ],
)
@pytest.mark.parametrize("mode", ["default", "accept_edits", "bypass_permissions"])
def test_writes_outside_cwd_ask_in_every_mode_even_after_allow_always(layout, ctx, tool, raw, mode):
    policy = PermissionPolicy(mode)
    policy.allowed.add("edit")  # an earlier allow_always for edits in the project
    assert decide(tool, raw, ctx, policy=policy) == "ask"


@pytest.mark.parametrize(
    ("mode", "action"), [("default", "ask"), ("accept_edits", "allow"), ("bypass_permissions", "allow"), ("plan", "deny")]
)
def test_writes_inside_cwd_follow_the_mode(layout, ctx, mode, action):
    assert decide(WriteFileTool(), {"path": "new.tf", "content": "x"}, ctx, mode) == action
    assert decide(EditFileTool(), {"path": "main.tf", "old_string": "a", "new_string": "b"}, ctx, mode) == action


@pytest.mark.parametrize("mode", ["default", "accept_edits"])
def test_writes_into_the_cache_dir_ask_even_when_the_project_holds_it(layout, ctx, project, monkeypatch, mode):
    """iac-code unpickles the HCL parser tables kept in its cache dir: a write there could run
    code the next time it validates. With the project as the home directory, the cache dir is
    inside the project, and an edit there must still ask, also after "Always allow" for edits."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(project / ".cache"))
    tables = {"path": ".cache/iac-code/hcl2-8-lark-1-py311.tables", "content": "x"}
    policy = PermissionPolicy(mode)
    policy.allowed.add("edit")
    assert decide(WriteFileTool(), tables, ctx, policy=policy) == "ask"
    assert decide(WriteFileTool(), {"path": ".cache/other/file", "content": "x"}, ctx, mode) == ("ask" if mode == "default" else "allow")
    assert decide(ReadFileTool(), {"path": ".cache/iac-code/hcl2-8-lark-1-py311.tables"}, ctx) == "allow"
