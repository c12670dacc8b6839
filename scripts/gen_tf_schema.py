#!/usr/bin/env python3
"""Generate the Terraform provider data (`src/iac_code/iac/terraform/providers/<name>.json`) from
the prebuilt CDK Terrain provider packages (`cdktn-provider-*` on PyPI, MPL-2.0), or from the
output of `terraform providers schema -json`. Runs offline on downloaded wheels; nothing is
installed or imported from them.

    pip download --no-deps -d /tmp/tf $(python scripts/gen_tf_schema.py --packages)
    python scripts/gen_tf_schema.py /tmp/tf

The newest version of each provider becomes `<name>.json`; the newest of each older major version
among the packages given becomes `<name>@<major>.json` (the rules pick the one a module's version
constraint admits: real code pins older majors). `--packages` names them all: the newest CDK Terrain
package of each provider, and an older one for google 7. (aws 5, azurerm 4 and google 6 exist only
in packages made by the older generator, whose JavaScript lacks the comments this script reads;
such a package yields no types and is skipped, so those versions are not bundled: modules that
pin them are not checked.)
    python scripts/gen_tf_schema.py --schema-json schema.json   # e.g. a provider with no package

What is read from a package (the JavaScript that the CDK generator writes from the provider's
own schema, one `lib/<resource>/index.js` per resource and data source):
- the type: `static tfResourceType = "aws_subnet";` in a class extending `TerraformResource` or
  `TerraformDataSource`; the provider and its version from `package.json` (`cdktn.provider`);
- every attribute and nested block with its flags, from the generator's comment above each:
  `// cidr_block - computed: true, optional: true, required: false`;
- which names are nested blocks (`isBlock: true` in `synthesizeHclAttributes`/`…ToHclTerraform`),
  and a block's own contents through `_x = new <Class>(this, "x", …)` (a `…List`/`…Map` class
  leads to its `…OutputReference`).

The output shape is `terraform.schema.decode`'s (see there): per type `r` required arguments, `o`
optional ones, `c` computed-only attributes, `b` {block: [min_items > 0 (0/1; always 0 from packages, whose
block flags are not reliable), struct index]};
`structs` holds the blocks' contents in the same shape, deduplicated (`{"?": 1}`: contents not
known, not checked). Keys are sorted so that a
re-run on the same packages gives the same file.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "iac_code" / "iac" / "terraform" / "providers"
PACKAGES = ("aws", "azurerm", "google", "kubernetes", "helm", "random", "null", "tls", "local", "archive", "time")
# older major versions (the provider version they carry; pip wants one version of a name per call)
OLDER = ("cdktn-provider-google==20.3.1",)  # google 7.46.1
_CLASS = re.compile(r"^class (\w+) extends ([\w.]+) \{$", re.M)
_FUNCTION = re.compile(r"^function (\w+)ToHclTerraform\(struct\) \{$", re.M)
_MEMBER = re.compile(r"^    // (\w+) - computed: (true|false), optional: (true|false), required: (true|false)\n"
                     r"(?:    _\w+ = new (?:\w+\.)?(\w+)\(this, \"\w+\")?", re.M)
_HCL_ENTRY = re.compile(r"^\s+(\w+): \{\n\s+value: [^\n]*\n\s+isBlock: (true|false),", re.M)
_TF_TYPE = re.compile(r'static tfResourceType = "(\w+)";')
_ELEMENT = re.compile(r"return new (?:\w+\.)?(\w+OutputReference)\(")


def read_package(archive: Path) -> tuple[dict, dict[str, str]]:
    """`package.json` and the JavaScript files (path -> text) of a downloaded provider wheel."""
    with zipfile.ZipFile(archive) as z:
        names = [n for n in z.namelist() if n.endswith(".jsii.tgz")]
        if not names:
            raise LookupError(f"{archive.name}: no .jsii.tgz")
        blob = z.read(names[0])
    manifest, scripts = None, {}
    with tarfile.open(fileobj=io.BytesIO(blob)) as t:
        for m in t:
            if m.name == "package/package.json":
                manifest = json.load(t.extractfile(m))
            elif m.name.startswith("package/lib/") and m.name.endswith(".js"):
                scripts[m.name] = t.extractfile(m).read().decode("utf-8")
    if manifest is None:
        raise LookupError(f"{archive.name}: no package.json")
    return manifest, scripts


class Structs:
    """The nested blocks' contents, deduplicated by content."""

    def __init__(self) -> None:
        self.items: list[dict] = []
        self._index: dict[str, int] = {}

    def add(self, shape: dict) -> int:
        key = json.dumps(shape, sort_keys=True)
        if key not in self._index:
            self._index[key] = len(self.items)
            self.items.append(shape)
        return self._index[key]


