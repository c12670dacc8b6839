#!/usr/bin/env python3
"""Generate the ROS resource type data (`src/iac_code/iac/ros/resource_types.json`) from the `ros-cdk-*`
packages' jsii assemblies. Runs offline on downloaded wheels or sdists; nothing is installed or
imported from them.

    pip download --no-deps -d /tmp/ros-cdk $(python scripts/gen_ros_schema.py --packages)
    python scripts/gen_ros_schema.py /tmp/ros-cdk --docs /tmp/ros-docs

`--docs` is a checkout of the AlibabaCloudDocs/ros repository (MIT; its last commit is named in
the output): ROS's resource type reference as it was in 2021. ROS still accepts the properties,
attributes and types it documents that the CDK has since dropped (PayType of an SLB, the CS
Kubernetes cluster types, ...); the data records them as names only (`"l"`: legacy properties
of a type, accepted at any depth; types known only from the docs have `"d": 1` and no property
list), so that they are not reported as unknown.

Where the facts come from, for each `Ros<Name>` class (base `@alicloud/ros-cdk-core.RosResource`):
- the resource type: `Ros<Name>.ROS_RESOURCE_TYPE_NAME = "ALIYUN::…"` in the package's JavaScript;
- its attributes: `this.attr<X> = this.getAtt('<Attribute>')` in the class's constructor;
- its properties: the `Ros<Name>Props` struct in the assembly (`optional` false = required; the
  property's jsii type), and the template spelling of each (`'VpcId': …(properties.vpcId)`) from
  the generated `ros<Name>PropsToRosTemplate` function; nested structs (`Ros<Name>.<X>Property`)
  the same way through `ros<Name><X>PropertyToRosTemplate`.

Output (compact JSON, keys sorted so that a re-run with the same packages gives the same file):
`{"source": …, "license": …, "packages": {name: version}, "docs": commit, "types": {type: {"p":
{Property: TYPE}, "r": [required], "a": [attributes], "l": [legacy]}}, "structs": [{"p": …, "r": …}]}` where TYPE is `s` string,
`n` number, `b` boolean, `*` anything, `[T]` a list of T, `{T}` a map of T, `#N` the struct
`structs[N]`, and `A|B` either.
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
OUT = ROOT / "src" / "iac_code" / "iac" / "ros" / "resource_types.json"
CORE = "@alicloud/ros-cdk-core"
# Packages named ros-cdk-* that hold no resource types (the CDK itself).
NOT_RESOURCES = {"ros-cdk-core", "ros-cdk-cxapi", "ros-cdk-assembly-schema"}
# Structs of the CDK's core that resource packages use, as core's runtime.js renders them.
CORE_STRUCTS = {f"{CORE}.RosTag": {"p": {"Key": "s", "Value": "s"}, "r": ["Key"]}}  # rosTagToRosTemplate
# `'VpcId': ros.stringToRosTemplate(properties.vpcId),` (older packages: `VpcId: …`)
_TEMPLATE_KEY = re.compile(r"^\s*(?:'([^']+)'|(\w+)):\s*.*\(properties\.(\w+)\),?\s*$", re.M)
_GETATT = re.compile(r"this\.(attr\w+)\s*=\s*this\.getAtt\('([^']+)'\)")


def read_assembly(archive: Path) -> tuple[dict, dict[str, str]]:
    """The jsii assembly (`package/.jsii`) and the JavaScript files (path -> text) of one
    downloaded `ros-cdk-*` wheel or sdist. Raises LookupError when it holds no assembly."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as z:
            names = [n for n in z.namelist() if n.endswith(".jsii.tgz")]
            if not names:
                raise LookupError(f"{archive.name}: no .jsii.tgz")
            blob = z.read(names[0])
    else:
        with tarfile.open(archive) as t:
            member = next((m for m in t.getmembers() if m.name.endswith(".jsii.tgz")), None)
            if member is None:
                raise LookupError(f"{archive.name}: no .jsii.tgz")
            blob = t.extractfile(member).read()
    assembly, scripts = None, {}
    with tarfile.open(fileobj=io.BytesIO(blob)) as t:
        for m in t.getmembers():
            if m.name == "package/.jsii":
                assembly = json.load(t.extractfile(m))
            elif m.name.startswith("package/lib/") and m.name.endswith(".js"):
                scripts[m.name[len("package/"):]] = t.extractfile(m).read().decode("utf-8")
    if assembly is None:
        raise LookupError(f"{archive.name}: no package/.jsii")
    return assembly, scripts


