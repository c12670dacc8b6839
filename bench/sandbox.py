"""What the command sandbox costs a command (prints a table).

For a copy of the example project (a git repository with a `.env`, so the policy has paths to
protect and hide), each round runs `/bin/bash -c true` unsandboxed, then under each backend that
works here as the agent starts a local command (`Sandbox.launch`: the policy computed for this
command, i.e. the walk of the project, then bubblewrap's argv, or for Landlock the confinement
prepared here and applied in the forked child before the exec), and as the editor's terminal runs
it (`Sandbox.wrap`: for Landlock the `landlock_exec.py` program), and the floor: a bare
`bwrap --ro-bind / / bash -c true`. Each variant is started as the agent starts commands
(`subprocess` with `start_new_session`) from a process that has imported the agent (so a fork
copies an agent's page tables). Rounds alternate the variants so a drift of the machine's speed
hits them alike; the table gives the median wall time of each and its excess over the
unsandboxed run in the same rounds, and the policy walk alone.

Usage: python bench/sandbox.py [--rounds 40]
"""

from __future__ import annotations

import argparse
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

import iac_code.acp.server  # noqa: E402, F401  (the agent's modules: its memory, as a fork copies it)
from iac_code.tools.sandbox import Sandbox, detect, private_space, remove_space  # noqa: E402

EXAMPLE = ROOT / "examples" / "alicloud-network"
COMMAND = ["/bin/bash", "-c", "true"]


def project(base: Path) -> tuple[Path, Path]:
    """A copy of the example project with a git repository and a `.env`; and a config dir."""
    root = base / "alicloud-network"
    shutil.copytree(EXAMPLE, root)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".env").write_text("SECRET=x\n")
    config = base / "config"
    config.mkdir()
    return Path(os.path.realpath(root)), config


def run(argv: list[str], preexec=None) -> None:
    subprocess.run(argv, check=True, start_new_session=True, preexec_fn=preexec)


def launched(sandbox: Sandbox, cwd: Path, config: Path):
    def go() -> None:
        with sandbox.launch(COMMAND, cwd, config) as launch:
            subprocess.run(launch.argv, cwd=cwd, check=True, start_new_session=True, preexec_fn=launch.preexec)

    return go


def wrapped(sandbox: Sandbox, cwd: Path, config: Path):
    return lambda: subprocess.run(sandbox.wrap(COMMAND, cwd, config), cwd=cwd, check=True, start_new_session=True)


def timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    backends = [b for b in ("bwrap", "landlock") if detect(b).backend == b]
    with tempfile.TemporaryDirectory() as tmp:
        cwd, config = project(Path(tmp))
        space = private_space()
        try:
            sandboxes = {b: Sandbox(b, space) for b in backends}  # type: ignore[arg-type]
            variants: dict[str, object] = {"bash -c true, no sandbox": lambda: run(COMMAND)}
            if shutil.which("bwrap") and detect("bwrap").backend == "bwrap":
                variants["floor: bare bwrap"] = lambda: run(["bwrap", "--ro-bind", "/", "/", "--", *COMMAND])
            for b in backends:
                variants[f"{b}, local command"] = launched(sandboxes[b], cwd, config)
                if b == "landlock":
                    variants[f"{b}, editor's terminal"] = wrapped(sandboxes[b], cwd, config)
            times: dict[str, list[float]] = {name: [] for name in variants}
            walks: list[float] = []
            for run_one in variants.values():  # warm-up
                run_one()  # type: ignore[operator]
            for _ in range(args.rounds):
                for name, run_one in variants.items():
                    times[name].append(timed(run_one))
                walks.append(timed(lambda: sandboxes[backends[0]].policy(cwd, config)) if backends else 0.0)
        finally:
            remove_space(space)
    plain = statistics.median(times["bash -c true, no sandbox"])
    bare = statistics.median(times["floor: bare bwrap"]) if "floor: bare bwrap" in times else None
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs), {args.rounds} rounds, "
          f"project: {EXAMPLE.name} (+ .git, .env), starting process {rss:.0f} MB")  # fmt: skip
    print(f"{'variant':<32}{'median ms':>10}{'over bash ms':>14}{'over bare bwrap':>17}")
    for name, values in times.items():
        median = statistics.median(values)
        over_bare = f"{(median - bare) * 1000:>17.1f}" if bare is not None else f"{'':>17}"
        print(f"{name:<32}{median * 1000:>10.1f}{(median - plain) * 1000:>14.1f}{over_bare}")
    if backends:
        print(f"{'policy walk alone':<32}{statistics.median(walks) * 1000:>10.1f}")
    for name, problem in (("bwrap", detect("bwrap").bwrap), ("landlock", detect("landlock").landlock)):
        if problem:
            print(f"({name} not measured: {problem})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
