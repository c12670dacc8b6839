"""The Terraform files found under the paths, checked module by module.

Each directory of `.tf`/`.tf.json` files is a module, loaded once (its local module calls load
theirs), and checked by the rules of kind `terraform` as a `ModuleTarget`; a module no scanned
module calls is a root (its values are known). A directory of `.tfvars` files only is checked
against the module in its parent or grandparent directory. A file python-hcl2 cannot parse but
`terraform fmt` can (where terraform is on PATH) is not an error: it is skipped, with that reason.
`terraform fmt` runs on batches of files while the rules run; a large project's directories are
checked by a pool of processes, one per CPU.
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from pathlib import Path

from iac_code.iac import rules
from iac_code.iac.diagnostics import Diagnostic, Skipped
from iac_code.iac.discovery import Reader
from iac_code.iac.options import Options
from iac_code.iac.terraform import cli
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
POOL_FILES = 60  # below this many Terraform files, starting worker processes costs more than it saves
GAIN = 0.65  # workers are used when the busiest parses at most this share of what one process would
MODULES_KEPT = 32  # parsed modules a run keeps for module calls; older ones are parsed again if needed
WORKER_CPU: list[float] = []  # CPU seconds of each worker of the last pooled run (bench/validate.py reads it)
_SOURCE = re.compile(r'(?:\bsource\s*=\s*|"source"\s*:\s*)"(\.{1,2}/[^"]*)"')


def module_calls(tf_dirs: dict[Path, list[Path]], reader: Reader) -> dict[Path, set[Path]]:
    """{directory: the directories its local module calls (`source = "./x"`, `"../x"`) name}: a
    scan of the text, so it needs no parse (a call in a comment counts too: that module then
    only loses the checks of root modules, never gains a false error)."""
    out: dict[Path, set[Path]] = {}
    for directory, files in tf_dirs.items():
        for f in files:
            text = reader(f) if tf_kind(f) in ("tf", "tfjson") else None
            if isinstance(text, str) and "source" in text:
                out.setdefault(directory, set()).update((directory / m.group(1)).resolve() for m in _SOURCE.finditer(text))
    return out


class _Run:
    """The modules of one run: loaded when first needed (at most `MODULES_KEPT` kept), their
    parsers' findings reported once for the scanned directories."""

    def __init__(self, tf_dirs: dict[Path, list[Path]], reader: Reader, options: Options) -> None:
        self.tf_dirs, self.reader, self.options = tf_dirs, reader, options
        self.selection = options.selection
        self.modules: OrderedDict[Path, Module | None] = OrderedDict()
        self.reported: set[Path] = set()

    def loaded(self, directory: Path, files: list[Path], out: list[Diagnostic], skipped: list[Skipped]) -> Module:
        mod, problems = load_module(directory, files, self.reader)
        if directory in self.reported:
            return mod
        self.reported.add(directory)
        skipped.extend(mod.skipped)
        for d in problems:
            text = self.reader(d.file) if d.rule == "hcl.syntax" and self.options.terraform_cli else None
            if isinstance(text, str) and cli.accepts(text):
                skipped.append(Skipped(d.file, UNPARSED))
            elif self.selection.enabled(d.rule):
                out.append(d)
        return mod

    def load(self, directory: Path) -> Module | None:
        """The module in `directory` (None: no .tf/.tf.json files)."""
        if directory in self.modules:
            self.modules.move_to_end(directory)
            return self.modules[directory]
        files = self.tf_dirs.get(directory)
        if files is None:
            try:
                files = [p for p in directory.iterdir() if tf_kind(p) in ("tf", "tfjson") and self.reader.exists(p)]
            except OSError:
                files = []
            files += [p for p, t in self.reader.overlay.items() if t is not None and p.parent == directory and p not in files and tf_kind(p)]
        mod = load_module(directory, files, self.reader)[0] if _has_config(files) else None
        self._keep(directory, mod)
        return mod

    def _keep(self, directory: Path, mod: Module | None) -> None:
        self.modules[directory] = mod
        self.modules.move_to_end(directory)
        while len(self.modules) > MODULES_KEPT:
            self.modules.popitem(last=False)

    def directory(self, directory: Path, files: list[Path], root: bool) -> tuple[list[Diagnostic], list[Skipped]]:
        """The findings on one scanned directory (a module, or .tfvars files only)."""
        out: list[Diagnostic] = []
        skipped: list[Skipped] = []
        selection, options = self.selection, self.options
        if not _has_config(files):
            module = next((m for d in list(directory.parents)[:2] if (m := self.load(d)) is not None and m.variables), None)
            target = ModuleTarget(self.loaded(directory, files, out, skipped), self.load, var_module=module)
            return out + rules.run("terraform", target, selection, min(files)), skipped
        mod = self.loaded(directory, files, out, skipped)
        self._keep(directory, mod)
        installed = cli.providers_schema(directory) if options.terraform_validate and not self.reader.overlay else None
        target = ModuleTarget(mod, self.load, root=root and bool(mod.blocks), provider_schemas=installed)
        out += rules.run("terraform", target, selection, min(files))
        if options.terraform_validate and selection.enabled(cli.VALIDATE.id):
            out += [d for d in cli.validate(directory) if selection.enabled(d.rule)]
        return out, skipped


