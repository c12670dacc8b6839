"""A Terraform/OpenTofu module: the parsed files of one directory and what they declare.

`load_module(dir, files, read)` parses `.tf`, `.tf.json` and `.tfvars` files (through the
content-keyed parse cache) and collects declarations with their positions, reporting syntax
errors and duplicate declarations. `read(path) -> str | Diagnostic` supplies file text (so an
edit can be checked before it is written); a .tf.json file is read as the blocks it stands for
(`tfjson.py`). `local_child(mod, call, load)`: the module a local module call runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from iac_code.iac.diagnostics import Diagnostic, Skipped
from iac_code.iac.rules import declare, diag, rule
from iac_code.iac.terraform import tfjson
from iac_code.iac.terraform.hcl import Attr, Block, Body, HclSyntaxError, parse_cached

T = TypeVar("T")

Reader = Callable[[Path], "str | Diagnostic | Skipped"]
"""Returns a file's text, or the diagnostic or skip that explains why it cannot be validated."""



def tf_kind(path: Path) -> str | None:
    """"tf", "tfjson", "tfvars", "tfvarsjson" by file name, or None."""
    name = path.name
    if name.endswith(".tf.json"):
        return "tfjson"
    if name.endswith(".tfvars.json"):
        return "tfvarsjson"
    if name.endswith(".tf"):
        return "tf"
    if name.endswith(".tfvars"):
        return "tfvars"
    return None


@dataclass(slots=True)
class Decl:
    """A declaration with the file it is in."""

    file: Path
    block: Block


@dataclass(slots=True)
class Module:
    """Declarations of one module directory: `written` lists every top-level block with its
    file, `blocks` those of a known type with the right labels, and the tables those blocks by
    name (the first of duplicates). `broken`: files that could not be read or parsed."""

    dir: Path
    blocks: list[Decl] = field(default_factory=list)
    written: list[Decl] = field(default_factory=list)
    top_attrs: list[tuple[Path, Attr]] = field(default_factory=list)
    broken: set[Path] = field(default_factory=set)
    parsed: dict[Path, tuple[str, Body]] = field(default_factory=dict)  # HCL files: text and body
    skipped: list[Skipped] = field(default_factory=list)
    resources: dict[tuple[str, str], Decl] = field(default_factory=dict)
    data: dict[tuple[str, str], Decl] = field(default_factory=dict)
    ephemeral: dict[tuple[str, str], Decl] = field(default_factory=dict)
    variables: dict[str, Decl] = field(default_factory=dict)
    outputs: dict[str, Decl] = field(default_factory=dict)
    locals: dict[str, tuple[Path, Attr]] = field(default_factory=dict)
    modules: dict[str, Decl] = field(default_factory=dict)
    providers: set[tuple[str, str]] = field(default_factory=set)  # (name, alias or "")
    tfvars: list[tuple[Path, Body]] = field(default_factory=list)  # auto-loaded files
    other_tfvars: list[tuple[Path, Body]] = field(default_factory=list)
    json_values: dict[str, object] = field(default_factory=dict)  # from auto-loaded .tfvars.json
    has_json: bool = False
    files: list[Path] = field(default_factory=list)


ModuleLoader = Callable[[Path], "Module | None"]
"""Returns the module in a directory (parsed), or None if it has no Terraform files."""


@dataclass(eq=False)
class ModuleTarget:
    """What the rules of kind `terraform` check: one directory's `module`; `load` gives other
    modules (local module calls); `root` when no scanned module calls it (its variables' values
    are then known: defaults, .tfvars); `var_module`: for a directory of .tfvars files only, the
    module above it they are meant for; `provider_schemas`: the output of `terraform providers
    schema -json` where it was run (`--terraform-validate` in an initialised directory).
    `shared` keeps analyses several rules use (computed once)."""

    module: Module
    load: ModuleLoader
    root: bool = False
    var_module: Module | None = None
    provider_schemas: dict | None = None
    shared: dict[str, Any] = field(default_factory=dict)

    def once(self, name: str, compute: Callable[[], T]) -> T:
        """The analysis `name` of this target, computed on first use (one name, one type)."""
        if name not in self.shared:
            self.shared[name] = compute()
        return self.shared[name]


def is_override(path: Path) -> bool:
    """An override file (`override.tf`, `*_override.tf`, and their .tf.json), merged by Terraform
    into the blocks it names rather than declaring new ones."""
    stem = path.name.removesuffix(".json").removesuffix(".tf")
    return stem == "override" or stem.endswith("_override")


