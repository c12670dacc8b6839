"""`iac-code demo`: the agent plays a realistic task on a fresh copy of the example project.

The offline scripted model (`script.json` beside this file) asks for a third vswitch in another
zone and environment tags on every resource: it lists, reads and greps the files, publishes a
plan, edits with diffs (each edit asks permission in the terminal app, and its result carries the
problems the edit introduced, if any), runs `iac-code validate .` in `bash` (offline: references,
CIDRs, the ROS template, `terraform fmt -check` when Terraform is installed) and summarises. Every
tool really runs on the copy; nothing touches a cloud account.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DEMO_PROMPT = (
    "In the Terraform configuration, add a third vswitch in another zone "
    "and tag every resource with the environment."
)
SCRIPT = Path(__file__).with_name("script.json")
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "alicloud-network"
APPROVED_TOOLS = {"edit_file", "write_file", "bash"}


def prepare(root: Path) -> tuple[Path, dict[str, str]]:
    """Copy the example project under `root`.

    Returns the project directory and the environment variables that run the agent on the
    scripted model with a config dir of its own (the demo leaves `~/.iac-code` alone).
    Raises FileNotFoundError when the example project is not there (not a source checkout).
    """
    if not EXAMPLE.is_dir():
        raise FileNotFoundError(f"the example project is missing: {EXAMPLE} (run the demo from a source checkout)")
    project = root / "alicloud-network"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns(".terraform", "*.tfstate*"))
    env = {
        "IAC_CODE_MODEL": "scripted",
        "IAC_CODE_SCRIPT": str(SCRIPT),
        "IAC_CODE_CONFIG_DIR": str(root / "config"),
        # the validation step runs `iac-code validate`: the one installed beside this interpreter
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    return project, env


TAGGED_TYPES = ("alicloud_vpc", "alicloud_vswitch", "alicloud_security_group")


def verify(project: Path) -> list[str]:
    """What is wrong with the project after the demo task (empty when the edits landed, every
    taggable resource has `tags`, and `iac-code validate` finds no error)."""
    from iac_code.iac import report
    from iac_code.iac.engine import Options, validate
    from iac_code.iac.terraform.hcl import parse

    problems = []
    variables = (project / "terraform" / "variables.tf").read_text(encoding="utf-8")
    if "app-c" not in variables:
        problems.append("terraform/variables.tf has no third vswitch (app-c)")
    for path in sorted((project / "terraform").rglob("*.tf")):
        for block in parse(path.read_text(encoding="utf-8")).blocks:
            if block.type == "resource" and block.labels[0] in TAGGED_TYPES and block.attr("tags") is None:
                problems.append(f"{path.relative_to(project)}: {'.'.join(block.labels)} has no tags")
    errors = [d for d in validate([project], Options(terraform_cli=False)) if d.severity == "error"]
    if errors:
        problems.append("iac-code validate found errors:\n" + report.text(errors, project))
    return problems


def _headless(project: Path) -> int:
    from iac_code.config import load_settings
    from iac_code.headless import run_prompt

    print(f"$ iac-code -p {shlex.quote(DEMO_PROMPT)}   # in {project}\n")
    status = asyncio.run(
        run_prompt(
            DEMO_PROMPT,
            cwd=str(project),
            settings=load_settings(),
            allow=APPROVED_TOOLS,
            out=sys.stdout,
            err=sys.stdout,
        )
    )
    problems = verify(project)
    print()
    if status != 0 or problems:
        print("Demo FAILED:", *problems, sep="\n- ")
        return 1
    print("Demo verified: the edits landed and the project validates.")
    return 0


def run_demo(headless: bool = False, keep: bool = False) -> int:
    """Run the demo in the terminal app, or headless (auto-approving, printing the transcript).

    Returns the exit status: in headless mode 0 only if the edits landed and validate.
    """
    root = Path(tempfile.mkdtemp(prefix="iac-code-demo-"))
    try:
        try:
            project, env = prepare(root)
        except FileNotFoundError as exc:
            print(f"iac-code demo: {exc}", file=sys.stderr)
            return 1
        os.environ.update(env)
        if headless:
            return _headless(project)
        command = [sys.executable, "-m", "iac_tui", str(project), "--prompt", DEMO_PROMPT]
        return subprocess.run(command, check=False).returncode
    finally:
        if keep:
            print(f"The demo project is kept in {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
