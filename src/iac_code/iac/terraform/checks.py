"""Terraform/OpenTofu checks across one module directory.

References to undeclared `var.`, `local.`, `module.`, `data.` and resource addresses (built-ins
such as `count.index`, `each.key`, `self`, `path.module`, `terraform.workspace`, for-expression
variables and dynamic-block iterators are in scope where Terraform puts them); outputs of local
modules; module calls' required and unknown arguments; `count` with `for_each`; instance keys;
unknown functions, block types and variable/output arguments; type constraints; provider aliases;
.tfvars names. Declarations and syntax are `module.py`'s; CIDRs are `network.py`'s.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lark import Tree

from iac_code.iac.diagnostics import Diagnostic, diag
from iac_code.iac.terraform.hcl import Attr, Block, Ref, references
from iac_code.iac.terraform.module import Decl, Module
from iac_code.iac.terraform.resources import check_resource
from iac_code.iac.terraform.blocks import check_block

ModuleLoader = Callable[[Path], "Module | None"]
"""Returns the module in a directory (parsed), or None if it has no Terraform files."""

FUNCTIONS = frozenset(["abs", "abspath", "alltrue", "anytrue", "base64decode", "base64encode", "base64gunzip", "base64gzip", "base64sha256", "base64sha512", "basename", "bcrypt", "can", "ceil", "chomp", "chunklist", "cidrcontains", "cidrhost", "cidrnetmask", "cidrsubnet", "cidrsubnets", "coalesce", "coalescelist", "compact", "concat", "contains", "csvdecode", "dirname", "distinct", "element", "endswith", "ephemeralasnull", "file", "filebase64", "filebase64sha256", "filebase64sha512", "fileexists", "filemd5", "fileset", "filesha1", "filesha256", "filesha512", "flatten", "floor", "format", "formatdate", "formatlist", "indent", "index", "issensitive", "join", "jsondecode", "jsonencode", "keys", "length", "log", "lookup", "lower", "matchkeys", "max", "md5", "merge", "min", "nonsensitive", "one", "parseint", "pathexpand", "plantimestamp", "pow", "range", "regex", "regexall", "replace", "reverse", "rsadecrypt", "sensitive", "setintersection", "setproduct", "setsubtract", "setunion", "sha1", "sha256", "sha512", "signum", "slice", "sort", "split", "startswith", "strcontains", "strrev", "substr", "sum", "templatefile", "templatestring", "textdecodebase64", "textencodebase64", "timeadd", "timecmp", "timestamp", "title", "tobool", "tolist", "tomap", "tonumber", "toset", "tostring", "transpose", "trim", "trimprefix", "trimspace", "trimsuffix", "try", "type", "upper", "urldecode", "urlencode", "uuid", "uuidv5", "values", "yamldecode", "yamlencode", "zipmap"])
TYPE_WORDS = frozenset({"string", "number", "bool", "any", "list", "map", "set", "object", "tuple", "optional"})
BUILTIN_ROOTS = frozenset({"self", "path", "terraform"})
MODULE_META = frozenset({"source", "version", "count", "for_each", "providers", "depends_on"})
VARIABLE_ARGS = frozenset({"default", "type", "description", "sensitive", "nullable", "ephemeral", "deprecated", "const"})
_ITERABLE = frozenset({"resource", "data", "module", "ephemeral", "output", "locals", "provider"})
OUTPUT_ARGS = frozenset({"value", "description", "sensitive", "depends_on", "ephemeral", "deprecated"})


@dataclass(slots=True)
class _Ctx:
    """Where a reference appears: its file, top-level block, and names in scope."""

    file: Path
    top: Block
    scope: frozenset[str]
    rule: str | None = None  # "depends_on" overrides the undeclared rule
    in_provisioner: bool = False


def check_module(mod: Module, load: ModuleLoader) -> list[Diagnostic]:
    """Every reference and structure check of `mod` (see the module docstring)."""
    out: list[Diagnostic] = []
    for decl in mod.blocks:
        b, f = decl.block, decl.file
        out += check_block(f, b)
        if b.type in ("terraform", "moved", "removed"):
            _duplicate_attrs(f, b, out)
            continue
        _duplicate_attrs(f, b, out)
        if b.attr("count") and b.attr("for_each"):
            a = b.attr("for_each")
            out.append(diag(f, a.line, a.column, "error", "terraform.count-and-for-each",
                            f'{b.type} "{".".join(b.labels)}" sets both count and for_each; use one of them'))
        if b.type == "variable":
            _check_variable(f, b, out)
        elif b.type == "output":
            _check_args(f, b, OUTPUT_ARGS, {"precondition"}, out)
            if b.attr("value") is None and not mod.has_json:
                out.append(diag(f, b.line, b.column, "error", "terraform.missing-argument", f'output "{b.labels[0]}" has no value'))
        elif b.type == "module":
            _check_module_call(mod, f, b, load, out)
        if b.type == "import":
            _check_import_target(mod, f, b, out)
        if b.type in ("resource", "data", "ephemeral"):
            _check_provider_ref(mod, f, b, out)
            out += check_resource(f, b)
        _check_body(mod, load, f, b, b, frozenset(), out)
    _check_tfvars(mod, out)
    return out


def _duplicate_attrs(file: Path, b: Block, out: list[Diagnostic]) -> None:
    seen: dict[str, Attr] = {}
    for a in b.attrs:
        if a.name in seen:
            out.append(diag(file, a.line, a.column, "error", "terraform.duplicate-attribute",
                            f'the argument "{a.name}" is set twice in this block (first at line {seen[a.name].line})'))
        seen.setdefault(a.name, a)
    for inner in b.blocks:
        _duplicate_attrs(file, inner, out)


def _check_variable(file: Path, b: Block, out: list[Diagnostic]) -> None:
    _check_args(file, b, VARIABLE_ARGS, {"validation"}, out)
    d = b.attr("default")
    if d is not None and d.expr is not None:
        refs, _ = references(d.expr)
        for r in refs[:1]:
            out.append(diag(file, r.line, r.column, "error", "terraform.invalid-default",
                            f'the default of variable "{b.labels[0]}" refers to "{r.text()}"; defaults must be literal values (use a local instead)'))
    t = b.attr("type")
    if t is None or t.expr is None:
        return
    from iac_code.iac.terraform.evaluate import literal

    quoted = literal(t.expr)
    if isinstance(quoted, str):
        out.append(diag(file, t.line, t.column, "error", "terraform.invalid-type",
                        f'type constraints are not quoted: write type = {quoted}'))
        return
    refs, calls = references(t.expr)
    for r in refs:
        if r.root not in TYPE_WORDS or r.steps:
            out.append(diag(file, r.line, r.column, "error", "terraform.invalid-type",
                            f'"{r.text()}" is not a type (use string, number, bool, any, list(...), map(...), set(...), object({{...}}), tuple([...]))'))
    for c in calls:
        if c.name not in TYPE_WORDS:
            out.append(diag(file, c.line, c.column, "error", "terraform.invalid-type", f'"{c.name}(...)" is not a type constructor'))


def _check_args(file: Path, b: Block, allowed: frozenset[str], blocks: set[str], out: list[Diagnostic]) -> None:
    for a in b.attrs:
        if a.name not in allowed and a.expr is not None:
            out.append(diag(file, a.line, a.column, "error", "terraform.unknown-argument",
                            f'a {b.type} block has no argument "{a.name}" (allowed: {", ".join(sorted(allowed))})'))
    for inner in b.blocks:
        if inner.type not in blocks:
            out.append(diag(file, inner.line, inner.column, "error", "terraform.unknown-argument",
                            f'a {b.type} block has no "{inner.type}" block'))


def _check_body(mod: Module, load: ModuleLoader, file: Path, top: Block, b: Block, scope: frozenset[str], out: list[Diagnostic]) -> None:
    for a in b.attrs:
        if a.expr is None or _skipped(top, b, a):
            continue
        ctx = _Ctx(file, top, scope, "terraform.depends-on-missing" if a.name == "depends_on" else None,
                   b.type in ("provisioner", "connection", "postcondition", "precondition") or a.name == "replace_triggered_by")
        refs, calls = references(a.expr, scope)
        for r in refs:
            _check_ref(mod, load, r, ctx, out)
        for c in calls:
            if c.name not in FUNCTIONS:
                hint = _hint(c.name, FUNCTIONS)
                out.append(diag(file, c.line, c.column, "error", "terraform.unknown-function",
                                f'there is no function named "{c.name}"{hint}'))
    for inner in b.blocks:
        inner_scope = scope
        if inner.type == "dynamic" and inner.labels:
            it = inner.attr("iterator")
            name = inner.labels[0]
            if it is not None:
                it_refs, _ = references(it.expr)
                name = it_refs[0].root if it_refs else name
            _check_body(mod, load, file, top, Block(inner.type, inner.labels, inner.line, inner.column,
                                                     [a for a in inner.attrs if a.name != "iterator"], []), scope, out)
            for content in inner.blocks:
                _check_body(mod, load, file, top, content, scope | {name}, out)
            continue
        if top.type == "check" and inner.type == "data":
            _check_body(mod, load, file, inner, inner, inner_scope, out)
            continue
        _check_body(mod, load, file, top, inner, inner_scope, out)


def _skipped(top: Block, b: Block, a: Attr) -> bool:
    """Attributes whose words are not references."""
    if top.type == "variable" and b is top and a.name == "type":
        return True
    if b.type == "lifecycle" and a.name == "ignore_changes":
        return True
    if top.type in ("resource", "data", "ephemeral") and b is top and a.name == "provider":
        return True
    if top.type == "module" and a.name in ("providers", "source", "version"):
        return True
    return top.type == "import" and a.name in ("to", "provider")


def _check_ref(mod: Module, load: ModuleLoader, r: Ref, ctx: _Ctx, out: list[Diagnostic]) -> None:
    root, steps = r.root, r.steps
    attrs = list(steps)
    first = attrs[0] if attrs and attrs[0] not in ("[", "*") else None

    def report(rule: str, message: str) -> None:
        out.append(diag(ctx.file, r.line, r.column, "error", ctx.rule or rule, message))

    if root in ctx.scope or root in BUILTIN_ROOTS:
        return
    if root == "var":
        if first and first not in mod.variables:
            report("terraform.undeclared-variable",
                   f'undeclared variable "var.{first}": no variable "{first}" block in this module{_hint(first, mod.variables)}')
    elif root == "local":
        if first and first not in mod.locals:
            report("terraform.undeclared-local", f'undeclared local "local.{first}"{_hint(first, mod.locals)}')
    elif root == "each":
        if ctx.top.type in _ITERABLE and ctx.top.attr("for_each") is None:
            report("terraform.each-outside-for-each",
                   f'"{r.text()}" is used in {ctx.top.type} "{".".join(ctx.top.labels)}", which has no for_each')
    elif root == "count":
        if first == "index" and ctx.top.type in _ITERABLE and ctx.top.attr("count") is None:
            report("terraform.count-outside-count",
                   f'"count.index" is used in {ctx.top.type} "{".".join(ctx.top.labels)}", which has no count')
    elif root == "module":
        if not first:
            return
        decl = mod.modules.get(first)
        if decl is None:
            report("terraform.undeclared-module", f'undeclared module "module.{first}"{_hint(first, mod.modules)}')
            return
        rest = attrs[1:]
        if not _instance_key_ok(decl.block, rest, f"module.{first}", report):
            return
        out_name = next((s for s in rest if s not in ("[", "*")), None)
        child = _local_child(mod, decl, load)
        if out_name and child is not None and not child.has_json and out_name not in child.outputs:
            report("terraform.undeclared-module-output",
                   f'module "{first}" ({decl.block.attr("source") and _source(decl.block)}) has no output "{out_name}"{_hint(out_name, child.outputs)}')
    elif root in ("data", "ephemeral"):
        if len(attrs) < 2 or "[" in attrs[:2] or "*" in attrs[:2]:
            return
        table = mod.data if root == "data" else mod.ephemeral
        key = (attrs[0], attrs[1])
        if key not in table:
            names = {f"{t}.{n}" for t, n in table}
            report("terraform.undeclared-data", f'undeclared data source "{root}.{key[0]}.{key[1]}"{_hint(f"{key[0]}.{key[1]}", names)}')
            return
        _instance_key_ok(table[key].block, attrs[2:], f"{root}.{key[0]}.{key[1]}", report)
    elif first:
        key = (root, first)
        decl = mod.resources.get(key)
        if decl is None:
            if mod.has_json and not mod.resources:
                return
            names = {f"{t}.{n}" for t, n in mod.resources}
            report("terraform.undeclared-resource",
                   f'undeclared resource "{root}.{first}": no resource "{root}" "{first}" block in this module{_hint(f"{root}.{first}", names)}')
            return
        if decl.block is not ctx.top:
            _instance_key_ok(decl.block, attrs[1:], f"{root}.{first}", report)
        elif not ctx.in_provisioner:
            report("terraform.self-reference",
                   f'{root}.{first} refers to itself; use another resource, or `self` inside a provisioner or connection block')


def _instance_key_ok(b: Block, rest: list[str], what: str, report) -> bool:
    has_iter = b.attr("count") is not None or b.attr("for_each") is not None
    if not rest:
        return True
    if rest[0] == "[" and not has_iter:
        report("terraform.unexpected-instance-key", f"{what} has neither count nor for_each, so it takes no index")
        return False
    if rest[0] not in ("[", "*") and has_iter:
        meta = "count" if b.attr("count") is not None else "for_each"
        report("terraform.missing-instance-key",
               f'{what} uses {meta}, so "{what}.{rest[0]}" needs an instance key, e.g. {what}[{"0" if meta == "count" else "each.key"}].{rest[0]} or {what}[*].{rest[0]}')
        return False
    return True


def _source(b: Block) -> str | None:
    from iac_code.iac.terraform.evaluate import literal

    a = b.attr("source")
    value = literal(a.expr) if a is not None and a.expr is not None else None
    return value if isinstance(value, str) else None


def local_source_dir(mod: Module, b: Block) -> Path | None:
    """The directory of a module call's local `source` ("./…" or "../…"), or None."""
    src = _source(b)
    if src is None or not src.startswith(("./", "../")):
        return None
    return (mod.dir / src).resolve()


