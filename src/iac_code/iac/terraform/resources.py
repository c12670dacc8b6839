"""Resources and data sources against their provider's schema (`schema.py`): a type the
provider does not have, an argument or block it does not accept (or one it computes), a
required argument that is missing, and a reference to an attribute the type does not export.

Which schema: the provider a block uses (its `provider` argument, else its type's prefix),
whose source (`required_providers`, default `hashicorp/<name>`) must be the bundled data's; the
installed providers' own schema when the target has it (`terraform providers schema -json`,
with `--terraform-validate`), which always wins. The data cannot speak for a provider version
the module excludes (its `required_providers` constraint, or `.terraform.lock.hcl` locking
another major version): such blocks are not checked, nor are `.tf.json` files (their blocks and
arguments look alike). A false error on real code is worse than a missed defect: where the data
cannot say, nothing is said.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lark import Tree

from iac_code.iac.diagnostics import Diagnostic, hint
from iac_code.iac.rules import Rule, diag, rule
from iac_code.iac.terraform import schema
from iac_code.iac.terraform.hcl import Attr, Block, references
from iac_code.iac.terraform.module import Decl, Module, ModuleTarget, is_override, required_providers
from iac_code.iac.terraform.references import uses
from iac_code.iac.terraform.schema import Provider, Shape

META_ARGUMENTS = frozenset({"count", "for_each", "provider", "depends_on"})
_VERSION = re.compile(r"^\s*(=|!=|>=|<=|>|<|~>)?\s*v?(\d+(?:\.\d+){0,2})(?:[-+][\w.]*)?\s*$")


@dataclass
class Schemas:
    """Where a module's blocks find their provider's schema: `installed` ({`hashicorp/aws`:
    Provider} from `terraform providers schema -json`, None when not run) wins over the
    bundled data."""

    installed: dict[str, Provider] | None = None
    _cache: dict = field(default_factory=dict)

    def provider(self, mod: Module, local_name: str) -> Provider | None:
        """The schema for provider `local_name` in `mod`, or None when nothing can be said."""
        key = (mod.dir, local_name)
        if key not in self._cache:
            self._cache[key] = self._find(mod, local_name)
        return self._cache[key]

    def _find(self, mod: Module, local_name: str) -> Provider | None:
        source, constraint = _required_provider(mod, local_name)
        if self.installed is not None:
            return self.installed.get(source)
        locked = None
        for data in schema.bundled_versions(local_name):  # newest first: the newest version the module admits
            if data.name != source or not data.version:
                continue
            if constraint and _admits(constraint, data.version) is not True:
                continue
            locked = _locked_version(mod.dir, source) if locked is None else locked
            if locked and locked.split(".")[0] != data.version.split(".")[0]:
                continue
            return data
        return None


def _normal_source(source: str) -> str:
    """`registry.terraform.io/hashicorp/aws`, `Hashicorp/AWS` -> `hashicorp/aws`."""
    parts = source.strip().lower().split("/")
    name = "/".join(parts[-2:]) if len(parts) >= 2 else f"hashicorp/{parts[0]}"
    return schema.SAME_PROVIDER.get(name, name)


def _required_provider(mod: Module, local_name: str) -> tuple[str, str | None]:
    """(source, version constraint or None) of `local_name` in `mod`'s `required_providers`."""
    from iac_code.iac.terraform.evaluate import literal

    source, constraint = _normal_source(f"hashicorp/{local_name}"), None
    for a in required_providers(mod):
        if a.name != local_name:
            continue
        value = literal(a.expr) if isinstance(a.expr, Tree) else None
        if isinstance(value, str):  # the legacy form: aws = "~> 5.0"
            constraint = value
        elif isinstance(value, dict):
            if isinstance(value.get("source"), str):
                source = _normal_source(value["source"])
            if isinstance(value.get("version"), str):
                constraint = value["version"]
        else:
            source = "?"  # not a literal: unknown
    return source, constraint


_LOCK = re.compile(r'provider\s+"([^"]+)"\s*\{[^}]*?\bversion\s*=\s*"([^"]+)"', re.S)


def _locked_version(directory: Path, source: str) -> str | None:
    """The version `.terraform.lock.hcl` (in `directory` or up to three parents) locks `source` to."""
    for d in [directory, *list(directory.parents)[:3]]:
        try:
            text = (d / ".terraform.lock.hcl").read_text(encoding="utf-8")
        except OSError:
            continue
        for name, version in _LOCK.findall(text):
            if _normal_source(name) == source:
                return version
        return None
    return None


