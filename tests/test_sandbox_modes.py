"""The sandbox in each mode and where there is none, end to end (PROTOCOL.md, Command sandbox;
issue 17): `plan` runs commands sandboxed with the project read-only; `sandboxed_commands` runs
sandboxed commands unasked and still asks for one leaving the sandbox; `bypass_permissions` approves
a command outside the sandbox unasked; a command in the editor's terminal is sandboxed the same
way; without a sandbox the agent says so once (`initialize` `_meta`, agent text), `plan` refuses
commands and saved rules are exact command lines; `iac-code doctor` says which backend works."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from harness import RecordingClient, spawn_agent, spawn_raw, write_script
from iac_code.tools.sandbox import detect
from sandbox_rig import DONE, SSH_KEY, Place, backend, bash, loopback, output, results  # noqa: F401 - fixtures
from test_client_fs_terminal_e2e import ALL, EditorClient, start

NO_SANDBOX = {"IAC_CODE_SANDBOX": "bwrap", "PATH": str(Path(sys.executable).parent)}
"""Asked for bubblewrap, the agent finds none on its PATH: no sandbox."""


async def test_plan_mode_runs_commands_with_the_project_read_only(tmp_path, backend):
    place = Place(tmp_path)
    before = (place.project / "main.tf").read_text()
    script = [bash("cat main.tf"), bash("echo changed > main.tf"),
              bash("echo x > main.tf", sandbox=False, reason="edit it"), DONE]  # fmt: skip
    client = RecordingClient(default_answer="allow_once")
    async with spawn_agent(place.project, script=script, client=client, env=place.env(backend, "plan")) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "look")).stop_reason == "end_turn"
        read, write, escalate = results(agent, sid)
    assert len(client.permissions) == 2  # plan still asks for commands; the escalation is refused unasked
    assert read.status == "completed" and "null_resource" in output(read)
    assert write.status == "failed" and "Blocked by the sandbox?" in output(write)
    assert escalate.status == "failed" and "Plan mode is read-only" in output(escalate)
    assert (place.project / "main.tf").read_text() == before


async def test_sandboxed_commands_mode_runs_sandboxed_commands_unasked_and_asks_to_leave(tmp_path):
    found = detect("auto")
    if found.backend == "none":
        pytest.skip(f"no sandbox works here: {found.describe()}")
    place = Place(tmp_path)
    (place.project / "modules" / "net").mkdir(parents=True)
    (place.project / "modules" / "net" / "main.tf").write_text("# net\n")
    script = [bash("rm -r modules; echo changed > main.tf"), bash("echo x > .git/config"),
              bash("echo left > main.tf", sandbox=False, reason="to write it"), DONE]  # fmt: skip
    client = RecordingClient(default_answer="reject_once")
    env = place.env("auto", "sandboxed_commands")
    async with spawn_agent(place.project, script=script, client=client, env=env) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "change it")).stop_reason == "end_turn"
        change, git_config, escalate = results(agent, sid)
    assert change.status == "completed" and (place.project / "main.tf").read_text() == "changed\n"
    assert not (place.project / "modules").exists()  # `rm -r` has no savable rule: the sandbox is what holds it
    assert git_config.status == "failed" and "Blocked by the sandbox?" in output(git_config)
    (asked,) = client.permissions  # only the command leaving the sandbox, and it did not run
    assert "outside the sandbox" in asked.tool_call.title
    assert escalate.status == "failed" and (place.project / "main.tf").read_text() == "changed\n"


async def test_bypass_runs_a_command_outside_the_sandbox_without_asking(tmp_path, backend, loopback):
    place = Place(tmp_path)
    fetch = bash(f"curl -sS --max-time 10 http://127.0.0.1:{loopback.port}/", sandbox=False, reason="the registry")
    async with spawn_agent(place.project, script=[fetch, DONE], env=place.env(backend)) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "fetch")).stop_reason == "end_turn"
        (done,) = results(agent, sid)
    assert agent.client.permissions == []
    assert done.status == "completed" and "loopback-ok" in output(done) and loopback.connections == 1


async def test_a_command_in_the_editors_terminal_is_sandboxed(tmp_path, backend):
    place = Place(tmp_path)
    before = place.outside_files()
    command = (f"echo pwned > {place.outside}; echo hook > .git/hooks/pre-commit; cat {place.home}/.ssh/id_rsa; "
               "cat .env; echo fine > notes.txt")  # fmt: skip
    client = EditorClient()
    async with spawn_agent(place.project, script=[bash(command), DONE], client=client, initialize=False,
                           env=place.env(backend)) as agent:  # fmt: skip
        sid = await start(agent, ALL, mode="bypass_permissions")
        assert (await agent.prompt(sid, "run")).stop_reason == "end_turn"
    (create,) = [c for name, c in client.calls if name == "create"]
    assert create["command"] == ("bwrap" if backend == "bwrap" else sys.executable)
    assert create["env"]["AWS_SECRET_ACCESS_KEY"] == "" and create["env"]["TMPDIR"]
    assert place.outside_files() == before
    assert (place.project / "notes.txt").read_text() == "fine\n"
    shown = "".join(t.output.decode(errors="replace") for t in client.terminals.values())
    assert SSH_KEY not in shown and "SECRET=" not in shown


async def test_without_a_sandbox_the_agent_says_so_once_and_rules_are_exact(tmp_path):
    place = Place(tmp_path)
    env = {**place.env("bwrap", "default"), **NO_SANDBOX}
    client = RecordingClient(answers=["allow_always"])
    script = [bash("git status --short"), DONE, bash("git status --short"), bash("git status"), DONE]
    async with spawn_agent(place.project, script=script, client=client, env=env) as agent:
        meta = agent.raw_result("agentCapabilities")["_meta"]["iac-code/sandbox"]
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "one")).stop_reason == "end_turn"
        assert (await agent.prompt(sid, "two")).stop_reason == "end_turn"
        text = agent.text(sid)
    assert meta == {"backend": "none", "message": "commands are not sandboxed here: install bubblewrap"}
    assert text.count("Commands are not sandboxed here: install bubblewrap") == 1
    first = {o.option_id: o.name for o in client.permissions[0].options}
    assert first["allow_always"] == "Always allow exactly `git status --short`"
    assert [p.tool_call.raw_input["command"] for p in client.permissions] == ["git status --short", "git status"]


async def test_without_a_sandbox_plan_mode_refuses_commands(tmp_path):
    place = Place(tmp_path)
    env = {**place.env("bwrap", "plan"), **NO_SANDBOX}
    async with spawn_agent(place.project, script=[bash("cat main.tf"), DONE], env=env) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "look")).stop_reason == "end_turn"
        (done,) = results(agent, sid)
    assert agent.client.permissions == [] and done.status == "failed" and "Plan mode is read-only" in output(done)


async def test_initialize_says_which_sandbox_runs_commands(tmp_path, backend):
    async with spawn_raw(tmp_path / "proj", env={"IAC_CODE_SANDBOX": backend}) as agent:
        meta = (await agent.initialize())["_meta"]["iac-code/sandbox"]
    name = {"bwrap": "bubblewrap", "landlock": "Landlock"}[backend]
    assert meta == {"backend": backend, "message": f"commands run in a {name} sandbox"}


def test_doctor_says_which_backend_works_and_why_another_does_not(tmp_path):
    def doctor(**env: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "iac_code", "doctor"], env={"IAC_CODE_CONFIG_DIR": str(tmp_path), **env},
                              capture_output=True, text=True, timeout=60, check=False)  # fmt: skip

    missing = doctor(**NO_SANDBOX)
    assert missing.returncode == 1
    assert "in use: none" in missing.stdout and "bwrap: bwrap is not installed" in missing.stdout
    assert "apt-get install bubblewrap" in missing.stdout
    off = doctor(IAC_CODE_SANDBOX="off", PATH=NO_SANDBOX["PATH"])
    assert off.returncode == 1 and "IAC_CODE_SANDBOX=off" in off.stdout


def test_headless_allow_bash_keeps_commands_in_the_sandbox(tmp_path):
    place = Place(tmp_path)
    outside = bash("echo escaped > ../escaped.txt", sandbox=False, reason="write beside the project")
    script = write_script(tmp_path / "script.json", [outside, DONE])
    env = {**place.env("auto", "default"), "IAC_CODE_MODEL": "scripted", "IAC_CODE_SCRIPT": str(script),
           "IAC_CODE_CONFIG_DIR": str(tmp_path / "cfg")}  # fmt: skip

    def run(allow: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "iac_code", "-p", "go", "--allow", allow], cwd=place.project,
                              env=env, capture_output=True, text=True, timeout=120, check=False)  # fmt: skip

    refused = run("bash")
    assert refused.returncode == 0 and not (place.root / "escaped.txt").exists()
    assert "[failed] Run `echo escaped > ../escaped.txt` outside the sandbox" in refused.stderr
    allowed = run("bash,bash-outside-sandbox")
    assert allowed.returncode == 0 and (place.root / "escaped.txt").read_text() == "escaped\n"
