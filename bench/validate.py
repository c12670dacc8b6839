"""Benchmarks of `iac-code validate` and the post-edit feedback (prints a table).

- the example project as a command: `iac-code validate examples/alicloud-network` as a fresh
  process, start-up included (median of 5), with and without `terraform fmt` (PATH without it);
- post-edit feedback on a 50-file module: `engine.new_problems` for an edit of one file, warm
  (the other 49 files parsed before: the parse cache is keyed by content), median of 20;
- a generated repository of 1,000 Terraform files in 100 modules (a root calling 99 local
  modules), validated in one process, cold cache, no terraform; and 500 files, to show the cost
  is linear in files; then the 1,000-file repository as a command (fresh process, median of 3),
  with and without `terraform fmt`.

Every figure gives wall time and CPU time (this process and its children): the machine is shared,
so the wall time grows with the load average (printed), the CPU time much less.

Usage: python bench/validate.py
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from iac_code.iac import cache  # noqa: E402
from iac_code.iac.engine import Options, new_problems, validate  # noqa: E402

EXAMPLE = ROOT / "examples" / "alicloud-network"


def resource_file(module: int, n: int) -> str:
    return f'''resource "aws_security_group" "sg_{n}" {{
  name        = "${{var.name}}-sg-{n}"
  description = "Security group {n} of module {module}"
  vpc_id      = aws_vpc.this.id

  dynamic "ingress" {{
    for_each = var.ports
    content {{
      from_port   = ingress.value
      to_port     = ingress.value
      protocol    = "tcp"
      cidr_blocks = [var.cidr]
    }}
  }}

  tags = merge(local.tags, {{ Name = "sg-{n}" }})
}}

resource "aws_subnet" "s_{n}" {{
  vpc_id     = aws_vpc.this.id
  cidr_block = cidrsubnet(var.cidr, 8, {n})
  tags       = local.tags
}}

output "sg_{n}_id" {{
  value = aws_security_group.sg_{n}.id
}}
'''


def module_files(module: int, files: int) -> dict[str, str]:
    out = {"main.tf": f'''variable "name" {{
  type = string
}}

variable "cidr" {{
  type    = string
  default = "10.{module % 250}.0.0/16"
}}

variable "ports" {{
  type    = list(number)
  default = [80, 443]
}}

locals {{
  tags = {{ Module = "m{module}", Name = var.name }}
}}

resource "aws_vpc" "this" {{
  cidr_block = var.cidr
  tags       = local.tags
}}
'''}
    for n in range(files - 1):
        out[f"sg_{n:02d}.tf"] = resource_file(module, n)
    return out


def generate(root: Path, modules: int, files_per_module: int) -> None:
    for m in range(modules):
        d = root / ("." if m == 0 else f"modules/m{m:03d}")
        d.mkdir(parents=True, exist_ok=True)
        for name, text in module_files(m, files_per_module).items():
            (d / name).write_text(text)
    calls = "".join(f'module "m{m:03d}" {{\n  source = "./modules/m{m:03d}"\n  name   = "m{m}"\n}}\n\n' for m in range(1, modules))
    (root / "calls.tf").write_text(calls)


def timed(fn, repeat: int) -> tuple[float, float]:
    """Median wall time and median CPU time (this process and its children) of `fn()`."""
    walls, cpus = [], []
    for _ in range(repeat):
        cpu0 = _cpu()
        start = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu() - cpu0)
    return statistics.median(walls), statistics.median(cpus)


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    rows = []
    load_before = os.getloadavg()[0]
    cmd = [sys.executable, "-m", "iac_code", "validate", str(EXAMPLE)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    paths = (("with terraform fmt", env.get("PATH", "")),
             ("without terraform", os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not (Path(p) / "terraform").exists())))
    for label, path in paths:
        t, cpu = timed(lambda: subprocess.run(cmd, env={**env, "PATH": path}, capture_output=True, check=True), 5)
        rows.append((f"example project as a command ({label}), start-up included", f"{t * 1000:.0f} ms (CPU {cpu * 1000:.0f} ms)"))
    with tempfile.TemporaryDirectory() as tmp:
        mod = Path(tmp) / "mod50"
        mod.mkdir()
        for name, text in module_files(1, 50).items():
            (mod / name).write_text(text)
        target = mod / "sg_10.tf"
        before = target.read_text()
        after = before.replace("tags       = local.tags", "tags       = local.tag")
        new_problems(target, before, after)  # parses the module once (as the session's earlier edits would)
        t, cpu = timed(lambda: new_problems(target, before, after), 20)
        rows.append(("post-edit feedback, one edit in a 50-file module (warm cache)", f"{t * 1000:.1f} ms (CPU {cpu * 1000:.1f} ms)"))
        for modules in (50, 100):
            repo = Path(tmp) / f"repo{modules}"
            generate(repo, modules, 10)
            count = sum(1 for _ in repo.rglob("*.tf"))
            cache.clear()
            cpu0, start = _cpu(), time.perf_counter()
            diags = validate([repo], Options(terraform_cli=False))
            t, cpu = time.perf_counter() - start, _cpu() - cpu0
            errors = sum(d.severity == "error" for d in diags)
            rows.append((f"repository of {count:,} files in {modules} modules (cold cache, {errors} errors)",
                         f"{t:.2f} s, CPU {cpu:.2f} s ({cpu / count * 1000:.1f} ms/file)"))
            if modules == 100:
                for label, path in paths:
                    run = [sys.executable, "-m", "iac_code", "validate", str(repo)]
                    t, cpu = timed(lambda: subprocess.run(run, env={**env, "PATH": path}, capture_output=True, check=True), 3)
                    rows.append((f"  the same as a command ({label})", f"{t:.2f} s, CPU {cpu:.2f} s"))
            shutil.rmtree(repo)
    print(f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} CPUs; "
          "wall times grow with the load, CPU times less so")
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
