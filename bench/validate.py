"""Benchmarks of `iac-code validate` and the post-edit feedback (prints a table).

- the example project as a command: `iac-code validate examples/alicloud-network` as a fresh
  process, start-up included (median of 5), with and without `terraform fmt` (PATH without it);
- post-edit feedback on a 50-file module: `engine.new_problems` for an edit of one file, warm
  (the other 49 files parsed before: the parse cache is keyed by content), median of 20;
- Terraform throughput against the goal of 150 files/s on this machine's CPUs: generated
  repositories of 1,000 files (100 modules of 10 files) in three shapes, each checked by a fresh
  process running the engine with one worker and with one per CPU, without terraform: 100
  independent root modules ("stacks"), 20 roots each calling 4 of 80 shared modules ("envs"),
  and one root calling the other 99 (every module reached from one root: the worst case for
  parallel work). Files/s are wall-clock, as CI sees them; peak RSS of the process and its
  workers, and of the "stacks" shape at 500 / 1,000 / 2,000 files (memory is bounded by the
  largest module and the parse cache's budget, not by the repository);
- CloudFormation: 40 generated templates checked by the engine (one cfn-lint runner reused), by
  `cfnlint.api.lint` per template (a runner per template, as before), and by the `cfn-lint`
  command line of the same installation in one process; their findings compared.

Every timed figure gives wall time and CPU time (the processes and their children): the machine
is shared, so the wall time grows with the load average (printed), the CPU time much less.
Ratios compare figures of the same run.

Usage: python bench/validate.py [--quick]   (--quick: the Terraform shapes at 500 files only)
"""

from __future__ import annotations

import json
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

from iac_code.iac.engine import new_problems  # noqa: E402

EXAMPLE = ROOT / "examples" / "alicloud-network"
GOAL_FILES_PER_S = 150


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


def calls_file(targets: list[str]) -> str:
    return "".join(f'module "{Path(t).name}" {{\n  source = "{t}"\n  name   = "{Path(t).name}"\n}}\n\n' for t in targets)


