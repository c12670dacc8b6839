"""The rules of references across one module: `var.`, `local.`, `module.`, `data.` and resource
addresses that nothing declares, instance keys, outputs of local modules, `each`/`count` where
they mean nothing, self references, and unknown functions.

Built-ins are in scope where Terraform puts them: `count.index`, `each.key`, `self`, `path.*`,
`terraform.*`, for-expression variables and dynamic-block iterators. `resource.T.N` is the
resource `T.N` (Terraform's explicit form). A module with a file that did not parse is not
checked for undeclared names: the declarations in that file are unknown.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from iac_code.iac.diagnostics import Diagnostic, hint
from iac_code.iac.rules import diag, rule
from iac_code.iac.terraform.hcl import Attr, Block, Call, Ref, references
from iac_code.iac.terraform.module import Decl, Module, ModuleTarget, local_child, source

FUNCTIONS = frozenset(["abs", "abspath", "alltrue", "anytrue", "base64decode", "base64encode", "base64gunzip", "base64gzip", "base64sha256", "base64sha512", "basename", "bcrypt", "can", "ceil", "chomp", "chunklist", "cidrcontains", "cidrhost", "cidrnetmask", "cidrsubnet", "cidrsubnets", "coalesce", "coalescelist", "compact", "concat", "contains", "csvdecode", "dirname", "distinct", "element", "endswith", "ephemeralasnull", "file", "filebase64", "filebase64sha256", "filebase64sha512", "fileexists", "filemd5", "fileset", "filesha1", "filesha256", "filesha512", "flatten", "floor", "format", "formatdate", "formatlist", "indent", "index", "issensitive", "join", "jsondecode", "jsonencode", "keys", "length", "log", "lookup", "lower", "matchkeys", "max", "md5", "merge", "min", "nonsensitive", "one", "parseint", "pathexpand", "plantimestamp", "pow", "range", "regex", "regexall", "replace", "reverse", "rsadecrypt", "sensitive", "setintersection", "setproduct", "setsubtract", "setunion", "sha1", "sha256", "sha512", "signum", "slice", "sort", "split", "startswith", "strcontains", "strrev", "substr", "sum", "templatefile", "templatestring", "textdecodebase64", "textencodebase64", "timeadd", "timecmp", "timestamp", "title", "tobool", "tolist", "tomap", "tonumber", "toset", "tostring", "transpose", "trim", "trimprefix", "trimspace", "trimsuffix", "try", "type", "upper", "urldecode", "urlencode", "uuid", "uuidv5", "values", "yamldecode", "yamlencode", "zipmap"])
BUILTIN_ROOTS = frozenset({"self", "path", "terraform"})
ITERABLE = frozenset({"resource", "data", "module", "ephemeral", "output", "locals", "provider"})
_UNCHECKED = ("terraform", "moved", "removed")  # blocks whose expressions are addresses or literals


@dataclass(frozen=True, slots=True)
class Use:
    """A reference `ref` in attribute `attr` of top-level block `top` in `file`."""

    ref: Ref
    file: Path
    top: Block
    attr: str
    in_provisioner: bool  # provisioner/connection/pre- and postconditions, replace_triggered_by: `self` and own address allowed

    @property
    def depends_on(self) -> bool:
        """In `depends_on`: an address that must exist, nothing is read from it."""
        return self.attr == "depends_on"


@dataclass(frozen=True, slots=True)
class CallUse:
    """A function call in `file`."""

    call: Call
    file: Path


def uses(t: ModuleTarget) -> tuple[list[Use], list[CallUse]]:
    """Every reference and function call of the module's blocks (computed once per target)."""
    return t.once("references", lambda: _collect(t.module))


def _collect(mod: Module) -> tuple[list[Use], list[CallUse]]:
    refs: list[Use] = []
    calls: list[CallUse] = []
    for d in mod.blocks:
        if d.block.type not in _UNCHECKED:
            _body(d.file, d.block, d.block, frozenset(), refs, calls)
    return refs, calls