def _local_child(mod: Module, decl: Decl, load: ModuleLoader) -> Module | None:
    path = local_source_dir(mod, decl.block)
    return load(path) if path is not None else None


def _check_module_call(mod: Module, file: Path, b: Block, load: ModuleLoader, out: list[Diagnostic]) -> None:
    src_attr = b.attr("source")
    if src_attr is None:
        out.append(diag(file, b.line, b.column, "error", "terraform.missing-argument", f'module "{b.labels[0]}" has no source'))
        return
    path = local_source_dir(mod, b)
    if path is None:
        return
    child = load(path)
    if child is None:
        out.append(diag(file, src_attr.line, src_attr.column, "error", "terraform.module-source-missing",
                        f'module "{b.labels[0]}": source "{_source(b)}" is not a directory with Terraform files'))
        return
    if child.has_json:
        return
    passed = {a.name: a for a in b.attrs if a.name not in MODULE_META}
    for name, a in passed.items():
        if name not in child.variables:
            out.append(diag(file, a.line, a.column, "error", "terraform.module-unknown-argument",
                            f'module "{b.labels[0]}" has no variable "{name}"{_hint(name, child.variables)}'))
    for name, decl in child.variables.items():
        if name not in passed and decl.block.attr("default") is None:
            out.append(diag(file, b.line, b.column, "error", "terraform.module-missing-variable",
                            f'module "{b.labels[0]}" requires variable "{name}" (no default in {decl.file.name}:{decl.block.line})'))