def load_module(directory: Path, files: list[Path], read: Reader) -> tuple[Module, list[Diagnostic]]:
    """Parse `files` (all in `directory`) and collect declarations; returns the module and the
    parsers' findings (`hcl.syntax`, `json.*`, files that cannot be read)."""
    mod = Module(directory)
    out: list[Diagnostic] = []
    for path in sorted(files):
        kind = tf_kind(path)
        text = read(path)
        if not isinstance(text, str):
            if isinstance(text, Diagnostic):
                out.append(text)
            else:
                mod.skipped.append(text)
            mod.broken.add(path)
            continue
        mod.files.append(path)
        if kind in ("tfjson", "tfvarsjson"):
            if is_override(path):
                from iac_code.iac.jsonsyntax import load_json

                out += load_json(path, text)[1]
                mod.has_json = True
                continue
            _load_json(mod, path, text, kind, out)
            continue
        body = parse_cached(text)
        if isinstance(body, HclSyntaxError):
            out.append(diag(HCL_SYNTAX, path, body.line, body.column, body.message))
            mod.broken.add(path)
            continue
        mod.parsed[path] = (text, body)
        if kind == "tfvars":
            auto = path.name == "terraform.tfvars" or path.name.endswith(".auto.tfvars")
            (mod.tfvars if auto else mod.other_tfvars).append((path, body))
            continue
        if is_override(path):
            continue  # merged into the blocks it overrides: only its syntax is checked
        mod.top_attrs += [(path, a) for a in body.attrs]
        for b in body.blocks:
            _declare(mod, path, b)
    return mod, out


LABELS = {"resource": 2, "data": 2, "ephemeral": 2, "variable": 1, "output": 1, "module": 1, "provider": 1,
          "locals": 0, "terraform": 0, "moved": 0, "import": 0, "removed": 0, "check": 1}
"""Top-level block types and the number of labels each takes."""


def _declare(mod: Module, path: Path, b: Block) -> None:
    """Record `b` in `mod.written`, and in the declaration tables when its type and labels are
    right (the first of duplicates wins; `duplicate` reports the others)."""
    mod.written.append(Decl(path, b))
    if LABELS.get(b.type) != len(b.labels):
        return
    mod.blocks.append(Decl(path, b))
    if b.type in ("resource", "data", "ephemeral"):
        table = {"resource": mod.resources, "data": mod.data, "ephemeral": mod.ephemeral}[b.type]
        table.setdefault((b.labels[0], b.labels[1]), Decl(path, b))
    elif b.type in ("variable", "output", "module"):
        named = {"variable": mod.variables, "output": mod.outputs, "module": mod.modules}[b.type]
        named.setdefault(b.labels[0], Decl(path, b))
    elif b.type == "locals":
        for a in b.attrs:
            mod.locals.setdefault(a.name, (path, a))
    elif b.type == "provider":
        mod.providers.add((b.labels[0], provider_alias(b)))
    elif b.type == "check":
        for inner in b.blocks:
            if inner.type == "data" and len(inner.labels) == 2:
                mod.data.setdefault((inner.labels[0], inner.labels[1]), Decl(path, inner))


def provider_alias(b: Block) -> str:
    """The `alias` of a provider block ("" without one)."""
    a = b.attr("alias")
    value = _literal_string(a) if a is not None else None
    return value or ""


def _where(file: Path, line: int, here: Path) -> str:
    return f"line {line}" if file == here else f"{file.name}:{line}"


def required_providers(mod: Module) -> Iterator[Attr]:
    """The entries of `mod`'s `terraform { required_providers { ... } }` blocks, in order."""
    for decl in mod.blocks:
        if decl.block.type == "terraform":
            for inner in decl.block.blocks:
                if inner.type == "required_providers":
                    yield from inner.attrs


def source(b: Block) -> str | None:
    """A module call's `source` when it is a literal string."""
    a = b.attr("source")
    return _literal_string(a) if a is not None and a.expr is not None else None


def local_source_dir(mod: Module, b: Block) -> Path | None:
    """The directory of a module call's local `source` ("./…" or "../…"), or None."""
    src = source(b)
    if src is None or not src.startswith(("./", "../")):
        return None
    return (mod.dir / src).resolve()


def local_child(mod: Module, b: Block, load: ModuleLoader) -> Module | None:
    """The module a call with a local `source` runs (None: not local, or no Terraform files)."""
    path = local_source_dir(mod, b)
    return load(path) if path is not None else None