def _body(file: Path, top: Block, b: Block, scope: frozenset[str], refs: list[Use], calls: list[CallUse]) -> None:
    provisioner = b.type in ("provisioner", "connection", "postcondition", "precondition")
    for a in b.attrs:
        if a.expr is None or _not_references(top, b, a):
            continue
        found, called = references(a.expr, scope)
        refs += [Use(_explicit(r), file, top, a.name, provisioner or a.name == "replace_triggered_by") for r in found]
        calls += [CallUse(c, file) for c in called]
    for inner in b.blocks:
        if inner.type == "dynamic" and inner.labels:
            it = inner.attr("iterator")
            name = inner.labels[0]
            if it is not None and it.expr is not None:
                it_refs, _ = references(it.expr)
                name = it_refs[0].root if it_refs else name
            head = Block(inner.type, inner.labels, inner.line, inner.column, [a for a in inner.attrs if a.name != "iterator"], [])
            _body(file, top, head, scope, refs, calls)
            for content in inner.blocks:
                _body(file, top, content, scope | {name}, refs, calls)
        elif top.type == "check" and inner.type == "data":
            _body(file, inner, inner, scope, refs, calls)
        else:
            _body(file, top, inner, scope, refs, calls)


def _explicit(r: Ref) -> Ref:
    """`resource.T.N...` as `T.N...`."""
    if r.root == "resource" and len(r.steps) >= 2 and "[" not in r.steps[:2] and "*" not in r.steps[:2]:
        return Ref(r.steps[0], r.steps[1:], r.line, r.column, r.guarded)
    return r


def _not_references(top: Block, b: Block, a: Attr) -> bool:
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


def complete(t: ModuleTarget) -> bool:
    """Whether every file of the module was read: only then is a name nothing declares undeclared."""
    return not t.module.broken


def _first(r: Ref) -> str | None:
    return r.steps[0] if r.steps and r.steps[0] not in ("[", "*") else None