def _function_body(js: str, name: str) -> str | None:
    start = js.find(f"function {name}(")
    if start < 0:
        return None
    end = js.find("\n}\n", start)
    return js[start:end]


class Generator:
    """Collects resource types and their (deduplicated) property structs across assemblies."""

    def __init__(self) -> None:
        self.types: dict[str, dict] = {}
        self.structs: list[dict] = []
        self._struct_ids: dict[str, int] = {}
        self.problems: list[str] = []

    def add(self, assembly: dict, scripts: dict[str, str]) -> None:
        types = assembly.get("types", {})
        for fqn, cls in sorted(types.items()):
            if cls.get("kind") != "class" or cls.get("base") != f"{CORE}.RosResource":
                continue
            js = scripts.get(cls["locationInModule"]["filename"].removesuffix(".ts") + ".js", "")
            name = cls["name"]
            m = re.search(rf'^{name}\.ROS_RESOURCE_TYPE_NAME = "([^"]+)";', js, re.M)
            if not m:
                self.problems.append(f"{fqn}: no ROS_RESOURCE_TYPE_NAME")
                continue
            rtype = m.group(1)
            body = js[js.find(f"class {name} extends"):js.find(f"exports.{name} = {name};")]
            attributes = sorted({a for _, a in _GETATT.findall(body)})
            props_fqn = cls["initializer"]["parameters"][2]["type"]["fqn"]
            ctx = (types, js, name)
            props = self._struct(props_fqn, f"{name[0].lower()}{name[1:]}PropsToRosTemplate", ctx)
            if props is None:
                continue
            self.types[rtype] = {**props, "a": attributes}

    def _struct(self, fqn: str, renderer: str, ctx) -> dict | None:
        types, js, _ = ctx
        struct = types.get(fqn)
        body = _function_body(js, renderer)
        if struct is None or body is None:
            self.problems.append(f"{fqn}: no struct or no {renderer}")
            return None
        spelling = {camel: (quoted or bare).strip() for quoted, bare, camel in _TEMPLATE_KEY.findall(body)}
        props, required = {}, []
        for p in struct.get("properties", []):
            key = spelling.get(p["name"])
            if key is None:
                self.problems.append(f"{fqn}.{p['name']}: not in {renderer}")
                continue
            props[key] = self._type(p["type"], ctx)
            if not p.get("optional"):
                required.append(key)
        return {"p": dict(sorted(props.items())), "r": sorted(required)}

    def _type(self, t: dict, ctx) -> str:
        if "primitive" in t:
            return {"string": "s", "number": "n", "boolean": "b"}.get(t["primitive"], "*")
        if "collection" in t:
            inner = self._type(t["collection"]["elementtype"], ctx)
            return f"[{inner}]" if t["collection"]["kind"] == "array" else f"{{{inner}}}"
        if "union" in t:
            # IResolvable (a function or reference) is allowed everywhere: not a type of its own
            members = [x for x in t["union"]["types"] if not x.get("fqn", "").endswith(".IResolvable")]
            alternatives = sorted({self._type(x, ctx) for x in members})
            return "*" if not alternatives or "*" in alternatives else "|".join(alternatives)
        fqn = t.get("fqn", "")
        if not fqn or fqn.endswith(".IResolvable"):
            return "*"
        nested = self._nested(fqn, ctx)
        return "*" if nested == "*" else f"#{nested}"

    def _nested(self, fqn: str, ctx) -> int | str:
        types, js, owner = ctx
        struct = types.get(fqn, {})
        namespace, name = struct.get("namespace", "").split(".")[-1], struct.get("name", "")
        renderer = f"{namespace[0].lower()}{namespace[1:]}{name}ToRosTemplate" if namespace else ""
        if fqn not in self._struct_ids:
            self._struct_ids[fqn] = -1  # recursion guard
            shape = CORE_STRUCTS.get(fqn) or self._struct(fqn, renderer, ctx)
            if shape is None:
                del self._struct_ids[fqn]
                return "*"
            encoded = json.dumps(shape, sort_keys=True)
            known = {json.dumps(s, sort_keys=True): i for i, s in enumerate(self.structs)}
            if encoded not in known:
                self.structs.append(shape)
                known[encoded] = len(self.structs) - 1
            self._struct_ids[fqn] = known[encoded]
        return self._struct_ids[fqn] if self._struct_ids[fqn] >= 0 else "*"


_DOC_KEY = re.compile(r'^\s*"(\w+)"\s*:', re.M)
_DOC_ATTR = re.compile(r"^-\s+([A-Za-z][\w.]*)\s*[:：]", re.M)


