"""Rules of single Terraform blocks that need no other file: names, the arguments of the blocks
Terraform itself defines (variable, output, lifecycle, dynamic, validation, module `source`),
type constraints, literal defaults, the `terraform` block taking no references, `version` on a
local module, quoted references, `tags` written as a block, arguments set twice, and
well-known list arguments given a plain string.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from lark import Token, Tree

from iac_code.iac.diagnostics import Diagnostic, hint
from iac_code.iac.rules import diag, rule
from iac_code.iac.terraform.evaluate import literal
from iac_code.iac.terraform.hcl import Attr, Block, references
from iac_code.iac.terraform.module import Decl, ModuleTarget

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
RESERVED_VARIABLES = {"source", "version", "providers", "count", "for_each", "lifecycle", "depends_on", "locals"}
AWS_LISTS = {"cidr_blocks", "ipv6_cidr_blocks", "security_groups", "vpc_security_group_ids", "subnet_ids",
             "security_group_ids", "availability_zones", "prefix_list_ids"}
TYPE_WORDS = frozenset({"string", "number", "bool", "any", "list", "map", "set", "object", "tuple", "optional"})
VARIABLE_ARGS = frozenset({"default", "type", "description", "sensitive", "nullable", "ephemeral", "deprecated", "const"})
OUTPUT_ARGS = frozenset({"value", "description", "sensitive", "depends_on", "ephemeral", "deprecated"})
LIFECYCLE = {"create_before_destroy", "prevent_destroy", "ignore_changes", "replace_triggered_by", "enabled"}
_LABEL_ROLES = {"resource": ("type", "name"), "data": ("type", "name"), "module": ("name",), "variable": ("name",), "output": ("name",)}


def _decls(t: ModuleTarget) -> list[Decl]:
    return t.module.blocks


def _nested(b: Block) -> Iterator[Block]:
    """`b` and every block inside it."""
    yield b
    for inner in b.blocks:
        yield from _nested(inner)


@rule("terraform.invalid-name", "error", "a resource/data/module/variable/output name Terraform rejects, or a reserved variable name",
      kind="terraform")
def invalid_name(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Names start with a letter or `_` and go on with letters, digits, `_` and `-`; `source`,
    `version`, `providers`, `count`, `for_each`, `lifecycle`, `depends_on` and `locals` cannot
    name a variable (module calls use them)."""
    for d in _decls(t):
        b = d.block
        for label, role in zip(b.labels, _LABEL_ROLES.get(b.type, ())):
            if not NAME.match(label):
                yield diag(invalid_name, d.file, b.line, b.column,
                           f'{b.type} {role} "{label}" is not a valid name (a letter or "_", then letters, digits, "_" and "-")')
        if b.type == "variable" and b.labels[0] in RESERVED_VARIABLES:
            yield diag(invalid_name, d.file, b.line, b.column, f'"{b.labels[0]}" is reserved and cannot be a variable name')


