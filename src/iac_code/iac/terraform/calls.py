"""Rules of what a module calls: local module calls (the directory exists, required variables
are passed, no unknown argument) and provider configurations (`provider = aws.west`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lark import Tree

from iac_code.iac.diagnostics import Diagnostic, hint
from iac_code.iac.rules import diag, rule
from iac_code.iac.terraform.hcl import Block, references
from iac_code.iac.terraform.module import Module, ModuleTarget, local_child, local_source_dir, required_providers, source

MODULE_META = frozenset({"source", "version", "count", "for_each", "providers", "depends_on"})


def _calls(t: ModuleTarget) -> Iterator[tuple[Path, Block, Module | None]]:
    for d in t.module.blocks:
        if d.block.type == "module" and local_source_dir(t.module, d.block) is not None:
            yield d.file, d.block, local_child(t.module, d.block, t.load)


@rule("terraform.module-source-missing", "error", "a local module `source` directory that does not exist or has no .tf files",
      kind="terraform")
def module_source_missing(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Unreadable module directory"."""
    for file, b, child in _calls(t):
        if child is None:
            at = b.attr("source") or b  # there is one: local_source_dir read it
            yield diag(module_source_missing, file, at.line, at.column, f'module "{b.labels[0]}": source "{source(b)}" is not a directory with Terraform files')


@rule("terraform.module-unknown-argument", "error", "a module call passes an argument the module does not declare", kind="terraform")
def module_unknown_argument(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Unsupported argument; an argument named ... is not expected here"."""
    for file, b, child in _calls(t):
        if child is None or child.has_json or child.broken:
            continue
        for a in b.attrs:
            if a.name not in MODULE_META and a.name not in child.variables:
                yield diag(module_unknown_argument, file, a.line, a.column, f'module "{b.labels[0]}" has no variable "{a.name}"{hint(a.name, child.variables)}')


@rule("terraform.module-missing-variable", "error", "a module call omits a variable the module requires", kind="terraform")
def module_missing_variable(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Missing required argument": a variable of the called module without a
    `default` that the call does not set."""
    for file, b, child in _calls(t):
        if child is None or child.has_json or child.broken:
            continue
        passed = {a.name for a in b.attrs}
        for name, decl in child.variables.items():
            if name not in passed and decl.block.attr("default") is None:
                yield diag(module_missing_variable, file, b.line, b.column,
                           f'module "{b.labels[0]}" requires variable "{name}" (no default in {decl.file.name}:{decl.block.line})')


def _configuration_alias(mod: Module, name: str, alias: str) -> bool:
    for a in required_providers(mod):
        refs, _ = references(a.expr) if isinstance(a.expr, Tree) else ([], [])
        if any(r.root == name and r.steps == (alias,) for r in refs):
            return True
    return False


@rule("terraform.undeclared-provider", "error", "`provider = P.alias` with no such provider configuration", kind="terraform")
def undeclared_provider(t: ModuleTarget) -> Iterator[Diagnostic]:
    """A resource's `provider` names a `provider "P"` block with that `alias` in the module, or
    an alias the module declares in `required_providers` (`configuration_aliases`)."""
    mod = t.module
    if mod.has_json or mod.broken:
        return
    for d in mod.blocks:
        a = d.block.attr("provider") if d.block.type in ("resource", "data", "ephemeral") else None
        if a is None or a.expr is None:
            continue
        refs, _ = references(a.expr)
        if len(refs) != 1 or len(refs[0].steps) != 1:
            continue
        name, alias = refs[0].root, refs[0].steps[0]
        if (name, alias) not in mod.providers and not _configuration_alias(mod, name, alias):
            yield diag(undeclared_provider, d.file, a.line, a.column,
                       f'no provider "{name}" block with alias "{alias}" in this module (nor in configuration_aliases)')
