"""Legitimate work is not broken by the command sandbox, with each backend that works here
(issue 17): git's read commands, `terraform fmt`, `iac-code validate`, searches, a `make` that
writes build output, the demo; and a command that needs the network fails in the sandbox with
the hint, then asks to run outside it with a reason, is approved and succeeds."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from harness import RecordingClient, spawn_agent
from sandbox_rig import CACHE_HOME, DONE, Place, backend, bash, loopback, output, results  # noqa: F401 - fixtures

REPO = Path(__file__).resolve().parents[1]

UNFORMATTED = 'resource "null_resource" "x" {\n  triggers = {\n   a = "1"\n      bb = "2"\n  }\n}\n'
MAKEFILE = "build/out.txt: main.tf\n\tmkdir -p build\n\tcp main.tf build/out.txt\n\techo built > build/log\n"


async def run_all(place: Place, backend: str, commands: list[str], mode: str = "bypass_permissions"):
    async with spawn_agent(place.project, script=[*map(bash, commands), DONE], env=place.env(backend, mode)) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "work")).stop_reason == "end_turn"
        return agent, results(agent, sid)


async def test_git_reads_searches_validate_and_make_work(tmp_path, backend):
    place = Place(tmp_path)
    (place.project / "main.tf").write_text('resource "null_resource" "x" {\n  triggers = { a = "2" }\n}\n')
    (place.project / "Makefile").write_text(MAKEFILE)
    commands = [
        "git status --short && git diff --stat && git log --oneline",
        "grep -rn null_resource . && rg -n null_resource && find . -name '*.tf' -not -path './.git/*'",
        "iac-code validate .",
        "make",
        "echo scratch > $TMPDIR/scratch && cat $TMPDIR/scratch",
    ]
    agent, done = await run_all(place, backend, commands)
    assert [u.status for u in done] == ["completed"] * len(commands), [output(u) for u in done]
    assert "M main.tf" in output(done[0]) and "first" in output(done[0])
    assert output(done[1]).count("null_resource") >= 2 and "./main.tf" in output(done[1])
    assert (place.project / "build" / "out.txt").read_text() == (place.project / "main.tf").read_text()
    assert (place.project / "build" / "log").read_text() == "built\n"
    assert "scratch" in output(done[4])
    assert agent.client.permissions == []


async def test_terraform_fmt_rewrites_the_project(tmp_path, backend):
    place = Place(tmp_path)
    (place.project / "main.tf").write_text(UNFORMATTED)
    if shutil.which("terraform"):
        command = "terraform fmt"
    else:  # a stand-in that rewrites a file in the project the way `terraform fmt` does
        fake = place.root / "bin" / "terraform"
        fake.parent.mkdir()
        fake.write_text(f"#!{sys.executable}\nimport pathlib\np = pathlib.Path('main.tf')\n"
                        "p.write_text('\\n'.join(l.strip() for l in p.read_text().splitlines()))\n")
        fake.chmod(0o755)
        command = f"{fake} fmt"
    _, done = await run_all(place, backend, [command])
    assert done[0].status == "completed", output(done[0])
    assert (place.project / "main.tf").read_text() != UNFORMATTED


async def test_a_network_command_asks_to_leave_the_sandbox_and_then_works(tmp_path, backend, loopback):
    place = Place(tmp_path)
    fetch = f"curl -sS --max-time 10 http://127.0.0.1:{loopback.port}/"
    reason = "fetch the module index from the local registry"
    script = [bash(fetch), bash(fetch, sandbox=False, reason=reason), DONE]
    client = RecordingClient(default_answer="allow_once")
    async with spawn_agent(place.project, script=script, client=client, env=place.env(backend, "default")) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "fetch")).stop_reason == "end_turn"
        first, second = results(agent, sid)
    assert first.status == "failed" and "Blocked by the sandbox?" in output(first) and "no network" in output(first), output(first)
    assert second.status == "completed" and "loopback-ok" in output(second)
    assert loopback.connections == 1
    sandboxed, outside = client.permissions
    assert "outside the sandbox" not in sandboxed.tool_call.title
    assert outside.tool_call.title.endswith("outside the sandbox")
    question = "\n".join(c.content.text for c in outside.tool_call.content if c.type == "content")
    assert "Runs outside the sandbox" in question and reason in question
    names = {o.option_id: o.name for o in outside.options}
    assert names["allow_once"] == "Allow once"
    assert all(name.endswith("outside the sandbox") for kind, name in names.items() if kind.endswith("always"))


def test_the_demo_plays_in_the_sandbox(tmp_path, backend):
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CACHE_HOME": CACHE_HOME,
           "IAC_CODE_SANDBOX": backend, "IAC_CODE_SCRIPT_CHUNK_DELAY_MS": "0"}  # the script's pauses are for people  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "iac_code", "demo", "--headless"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Demo verified" in done.stdout and "Blocked by the sandbox" not in done.stdout