def _literal_string(a: Attr) -> str | None:
    from iac_code.iac.terraform.evaluate import literal

    value = literal(a.expr)
    return value if isinstance(value, str) else None


# ----- the rules of declarations -----

HCL_SYNTAX = declare("hcl.syntax", "error", "HCL syntax error (Terraform, OpenTofu, .tfvars)", kind="terraform", doc="""
    Reported by the parser at the unclosed bracket, string or heredoc when a scan finds one
    (the parser itself stops where it got stuck, often the end of the file). A module with a
    file that does not parse is not checked for undeclared names: its declarations are not all
    known.""")


@rule("terraform.unknown-block", "error", "a top-level block or argument Terraform does not know", kind="terraform")
def unknown_block(t: ModuleTarget) -> Iterator[Diagnostic]:
    """A `.tf` file holds blocks only (`resource`, `variable`, ...): an argument at the top level
    or a block type Terraform does not have is an error."""
    for path, a in t.module.top_attrs:
        yield diag(unknown_block, path, a.line, a.column,
                   f'an argument "{a.name}" is not expected at the top level of a .tf file; arguments go inside a block')
    for d in t.module.written:
        if d.block.type not in LABELS:
            yield diag(unknown_block, d.file, d.block.line, d.block.column,
                       f'unsupported block type "{d.block.type}" (expected one of: {", ".join(sorted(LABELS))})')


@rule("terraform.block-labels", "error", "a block with the wrong number of labels", kind="terraform")
def block_labels(t: ModuleTarget) -> Iterator[Diagnostic]:
    """`resource` and `data` take two labels (type and name), `variable`, `output`, `module`,
    `provider` and `check` one, `locals`, `terraform`, `moved`, `import` and `removed` none."""
    for d in t.module.written:
        expected = LABELS.get(d.block.type)
        if expected is not None and len(d.block.labels) != expected:
            yield diag(block_labels, d.file, d.block.line, d.block.column,
                       f'a "{d.block.type}" block takes {expected} label(s), found {len(d.block.labels)}')


@rule("terraform.duplicate", "error", "two resources, data sources, variables, outputs, locals, modules or providers with one name",
      kind="terraform")
def duplicate(t: ModuleTarget) -> Iterator[Diagnostic]:
    """Names are unique in a module: per type for resources and data sources, and for
    variables, outputs, module calls, locals (across all `locals` blocks) and provider
    configurations (name and alias)."""
    first: dict[tuple, Decl] = {}
    first_local: dict[str, tuple[Path, Attr]] = {}
    for d in t.module.blocks:
        b = d.block
        if b.type == "locals":
            for a in b.attrs:
                if a.name in first_local:
                    f, fa = first_local[a.name]
                    yield diag(duplicate, d.file, a.line, a.column, f'local "{a.name}" is defined twice (first at {_where(f, fa.line, d.file)})')
                else:
                    first_local[a.name] = (d.file, a)
            continue
        if b.type == "provider":
            key: tuple = ("provider", b.labels[0], provider_alias(b))
        elif b.type in ("resource", "data", "ephemeral", "variable", "output", "module"):
            key = (b.type, *b.labels)
        else:
            continue
        if key not in first:
            first[key] = d
            continue
        earlier = first[key]
        if b.type == "provider":
            alias = key[2]
            what = f'provider "{key[1]}"' + (f' with alias "{alias}"' if alias else " without an alias")
            yield diag(duplicate, d.file, b.line, b.column, f"{what} is configured twice")
            continue
        what = (f"{key[1]}.{key[2]}" if b.type == "resource" else f"{b.type}.{key[1]}.{key[2]}") \
            if b.type in ("resource", "data", "ephemeral") else f'{b.type} "{key[1]}"'
        yield diag(duplicate, d.file, b.line, b.column, f"{what} is declared twice (first at {_where(earlier.file, earlier.block.line, d.file)})")


def _load_json(mod: Module, path: Path, text: str, kind: str, out: list[Diagnostic]) -> None:
    from iac_code.iac.jsonsyntax import load_json

    doc, problems = load_json(path, text)
    out.extend(problems)
    if not isinstance(doc, dict):
        return
    mod.has_json = True
    if kind == "tfvarsjson":
        if path.name == "terraform.tfvars.json" or path.name.endswith(".auto.tfvars.json"):
            mod.json_values.update(doc)
        return
    blocks, providers = tfjson.configuration(doc, text)
    for b in blocks:
        _declare(mod, path, b)
    mod.providers |= providers
