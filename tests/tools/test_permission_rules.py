"""Saved rules are narrow (PROTOCOL.md, Permissions): what each `always` answer covers, and what
no rule ever covers (sensitive paths, which differ for reads and writes)."""

from __future__ import annotations

import dataclasses

import pytest

from iac_code.agent.permissions import PermissionPolicy
from iac_code.tools.bash import BashTool
from iac_code.tools.read_file import ReadFileTool
from iac_code.tools.write_file import WriteFileTool


def classify(policy, tool, raw, ctx):
    params = tool.parse(raw)
    assert not isinstance(params, str), params
    return policy.classify(tool, params, dataclasses.replace(ctx))


def action(policy, tool, raw, ctx) -> str:
    return policy.decide(classify(policy, tool, raw, ctx)).action


@pytest.mark.parametrize(
    "path",
    [".git/hooks/pre-commit", ".git/config", ".iac-code/settings.json", ".envrc", ".env.local", ".bashrc", ".zshrc",
     ".profile", ".config/fish/config.fish", ".aws/config", ".ssh/config", ".kube/config", ".aliyun/config.json",
     "sub/.git/hooks/post-checkout", ".gitconfig", ".vscode/tasks.json", ".vscode/settings.json", ".idea/workspace.xml",
     ".gitmodules", ".tflint.hcl", ".tflint.d/plugins/tflint-ruleset-x", ".checkov.yaml"],
)
@pytest.mark.parametrize("mode", ["default", "accept_edits"])
def test_writes_to_sensitive_paths_ask_and_no_rule_covers_them(ctx, path, mode):
    policy = PermissionPolicy(mode)
    policy.allowed.add("edit")
    call = classify(policy, WriteFileTool(), {"path": path, "content": "x"}, ctx)
    assert policy.decide(call).action == "ask"
    assert [o.kind for o in policy.options(call)] == ["allow_once", "reject_once"]
    assert PermissionPolicy("bypass_permissions").decide(call).action == "allow"


@pytest.mark.parametrize("path", [".git/HEAD", ".aws/config", ".ssh/config", "modules/config"])
def test_reading_plain_settings_inside_the_project_does_not_ask(ctx, path):
    assert action(PermissionPolicy("default"), ReadFileTool(), {"path": path}, ctx) == "allow"


def test_an_edit_rule_covers_ordinary_files_in_the_project_only(ctx):
    policy = PermissionPolicy("default")
    first = classify(policy, WriteFileTool(), {"path": "main.tf", "content": "x"}, ctx)
    assert policy.options(first)[1].name == "Always allow edits in this project"
    policy.remember(first, "allow_always")
    assert action(policy, WriteFileTool(), {"path": "modules/vpc/main.tf", "content": "x"}, ctx) == "allow"
    assert action(policy, WriteFileTool(), {"path": ".git/config", "content": "x"}, ctx) == "ask"
    assert action(policy, WriteFileTool(), {"path": "../elsewhere.tf", "content": "x"}, ctx) == "ask"
    assert action(policy, BashTool(), {"command": "ls"}, ctx) == "ask"  # not a blank cheque for other tools


def test_a_read_rule_covers_one_directory_outside_the_project_and_never_secrets(ctx, tmp_path):
    (tmp_path / "shared").mkdir()
    (tmp_path / "other").mkdir()
    policy = PermissionPolicy("default")
    first = classify(policy, ReadFileTool(), {"path": str(tmp_path / "shared" / "a.tf")}, ctx)
    assert policy.options(first)[1].name == f"Always allow reads in `{tmp_path / 'shared'}`"
    policy.remember(first, "allow_always")
    assert action(policy, ReadFileTool(), {"path": str(tmp_path / "shared" / "b.tf")}, ctx) == "allow"
    assert action(policy, ReadFileTool(), {"path": str(tmp_path / "other" / "b.tf")}, ctx) == "ask"
    assert action(policy, ReadFileTool(), {"path": str(tmp_path / "shared" / ".env")}, ctx) == "ask"