def workers(options: Options, tf_dirs: dict[Path, list[Path]]) -> int:
    """How many processes check the modules: `options.workers` (0: one per idle CPU), and one for
    a small project (`POOL_FILES`), a single directory, or text from an editor (`overlay`)."""
    wanted = options.workers or _idle_cpus()
    if wanted <= 1 or options.overlay or len(tf_dirs) < 2 or sum(map(len, tf_dirs.values())) < POOL_FILES:
        return 1
    return min(wanted, len(tf_dirs))


def _idle_cpus() -> int:
    """CPUs not already busy (the load average's share): a worker on a busy CPU only adds its
    start-up (~0.6 s of CPU each, measured) to the run."""
    cpus = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    return max(1, min(cpus, round(cpus - load + 0.5)))


def check(tf_dirs: dict[Path, list[Path]], reader: Reader, options: Options) -> tuple[list[Diagnostic], list[Skipped]]:
    """The findings of the rules of kind `terraform` on the directories `tf_dirs` ({directory:
    its Terraform files}), the parsers' findings, and `terraform fmt`'s (when allowed); and the
    files not checked. With more than one worker the directories are split between worker
    processes (`worker.py`) by `_assign`; the findings are the same either way."""
    calls = module_calls(tf_dirs, reader)
    called = set().union(*calls.values())
    started: list[cli.Fmt] = []  # terraform fmt runs while the rules do
    if options.terraform_cli and not reader.overlay and options.selection.enabled(cli.FMT.id):
        started = cli.fmt_start_all([f for files in tf_dirs.values() for f in files])
    jobs = [(d, files, d not in called) for d, files in tf_dirs.items()]
    out: list[Diagnostic] = []
    skipped: list[Skipped] = []
    n = workers(options, tf_dirs)
    if n == 1:
        run = _Run(tf_dirs, reader, options)
        results = [run.directory(*job) for job in jobs]
    else:
        results = _in_processes(jobs, n, tf_dirs, calls, options, reader)
    for found, skips in results:
        out += found
        skipped += skips
    unchecked = {s.file for s in skipped}
    for batch in started:
        out += [d for d in cli.fmt_finish(batch) if d.file not in unchecked]
    return out, skipped


Job = tuple[Path, list[Path], bool]
"""A directory to check: (directory, its files, whether it is a root module)."""


def _assign(jobs: list[Job], n: int, tf_dirs: dict[Path, list[Path]], calls: dict[Path, set[Path]]) -> list[list[Job]]:
    """`jobs` split between `n` workers so that each parses as little as it can and all about
    as much: a job needs its module and those it calls (a root: all it reaches, whose values it
    follows); each job goes to the worker with the least work after it, counting the modules
    that worker has not parsed yet (greedy, largest needs first)."""
    sizes: dict[Path, int] = {}

    def size(d: Path) -> int:
        if d not in sizes:
            files = tf_dirs.get(d)
            if files is None:
                try:
                    files = [p for p in d.iterdir() if tf_kind(p) in ("tf", "tfjson")]
                except OSError:
                    files = []
            sizes[d] = sum(_size(f) for f in files) + 1
        return sizes[d]

    def needs(job: Job) -> set[Path]:
        out, todo = {job[0]}, list(calls.get(job[0], ()))
        while todo:
            d = todo.pop()
            if d not in out:
                out.add(d)
                if job[2]:  # a root follows its values down the calls
                    todo += calls.get(d, ())
        return out

    load = [0] * n
    parsed: list[set[Path]] = [set() for _ in range(n)]
    parts: list[list[Job]] = [[] for _ in range(n)]
    for job, need in sorted(((j, needs(j)) for j in jobs), key=lambda x: -sum(map(size, x[1]))):
        w = min(range(n), key=lambda i: (load[i] + sum(size(d) for d in need - parsed[i]), load[i]))
        load[w] += sum(size(d) for d in need - parsed[w])
        parsed[w] |= need
        parts[w].append(job)
    alone = sum(size(d) for d in set[Path]().union(*parsed))
    if max(load) > GAIN * alone:
        return [list(jobs)]  # the modules are shared too much: one process parses each once
    return [sorted(part, key=lambda j: str(j[0])) for part in parts if part]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _in_processes(jobs: list[Job], n: int, tf_dirs: dict[Path, list[Path]], calls: dict[Path, set[Path]], options: Options,
                  reader: Reader) -> list:
    """The results of `jobs` from `n` worker processes (`worker.py`); a slice whose worker
    fails is checked here instead."""
    import pickle
    import subprocess
    import sys

    slices = _assign(jobs, n, tf_dirs, calls)
    if len(slices) == 1:
        run = _Run(tf_dirs, reader, options)
        return [run.directory(*job) for job in jobs]
    procs = []
    for part in slices:
        proc = subprocess.Popen([sys.executable, "-m", "iac_code.iac.terraform.worker"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert proc.stdin is not None
        proc.stdin.write(pickle.dumps((tf_dirs, options, part), protocol=pickle.HIGHEST_PROTOCOL))
        proc.stdin.close()
        procs.append(proc)
    results: list = []
    WORKER_CPU.clear()
    for part, proc in zip(slices, procs):
        assert proc.stdout is not None
        data = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        WORKER_CPU.append(usage.ru_utime + usage.ru_stime)
        if proc.returncode == 0 and data:
            results += pickle.loads(data)
        else:
            run = _Run(tf_dirs, reader, options)
            results += [run.directory(*job) for job in part]
    return results
