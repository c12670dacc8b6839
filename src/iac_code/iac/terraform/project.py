"""The Terraform files found under the paths, checked module by module.

Each directory of `.tf`/`.tf.json` files is a module, loaded once (its local module calls load
theirs), and checked by the rules of kind `terraform` as a `ModuleTarget`; a module no scanned
module calls is a root (its values are known). A directory of `.tfvars` files only is checked
against the module in its parent or grandparent directory. A file python-hcl2 cannot parse but
`terraform fmt` can (where terraform is on PATH) is not an error: it is skipped, with that reason. `terraform fmt` runs on batches of
files while the rules run.
"""

from __future__ import annotations

from pathlib import Path

from iac_code.iac import rules
from iac_code.iac.diagnostics import Diagnostic, Skipped
from iac_code.iac.discovery import Reader
from iac_code.iac.options import Options
from iac_code.iac.terraform import cli
from iac_code.iac.terraform.calls import local_source_dir
from iac_code.iac.terraform.module import Module, ModuleTarget, load_module, tf_kind


def complete_modules(paths: list[Path], tf_dirs: dict[Path, list[Path]], reader: Reader) -> dict[Path, set[Path]]:
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


def _has_config(files: list[Path]) -> bool:
    return any(tf_kind(p) in ("tf", "tfjson") for p in files)


UNPARSED = "python-hcl2 cannot parse it, though `terraform fmt` accepts it"


def check(tf_dirs: dict[Path, list[Path]], reader: Reader, options: Options) -> tuple[list[Diagnostic], list[Skipped]]:
    """The findings of the rules of kind `terraform` on the directories `tf_dirs` ({directory:
    its Terraform files}), the parsers' findings, and `terraform fmt`'s (when allowed); and the
    files not checked."""
    selection = options.selection
    out: list[Diagnostic] = []
    skipped: list[Skipped] = []
    modules: dict[Path, Module | None] = {}

    def loaded(directory: Path, files: list[Path]) -> Module:
        mod, problems = load_module(directory, files, reader)
        skipped.extend(mod.skipped)
        for d in problems:
            if d.rule == "hcl.syntax" and options.terraform_cli and isinstance(text := reader(d.file), str) and cli.accepts(text):
                skipped.append(Skipped(d.file, UNPARSED))
            elif selection.enabled(d.rule):
                out.append(d)
        return mod

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
            if _has_config(files):
                modules[directory] = loaded(directory, files) if directory in tf_dirs else load_module(directory, files, reader)[0]
        return modules[directory]

    called: set[Path] = set()
    for directory, files in tf_dirs.items():
        if _has_config(files) and (mod := load(directory)) is not None:
            called.update(c for d in mod.blocks if d.block.type == "module" and (c := local_source_dir(mod, d.block)) is not None)
    formatting: list[Path] = []  # files for `terraform fmt`, started by batches of FMT_BATCH
    started: list[cli.Fmt] = []  # ... which run while the rules do
    fmt = options.terraform_cli and not reader.overlay and selection.enabled(cli.FMT.id)
    for directory, files in tf_dirs.items():
        if not _has_config(files):
            module = next((m for d in list(directory.parents)[:2] if (m := load(d)) is not None and m.variables), None)
            out += rules.run("terraform", ModuleTarget(loaded(directory, files), load, var_module=module), selection, min(files))
            continue
        mod = load(directory)
        if mod is None:
            continue
        installed = cli.providers_schema(directory) if options.terraform_validate and not reader.overlay else None
        target = ModuleTarget(mod, load, root=bool(mod.blocks) and directory not in called, provider_schemas=installed)
        out += rules.run("terraform", target, selection, min(files))
        if fmt:
            formatting += [f for f in mod.files if f not in mod.broken]
            if len(formatting) >= cli.FMT_BATCH:
                started += cli.fmt_start_all(formatting)
                formatting = []
        if options.terraform_validate and selection.enabled(cli.VALIDATE.id):
            out += [d for d in cli.validate(directory) if selection.enabled(d.rule)]
    started += cli.fmt_start_all(formatting)
    for batch in started:
        out += cli.fmt_finish(batch)
    return out, skipped