def _split(js: str) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    """{class: (base, body)} and {function name prefix: body of its ToHclTerraform}."""
    classes, functions = {}, {}
    marks = sorted([(m.start(), "c", m) for m in _CLASS.finditer(js)] + [(m.start(), "f", m) for m in _FUNCTION.finditer(js)],
                   key=lambda x: x[0])
    for i, (start, what, m) in enumerate(marks):
        end = marks[i + 1][0] if i + 1 < len(marks) else len(js)
        if what == "c":
            classes[m.group(1)] = (m.group(2), js[start:end])
        else:
            functions[m.group(1)] = js[start:end]
    return classes, functions


def _is_block(body: str) -> dict[str, bool]:
    """{name: isBlock} of a `synthesizeHclAttributes`/`…ToHclTerraform` body."""
    return {name: flag == "true" for name, flag in _HCL_ENTRY.findall(body)}


def _shape(body: str, hcl: dict[str, bool], classes, functions, structs: Structs, depth: int = 0) -> dict:
    required, optional, computed, blocks = [], [], [], {}
    for name, is_computed, is_optional, is_required, nested in _MEMBER.findall(body):
        if hcl.get(name) and nested and depth < 12:
            element = _element(nested, classes)
            inner = {"?": 1}  # contents unknown: not checked
            if element in classes:
                prefix = element.removesuffix("OutputReference")
                inner_hcl = _is_block(functions.get(prefix[0].lower() + prefix[1:], ""))
                inner = _shape(classes[element][1], inner_hcl, classes, functions, structs, depth + 1)
            # A block's `required` in these packages is not the schema's min_items (azurerm 5's
            # optional node_provisioning_profile reads required): only `terraform providers
            # schema -json` data says a block is required.
            blocks[name] = [0, structs.add(inner)]
        elif is_required == "true":
            required.append(name)
        elif is_optional == "true":
            optional.append(name)
        elif is_computed == "true":
            computed.append(name)
    shape: dict = {}
    for key, names in (("r", required), ("o", optional), ("c", computed)):
        if names:
            shape[key] = sorted(set(names))
    if blocks:
        shape["b"] = dict(sorted(blocks.items()))
    return shape


def _element(cls: str, classes) -> str:
    """The OutputReference class of a block's class (`…List`/`…Map` lead to their element)."""
    if cls.endswith("OutputReference"):
        return cls
    m = _ELEMENT.search(classes.get(cls, ("", ""))[1])
    return m.group(1) if m else cls


def from_package(manifest: dict, scripts: dict[str, str]) -> dict:
    """The provider data of one package (see the module docstring)."""
    provider = (manifest.get("cdktn") or manifest.get("cdktf") or {}).get("provider", {})
    structs = Structs()
    kinds: dict[str, dict[str, dict]] = {"resources": {}, "data_sources": {}}
    groups: dict[str, list[str]] = {}  # lib/<resource>/: its index.js and the struct files beside it
    for path in sorted(scripts):
        groups.setdefault("/".join(path.split("/")[:3]), []).append(path)
    for group in groups.values():
        classes, functions = {}, {}
        for path in group:
            more_classes, more_functions = _split(scripts[path])
            classes.update(more_classes)
            functions.update(more_functions)
        for name, (base, body) in classes.items():
            kind = {"cdktn.TerraformResource": "resources", "cdktf.TerraformResource": "resources",
                    "cdktn.TerraformDataSource": "data_sources", "cdktf.TerraformDataSource": "data_sources"}.get(base)
            m = _TF_TYPE.search(body)
            if kind is None or m is None:
                continue
            hcl = _is_block(body[body.find("synthesizeHclAttributes()"):])
            kinds[kind][m.group(1)] = _shape(body, hcl, classes, functions, structs)
    return {
        "provider": provider.get("name", "").removeprefix("registry.terraform.io/"),
        "version": provider.get("version"),
        "source": f"{manifest['name']} {manifest['version']} (CDK Terrain prebuilt provider, generated from the provider's schema)",
        "license": f"{manifest.get('license', '?')} (the package and the provider's schema it carries)",
        "resources": dict(sorted(kinds["resources"].items())),
        "data_sources": dict(sorted(kinds["data_sources"].items())),
        "structs": structs.items,
    }


