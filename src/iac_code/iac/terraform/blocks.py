"""Rules of single Terraform blocks that need no other file: names, reserved variable names,
the `terraform` block taking no references, `version` on a local module, quoted references,
`tags` written as a block, and well-known list arguments given a plain string.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from lark import Token, Tree

from iac_code.iac.diagnostics import Diagnostic, diag
from iac_code.iac.terraform.hcl import Attr, Block, references
from iac_code.iac.terraform.evaluate import literal

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
RESERVED_VARIABLES = {"source", "version", "providers", "count", "for_each", "lifecycle", "depends_on", "locals"}
AWS_LISTS = {"cidr_blocks", "ipv6_cidr_blocks", "security_groups", "vpc_security_group_ids", "subnet_ids",
             "security_group_ids", "availability_zones", "prefix_list_ids"}


def check_block(file: Path, b: Block) -> list[Diagnostic]:
    """The rules of the module docstring for the top-level block `b`."""
    out: list[Diagnostic] = []
    kinds = {"resource": ("type", "name"), "data": ("type", "name"), "module": ("name",), "variable": ("name",), "output": ("name",)}
    for label, role in zip(b.labels, kinds.get(b.type, ())):
        if not NAME.match(label):
            out.append(diag(file, b.line, b.column, "error", "terraform.invalid-name",
                            f'{b.type} {role} "{label}" is not a valid name (a letter or "_", then letters, digits, "_" and "-")'))
    if b.type == "variable" and b.labels and b.labels[0] in RESERVED_VARIABLES:
        out.append(diag(file, b.line, b.column, "error", "terraform.invalid-name",
                        f'"{b.labels[0]}" is reserved and cannot be a variable name'))
    if b.type == "terraform":
        _static(file, b, out)
    if b.type == "module":
        src, version = b.attr("source"), b.attr("version")
        value = literal(src.expr) if src is not None and src.expr is not None else None
        if version is not None and isinstance(value, str) and value.startswith(("./", "../")):
            out.append(diag(file, version.line, version.column, "error", "terraform.module-version-local",
                            f'module "{b.labels[0]}" has a local source ("{value}"), which takes no version'))
    for a in b.attrs:
        if a.expr is None:
            continue
        if a.name == "depends_on" or (a.name == "provider" and b.type in ("resource", "data", "ephemeral")):
            for line, col, text in _strings(a.expr):
                out.append(diag(file, line, col, "error", "terraform.invalid-reference",
                                f'{a.name} takes references, not strings: write {text} without quotes'))
        if b.type == "resource" and b.labels and b.labels[0].startswith("aws_"):
            _list_arg(file, a, out)
    _meta_blocks(file, b, out)
    if b.type in ("resource", "data"):
        for inner in b.blocks:
            if inner.type == "tags":
                out.append(diag(file, inner.line, inner.column, "error", "terraform.block-vs-argument",
                                'tags is an argument, not a block: write tags = { ... }'))
            if b.labels and b.labels[0].startswith("aws_"):
                for a in inner.attrs:
                    if a.expr is not None:
                        _list_arg(file, a, out)
    return out


LIFECYCLE = {"create_before_destroy", "prevent_destroy", "ignore_changes", "replace_triggered_by", "enabled"}


def _meta_blocks(file: Path, b: Block, out: list[Diagnostic]) -> None:
    """Blocks whose shape Terraform itself defines: lifecycle, dynamic (for_each + content),
    variable validation (condition + error_message)."""
    for inner in b.blocks:
        if inner.type == "lifecycle" and b.type in ("resource", "data", "ephemeral"):
            for a in inner.attrs:
                if a.name not in LIFECYCLE:
                    close = difflib.get_close_matches(a.name, LIFECYCLE, n=1, cutoff=0.75)
                    out.append(diag(file, a.line, a.column, "error", "terraform.unknown-argument",
                                    f'lifecycle has no argument "{a.name}"' + (f' (did you mean "{close[0]}"?)' if close else "")))
        elif inner.type == "dynamic":
            if inner.attr("for_each") is None:
                out.append(diag(file, inner.line, inner.column, "error", "terraform.missing-argument",
                                f'dynamic "{".".join(inner.labels)}" has no for_each'))
            if not any(c.type == "content" for c in inner.blocks):
                out.append(diag(file, inner.line, inner.column, "error", "terraform.missing-argument",
                                f'dynamic "{".".join(inner.labels)}" has no content block'))
            _meta_blocks(file, Block("content", [], inner.line, inner.column, [], [c for c in inner.blocks if c.type == "content"]), out)
        elif inner.type == "validation" and b.type == "variable":
            missing = [n for n in ("condition", "error_message") if inner.attr(n) is None]
            if missing:
                out.append(diag(file, inner.line, inner.column, "error", "terraform.missing-argument",
                                f'the validation block of variable "{b.labels[0]}" has no {" or ".join(missing)}'))
        elif inner.type in ("content",):
            _meta_blocks(file, inner, out)


def _static(file: Path, b: Block, out: list[Diagnostic]) -> None:
    """The terraform block (backend included) is read before anything is evaluated."""
    for a in b.attrs:
        if a.expr is None or a.name == "configuration_aliases":
            continue
        refs, _ = references(a.expr)
        if refs and b.type != "required_providers":
            r = refs[0]
            out.append(diag(file, r.line, r.column, "error", "terraform.static-only",
                            f'"{r.text()}" cannot be used in the {b.type} block: its values must be literal (variables are not allowed here)'))
    for inner in b.blocks:
        _static(file, inner, out)


def _strings(expr: Tree) -> list[tuple[int, int, str]]:
    """Plain string literals that look like references (`"aws_vpc.main"`) in `expr`."""
    out = []
    for node in expr.iter_subtrees_topdown():
        if node.data == "string":
            value = literal(node)
            if isinstance(value, str) and re.match(r"^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)+$", value):
                tok = next(node.scan_values(lambda v: isinstance(v, Token)))
                out.append((tok.line, tok.column, value))
    return out


def _list_arg(file: Path, a: Attr, out: list[Diagnostic]) -> None:
    if a.name not in AWS_LISTS:
        return
    node = a.expr
    while isinstance(node, Tree) and node.data == "expr_term" and len(node.children) == 1:
        node = node.children[0]
    if isinstance(node, Tree) and node.data == "string" and "${" not in "".join(str(t) for t in node.scan_values(lambda v: isinstance(v, Token))):
        out.append(diag(file, a.line, a.column, "error", "terraform.invalid-value",
                        f'{a.name} is a list: write {a.name} = ["{literal(node)}"]'))
