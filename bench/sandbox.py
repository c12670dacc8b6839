"""What the command sandbox costs a command (prints a table).

For a copy of the example project (a git repository with a `.env`, so the policy has paths to
protect and hide), each round runs `/bin/bash -c true` unsandboxed, then under each backend that
works here, as the agent runs it: the policy computed for this command (`Sandbox.policy`: the walk
of the project), the argv wrapped, the process started and waited for. Rounds alternate the
variants so a drift of the machine's speed hits them alike; the table gives the median wall time
of each and its excess over the unsandboxed run in the same rounds, and the policy walk alone.

Usage: python bench/sandbox.py [--rounds 40]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

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
            times: dict[str, list[float]] = {"none": [], **{b: [] for b in backends}}
            walks: list[float] = []

            def plain() -> None:
                subprocess.run(COMMAND, cwd=cwd, check=True)

            def sandboxed(sandbox: Sandbox):
                return lambda: subprocess.run(sandbox.wrap(COMMAND, cwd, config), cwd=cwd, check=True)

            for b in backends:  # warm-up
                sandboxed(sandboxes[b])()
            for _ in range(args.rounds):
                times["none"].append(timed(plain))
                for b in backends:
                    times[b].append(timed(sandboxed(sandboxes[b])))
                walks.append(timed(lambda: sandboxes[backends[0]].policy(cwd, config)) if backends else 0.0)
        finally:
            remove_space(space)
    floor = statistics.median(times["none"])
    print(f"load average {os.getloadavg()[0]:.2f}, {args.rounds} rounds, project: {EXAMPLE.name} (+ .git, .env)")
    print(f"{'variant':<28}{'median ms':>10}{'over none ms':>14}{'ratio':>8}")
    print(f"{'bash -c true, no sandbox':<28}{floor * 1000:>10.1f}{'':>14}{1:>8.2f}")
    for b in backends:
        median = statistics.median(times[b])
        print(f"{'bash -c true, ' + b:<28}{median * 1000:>10.1f}{(median - floor) * 1000:>14.1f}{median / floor:>8.2f}")
    if backends:
        print(f"{'policy walk alone':<28}{statistics.median(walks) * 1000:>10.1f}")
    for name, problem in (("bwrap", detect("bwrap").bwrap), ("landlock", detect("landlock").landlock)):
        if problem:
            print(f"({name} not measured: {problem})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
