"""The app's client terminals (`terminal/*`): real pseudo-terminals, confined to the project."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import acp
import pytest
from acp.schema import EnvVariable

from iac_tui.client import TuiClient
from iac_tui.connection import client_capabilities
from iac_tui.terminals import trim_front


@pytest.fixture
def client(tmp_path: Path) -> TuiClient:
    posted: list = []
    client = TuiClient(posted.append, tmp_path)
    client.posted = posted  # type: ignore[attr-defined]
    return client


def test_the_app_offers_terminals_and_files() -> None:
    caps = client_capabilities()
    assert caps.terminal is True
    assert caps.fs.read_text_file and caps.fs.write_text_file


async def test_a_command_runs_on_a_tty_in_the_project_with_its_env(client: TuiClient, tmp_path: Path) -> None:
    created = await client.create_terminal(
        "s", "sh", ["-c", "printf '%s|' \"$GREETING\" \"$(pwd)\"; test -t 1 && echo tty; read answer || echo no-input; exit 3"],
        env=[EnvVariable(name="GREETING", value="héllo")],
    )
    done = await asyncio.wait_for(client.wait_for_terminal_exit("s", created.terminal_id), 10)
    assert (done.exit_code, done.signal) == (3, None)
    out = await client.terminal_output("s", created.terminal_id)
    assert out.output.replace("\r\n", "\n") == f"héllo|{os.path.realpath(tmp_path)}|tty\nno-input\n"
    assert out.truncated is False
    assert out.exit_status is not None and out.exit_status.exit_code == 3
    # the output and the exit are reported to the app for the live view (coalesced)
    for _ in range(100):
        reports = [msg.terminal for msg in client.posted if getattr(msg, "terminal", None) is not None]  # type: ignore[attr-defined]
        if reports and reports[-1].exit_status is not None:
            break
        await asyncio.sleep(0.05)
    assert reports and reports[-1].id == created.terminal_id and reports[-1].exit_status.exit_code == 3
    await client.release_terminal("s", created.terminal_id)


async def test_output_keeps_the_tail_within_the_byte_limit_on_a_character_boundary(client: TuiClient) -> None:
    created = await client.create_terminal("s", "sh", ["-c", "printf 'aaaa'; printf 'é%.0s' $(seq 50); printf END"], output_byte_limit=9)
    await asyncio.wait_for(client.wait_for_terminal_exit("s", created.terminal_id), 10)
    out = await client.terminal_output("s", created.terminal_id)
    assert out.truncated is True
    assert out.output.endswith("END")
    assert len(out.output.encode()) <= 9
    assert "\ufffd" not in out.output
    await client.release_terminal("s", created.terminal_id)


def test_trim_front_never_starts_inside_a_character() -> None:
    data = "aé€😀z".encode()
    for limit in range(len(data) + 1):
        kept, dropped = trim_front(data, limit)
        assert len(kept) <= limit and dropped == (limit < len(data))
        kept.decode("utf-8")  # raises if cut inside a character
        assert data.endswith(kept)


async def test_kill_stops_the_whole_process_group_and_output_stays_until_release(client: TuiClient, tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    created = await client.create_terminal("s", "sh", ["-c", f"sleep 60 & echo $! > {pidfile}; echo started; wait"])
    tid = created.terminal_id
    for _ in range(200):
        if pidfile.exists() and pidfile.read_text().strip() and "started" in (await client.terminal_output("s", tid)).output:
            break
        await asyncio.sleep(0.05)
    child = int(pidfile.read_text())
    await client.kill_terminal("s", tid)
    done = await asyncio.wait_for(client.wait_for_terminal_exit("s", tid), 10)
    assert done.signal == "SIGKILL" and done.exit_code is None
    assert "started" in (await client.terminal_output("s", tid)).output
    for _ in range(100):
        if not _alive(child):
            break
        await asyncio.sleep(0.05)
    assert not _alive(child)
    await client.release_terminal("s", tid)
    with pytest.raises(acp.RequestError) as err:
        await client.terminal_output("s", tid)
    assert err.value.code == -32002


async def test_release_of_a_running_command_kills_it(client: TuiClient, tmp_path: Path) -> None:
    pidfile = tmp_path / "cmd.pid"
    created = await client.create_terminal("s", "sh", ["-c", f"echo $$ > {pidfile}; exec sleep 60"])
    for _ in range(200):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        await asyncio.sleep(0.05)
    pid = int(pidfile.read_text())
    assert _alive(pid)
    await client.release_terminal("s", created.terminal_id)
    assert not _alive(pid)
    with pytest.raises(acp.RequestError):
        await client.wait_for_terminal_exit("s", created.terminal_id)


async def test_cwd_outside_the_project_and_missing_programs_are_invalid_params(client: TuiClient, tmp_path: Path) -> None:
    with pytest.raises(acp.RequestError) as outside:
        await client.create_terminal("s", "true", cwd=str(tmp_path.parent))
    assert outside.value.code == -32602
    with pytest.raises(acp.RequestError) as missing:
        await client.create_terminal("s", "no-such-program-iac-tui")
    assert missing.value.code == -32602
    assert "no-such-program-iac-tui" in str(missing.value.data)


async def test_close_releases_every_terminal(client: TuiClient) -> None:
    created = await client.create_terminal("s", "sleep", ["60"])
    await client.terminals.close()
    assert created.terminal_id not in client.terminals


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