@rule("terraform.duplicate-attribute", "error", "the same argument twice in one block", kind="terraform")
def duplicate_attribute(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Attribute redefined"."""
    for d in _decls(t):
        for b in _nested(d.block):
            seen: dict[str, Attr] = {}
            for a in b.attrs:
                if a.name in seen:
                    yield diag(duplicate_attribute, d.file, a.line, a.column,
                               f'the argument "{a.name}" is set twice in this block (first at line {seen[a.name].line})')
                seen.setdefault(a.name, a)


@rule("terraform.count-and-for-each", "error", "`count` and `for_each` on one block", kind="terraform")
def count_and_for_each(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Invalid combination of "count" and "for_each""."""
    for d in _decls(t):
        b = d.block
        if b.type not in ("terraform", "moved", "removed") and b.attr("count") and (a := b.attr("for_each")):
            yield diag(count_and_for_each, d.file, a.line, a.column,
                       f'{b.type} "{".".join(b.labels)}" sets both count and for_each; use one of them')


def _args(file: Path, b: Block, allowed: frozenset[str], blocks: set[str]) -> Iterator[Diagnostic]:
    for a in b.attrs:
        if a.name not in allowed and a.expr is not None:
            yield diag(unknown_argument, file, a.line, a.column, f'a {b.type} block has no argument "{a.name}" (allowed: {", ".join(sorted(allowed))})')
    for inner in b.blocks:
        if inner.type not in blocks:
            yield diag(unknown_argument, file, inner.line, inner.column, f'a {b.type} block has no "{inner.type}" block')


@rule("terraform.unknown-argument", "error", "an argument a `variable`, `output` or `lifecycle` block does not accept", kind="terraform")
def unknown_argument(t: ModuleTarget) -> Iterator[Diagnostic]:
    """The arguments and blocks of the blocks Terraform itself defines: `variable` (default,
    type, description, sensitive, nullable, ephemeral, validation, ...), `output` (value,
    description, sensitive, depends_on, precondition, ...) and a resource's `lifecycle`."""
    for d in _decls(t):
        b = d.block
        if b.type == "variable":
            yield from _args(d.file, b, VARIABLE_ARGS, {"validation"})
        elif b.type == "output":
            yield from _args(d.file, b, OUTPUT_ARGS, {"precondition"})
        if b.type in ("resource", "data", "ephemeral"):
            for inner in b.blocks:
                if inner.type == "lifecycle":
                    for a in inner.attrs:
                        if a.name not in LIFECYCLE:
                            yield diag(unknown_argument, d.file, a.line, a.column, f'lifecycle has no argument "{a.name}"{hint(a.name, LIFECYCLE)}')


@rule("terraform.missing-argument", "error", "a required argument of a Terraform block is missing (module `source`, output `value`, ...)",
      kind="terraform")
def missing_argument(t: ModuleTarget) -> Iterator[Diagnostic]:
    """A module call without `source`, an output without `value`, a `dynamic` block without
    `for_each` or `content`, a variable's `validation` without `condition` or `error_message`."""
    for d in _decls(t):
        b = d.block
        if b.type == "module" and b.attr("source") is None:
            yield diag(missing_argument, d.file, b.line, b.column, f'module "{b.labels[0]}" has no source')
        if b.type == "output" and b.attr("value") is None and not t.module.has_json:
            yield diag(missing_argument, d.file, b.line, b.column, f'output "{b.labels[0]}" has no value')
        for inner in _nested(b):
            if inner.type == "dynamic" and inner is not b:
                if inner.attr("for_each") is None:
                    yield diag(missing_argument, d.file, inner.line, inner.column, f'dynamic "{".".join(inner.labels)}" has no for_each')
                if not any(c.type == "content" for c in inner.blocks):
                    yield diag(missing_argument, d.file, inner.line, inner.column, f'dynamic "{".".join(inner.labels)}" has no content block')
        if b.type == "variable":
            for inner in b.blocks:
                missing = [n for n in ("condition", "error_message") if inner.type == "validation" and inner.attr(n) is None]
                if missing:
                    yield diag(missing_argument, d.file, inner.line, inner.column,
                               f'the validation block of variable "{b.labels[0]}" has no {" or ".join(missing)}')


@rule("terraform.invalid-default", "error", "a variable `default` that refers to other values (defaults must be literal)", kind="terraform")
def invalid_default(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Variables not allowed" in a variable's default."""
    for d in _decls(t):
        default = d.block.attr("default") if d.block.type == "variable" else None
        if default is not None and default.expr is not None:
            refs, _ = references(default.expr)
            for r in refs[:1]:
                yield diag(invalid_default, d.file, r.line, r.column,
                           f'the default of variable "{d.block.labels[0]}" refers to "{r.text()}"; defaults must be literal values (use a local instead)')


@rule("terraform.invalid-type", "error", "a variable `type` that is not a type constraint", kind="terraform")
def invalid_type(t: ModuleTarget) -> Iterator[Diagnostic]:
    """string, number, bool, any, list(T), set(T), map(T), object({...}), tuple([...]) and
    optional(T) inside object types; not quoted (that was Terraform 0.11)."""
    for d in _decls(t):
        a = d.block.attr("type") if d.block.type == "variable" else None
        if a is None or a.expr is None:
            continue
        quoted = literal(a.expr)
        if isinstance(quoted, str):
            yield diag(invalid_type, d.file, a.line, a.column, f"type constraints are not quoted: write type = {quoted}")
            continue
        refs, calls = references(a.expr)
        for r in refs:
            if r.root not in TYPE_WORDS or r.steps:
                yield diag(invalid_type, d.file, r.line, r.column,
                           f'"{r.text()}" is not a type (use string, number, bool, any, list(...), map(...), set(...), object({{...}}), tuple([...]))')
        for c in calls:
            if c.name not in TYPE_WORDS:
                yield diag(invalid_type, d.file, c.line, c.column, f'"{c.name}(...)" is not a type constructor')


@rule("terraform.static-only", "error", "a reference inside the `terraform` block (backend, required_version...), which takes literals only",
      kind="terraform")
def static_only(t: ModuleTarget) -> Iterator[Diagnostic]:
    """The `terraform` block, its backend included, is read before anything is evaluated:
    Terraform says "Variables not allowed"."""
    for d in _decls(t):
        if d.block.type == "terraform":
            for b in _nested(d.block):
                for a in b.attrs:
                    if a.expr is None or a.name == "configuration_aliases" or b.type == "required_providers":
                        continue
                    refs, _ = references(a.expr)
                    if refs:
                        r = refs[0]
                        yield diag(static_only, d.file, r.line, r.column,
                                   f'"{r.text()}" cannot be used in the {b.type} block: its values must be literal (variables are not allowed here)')


@rule("terraform.module-version-local", "error", "`version` on a module whose source is a local path", kind="terraform")
def module_version_local(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Invalid version constraint: cannot apply a version constraint to module ...
    because it has a relative local path"."""
    for d in _decls(t):
        b = d.block
        src, version = (b.attr("source"), b.attr("version")) if b.type == "module" else (None, None)
        value = literal(src.expr) if src is not None and src.expr is not None else None
        if version is not None and isinstance(value, str) and value.startswith(("./", "../")):
            yield diag(module_version_local, d.file, version.line, version.column,
                       f'module "{b.labels[0]}" has a local source ("{value}"), which takes no version')


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


@rule("terraform.invalid-reference", "warning", 'a quoted reference in `depends_on` or `provider` (`"aws_vpc.main"`)', kind="terraform")
def invalid_reference(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform 1.x accepts a quoted reference with the warning "Quoted references are
    deprecated" (Terraform 0.11 needed the quotes)."""
    for d in _decls(t):
        b = d.block
        for a in b.attrs:
            if a.expr is not None and (a.name == "depends_on" or (a.name == "provider" and b.type in ("resource", "data", "ephemeral"))):
                for line, col, text in _strings(a.expr):
                    yield diag(invalid_reference, d.file, line, col, f"{a.name} takes references, not strings: write {text} without quotes")


@rule("terraform.block-vs-argument", "error", "`tags { ... }` written as a block; it is an argument (`tags = { ... }`)", kind="terraform")
def block_vs_argument(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Unsupported block type ... Did you mean to define argument "tags"?"."""
    for d in _decls(t):
        if d.block.type in ("resource", "data"):
            for inner in d.block.blocks:
                if inner.type == "tags":
                    yield diag(block_vs_argument, d.file, inner.line, inner.column, "tags is an argument, not a block: write tags = { ... }")


@rule("terraform.list-argument", "error", "a well-known AWS list argument (`cidr_blocks`, `subnet_ids`, ...) given a single string",
      kind="terraform")
def list_argument(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Inappropriate value for attribute ...: list of string required"."""
    for d in _decls(t):
        b = d.block
        if b.type != "resource" or not b.labels[0].startswith("aws_"):
            continue
        for a in [*b.attrs, *(a for inner in b.blocks for a in inner.attrs)]:
            if a.name not in AWS_LISTS or a.expr is None:
                continue
            node = a.expr
            while isinstance(node, Tree) and node.data == "expr_term" and len(node.children) == 1:
                node = node.children[0]
            if isinstance(node, Tree) and node.data == "string" and "${" not in "".join(str(x) for x in node.scan_values(lambda v: isinstance(v, Token))):
                yield diag(list_argument, d.file, a.line, a.column, f'{a.name} is a list: write {a.name} = ["{literal(node)}"]')