def _check_provider_ref(mod: Module, file: Path, b: Block, out: list[Diagnostic]) -> None:
    a = b.attr("provider")
    if a is None or a.expr is None:
        return
    refs, _ = references(a.expr)
    if len(refs) != 1 or len(refs[0].steps) != 1:
        return
    name, alias = refs[0].root, refs[0].steps[0]
    if (name, alias) in mod.providers or mod.has_json or _configuration_alias(mod, name, alias):
        return
    out.append(diag(file, a.line, a.column, "error", "terraform.undeclared-provider",
                    f'no provider "{name}" block with alias "{alias}" in this module (nor in configuration_aliases)'))


def _configuration_alias(mod: Module, name: str, alias: str) -> bool:
    for decl in mod.blocks:
        if decl.block.type != "terraform":
            continue
        for rp in decl.block.blocks:
            if rp.type != "required_providers":
                continue
            for a in rp.attrs:
                refs, _ = references(a.expr) if isinstance(a.expr, Tree) else ([], [])
                if any(r.root == name and r.steps == (alias,) for r in refs):
                    return True
    return False


def _check_import_target(mod: Module, file: Path, b: Block, out: list[Diagnostic]) -> None:
    """`import { to = T.N }` needs a resource block T.N in this module (module paths are not followed)."""
    a = b.attr("to")
    refs = references(a.expr)[0] if a is not None and a.expr is not None else []
    if len(refs) != 1 or refs[0].root in ("module", "data") or not refs[0].steps or mod.has_json:
        return
    r = refs[0]
    if (r.root, r.steps[0]) not in mod.resources:
        out.append(diag(file, r.line, r.column, "error", "terraform.undeclared-resource",
                        f'import target "{r.root}.{r.steps[0]}" has no resource block in this module'))


