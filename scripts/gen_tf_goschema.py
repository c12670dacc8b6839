#!/usr/bin/env python3
"""Generate a Terraform provider's data from its Go source, for a provider without a prebuilt
CDK package (alicloud): `python scripts/gen_tf_goschema.py CHECKOUT --provider aliyun/alicloud`
on a checkout of github.com/aliyun/terraform-provider-alicloud (MPL-2.0). Offline; nothing is
built or run.

What is read (terraform-plugin-sdk v2 schemas written as Go literals):
- `ResourcesMap`/`DataSourcesMap` in `<package>/provider.go`: `"alicloud_vpc": resourceX(),`
  (deprecated aliases included: they are still accepted), each with the SDK's implicit `id`;
- in `func resourceX() *schema.Resource`, the literal `Schema: map[string]*schema.Schema{…}`:
  each `"name": {…}` entry's `Required`/`Optional`/`Computed: true`, `Removed` (left out), and
  `Elem: &schema.Resource{Schema: …}` (a nested block, unless computed only).
A schema that is not a literal (built by a function, shared through a variable) is recorded as
unknown (`{"?": 1}`) and its contents are not checked; an entry whose flags are not literal is
an optional argument. The output has the shape of `scripts/gen_tf_schema.py`'s, in
`src/iac_code/iac/terraform/providers/<name>.json`; the version is the latest released one in
CHANGELOG.md (the checkout may be ahead of it).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_tf_schema import OUT, Structs, write  # noqa: E402

_FUNC = re.compile(r"^func (\w+)\(\) \*schema\.Resource \{", re.M)
_ENTRY = re.compile(r'"(\w+)":\s*(\w+\(\)|\{)')
_RELEASE = re.compile(r"^## (\d+\.\d+\.\d+) \((?!Unreleased)", re.M)


def _skip_string(text: str, i: int) -> int:
    """The index after the Go string literal starting at `i`."""
    quote = text[i]
    i += 1
    while i < len(text):
        if text[i] == "\\" and quote == '"':
            i += 2
            continue
        if text[i] == quote:
            return i + 1
        i += 1
    return i


def matching(text: str, i: int) -> int:
    """The index of the `}` closing the `{` at `i` (strings and comments skipped)."""
    depth = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"`":
            i = _skip_string(text, i)
            continue
        if text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                return len(text)
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text)


def _top_level(body: str) -> str:
    """`body` with every nested `{…}` blanked: the flags of this level only."""
    out, i = [], 0
    while i < len(body):
        if body[i] in "\"`":
            j = _skip_string(body, i)
            out.append(body[i:j])
            i = j
        elif body[i] == "{":
            j = matching(body, i)
            out.append("{}")
            i = j + 1
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def parse_schema_map(text: str, start: int, structs: Structs, depth: int = 0) -> dict:
    """The shape of the `map[string]*schema.Schema{` literal whose `{` is at `start`."""
    end = matching(text, start)
    body = text[start + 1:end]
    required, optional, computed, blocks = [], [], [], {}
    i = 0
    while True:
        m = _ENTRY.search(body, i)
        if not m:
            break
        name = m.group(1)
        if m.group(2) != "{":  # "name": someSchema(): flags unknown
            optional.append(name)
            i = m.end()
            continue
        open_at = m.end() - 1
        close = matching(body, open_at)
        entry = body[open_at + 1:close]
        i = close + 1
        flags = _top_level(entry)
        if re.search(r"\bRemoved:", flags):
            continue
        is_required = re.search(r"\bRequired:\s*true", flags) is not None
        is_optional = re.search(r"\bOptional:\s*true", flags) is not None
        is_computed = re.search(r"\bComputed:\s*true", flags) is not None
        literal_flags = re.search(r"\b(Required|Optional|Computed):\s*+(?!true\b|false\b)", flags) is None
        elem = re.search(r"Elem:\s*&schema\.Resource\s*\{", entry)
        if elem and (is_required or is_optional) and depth < 12:
            inner_start = entry.find("Schema:", elem.end())
            brace = entry.find("{", inner_start) if inner_start >= 0 else -1
            if inner_start >= 0 and re.match(r"Schema:\s*map\[string\]\*schema\.Schema\{", entry[inner_start:]):
                inner = parse_schema_map(entry, brace, structs, depth + 1)
            else:
                inner = {"?": 1}
            blocks[name] = [1 if is_required else 0, structs.add(inner)]
        elif not literal_flags or is_optional:
            optional.append(name)
        elif is_required:
            required.append(name)
        elif is_computed:
            computed.append(name)
        else:
            optional.append(name)
    shape: dict = {}
    for key, names in (("r", required), ("o", optional), ("c", computed)):
        if names:
            shape[key] = sorted(set(names))
    if blocks:
        shape["b"] = dict(sorted(blocks.items()))
    return shape


def _maps(provider_go: str) -> dict[str, dict[str, str]]:
    """{"resources"/"data_sources": {type: Go function}} from provider.go."""
    out: dict[str, dict[str, str]] = {}
    for key, kind in (("ResourcesMap", "resources"), ("DataSourcesMap", "data_sources")):
        m = re.search(key + r":\s*map\[string\]\*schema\.Resource\{", provider_go)
        if not m:
            continue
        body = provider_go[m.end():matching(provider_go, m.end() - 1)]
        out[kind] = dict(re.findall(r'"(\w+)":\s*(\w+)\(\)', body))
    return out


def from_source(checkout: Path, provider: str, package: str) -> dict:
    """The provider data of the Go provider in `checkout` (see the module docstring)."""
    src = checkout / package
    functions: dict[str, tuple[str, int]] = {}
    for go in sorted(src.glob("*.go")):
        if go.name.endswith("_test.go"):
            continue
        text = go.read_text(encoding="utf-8", errors="replace")
        for m in _FUNC.finditer(text):
            functions[m.group(1)] = (text, m.end() - 1)
    structs = Structs()
    data: dict[str, dict] = {}
    for kind, table in _maps((src / "provider.go").read_text(encoding="utf-8")).items():
        data[kind] = {}
        for tf_type, function in sorted(table.items()):
            if function not in functions:
                data[kind][tf_type] = {"?": 1}
                continue
            text, brace = functions[function]
            body_end = matching(text, brace)
            m = re.compile(r"\bSchema:\s*map\[string\]\*schema\.Schema\{").search(text, brace, body_end)
            shape = parse_schema_map(text, m.end() - 1, structs) if m else {"?": 1}
            if m and not any("id" in shape.get(k, ()) for k in ("r", "o", "c")):
                shape["c"] = sorted({*shape.get("c", ()), "id"})  # the SDK gives every resource `id`
            data[kind][tf_type] = shape
    changelog = (checkout / "CHANGELOG.md").read_text(encoding="utf-8") if (checkout / "CHANGELOG.md").exists() else ""
    release = _RELEASE.search(changelog)
    commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    return {
        "provider": provider,
        "version": release.group(1) if release else None,
        "source": f"github.com/{provider.replace('/', '/terraform-provider-')} at {commit[:12] or '?'} (Go schema literals)",
        "license": "MPL-2.0 (the provider's source)",
        "resources": data.get("resources", {}),
        "data_sources": data.get("data_sources", {}),
        "structs": structs.items,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a checkout of the provider's repository")
    parser.add_argument("--provider", default="aliyun/alicloud", help="its registry name")
    parser.add_argument("--package", default=None, help="the Go package directory (default: the provider's name)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    name = args.provider.rsplit("/", 1)[-1]
    data = from_source(args.checkout, args.provider, args.package or name)
    out = write(data, args.out, name)
    unknown = sum(1 for t in (*data["resources"].values(), *data["data_sources"].values()) if t.get("?"))
    print(f"{args.provider} {data['version']}: {len(data['resources'])} resources, {len(data['data_sources'])} data sources "
          f"({unknown} with contents unknown), {len(data['structs'])} blocks -> {out} ({out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
