"""The validation engine: files -> kind -> the format's checks -> diagnostics, filtered by
ignore comments and ignored rules.

`validate(paths, options)` is what `iac-code validate` and the `validate` tool run;
`new_problems(path, before, after)` is the post-edit feedback (problems the edit introduced in
the file's module or template). Nothing from the project is executed: files are only read,
except that `terraform fmt` (and, when asked, `terraform validate`) run when the binary is on PATH.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from iac_code.iac.terraform import cli as tfcli
from iac_code.iac.diagnostics import Diagnostic, diag
from iac_code.iac.discovery import YAML_SUFFIXES, Reader, discover
from iac_code.iac.jsonsyntax import load_json
from iac_code.iac.terraform.checks import check_module, local_source_dir, sensitive_outputs
from iac_code.iac.terraform.module import Module, load_module, parse_cached, tf_kind
from iac_code.iac.terraform.network import literal_cidrs, module_values, network_checks, tfvars_checks

KINDS = ("auto", "terraform", "cloudformation", "ros", "kubernetes")
_IGNORE = re.compile(r"iac-code:\s*ignore\[([^\]]*)\]")
_HELM = re.compile(r"\{\{-?\s|\{\{\.|\{\{[A-Za-z]")


@dataclass(slots=True)
class Options:
    """How to validate: `kind` restricts the formats; `ignore` lists rule ids ("x.*" prefixes);
    `terraform_cli` allows `terraform fmt`; `terraform_validate` also `terraform validate`."""

    kind: str = "auto"
    ignore: tuple[str, ...] = ()
    kubernetes_version: str | None = None
    terraform_cli: bool = True
    terraform_validate: bool = False
    overlay: dict[Path, str | None] = field(default_factory=dict)
    after_edits: bool = True


def config_options(config_dir: Path) -> Options:
    """Options from `validate` in `<config_dir>/config.json`: `{"validate": {"ignore": [rule ids],
    "kubernetes_version": "1.30", "after_edits": true}}` (`after_edits` false turns post-edit
    feedback off; the environment variable `IAC_CODE_VALIDATE_AFTER_EDITS=0` too, and wins).
    A missing or malformed file or key gives the defaults."""
    import json
    import os

    try:
        conf = json.loads((config_dir / "config.json").read_text(encoding="utf-8")).get("validate") or {}
    except (OSError, ValueError, AttributeError):
        conf = {}
    if not isinstance(conf, dict):
        conf = {}
    ignore = conf.get("ignore") if isinstance(conf.get("ignore"), list) else []
    version = conf.get("kubernetes_version")
    return Options(ignore=tuple(str(r) for r in ignore), kubernetes_version=str(version) if version else None,
                   after_edits=_flag(os.environ.get("IAC_CODE_VALIDATE_AFTER_EDITS"), conf.get("after_edits", True) is not False))


def _flag(env: str | None, default: bool) -> bool:
    if env is None or not env.strip():
        return default
    return env.strip().lower() not in ("0", "false", "no", "off")


def validate(paths: list[Path], options: Options | None = None) -> list[Diagnostic]:
    """Diagnostics for the IaC files under `paths`, sorted, ignore comments and rules applied."""
    options = options or Options()
    reader = Reader(options.overlay)
    files = [f for f in discover(paths) if reader.exists(f)]
    files += [p for p, t in options.overlay.items() if t is not None and p not in files and any(p.is_relative_to(x.absolute()) or p == x.absolute() for x in paths)]
    out: list[Diagnostic] = []
    tf_dirs: dict[Path, list[Path]] = {}
    for f in files:
        if tf_kind(f) is not None:
            if options.kind in ("auto", "terraform"):
                tf_dirs.setdefault(f.parent, []).append(f)
        else:
            out += _guarded(f, lambda f=f: _check_document(f, reader, options))
    only = _complete_modules(paths, tf_dirs, reader)
    found = _check_terraform(tf_dirs, reader, options)
    out += [d for d in found if d.file.parent not in only or d.file in only[d.file.parent]]
    return finish(out, reader, options.ignore)


def _complete_modules(paths: list[Path], tf_dirs: dict[Path, list[Path]], reader: Reader) -> dict[Path, set[Path]]:
    """A Terraform file named on its own is checked as part of its module: its directory's other
    .tf/.tf.json/auto .tfvars files join `tf_dirs`, and only the named files' findings are kept.
    Returns {directory: the named files} for the directories completed this way."""
    named = [p.absolute() for p in paths if tf_kind(p) is not None and not p.is_dir()]
    covered = {p.absolute() for p in paths if p.is_dir()}
    only: dict[Path, set[Path]] = {}
    for f in named:
        directory = f.parent
        if any(directory == c or directory.is_relative_to(c) for c in covered):
            continue
        only.setdefault(directory, set()).add(f)
        try:
            siblings = [p for p in directory.iterdir() if tf_kind(p) is not None and reader.exists(p)]
        except OSError:
            siblings = []
        for p in siblings:
            if p not in tf_dirs.setdefault(directory, []) and (tf_kind(p) in ("tf", "tfjson") or p.name == "terraform.tfvars"
                                                               or p.name.endswith(".auto.tfvars")):
                tf_dirs[directory].append(p)
    return only


def _guarded(path: Path, check) -> list[Diagnostic]:
    """Run a check; a bug in it becomes one diagnostic instead of ending the run."""
    try:
        return check()
    except RecursionError:
        return [diag(path, 1, 1, "error", "internal", "the file nests too deeply to validate")]
    except Exception as exc:  # noqa: BLE001 - validation must never crash on input
        return [diag(path, 1, 1, "warning", "internal", f"the validator failed on this input: {type(exc).__name__}: {exc}")]


def _check_terraform(tf_dirs: dict[Path, list[Path]], reader: Reader, options: Options) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    modules: dict[Path, Module | None] = {}
    loaded: dict[Path, tuple[Module, list[Diagnostic]]] = {}

    def load(directory: Path) -> Module | None:
        if directory not in modules:
            modules[directory] = None
            files = tf_dirs.get(directory)
            if files is None:
                try:
                    files = [p for p in directory.iterdir() if tf_kind(p) in ("tf", "tfjson") and reader.exists(p)]
                except OSError:
                    files = []
                files += [p for p, t in reader.overlay.items() if t is not None and p.parent == directory and p not in files and tf_kind(p)]
            if any(tf_kind(p) in ("tf", "tfjson") for p in files):
                loaded[directory] = load_module(directory, files, reader)
                modules[directory] = loaded[directory][0]
        return modules[directory]

    called: set[Path] = set()
    formatting: list[Path] = []  # files for `terraform fmt`, started by batches of FMT_BATCH
    started: list[tfcli.Fmt] = []  # ... which run while the offline checks do
    for directory, files in tf_dirs.items():
        if not any(tf_kind(p) in ("tf", "tfjson") for p in files):
            out += _tfvars_only(files, reader, load)
            continue
        mod, problems = loaded[directory] if directory in loaded else load_module(directory, files, reader)
        modules[directory] = mod
        out += problems
        first = min(files)
        out += _guarded(first, lambda mod=mod: check_module(mod, load))
        for decl in mod.blocks:
            if decl.block.type == "module" and (child := local_source_dir(mod, decl.block)) is not None:
                called.add(child)
        for path in mod.files:
            text = reader(path)
            if isinstance(text, str) and tf_kind(path) in ("tf", "tfvars"):
                body = parse_cached(text)
                if not isinstance(body, Exception):
                    out += _guarded(path, lambda path=path, body=body, text=text: literal_cidrs(path, body.attrs, body.blocks, text))
        if options.terraform_cli and not reader.overlay:
            broken = {d.file for d in problems if d.severity == "error"}
            formatting += [f for f in mod.files if f not in broken]
            if len(formatting) >= tfcli.FMT_BATCH:
                started += tfcli.fmt_start_all(formatting)
                formatting = []
            if options.terraform_validate:
                out += tfcli.validate(directory)
    started += tfcli.fmt_start_all(formatting)
    for directory in tf_dirs:
        mod = modules.get(directory)
        if mod is not None and mod.blocks and directory not in called:
            out += _guarded(min(tf_dirs[directory]), lambda mod=mod: _root_checks(mod, load))
    for fmt in started:
        out += tfcli.fmt_finish(fmt)
    return out


def _root_checks(mod: Module, load) -> list[Diagnostic]:
    """Value checks of a root module (one no scanned module calls): variable values, then the
    network and for_each checks with them, through its local modules."""
    out: list[Diagnostic] = []
    values = module_values(mod, out)
    for path, body in mod.other_tfvars:  # -var-file files: their names are checked with the module
        out += [d for d in tfvars_checks(mod, path, body) if d.rule != "terraform.undeclared-tfvar"]
    out += sensitive_outputs(mod)
    return out + network_checks(mod, values, load)


def _tfvars_only(files: list[Path], reader: Reader, load) -> list[Diagnostic]:
    """.tfvars files in a directory without .tf files (e.g. envs/prod.tfvars): syntax and CIDRs,
    and, when a parent or grandparent directory is a module, names and values against it."""
    out: list[Diagnostic] = []
    module = next((m for d in list(files[0].parents)[1:3] if (m := load(d)) is not None and m.variables), None) if files else None
    for path in files:
        text = reader(path)
        if not isinstance(text, str):
            out.append(text)
            continue
        if tf_kind(path) == "tfvarsjson":
            out += load_json(path, text)[1]
            continue
        body = parse_cached(text)
        if isinstance(body, Exception):
            out.append(_syntax(path, body))
        else:
            out += literal_cidrs(path, body.attrs, body.blocks)
            if module is not None:
                out += tfvars_checks(module, path, body)
    return out


def _syntax(path: Path, exc) -> Diagnostic:
    return diag(path, exc.line, exc.column, "error", "hcl.syntax", exc.message)


def _check_document(path: Path, reader: Reader, options: Options) -> list[Diagnostic]:
    # The YAML/JSON formats are imported when such a file is found (a Terraform-only project
    # then never loads PyYAML and the format checkers: start-up of `iac-code validate`, issue 13).
    from iac_code.iac.cloudformation import lint as cloudformation
    from iac_code.iac.helm import values as helm
    from iac_code.iac.kubernetes import objects as k8srules
    from iac_code.iac.kubernetes import schema as kubernetes
    from iac_code.iac.ros import template as ros
    from iac_code.iac.yamlsyntax import PosDict
    from iac_code.iac.yamlsyntax import load as load_yaml

    text = reader(path)
    if not isinstance(text, str):
        return [text]
    is_yaml = path.name.endswith(YAML_SUFFIXES)
    if is_yaml and _HELM.search(text):
        return []  # a Helm/Go template, not YAML until rendered
    out: list[Diagnostic] = []
    if not is_yaml and text.lstrip().startswith(("{", "[")):
        value, problems = load_json(path, text)
        if problems and value is None:
            return problems
        out += problems
    docs, problems = load_yaml(path, text)
    if not is_yaml and problems:
        problems = []  # valid JSON that PyYAML reads differently: positions only from JSON
    out += problems
    values = [d.value for d in docs]
    kind = options.kind
    if kind == "auto":
        if any(cloudformation.is_cloudformation(v) for v in values):
            kind = "cloudformation"
        elif any(ros.is_ros(v) for v in values):
            kind = "ros"
        elif any(kubernetes.is_manifest(v) for v in values):
            kind = "kubernetes"
        else:
            kind = "yaml"
    if any(p.rule == "yaml.syntax" for p in problems):
        return out
    if kind == "cloudformation":
        out += _cfn(path, text, out)
    elif kind == "ros":
        for v in values:
            if isinstance(v, PosDict):
                out += ros.check(path, v)
    elif kind == "yaml" and is_yaml and values:
        out += helm.check_values(path, values[0], reader)
    elif kind == "kubernetes":
        manifests = [v for v in values if isinstance(v, PosDict) and (kubernetes.is_manifest(v) or "apiVersion" in v or "kind" in v)]
        for v in manifests:
            out += kubernetes.check(path, v, options.kubernetes_version)
            out += k8srules.check_object(path, v)
        out += k8srules.cross_checks(path, manifests)
    return out


def _cfn(path: Path, text: str, problems: list[Diagnostic]) -> list[Diagnostic]:
    from iac_code.iac.cloudformation import lint as cloudformation

    dup = any(p.rule.endswith("duplicate-key") for p in problems)
    return [d for d in cloudformation.check(path, text) if not (dup and d.rule == "cfn.E0000" and d.message.startswith("Duplicate"))]


def finish(found: list[Diagnostic], reader: Reader, ignore: tuple[str, ...] | list[str]) -> list[Diagnostic]:
    """Deduplicate, drop ignored rules and lines carrying `iac-code: ignore[rule]`, sort."""
    unique = {(d.file, d.line, d.column, d.rule, d.message): d for d in found}
    out = []
    for d in unique.values():
        if _rule_ignored(d.rule, ignore) or _comment_ignored(d, reader):
            continue
        out.append(d)
    return sorted(out, key=Diagnostic.sort_key)


def _rule_ignored(rule: str, ignore) -> bool:
    for pattern in ignore:
        if rule == pattern or (pattern.endswith("*") and rule.startswith(pattern[:-1])):
            return True
    return False


def _comment_ignored(d: Diagnostic, reader: Reader) -> bool:
    text = reader(d.file)
    if not isinstance(text, str) or "iac-code:" not in text:
        return False
    lines = text.split("\n")
    for n in (d.line, d.line - 1):
        if 1 <= n <= len(lines):
            line = lines[n - 1]
            if n == d.line - 1 and not line.lstrip().startswith(("#", "//")):
                continue
            for m in _IGNORE.finditer(line):
                if _rule_ignored(d.rule, [r.strip() for r in m.group(1).split(",") if r.strip()]):
                    return True
    return False


def scope_of(path: Path) -> Path:
    """What the post-edit check validates for an edited file: a Terraform file's directory
    (its module), otherwise the file itself."""
    return path.parent if tf_kind(path) is not None else path


def is_iac_path(path: Path) -> bool:
    """Whether an edit of `path` gets post-edit feedback (Terraform, YAML, JSON/template files)."""
    from iac_code.iac.discovery import candidate

    return candidate(path)


def new_problems(path: Path, before: str | None, after: str, options: Options | None = None) -> list[Diagnostic]:
    """Errors and warnings in `path`'s module/template with `after` as its text that were not
    there with `before` (None: the file did not exist). Matching ignores line numbers, so
    problems that only moved are not new. `terraform` is not run."""
    base = options or Options()
    path = path.absolute()
    scope = scope_of(path)

    def run(text: str | None) -> list[Diagnostic]:
        opts = Options(base.kind, base.ignore, base.kubernetes_version, False, False, {path: text})
        return [d for d in validate([scope], opts) if d.severity != "info"]

    old = Counter(d.identity() for d in run(before))
    out = []
    for d in run(after):
        if old[d.identity()] > 0:
            old[d.identity()] -= 1
        else:
            out.append(d)
    return out