def _parts(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def _admits(constraint: str, version: str) -> bool | None:
    """Whether a Terraform version constraint (`~> 5.0, != 5.1.0`) admits `version`; None when
    the constraint cannot be read."""
    have = _parts(version.split("-")[0])
    for part in constraint.split(","):
        m = _VERSION.match(part)
        if not m:
            return None
        op, want_text = m.group(1) or "=", m.group(2)
        want = _parts(want_text)
        if op == "~>":  # the rightmost given part may grow: ~> 5.1 is >= 5.1, < 6
            ok = have >= want and (len(want) == 1 or have[:len(want) - 1] == want[:-1])
        else:
            full = want + (0,) * (3 - len(want))  # 6.69 is 6.69.0
            ok = {"=": have == full, "!=": have != full, ">": have > full, ">=": have >= full,
                  "<": have < full, "<=": have <= full}[op]
        if not ok:
            return False
    return True


def _local_name(b: Block) -> str:
    """The provider local name a resource/data block uses: its `provider = NAME[.alias]`, else
    its type's prefix."""
    a = b.attr("provider")
    if a is not None and isinstance(a.expr, Tree):
        refs, _ = references(a.expr)
        if len(refs) == 1:
            return refs[0].root
    return b.labels[0].split("_", 1)[0] if b.labels else ""


def _shape_of(schemas: Schemas, mod: Module, b: Block) -> tuple[Provider | None, Shape | None]:
    provider = schemas.provider(mod, _local_name(b)) if len(b.labels) == 2 else None
    if provider is None:
        return None, None
    shape = provider.resource(b.labels[0]) if b.type == "resource" else provider.data_source(b.labels[0])
    return provider, shape


def _schemas(t: ModuleTarget) -> Schemas:
    """The schemas of the target's providers (the installed ones when the target has them)."""
    return t.once("provider-schemas", lambda: Schemas(schema.installed(t.provider_schemas) if t.provider_schemas else None))


def _typed_blocks(t: ModuleTarget) -> list[tuple[Decl, Provider, Shape | None]]:
    """(decl, provider, shape or None) of each resource/data block whose provider's schema is
    known (`.tf.json` files are left out: their blocks and arguments look alike)."""
    def compute() -> list[tuple[Decl, Provider, Shape | None]]:
        out: list[tuple[Decl, Provider, Shape | None]] = []
        for decl in t.module.blocks:
            b = decl.block
            if b.type in ("resource", "data") and len(b.labels) == 2 and not decl.file.name.endswith(".json"):
                provider, shape = _shape_of(_schemas(t), t.module, b)
                if provider is not None:
                    out.append((decl, provider, shape))
        return out

    return t.once("typed-blocks", compute)


@rule("terraform.unknown-resource-type", "error", "a resource type or data source its provider does not have", kind="terraform")
def unknown_resource_type(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "The provider hashicorp/aws does not support resource type ...". Checked for
    the providers with bundled schemas (aws, alicloud, azurerm, google, kubernetes, helm, random,
    null, tls, local, archive, time; `terraform providers schema -json` for all with
    `--terraform-validate`), when the module's version constraint admits the data's version."""
    for decl, provider, shape in _typed_blocks(t):
        if shape is None:
            b = decl.block
            names = list(provider.resources if b.type == "resource" else provider.data_sources)
            what = "data source" if b.type == "data" else "resource type"
            yield diag(unknown_resource_type, decl.file, b.line, b.column,
                       f'{provider.name} {provider.version or ""} has no {what} "{b.labels[0]}"{hint(b.labels[0], names, cutoff=0.8)}'.replace("  ", " "))


@rule("terraform.resource-unknown-argument", "error", "an argument or block a resource/data source does not have (or one its provider computes)",
      kind="terraform")
def resource_unknown_argument(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "An argument named X is not expected here" / "Blocks of type X are not
    expected here" / "Can't configure a value for X" (a computed attribute set to a literal;
    null is accepted). Nested blocks and `dynamic` blocks' `content` are checked against their
    block's schema; meta-arguments (count, for_each, provider, depends_on, lifecycle,
    provisioner, connection) are Terraform's."""
    for decl, _, shape in _typed_blocks(t):
        if shape is not None:
            b = decl.block
            yield from _body(resource_unknown_argument, decl.file, f"{b.labels[0]}.{b.labels[1]}", b, shape, False, top=True)


@rule("terraform.resource-missing-argument", "error", "a resource/data source without an argument (or, from installed schemas, a block) it requires",
      kind="terraform")
def resource_missing_argument(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "Missing required argument" (in nested blocks too). Blocks in override files
    and the blocks they override are not checked (Terraform merges them). A required block is
    only known from `terraform providers schema -json`: the bundled data does not say."""
    overridden = {(d.block.type, *d.block.labels) for d in t.module.blocks if is_override(d.file)}
    for decl, _, shape in _typed_blocks(t):
        b = decl.block
        if shape is not None and not is_override(decl.file) and (b.type, *b.labels) not in overridden:
            yield from _body(resource_missing_argument, decl.file, f"{b.labels[0]}.{b.labels[1]}", b, shape, True, top=True)


def _body(r: Rule, file: Path, where: str, b: Block, shape: Shape, missing: bool, top: bool = False) -> Iterator[Diagnostic]:
    """Unknown (`missing` False) or missing (`missing` True) arguments and blocks of the block
    `b` (named `where`) against `shape`, and of its nested blocks."""
    for a in b.attrs if not missing else ():
        if top and a.name in META_ARGUMENTS:
            continue
        if not shape.settable(a.name) and not (a.name in shape.computed and _null(a)):
            yield _unknown(r, file, a.line, a.column, where, a.name, shape, "argument")
    generated = set()
    for inner in b.blocks:
        if top and inner.type in ("lifecycle", "provisioner", "connection"):
            continue
        name = inner.type
        body: Block | None = inner
        if inner.type == "dynamic" and inner.labels:
            name = inner.labels[0]
            generated.add(name)
            body = next((c for c in inner.blocks if c.type == "content"), None)
        if name not in shape.blocks:
            if not missing and not shape.settable(name):
                yield _unknown(r, file, inner.line, inner.column, where, name, shape, "block")
            continue
        if body is not None:
            yield from _body(r, file, f"{where}.{name}", body, shape.blocks[name][1], missing)
    if not missing:
        return
    given = {a.name for a in b.attrs} | {i.type for i in b.blocks} | generated
    absent = sorted(n for n in shape.required if n not in given)
    absent += sorted(n for n, (required, _) in shape.blocks.items() if required and n not in given)
    if absent:
        s = "s" if len(absent) > 1 else ""
        yield diag(r, file, b.line, b.column, f'{where} lacks the required argument{s} {", ".join(absent)}' if top
                   else f'the {where} block lacks the required argument{s} {", ".join(absent)}')


def _null(a: Attr) -> bool:
    """Whether `a`'s value may be null (anything but a literal): Terraform accepts a computed
    attribute set to null (`service_ipv6_cidr = var.cidr` with a null default)."""
    from iac_code.iac.terraform.evaluate import UNKNOWN, literal

    value = literal(a.expr) if isinstance(a.expr, Tree) else UNKNOWN
    return value is None or value is UNKNOWN


def _unknown(r: Rule, file: Path, line: int, column: int, where: str, name: str, shape: Shape, kind: str) -> Diagnostic:
    if name in shape.computed:
        return diag(r, file, line, column, f'{where}: "{name}" is computed by the provider and cannot be set')
    names = sorted(shape.required | shape.optional | set(shape.blocks))
    return diag(r, file, line, column, f'{where} has no {kind} "{name}"{hint(name, names, cutoff=0.8)}')


@rule("terraform.resource-unknown-attribute", "error", "a reference to an attribute a resource/data source does not export", kind="terraform")
def resource_unknown_attribute(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Terraform: "This object has no argument, nested block, or exported attribute named X",
    for `TYPE.NAME.ATTR`, `resource.TYPE.NAME.ATTR` and `data.TYPE.NAME.ATTR` (after an index
    or splat too) of blocks declared in the module. Only the first attribute is checked."""
    shapes = {(d.block.type, *d.block.labels): s for d, _, s in _typed_blocks(t) if s is not None}
    refs, _ = uses(t)
    for use in refs:
        r = use.ref
        kind, root, steps = "resource", r.root, list(r.steps)
        if root == "data" and len(steps) >= 2:
            kind, root, steps = "data", steps[0], steps[1:]
        if not steps or steps[0] in ("[", "*"):
            continue
        shape = shapes.get((kind, root, steps[0]))
        rest = steps[1:]
        if rest[:1] in (["["], ["*"]):
            rest = rest[1:]
        if shape is None or not rest or rest[0] in ("[", "*") or shape.readable(rest[0]):
            continue
        names = sorted(shape.required | shape.optional | shape.computed | set(shape.blocks))
        yield diag(resource_unknown_attribute, use.file, r.line, r.column,
                   f'{"data." if kind == "data" else ""}{root}.{steps[0]} has no attribute "{rest[0]}"{hint(rest[0], names, cutoff=0.8)}')