def read_docs(root: Path) -> dict[str, tuple[set[str], set[str]]]:
    """{type: (property names, attribute names)} from the resource type pages of an
    AlibabaCloudDocs/ros checkout (every language: the pages were not always updated together).
    Property names are the keys of the pages' syntax blocks (the type's and its nested
    properties'); attributes the items under `Fn::GetAtt`."""
    found: dict[str, tuple[set[str], set[str]]] = {}
    for page in sorted(root.rglob("*.md")):
        rtype = page.name.removesuffix(".md")
        if not rtype.startswith(("ALIYUN::", "DATASOURCE::")) or rtype.count("::") < 1:
            continue
        props, attrs = found.setdefault(rtype, (set(), set()))
        heading, in_code, getatt = "", False, False
        for line in page.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("```"):
                in_code = not in_code
                continue
            if not in_code and line.startswith("#"):
                heading, getatt = line, False
                continue
            if in_code and ("syntax" in heading.lower() or "语法" in heading):
                props.update(k for k in _DOC_KEY.findall(line) if k not in ("Type", "Properties"))
            elif not in_code and line.strip() == "Fn::GetAtt":
                getatt = True
            elif getatt and not in_code and (m := _DOC_ATTR.match(line)):
                attrs.add(m.group(1))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("downloads", nargs="?", type=Path, help="directory of downloaded ros-cdk-* wheels/sdists")
    parser.add_argument("--docs", type=Path, help="a checkout of github.com/AlibabaCloudDocs/ros (legacy names)")
    parser.add_argument("--packages", action="store_true", help="print the package names the current data came from")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.packages:
        print(" ".join(sorted(json.loads(OUT.read_text())["packages"])))
        return 0
    if args.downloads is None:
        parser.error("give the directory of downloaded packages (or --packages)")
    gen, packages = Generator(), {}
    for archive in sorted(args.downloads.iterdir()):
        if not archive.name.startswith(("ros_cdk_", "ros-cdk-")) or not archive.name.endswith((".whl", ".tar.gz")):
            continue
        try:
            assembly, scripts = read_assembly(archive)
        except LookupError as exc:
            print(f"skipped: {exc}", file=sys.stderr)
            continue
        package = "ros-cdk-" + assembly["name"].removeprefix("@alicloud/ros-cdk-")
        if package in NOT_RESOURCES:
            continue
        before = len(gen.types)
        gen.add(assembly, scripts)
        if len(gen.types) > before:
            packages[package] = assembly["version"]
    for problem in gen.problems:
        print(f"warning: {problem}", file=sys.stderr)
    docs_commit = None
    if args.docs is not None:
        docs_commit = _git_head(args.docs)
        for rtype, (props, attrs) in read_docs(args.docs).items():
            entry = gen.types.get(rtype)
            if entry is None:
                gen.types[rtype] = {"d": 1, "a": sorted(attrs)}
                continue
            known = set(entry["p"]) | {k for s in _structs_of(entry, gen.structs) for k in s["p"]}
            legacy = sorted(props - known)
            if legacy:
                entry["l"] = legacy
            entry["a"] = sorted(set(entry["a"]) | attrs)
    data = {
        "source": "the ros-cdk-* packages on PyPI (AliCloud ROS CDK: jsii assemblies and generated JavaScript), by scripts/gen_ros_schema.py",
        "license": "Apache-2.0 (the ros-cdk-* packages)",
        "packages": dict(sorted(packages.items())),
        "docs": {"repository": "github.com/AlibabaCloudDocs/ros", "commit": docs_commit, "license": "MIT"} if docs_commit else None,
        "types": dict(sorted(gen.types.items())),
        "structs": gen.structs,
    }
    args.out.write_text(json.dumps(data, separators=(",", ":"), sort_keys=False) + "\n", encoding="utf-8")
    print(f"{len(gen.types)} resource types, {len(gen.structs)} structs from {len(packages)} packages -> "
          f"{args.out} ({args.out.stat().st_size:,} bytes)")
    return 0


def _structs_of(entry: dict, structs: list[dict]) -> list[dict]:
    """Every struct reachable from a type's properties."""
    seen: set[int] = set()
    todo = [t for t in entry["p"].values()]
    while todo:
        for n in re.findall(r"#(\d+)", todo.pop()):
            if int(n) not in seen:
                seen.add(int(n))
                todo.extend(structs[int(n)]["p"].values())
    return [structs[n] for n in sorted(seen)]


def _git_head(checkout: Path) -> str | None:
    head = checkout / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            return (checkout / ".git" / ref[5:]).read_text().strip()
        return ref
    except OSError:
        return None


if __name__ == "__main__":
    sys.exit(main())