def from_schema_json(schema: dict, provider: str, version: str | None) -> dict:
    """The provider data of `provider` (e.g. `hashicorp/alicloud`) in the output of `terraform
    providers schema -json` (its `provider_schemas` keyed by `registry.terraform.io/<provider>`)."""
    from_terraform = _load_runtime_converter()
    return from_terraform(schema, provider, version)


def _load_runtime_converter():
    sys.path.insert(0, str(ROOT / "src"))
    from iac_code.iac.terraform.schema import from_providers_schema

    return from_providers_schema


def write(data: dict, out_dir: Path, name: str) -> Path:
    out = out_dir / f"{name}.json"
    out.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("downloads", nargs="?", type=Path, help="directory of downloaded cdktn-provider-* wheels")
    parser.add_argument("--packages", action="store_true", help="print the package names to download")
    parser.add_argument("--schema-json", type=Path, help="`terraform providers schema -json` output to convert")
    parser.add_argument("--provider", action="append", default=[],
                        help="with --schema-json: the provider(s) to take, e.g. hashicorp/alicloud (default: all)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.packages:
        print(" ".join(f"cdktn-provider-{p}" for p in PACKAGES))
        print(" ".join(OLDER))  # one `pip download` each
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    if args.schema_json is not None:
        schema = json.loads(args.schema_json.read_text(encoding="utf-8"))
        for key in sorted(schema.get("provider_schemas", {})):
            provider = key.removeprefix("registry.terraform.io/")
            if args.provider and provider not in args.provider:
                continue
            data = from_schema_json(schema, provider, None)
            data["source"] = f"`terraform providers schema -json` ({args.schema_json.name})"
            out = write(data, args.out, provider.rsplit("/", 1)[-1])
            print(f"{provider}: {len(data['resources'])} resources, {len(data['data_sources'])} data sources -> {out}")
        return 0
    if args.downloads is None:
        parser.error("give the directory of downloaded packages (or --schema-json, --packages)")
    found: dict[str, dict[int, dict]] = {}  # provider name -> major version -> newest data
    for archive in sorted(args.downloads.glob("cdktn_provider_*.whl")):
        manifest, scripts = read_package(archive)
        data = from_package(manifest, scripts)
        if not data["resources"] and not data["data_sources"]:  # an older generator's JavaScript: unreadable here
            print(f"skipped: {archive.name} ({data['provider']} {data['version']}): no types found", file=sys.stderr)
            continue
        name, major = data["provider"].rsplit("/", 1)[-1], _version(data["version"])[0]
        if _version(data["version"]) > _version(found.get(name, {}).get(major, {}).get("version")):
            found.setdefault(name, {})[major] = data
    for name, majors in sorted(found.items()):
        newest = max(majors)
        for major, data in sorted(majors.items()):
            out = write(data, args.out, name if major == newest else f"{name}@{major}")
            print(f"{data['provider']} {data['version']}: {len(data['resources'])} resources, "
                  f"{len(data['data_sources'])} data sources, {len(data['structs'])} blocks -> {out} ({out.stat().st_size:,} bytes)")
    return 0


def _version(text: str | None) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("-")[0].split(".")) if text else (-1,)


if __name__ == "__main__":
    sys.exit(main())
