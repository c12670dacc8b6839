"""A Terraform/OpenTofu module: the parsed files of one directory and what they declare.

`load_module(dir, files, read)` parses `.tf`, `.tf.json` and `.tfvars` files (through the
content-keyed parse cache) and collects declarations with their positions, reporting syntax
errors and duplicate declarations. `read(path) -> str | Diagnostic` supplies file text (so an
edit can be checked before it is written).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from iac_code.iac import cache
from iac_code.iac.diagnostics import Diagnostic, diag
from iac_code.iac.terraform.hcl import Attr, Block, Body, HclSyntaxError, parse

Reader = Callable[[Path], "str | Diagnostic"]
"""Returns a file's text, or the diagnostic that explains why it cannot be validated."""

TF_SUFFIXES = (".tf", ".tf.json", ".tfvars", ".tfvars.json")


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
    """Declarations of one module directory; `blocks` lists every top-level block with its file."""

    dir: Path
    blocks: list[Decl] = field(default_factory=list)
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


def is_override(path: Path) -> bool:
    """An override file (`override.tf`, `*_override.tf`, and their .tf.json), merged by Terraform
    into the blocks it names rather than declaring new ones."""
    stem = path.name.removesuffix(".json").removesuffix(".tf")
    return stem == "override" or stem.endswith("_override")


def parse_cached(text: str) -> Body | HclSyntaxError:
    """`hcl.parse` through the content-keyed cache (a syntax error is cached too)."""

    def compute() -> Body | HclSyntaxError:
        try:
            return parse(text)
        except HclSyntaxError as exc:
            return exc

    return cache.get_or_compute("hcl", text, compute)


def load_module(directory: Path, files: list[Path], read: Reader) -> tuple[Module, list[Diagnostic]]:
    """Parse `files` (all in `directory`) and collect declarations; diagnostics for syntax errors
    and duplicates."""
    mod = Module(directory)
    out: list[Diagnostic] = []
    for path in sorted(files):
        kind = tf_kind(path)
        text = read(path)
        if isinstance(text, Diagnostic):
            out.append(text)
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
            out.append(diag(path, body.line, body.column, "error", "hcl.syntax", body.message))
            continue
        if kind == "tfvars":
            auto = path.name == "terraform.tfvars" or path.name.endswith(".auto.tfvars")
            (mod.tfvars if auto else mod.other_tfvars).append((path, body))
            continue
        if is_override(path):
            continue  # merged into the blocks it overrides: only its syntax is checked
        for a in body.attrs:
            out.append(diag(path, a.line, a.column, "error", "terraform.unknown-block",
                            f'an argument "{a.name}" is not expected at the top level of a .tf file; arguments go inside a block'))
        for b in body.blocks:
            _declare(mod, path, b, out)
    return mod, out


_LABELS = {"resource": 2, "data": 2, "ephemeral": 2, "variable": 1, "output": 1, "module": 1, "provider": 1,
           "locals": 0, "terraform": 0, "moved": 0, "import": 0, "removed": 0, "check": 1}


def _declare(mod: Module, path: Path, b: Block, out: list[Diagnostic]) -> None:
    expected = _LABELS.get(b.type)
    if expected is None:
        out.append(diag(path, b.line, b.column, "error", "terraform.unknown-block",
                        f'unsupported block type "{b.type}" (expected one of: {", ".join(sorted(_LABELS))})'))
        return
    if len(b.labels) != expected:
        out.append(diag(path, b.line, b.column, "error", "terraform.block-labels",
                        f'a "{b.type}" block takes {expected} label(s), found {len(b.labels)}'))
        return
    mod.blocks.append(Decl(path, b))
    if b.type in ("resource", "data", "ephemeral"):
        table = {"resource": mod.resources, "data": mod.data, "ephemeral": mod.ephemeral}[b.type]
        key = (b.labels[0], b.labels[1])
        prefix = "" if b.type == "resource" else b.type + "."
        _unique(table, key, Decl(path, b), f"{prefix}{key[0]}.{key[1]}", out)
    elif b.type in ("variable", "output", "module"):
        table = {"variable": mod.variables, "output": mod.outputs, "module": mod.modules}[b.type]
        _unique(table, b.labels[0], Decl(path, b), f'{b.type} "{b.labels[0]}"', out)
    elif b.type == "locals":
        for a in b.attrs:
            if a.name in mod.locals:
                first = mod.locals[a.name]
                out.append(diag(path, a.line, a.column, "error", "terraform.duplicate",
                                f'local "{a.name}" is defined twice (first at {_where(first[0], first[1].line, path)})'))
            else:
                mod.locals[a.name] = (path, a)
    elif b.type == "provider":
        alias_attr = b.attr("alias")
        alias = _literal_string(alias_attr) if alias_attr else ""
        key = (b.labels[0], alias or "")
        if key in mod.providers:
            what = f'provider "{key[0]}"' + (f' with alias "{alias}"' if alias else " without an alias")
            out.append(diag(path, b.line, b.column, "error", "terraform.duplicate", f"{what} is configured twice"))
        mod.providers.add(key)
    elif b.type == "check":
        for inner in b.blocks:
            if inner.type == "data" and len(inner.labels) == 2:
                mod.data.setdefault((inner.labels[0], inner.labels[1]), Decl(path, inner))


def _unique(table: dict, key, decl: Decl, what: str, out: list[Diagnostic]) -> None:
    if key in table:
        first = table[key]
        out.append(diag(decl.file, decl.block.line, decl.block.column, "error", "terraform.duplicate",
                        f"{what} is declared twice (first at {_where(first.file, first.block.line, decl.file)})"))
    else:
        table[key] = decl


def _where(file: Path, line: int, here: Path) -> str:
    return f"line {line}" if file == here else f"{file.name}:{line}"


def _literal_string(a: Attr) -> str | None:
    from iac_code.iac.terraform.evaluate import literal

    value = literal(a.expr)
    return value if isinstance(value, str) else None


# ----- JSON syntax (.tf.json, .tfvars.json) -----


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

    def line_of(name: str) -> int:
        m = re.search(r'"' + re.escape(name) + r'"\s*:', text)
        return text.count("\n", 0, m.start()) + 1 if m else 1

    def blocks(section: str, depth: int):
        value = doc.get(section)
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, dict):
                continue
            if depth == 1:
                for name, body in item.items():
                    yield [name], body
            else:
                for t, named in item.items():
                    for name, body in (named.items() if isinstance(named, dict) else []):
                        yield [t, name], body

    for section, depth in (("resource", 2), ("data", 2), ("variable", 1), ("output", 1), ("module", 1)):
        for labels, body in blocks(section, depth):
            b = Block(section, labels, line_of(labels[-1]), 1)
            if isinstance(body, dict):
                b.attrs = [Attr(k, b.line, 1, None) for k in body]  # type: ignore[arg-type]
            _declare(mod, path, b, out)
    for item in doc.get("locals", []) if isinstance(doc.get("locals"), list) else [doc.get("locals")]:
        if isinstance(item, dict):
            for k in item:
                mod.locals.setdefault(k, (path, Attr(k, line_of(k), 1, None)))  # type: ignore[arg-type]
    for item in doc.get("provider", []) if isinstance(doc.get("provider"), list) else [doc.get("provider")]:
        if isinstance(item, dict):
            for name, conf in item.items():
                for c in conf if isinstance(conf, list) else [conf]:
                    mod.providers.add((name, str(c.get("alias", "")) if isinstance(c, dict) else ""))