@rule("terraform.undeclared-variable", "error", '`var.X` without a `variable "X"` block in the module', kind="terraform")
def undeclared_variable(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Reference to undeclared input variable"."""
    mod = t.module
    for u in uses(t)[0] if complete(t) else ():
        name = _first(u.ref)
        if u.ref.root == "var" and name and not u.depends_on and name not in mod.variables:
            yield diag(undeclared_variable, u.file, u.ref.line, u.ref.column,
                       f'undeclared variable "var.{name}": no variable "{name}" block in this module{hint(name, mod.variables)}')


@rule("terraform.undeclared-local", "error", "`local.X` without a `locals` entry X in the module", kind="terraform")
def undeclared_local(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Reference to undeclared local value"."""
    mod = t.module
    for u in uses(t)[0] if complete(t) else ():
        name = _first(u.ref)
        if u.ref.root == "local" and name and not u.depends_on and name not in mod.locals:
            yield diag(undeclared_local, u.file, u.ref.line, u.ref.column, f'undeclared local "local.{name}"{hint(name, mod.locals)}')


@rule("terraform.undeclared-module", "error", '`module.X` without a `module "X"` block', kind="terraform")
def undeclared_module(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Reference to undeclared module"."""
    mod = t.module
    for u in uses(t)[0] if complete(t) else ():
        name = _first(u.ref)
        if u.ref.root == "module" and name and not u.depends_on and name not in mod.modules:
            yield diag(undeclared_module, u.file, u.ref.line, u.ref.column, f'undeclared module "module.{name}"{hint(name, mod.modules)}')


def _data_key(u: Use) -> tuple[str, str] | None:
    steps = u.ref.steps
    if u.ref.root not in ("data", "ephemeral") or len(steps) < 2 or "[" in steps[:2] or "*" in steps[:2]:
        return None
    return steps[0], steps[1]


def _data_table(mod: Module, root: str) -> dict[tuple[str, str], Decl]:
    return mod.data if root == "data" else mod.ephemeral


@rule("terraform.undeclared-data", "error", '`data.T.N` without a `data "T" "N"` block', kind="terraform")
def undeclared_data(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Reference to undeclared resource" (a data source or ephemeral resource)."""
    for u in uses(t)[0] if complete(t) else ():
        key = _data_key(u)
        table = _data_table(t.module, u.ref.root)
        if key is not None and not u.depends_on and key not in table:
            names = {f"{a}.{b}" for a, b in table}
            yield diag(undeclared_data, u.file, u.ref.line, u.ref.column,
                       f'undeclared data source "{u.ref.root}.{key[0]}.{key[1]}"{hint(f"{key[0]}.{key[1]}", names)}')


def _resource_key(u: Use, t: ModuleTarget) -> tuple[str, str] | None:
    r = u.ref
    name = _first(r)
    if r.root in ("var", "local", "module", "data", "ephemeral", "each", "count") or r.root in BUILTIN_ROOTS or not name:
        return None
    return r.root, name


@rule("terraform.undeclared-resource", "error", '`T.N` without a `resource "T" "N"` block', kind="terraform")
def undeclared_resource(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Reference to undeclared resource". Also an `import` block's `to` address."""
    mod = t.module
    if not complete(t) or (mod.has_json and not mod.resources):
        return
    names = {f"{a}.{b}" for a, b in mod.resources}
    for u in uses(t)[0]:
        key = _resource_key(u, t)
        if key is not None and not u.depends_on and key not in mod.resources:
            yield diag(undeclared_resource, u.file, u.ref.line, u.ref.column,
                       f'undeclared resource "{key[0]}.{key[1]}": no resource "{key[0]}" "{key[1]}" block in this module'
                       f'{hint(f"{key[0]}.{key[1]}", names)}')
    for d in mod.blocks:
        a = d.block.attr("to") if d.block.type == "import" else None
        refs = references(a.expr)[0] if a is not None and a.expr is not None else []
        if len(refs) != 1 or refs[0].root in ("module", "data") or not refs[0].steps:
            continue
        r = _explicit(refs[0])
        if (r.root, r.steps[0]) not in mod.resources:
            yield diag(undeclared_resource, d.file, r.line, r.column, f'import target "{r.root}.{r.steps[0]}" has no resource block in this module')


@rule("terraform.depends-on-missing", "error", "`depends_on` names an address that is not declared", kind="terraform")
def depends_on_missing(t: ModuleTarget) -> Iterator[Diagnostic]:
    """`depends_on` takes addresses of resources, data sources and module calls of the module
    (an attribute after the address is accepted and means the whole object)."""
    mod = t.module
    if not complete(t):
        return
    for u in uses(t)[0]:
        if not u.depends_on:
            continue
        r, name = u.ref, _first(u.ref)
        if r.root == "module":
            missing = name is not None and name not in mod.modules
        elif r.root in ("data", "ephemeral"):
            key = _data_key(u)
            missing = key is not None and key not in _data_table(mod, r.root)
        elif r.root in ("var", "local"):
            missing = name is not None and name not in (mod.variables if r.root == "var" else mod.locals)
        else:
            key = _resource_key(u, t)
            missing = key is not None and key not in mod.resources and not (mod.has_json and not mod.resources)
        if missing:
            yield diag(depends_on_missing, u.file, r.line, r.column, f'depends_on names "{r.text()}", which is not declared in this module')


def _iterated(b: Block) -> str | None:
    return "count" if b.attr("count") is not None else "for_each" if b.attr("for_each") is not None else None


def _target(t: ModuleTarget, u: Use) -> tuple[Block, list[str], str] | None:
    """The declaration `u` reads from, the steps after its address, and the address."""
    mod, r = t.module, u.ref
    name = _first(r)
    if r.root == "module" and name in mod.modules:
        return mod.modules[name].block, list(r.steps[1:]), f"module.{name}"
    if r.root in ("data", "ephemeral"):
        key = _data_key(u)
        table = _data_table(mod, r.root)
        if key in table:
            return table[key].block, list(r.steps[2:]), f"{r.root}.{key[0]}.{key[1]}"
        return None
    key = _resource_key(u, t)
    if key in mod.resources and mod.resources[key].block is not u.top:
        return mod.resources[key].block, list(r.steps[1:]), f"{key[0]}.{key[1]}"
    return None


@rule("terraform.missing-instance-key", "error", "an attribute of a resource/module with count or for_each read without an index",
      kind="terraform")
def missing_instance_key(t: ModuleTarget) -> Iterator[Diagnostic]:
    """`aws_instance.web.id` when `web` has `count`: write `aws_instance.web[0].id` or
    `aws_instance.web[*].id`. Not in `depends_on`, which names the whole object."""
    for u in uses(t)[0]:
        found = None if u.depends_on else _target(t, u)
        if found is None:
            continue
        block, rest, address = found
        meta = _iterated(block)
        if rest and meta and rest[0] not in ("[", "*"):
            key = "0" if meta == "count" else "each.key"
            yield diag(missing_instance_key, u.file, u.ref.line, u.ref.column,
                       f'{address} uses {meta}, so "{address}.{rest[0]}" needs an instance key, e.g. {address}[{key}].{rest[0]} or {address}[*].{rest[0]}')


@rule("terraform.unexpected-instance-key", "error", "an index on a resource/module that has neither count nor for_each",
      kind="terraform")
def unexpected_instance_key(t: ModuleTarget) -> Iterator[Diagnostic]:
    """`aws_instance.web[0]` when `web` has neither `count` nor `for_each`. Inside `try()` or
    `can()` Terraform accepts it for module calls (the error is caught), not for resources."""
    for u in uses(t)[0]:
        found = None if u.depends_on else _target(t, u)
        if found is None:
            continue
        block, rest, address = found
        if rest and rest[0] == "[" and _iterated(block) is None and not (u.ref.guarded and u.ref.root == "module"):
            yield diag(unexpected_instance_key, u.file, u.ref.line, u.ref.column, f"{address} has neither count nor for_each, so it takes no index")


@rule("terraform.undeclared-module-output", "error", "`module.X.Y` where the local module X has no output Y", kind="terraform")
def undeclared_module_output(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Unsupported attribute; this object does not have an attribute named ...", for
    module calls whose `source` is a local directory."""
    mod = t.module
    for u in uses(t)[0]:
        name = _first(u.ref)
        if u.ref.root != "module" or u.depends_on or name not in mod.modules:
            continue
        rest = list(u.ref.steps[1:])
        if rest[:1] == ["["]:
            rest = rest[1:]
        out_name = next((s for s in rest if s not in ("[", "*")), None) if rest[:1] != ["*"] else next((s for s in rest[1:] if s not in ("[", "*")), None)
        decl = mod.modules[name]
        child = local_child(mod, decl.block, t.load)
        if out_name and child is not None and not child.has_json and not child.broken and out_name not in child.outputs:
            yield diag(undeclared_module_output, u.file, u.ref.line, u.ref.column,
                       f'module "{name}" ({source(decl.block)}) has no output "{out_name}"{hint(out_name, child.outputs)}')


@rule("terraform.self-reference", "error", "a resource that refers to itself by its address (use `self` in provisioners)", kind="terraform")
def self_reference(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Self-referential block". Provisioners, connections, conditions and
    `replace_triggered_by` may name their own resource."""
    mod = t.module
    for u in uses(t)[0]:
        key = _resource_key(u, t)
        if key is not None and not u.in_provisioner and key in mod.resources and mod.resources[key].block is u.top:
            yield diag(self_reference, u.file, u.ref.line, u.ref.column,
                       f'{key[0]}.{key[1]} refers to itself; use another resource, or `self` inside a provisioner or connection block')


@rule("terraform.each-outside-for-each", "error", "`each.` in a block without `for_each`", kind="terraform")
def each_outside_for_each(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "each.value cannot be used in this context"."""
    for u in uses(t)[0]:
        if u.ref.root == "each" and u.top.type in ITERABLE and u.top.attr("for_each") is None:
            yield diag(each_outside_for_each, u.file, u.ref.line, u.ref.column,
                       f'"{u.ref.text()}" is used in {u.top.type} "{".".join(u.top.labels)}", which has no for_each')


@rule("terraform.count-outside-count", "error", "`count.index` in a block without `count`", kind="terraform")
def count_outside_count(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Reference to "count" in non-counted context"."""
    for u in uses(t)[0]:
        if u.ref.root == "count" and _first(u.ref) == "index" and u.top.type in ITERABLE and u.top.attr("count") is None:
            yield diag(count_outside_count, u.file, u.ref.line, u.ref.column,
                       f'"count.index" is used in {u.top.type} "{".".join(u.top.labels)}", which has no count')


@rule("terraform.unknown-function", "error", "a call to a function Terraform/OpenTofu does not have", kind="terraform")
def unknown_function(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Built-in functions of Terraform 1.x and OpenTofu; provider functions
    (`provider::aws::arn_parse(...)`) are not checked."""
    for c in uses(t)[1]:
        if c.call.name not in FUNCTIONS:
            yield diag(unknown_function, c.file, c.call.line, c.call.column, f'there is no function named "{c.call.name}"{hint(c.call.name, FUNCTIONS)}')
