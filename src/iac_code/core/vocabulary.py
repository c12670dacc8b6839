"""The small vocabularies of iac-code: each a `Literal` (what the type checker sees) and the tuple
of its words taken from it with `get_args` (what argparse, pydantic and the ACP adapter check
against at run time), written once, here.

The standard library only, so that `iac_code.cli` can offer the words as choices without
importing the settings (pydantic) first. `is_*` tell whether a string from outside (an ACP
request, a command line) is one of the words, narrowing its type for the checker.
"""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

PermissionMode = Literal["default", "accept_edits", "sandboxed_commands", "plan", "bypass_permissions"]
"""Who may write and run commands without asking (ACP: the session's mode; config.MODES names
and describes each)."""
PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)

ThoughtLevel = Literal["off", "low", "medium", "high"]
"""How much the model thinks before it answers (the `thought_level` config option)."""
THOUGHT_LEVELS: tuple[ThoughtLevel, ...] = get_args(ThoughtLevel)

PermissionOptionKind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]
"""ACP's permission option kinds (schema `PermissionOptionKind`); the gate's options are named by
their kind and their ids are their kinds."""
PERMISSION_OPTION_KINDS: tuple[PermissionOptionKind, ...] = get_args(PermissionOptionKind)

ValidateKind = Literal["auto", "terraform", "cloudformation", "ros", "kubernetes"]
"""What `iac-code validate --kind` and the validate tool's `kind` restrict a run to (`auto`: each
file's kind from its content)."""
VALIDATE_KINDS: tuple[ValidateKind, ...] = get_args(ValidateKind)

ValidateFormat = Literal["text", "json", "sarif"]
"""How `iac-code validate --format` prints its findings."""
VALIDATE_FORMATS: tuple[ValidateFormat, ...] = get_args(ValidateFormat)

SandboxSetting = Literal["auto", "bwrap", "landlock", "off"]
"""Which command sandbox to use (the `sandbox` setting, env `IAC_CODE_SANDBOX`; `auto`: bubblewrap,
else Landlock)."""

OutputFormat = Literal["text", "json", "stream-json"]
"""How headless `iac-code -p --output-format` prints a prompt turn."""
OUTPUT_FORMATS: tuple[OutputFormat, ...] = get_args(OutputFormat)


def is_permission_mode(value: object) -> TypeGuard[PermissionMode]:
    """Whether `value` is one of `PERMISSION_MODES`."""
    return value in PERMISSION_MODES


def is_thought_level(value: object) -> TypeGuard[ThoughtLevel]:
    """Whether `value` is one of `THOUGHT_LEVELS`."""
    return value in THOUGHT_LEVELS


def is_permission_option_kind(value: object) -> TypeGuard[PermissionOptionKind]:
    """Whether `value` is one of `PERMISSION_OPTION_KINDS`."""
    return value in PERMISSION_OPTION_KINDS