def _check_tfvars(mod: Module, out: list[Diagnostic]) -> None:
    if mod.has_json or not mod.blocks:
        return
    for path, body in mod.tfvars + mod.other_tfvars:
        for a in body.attrs:
            if a.name not in mod.variables:
                out.append(diag(path, a.line, a.column, "warning", "terraform.undeclared-tfvar",
                                f'a value for undeclared variable "{a.name}"{_hint(a.name, mod.variables)}'))


def sensitive_outputs(mod: Module) -> list[Diagnostic]:
    """Outputs of a root module that show a `sensitive = true` variable without being sensitive
    themselves (Terraform: "Output refers to sensitive values")."""
    from iac_code.iac.terraform.evaluate import literal

    secret = {n for n, d in mod.variables.items() if (a := d.block.attr("sensitive")) is not None and literal(a.expr) is True}
    out = []
    for name, decl in mod.outputs.items() if secret else ():
        value, flag = decl.block.attr("value"), decl.block.attr("sensitive")
        if value is None or value.expr is None or (flag is not None and literal(flag.expr) is True):
            continue
        refs, _ = references(value.expr)
        hit = next((r for r in refs if r.root == "var" and r.steps and r.steps[0] in secret), None)
        if hit is not None:
            out.append(diag(decl.file, hit.line, hit.column, "error", "terraform.sensitive-output",
                            f'output "{name}" shows the sensitive variable "var.{hit.steps[0]}"; add sensitive = true to the output'))
    return out


def _hint(name: str, names) -> str:
    close = difflib.get_close_matches(name, list(names), n=1, cutoff=0.75)
    return f' (did you mean "{close[0]}"?)' if close else ""