def generate(root: Path, shape: str, modules: int, files_per_module: int = 10) -> int:
    """A repository of `modules` modules in `shape` ("stacks", "envs", "hub"); returns its file count."""
    def write(d: Path, files: dict[str, str]) -> None:
        d.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (d / name).write_text(text)

    if shape == "stacks":
        for m in range(modules):
            write(root / f"stacks/s{m:03d}", module_files(m, files_per_module))
    elif shape == "envs":
        roots = max(modules // 5, 1)
        shared = modules - roots
        for m in range(shared):
            write(root / f"modules/m{m:03d}", module_files(m, files_per_module))
        for e in range(roots):
            files = module_files(shared + e, files_per_module - 1)
            files["calls.tf"] = calls_file([f"../../modules/m{(e * 4 + k) % shared:03d}" for k in range(4)])
            write(root / f"envs/e{e:03d}", files)
    else:
        for m in range(1, modules):
            write(root / f"modules/m{m:03d}", module_files(m, files_per_module))
        files = module_files(0, files_per_module - 1)
        files["calls.tf"] = calls_file([f"./modules/m{m:03d}" for m in range(1, modules)])
        write(root, files)
    return sum(1 for _ in root.rglob("*.tf"))


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


PROBE = """
import json, resource, sys, time
from pathlib import Path
from iac_code.iac.engine import Options, check
from iac_code.iac.terraform.hcl import _parser
_parser()  # the grammar's tables are cached on disk; loading them is start-up, not checking
start, cpu0 = time.perf_counter(), time.process_time()
outcome = check([Path(sys.argv[1])], Options(terraform_cli=False, workers=int(sys.argv[2])))
wall = time.perf_counter() - start
from iac_code.iac.terraform.project import WORKER_CPU
own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime - cpu0,
                  "rss": max(own.ru_maxrss, kids.ru_maxrss) / 1024, "workers": WORKER_CPU,
                  "parent": own.ru_utime + own.ru_stime - cpu0, "errors": sum(d.severity == "error" for d in outcome.diagnostics),
                  "findings": [[str(d.file), d.line, d.rule] for d in outcome.diagnostics]}))
"""


def probe(repo: Path, workers: int, env: dict[str, str]) -> dict:
    """The engine on `repo` in a fresh process (so its peak RSS is the run's own)."""
    proc = subprocess.run([sys.executable, "-c", PROBE, str(repo), str(workers)], env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


CFN_KINDS = [
    ("B{n}", "AWS::S3::Bucket", {"BucketName": "bench-{n}", "VersioningConfiguration": {"Status": "Enabled"}}),
    ("Q{n}", "AWS::SQS::Queue", {"VisibilityTimeout": 60, "MessageRetentionPeriod": 345600}),
    ("T{n}", "AWS::SNS::Topic", {"TopicName": "bench-{n}"}),
    ("R{n}", "AWS::IAM::Role", {"AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}}),
    ("S{n}", "AWS::EC2::SecurityGroup", {"GroupDescription": "bench {n}", "VpcId": {"Ref": "Vpc"},
                                          "SecurityGroupIngress": [{"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "CidrIp": "10.0.0.0/8"}]}),
    ("N{n}", "AWS::EC2::Subnet", {"VpcId": {"Ref": "Vpc"}, "CidrBlock": "10.0.{n}.0/24", "AvailabilityZone": "us-east-1a"}),
]


def cfn_template(t: int) -> str:
    resources = {"Vpc": {"Type": "AWS::EC2::VPC", "Properties": {"CidrBlock": "10.0.0.0/16"}}}
    for n in range(8):
        name, rtype, props = CFN_KINDS[(t + n) % len(CFN_KINDS)]
        resources[name.format(n=n)] = {"Type": rtype, "Properties": json.loads(json.dumps(props).replace("{n}", str(n)))}
    if t % 5 == 0:
        resources["B0" if "B0" in resources else "Vpc"]["Properties"]["BucketNam"] = "typo"  # an E3002
    return json.dumps({"AWSTemplateFormatVersion": "2010-09-09", "Resources": resources}, indent=2)


def cfn_rows(tmp: Path) -> list[tuple[str, str]]:
    from cfnlint.api import ManualArgs, lint

    from iac_code.iac.cloudformation.lint import CfnOptions, _lint

    d = tmp / "cfn"
    d.mkdir()
    files = []
    for t in range(40):
        files.append(d / f"t{t:02d}.json")
        files[-1].write_text(cfn_template(t))
    texts = [f.read_text() for f in files]
    _lint(texts[0], CfnOptions(regions=("us-east-1",), ignore=("x",)))  # cfn-lint imported before timing (a runner for other options)
    found: dict[str, set] = {}
    t_eng, c_eng = timed(lambda: found.update({str(f): {(l, c, r, m) for l, c, _, r, m in _lint(x, CfnOptions())} for f, x in zip(files, texts)}), 1)
    api: dict[str, set] = {}
    t_api, c_api = timed(lambda: api.update({str(f): {(m.linenumber, m.columnnumber, f"cfn.{m.rule.id}", m.message)
                                                   for m in lint(x, config=ManualArgs(regions=["us-east-1"], config_file=os.devnull))}
                                            for f, x in zip(files, texts)}), 1)
    cli = Path(sys.executable).with_name("cfn-lint")
    out: dict[str, set] = {}

    def run_cli() -> None:
        proc = subprocess.run([str(cli), "--regions", "us-east-1", "--format", "parseable", "--", *map(str, files)],
                              capture_output=True, text=True, check=False, cwd=d)
        for line in proc.stdout.splitlines():
            parts = line.split(":", 6)
            if len(parts) == 7:
                out.setdefault(str(d / parts[0]) if not parts[0].startswith("/") else parts[0], set()).add(
                    (int(parts[1]), int(parts[2]), f"cfn.{parts[5]}", parts[6]))

    t_cli, c_cli = timed(run_cli, 1)
    same = all(found[str(f)] == api.get(str(f), set()) == out.get(str(f), set()) for f in files)
    n = sum(len(v) for v in found.values())
    return [
        (f"CloudFormation, {len(files)} templates: the engine (one cfn-lint runner reused)", f"{t_eng:.2f} s (CPU {c_eng:.2f} s)"),
        ("  cfnlint.api.lint per template (a runner each, as before)", f"{t_api:.2f} s (CPU {c_api:.2f} s): {c_api / c_eng:.1f}x the engine's CPU"),
        ("  the cfn-lint command line, same installation, start-up included", f"{t_cli:.2f} s (CPU {c_cli:.2f} s): {c_cli / c_eng:.1f}x the engine's CPU"),
        ("  findings", f"{n}, identical in all three: {same}"),
    ]


def main() -> None:
    quick = "--quick" in sys.argv[1:]
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
        cpus = os.cpu_count() or 1
        for shape in ("stacks", "envs", "hub"):
            repo = Path(tmp) / shape
            count = generate(repo, shape, 50 if quick else 100)
            one, many = probe(repo, 1, env), probe(repo, cpus, env)
            assert one["findings"] == many["findings"], f"{shape}: the workers found something else"
            for label, r in (("1 process", one), (f"{cpus} workers", many)):
                rate = count / r["wall"]
                rows.append((f"Terraform, {count:,} files, {shape}, {label}",
                             f"{r['wall']:.2f} s (CPU {r['cpu']:.2f} s): {rate:.0f} files/s = {rate / GOAL_FILES_PER_S:.2f}x the goal; "
                             f"peak RSS {r['rss']:.0f} MiB; {r['errors']} errors"))
            # on idle CPUs the run takes about its longest path: the parent's CPU plus its busiest worker's
            path = one["cpu"] if not many["workers"] else many["parent"] + max(many["workers"])
            rows.append((f"  critical path on idle CPUs ({'one process: ' + shape + ' is not split' if not many['workers'] else 'parent + busiest worker'})",
                         f"{path:.2f} s CPU: {count / path:.0f} files/s = {count / path / GOAL_FILES_PER_S:.2f}x the goal, "
                         f"{one['cpu'] / path:.2f}x one process"))
            shutil.rmtree(repo)
        for modules in ((50, 100) if quick else (50, 100, 200)):
            repo = Path(tmp) / f"mem{modules}"
            count = generate(repo, "stacks", modules)
            r = probe(repo, 1, env)
            rows.append((f"peak RSS, {count:,} files (stacks), 1 process", f"{r['rss']:.0f} MiB"))
            shutil.rmtree(repo)
        rows += cfn_rows(Path(tmp))
    print(f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} CPUs; "
          "wall times grow with the load, CPU times less so")
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