def test_a_rejected_rule_is_denied_without_asking_in_every_mode(ctx):
    policy = PermissionPolicy("default")
    policy.remember(classify(policy, BashTool(), {"command": "terraform apply"}, ctx), "reject_always")
    for mode in ("default", "accept_edits", "bypass_permissions"):
        policy.mode = mode
        assert action(policy, BashTool(), {"command": "terraform apply -no-color"}, ctx) == "deny"
        assert action(policy, BashTool(), {"command": "terraform fmt && terraform apply"}, ctx) == "deny"
    policy.mode = "default"
    assert action(policy, BashTool(), {"command": "terraform plan"}, ctx) == "ask"


def test_fetches_ask_per_host_except_documentation_hosts(ctx):
    from iac_code.tools.web_fetch import WebFetchTool

    policy = PermissionPolicy("default")
    fetch = WebFetchTool()
    assert action(policy, fetch, {"url": "https://registry.terraform.io/v1/providers/hashicorp/aws"}, ctx) == "allow"
    assert action(policy, fetch, {"url": "https://kubernetes.io/docs/concepts/"}, ctx) == "allow"
    first = classify(policy, fetch, {"url": "https://example.com/page?q=1"}, ctx)
    assert policy.decide(first).action == "ask"
    assert policy.options(first)[1].name == "Always allow fetches from `example.com`"
    policy.remember(first, "allow_always")
    assert action(policy, fetch, {"url": "https://example.com/other"}, ctx) == "allow"
    assert action(policy, fetch, {"url": "https://evil.example/?d=secret"}, ctx) == "ask"
    assert action(policy, fetch, {"url": "https://example.com.evil.example/"}, ctx) == "ask"
    assert action(policy, fetch, {"url": "https://example.com@evil.example/"}, ctx) == "ask"
    odd = classify(policy, fetch, {"url": "https://evil.example\\@example.com/"}, ctx)
    assert policy.decide(odd).action == "ask" and [o.kind for o in policy.options(odd)] == ["allow_once", "reject_once"]


@pytest.mark.parametrize("name", ["id_ed25519", "id_ecdsa", "prod.tfstate", "terraform.tfstate.backup", "tls.key",
                                  "store.p12", "app.jks", "credentials-ci.json", "dev.kubeconfig", ".vault-token",
                                  ".npmrc", "terraform.rc", ".bash_history", ".psql_history", "credentials.toml", ".s3cfg",
                                  ".boto"])
def test_a_reads_in_dir_rule_does_not_cover_the_secrets_in_it(ctx, tmp_path, name):
    shared = tmp_path / "shared"
    shared.mkdir(exist_ok=True)
    policy = PermissionPolicy("default")
    policy.remember(classify(policy, ReadFileTool(), {"path": str(shared / "a.tf")}, ctx), "allow_always")
    assert action(policy, ReadFileTool(), {"path": str(shared / "b.tf")}, ctx) == "allow"
    call = classify(policy, ReadFileTool(), {"path": str(shared / name)}, ctx)
    assert policy.decide(call).action == "ask"
    assert [o.kind for o in policy.options(call)] == ["allow_once", "reject_once"]


@pytest.mark.parametrize("mode", ["default", "accept_edits", "bypass_permissions"])
def test_a_hard_linked_file_in_the_project_counts_as_outside(ctx, project, tmp_path, mode):
    import os

    secret = tmp_path / "outside-key"
    secret.write_text("KEY\n")
    os.link(secret, project / "notes.txt")
    policy = PermissionPolicy(mode)
    policy.allowed.add("edit")
    for tool, raw in ((WriteFileTool(), {"path": "notes.txt", "content": "x"}), (ReadFileTool(), {"path": "notes.txt"})):
        call = classify(policy, tool, raw, ctx)
        assert [o.kind for o in policy.options(call)] == ["allow_once", "reject_once"]
        expected = "allow" if mode == "bypass_permissions" and tool.category == "read" else "ask"
        assert policy.decide(call).action == expected  # a write outside asks even in bypass_permissions
