"""The permission rules the sandbox brings (PROTOCOL.md, Permissions and Command sandbox): a command
run outside the sandbox says so, needs a reason and has rules of its own; `plan` runs sandboxed
commands; without a sandbox, saved bash rules are exact command lines."""

from __future__ import annotations

import dataclasses

import pytest

from iac_code.agent.permissions import PLAN_MODE_REFUSAL, PermissionPolicy
from iac_code.tools.bash import BashTool

TOOL = BashTool()


def classify(policy, ctx, **raw):
    params = TOOL.parse(raw)
    assert not isinstance(params, str), params
    return policy.classify(TOOL, params, dataclasses.replace(ctx))


def test_running_outside_the_sandbox_needs_a_reason():
    assert "reason" in TOOL.parse({"command": "terraform init", "sandbox": False})
    assert "reason" in TOOL.parse({"command": "terraform init", "sandbox": False, "reason": "  "})
    params = TOOL.parse({"command": "terraform init", "sandbox": False, "reason": "download the providers"})
    assert not isinstance(params, str)
    assert TOOL.title(params) == "Run `terraform init` outside the sandbox"


def test_rules_for_commands_outside_the_sandbox_are_their_own(ctx):
    policy = PermissionPolicy("default", sandboxed=True)
    inside = classify(policy, ctx, command="terraform init")
    outside = classify(policy, ctx, command="terraform init", sandbox=False, reason="providers")
    assert inside.sandboxed and not outside.sandboxed
    assert [o.name for o in policy.options(outside)] == [
        "Allow once",
        "Always allow exactly `terraform init` outside the sandbox",
        "Reject once",
        "Always reject `terraform init` commands outside the sandbox",
    ]
    policy.remember(inside, "allow_always")
    assert policy.decide(classify(policy, ctx, command="terraform init")).action == "allow"
    assert policy.decide(outside).action == "ask"  # a sandboxed rule never covers an escalation
    policy.remember(outside, "allow_always")
    assert policy.decide(classify(policy, ctx, command="terraform init", sandbox=False, reason="again")).action == "allow"
    policy.allowed.clear()
    policy.remember(outside, "reject_always")
    assert policy.decide(outside).action == "deny"
    assert policy.decide(inside).action == "ask"  # nor the reverse, for rejections too


def test_a_rule_for_a_command_outside_the_sandbox_is_its_exact_line(ctx):
    """No sandbox is under such a call, so its rule is as narrow as a session without one: the
    safe lists are the second layer, not the only one (`kubectl get` outside the sandbox reaches
    the cluster with the person's credentials: `kubectl get secrets -o yaml` must ask)."""
    policy = PermissionPolicy("default", sandboxed=True)
    outside = classify(policy, ctx, command="kubectl get pods", sandbox=False, reason="the cluster")
    assert policy.options(outside)[1].name == "Always allow exactly `kubectl get pods` outside the sandbox"
    assert policy.options(outside)[3].name == "Always reject `kubectl get` commands outside the sandbox"
    policy.remember(outside, "allow_always")
    again = classify(policy, ctx, command="kubectl get pods", sandbox=False, reason="again")
    assert policy.decide(again).action == "allow"
    wider = classify(policy, ctx, command="kubectl get secrets -A -o yaml", sandbox=False, reason="the cluster")
    assert policy.decide(wider).action == "ask"


def test_a_sandboxed_rule_keeps_its_name(ctx):
    policy = PermissionPolicy("default", sandboxed=True)
    call = classify(policy, ctx, command="git status")
    assert policy.options(call)[1].name == "Always allow `git status` commands"


def test_bypass_runs_commands_outside_the_sandbox_too(ctx):
    policy = PermissionPolicy("bypass_permissions", sandboxed=True)
    assert policy.decide(classify(policy, ctx, command="git commit -m x", sandbox=False, reason="commit")).action == "allow"


def test_plan_mode_runs_sandboxed_commands_as_rules_say_and_refuses_the_rest(ctx):
    policy = PermissionPolicy("plan", sandboxed=True)
    assert policy.decide(classify(policy, ctx, command="git status")).action == "ask"
    policy.allowed.add("git status")
    assert policy.decide(classify(policy, ctx, command="git status")).action == "allow"
    refused = policy.decide(classify(policy, ctx, command="git push", sandbox=False, reason="publish"))
    assert refused.action == "deny" and refused.reason == PLAN_MODE_REFUSAL.format(tool="bash")
    without = PermissionPolicy("plan", sandboxed=False)
    assert without.decide(classify(without, ctx, command="git status")).action == "deny"


@pytest.mark.parametrize("command", ["terraform fmt", "git status --short"])
def test_without_a_sandbox_saved_rules_are_exact_command_lines(ctx, command):
    policy = PermissionPolicy("default", sandboxed=False)
    call = classify(policy, ctx, command=command)
    assert policy.options(call)[1].name == f"Always allow exactly `{command}`"
    policy.remember(call, "allow_always")
    assert policy.decide(classify(policy, ctx, command=command)).action == "allow"
    assert policy.decide(classify(policy, ctx, command=command + " -recursive")).action == "ask"


def test_sandboxed_commands_mode_runs_only_what_a_sandbox_holds(ctx):
    policy = PermissionPolicy("sandboxed_commands", sandboxed=True)
    assert policy.decide(classify(policy, ctx, command="rm -r modules && terraform fmt")).action == "allow"
    assert policy.decide(classify(policy, ctx, command="terraform init", sandbox=False, reason="providers")).action == "ask"
    policy.remember(classify(policy, ctx, command="terraform fmt"), "reject_always")
    assert policy.decide(classify(policy, ctx, command="terraform fmt")).action == "deny"  # a saved rejection wins
    without = PermissionPolicy("sandboxed_commands", sandboxed=False)  # no sandbox works here: commands ask
    assert without.decide(classify(without, ctx, command="terraform fmt")).action == "ask"
