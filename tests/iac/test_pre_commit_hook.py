"""`.pre-commit-hooks.yaml` works where people already run linters: pre-commit runs the hook of
this repository's HEAD commit on a small project (a broken Terraform file fails the commit, the
fixed one passes), configured as a user would (`repo:` this repository, `rev:` HEAD).

That is what `pre-commit try-repo REPO iac-code-validate --ref HEAD` does, except that try-repo
installs the hook's environment (this package and its dependencies) into a temporary store every
time; `pre-commit run` keeps it under `PRE_COMMIT_HOME`, here `~/.cache/iac-code/pre-commit` (or
`$IAC_CODE_PRE_COMMIT_HOME`), once per commit (`pre-commit gc` then drops the earlier commits'
environments). With pre-commit-uv (in the test extra) the environment is installed by uv: ~16 s
with uv's cache warm, against ~95 s with pip, on this machine. Without git, or where the
environment cannot be installed (no registry), the test is skipped and says why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
HOOK = "iac-code-validate"


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


@pytest.mark.timeout(1200)
def test_the_hook_fails_a_broken_file_and_passes_the_fix(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    head = git("rev-parse", "HEAD", cwd=ROOT)
    if head.returncode != 0 or git("cat-file", "-e", "HEAD:.pre-commit-hooks.yaml", cwd=ROOT).returncode != 0:
        pytest.skip("the repository's HEAD has no .pre-commit-hooks.yaml (commit it to test it)")
    home = Path(os.environ.get("IAC_CODE_PRE_COMMIT_HOME") or Path.home() / ".cache" / "iac-code" / "pre-commit")
    project = tmp_path / "project"
    project.mkdir()
    (project / "main.tf").write_text('output "region" {\n  value = var.region\n}\n')
    (project / "values.yaml").write_text("replicas: 2\n")
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {head.stdout.strip()}\n    hooks:\n      - id: {HOOK}\n")
    for args in (("init", "-q"), ("add", "."), ("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "start")):
        assert git(*args, cwd=project).returncode == 0
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", "IAC_CODE_CONFIG_DIR": str(tmp_path / "conf")}

    def hook() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", HOOK, "--all-files"], cwd=project, env=env,
                              capture_output=True, text=True, timeout=1100, check=False)

    broken = hook()
    if broken.returncode not in (0, 1) or "An unexpected error" in broken.stdout + broken.stderr:
        pytest.skip(f"pre-commit could not install the hook's environment: {(broken.stdout + broken.stderr)[-600:]}")
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "main.tf:2:11 error terraform.undeclared-variable" in broken.stdout, broken.stdout
    (project / "main.tf").write_text('variable "region" {\n  type = string\n}\n\noutput "region" {\n  value = var.region\n}\n')
    fixed = hook()
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "Passed" in fixed.stdout
    # environments of earlier commits (their projects are gone) are dropped: one is kept, not one per commit
    subprocess.run([sys.executable, "-m", "pre_commit", "gc"], cwd=project, env=env, capture_output=True, timeout=300, check=False)
