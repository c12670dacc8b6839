"""The `iac-tui` command line."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from iac_tui import cli
from iac_tui.cli import build_parser, main
from tui_support import wait_until


def test_parser_reads_every_option(tmp_path):
    args = build_parser().parse_args([str(tmp_path), "--agent", "my-agent --acp", "--model", "m", "--mode", "plan", "--resume", "abc"])
    assert (args.path, args.agent, args.model, args.mode, args.resume, args.continue_last) == (str(tmp_path), "my-agent --acp", "m", "plan", "abc", False)
    assert build_parser().parse_args([]).path == "."
    assert build_parser().parse_args(["--continue"]).continue_last


def test_resume_and_continue_exclude_each_other(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--resume", "x", "--continue"])


def test_bad_path_and_bad_agent_exit_2(tmp_path, capsys):
    assert main([str(tmp_path / "missing")]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert main([str(tmp_path), "--agent", "'unterminated"]) == 2


def test_module_entry_point_prints_help():
    out = subprocess.run([sys.executable, "-m", "iac_tui", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert "--agent" in out.stdout and "--continue" in out.stdout


async def test_the_agent_starts_once_the_prompt_box_is_drawn_and_before_the_sdk_loads(tmp_path, monkeypatch):
    """The agent's process starts after the first paint (started with the app, it competed with
    the app's start-up for the cores) and before the SDK's import (~1.3 s), so that the agent
    boots meanwhile (`bench/tui_large.py --only launch`)."""
    import iac_tui.process as process_module
    from iac_tui import sdk
    from iac_tui.app import IacTui
    from iac_tui.launch import AgentCommand

    events: list[object] = []
    real_start, real_load = process_module.AgentProcess.start, sdk.load

    def start(*args, **kwargs):
        events.append(("agent started", app.prompt_box.region.height > 0))
        return real_start(*args, **kwargs)

    def load() -> None:
        events.append("sdk loading")
        real_load()

    monkeypatch.setattr(process_module.AgentProcess, "start", start)
    monkeypatch.setattr(sdk, "load", load)
    agent = AgentCommand((sys.executable, "-c", "import time; time.sleep(30)"))
    app = IacTui(tmp_path, agent=agent, animations=False, history_file=None, log_dir=tmp_path / "logs")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: len(events) >= 2, what="the agent's start and the SDK's load")
    assert events[:2] == [("agent started", True), "sdk loading"]


def test_the_app_is_drawn_without_importing_the_acp_sdk_or_the_blocks_widgets():
    """Importing the ACP SDK's schema takes ~1.3 s, and the conversation blocks' Markdown,
    code highlighting and diff views ~0.1-0.2 s more: the app's first paint waits for none of
    them (they load behind it, `iac_tui.sdk.load`)."""
    later = ("acp.schema", "acp.core", "pydantic", "textual.widgets._markdown", "markdown_it", "textual_diff_view", "pygments", "textual.highlight")
    code = f"import sys, iac_tui.cli, iac_tui.app; print(sorted(m for m in {later!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_an_import_of_the_sdk_elsewhere_gets_the_same_classes():
    """The app's stand-in for `acp` must not make an `import acp.schema` elsewhere run the schema
    twice: the connection validated prompts against one copy of the classes and the prompt's
    blocks were built from the other ("Input should be a valid dictionary or instance of
    TextContentBlock", seen running tests/test_mcp.py with tests/tui)."""
    code = (
        "import sys, iac_tui.app; from iac_tui.sdk import acp as stand_in; from acp.schema import TextContentBlock; import acp; "
        "from iac_tui.mentions import build_prompt; from pathlib import Path; "
        "acp.schema.PromptRequest(session_id='s', prompt=build_prompt('hi', Path('.'))[0]); "
        "print(acp.PromptRequest is sys.modules['acp.schema'].PromptRequest, stand_in.schema is sys.modules['acp.schema'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True True"


async def test_the_sdk_starts_loading_once_the_prompt_box_is_drawn(tmp_path, monkeypatch):
    """The SDK's import (~1.3 s, in a thread) shares the interpreter with the app: started
    before the first paint it slowed the paint by about a third (`bench/tui_large.py --only
    launch`), so the app starts the agent once its screen is drawn."""
    from iac_tui import sdk
    from iac_tui.app import IacTui

    regions = []

    def load() -> None:  # what the screen showed when the load began; then no agent (none is needed here)
        regions.append(app.prompt_box.region)
        raise RuntimeError("no SDK in this test")

    monkeypatch.setattr(sdk, "load", load)
    app = IacTui(tmp_path, animations=False, history_file=None, log_dir=tmp_path / "logs")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: regions, what="the SDK's load")
        await pilot.press(*"hi")
        assert app.prompt_box.text == "hi"
    assert regions[0].height > 0 and regions[0].width > 0


async def test_the_prompt_box_takes_keys_while_the_sdk_loads(ws, monkeypatch):
    """The SDK loads behind the drawn app (in a thread): typing works before the agent is connected."""
    import threading

    from iac_tui import sdk

    release = threading.Event()
    real_load = sdk.load

    def slow_load() -> None:
        release.wait(30)
        real_load()

    monkeypatch.setattr(sdk, "load", slow_load)
    app = ws.app([{"blocks": [{"type": "text", "text": "Hello."}]}])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"plan")
        assert app.prompt_box.text == "plan"
        assert app.agents.state == "starting" and app.agents.agent is None
        release.set()
        from tui_support import ready

        await ready(pilot)
        assert app.prompt_box.text == "plan"


RECORDER = """
import json, os, sys, time
tui = open(f"/proc/{os.getppid()}/environ", "rb").read().decode(errors="replace")
out = {"tui_block": tui, "agent_key": os.environ.get("ANTHROPIC_API_KEY"), "fd_var": "IAC_TUI_CREDENTIALS_FD" in os.environ}
open(sys.argv[1] + ".tmp", "w").write(json.dumps(out))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(60)
"""


def test_the_apps_environment_block_holds_no_credentials_and_the_agent_gets_them(tmp_path):
    """The app moves the key out of its environment block at start (`iac_tui.handoff`), as the
    agent does; the agent it starts still receives it. The agent here records what it sees."""
    import json
    import os
    import signal
    import time

    (tmp_path / "recorder.py").write_text(RECORDER)
    seen = tmp_path / "seen.json"
    key = "sk-ant-FAKE-tui-handoff-0123456789"
    agent = f"{sys.executable} {tmp_path / 'recorder.py'} {seen}"
    env = {**os.environ, "ANTHROPIC_API_KEY": key, "TERM": "dumb"}
    tui = subprocess.Popen([sys.executable, "-m", "iac_tui", str(tmp_path), "--agent", agent], env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)  # fmt: skip
    try:
        for _ in range(600):  # the agent is started once the app's first screen is drawn
            if seen.exists() or tui.poll() is not None:
                break
            time.sleep(0.05)
        found = json.loads(seen.read_text())
    finally:
        os.killpg(tui.pid, signal.SIGKILL)
        tui.wait()
    assert key not in found["tui_block"] and "ANTHROPIC_API_KEY" not in found["tui_block"]
    assert found["agent_key"] == key and not found["fd_var"]


def test_the_app_sets_textuals_frame_cap_for_itself_and_leaves_the_environment_as_the_user_gave_it():
    """`cli.set_frame_rate` (called by `main` before Textual loads): Textual's frame cap is
    `FRAMES_PER_SECOND`, `TEXTUAL_FPS` is not passed on to the agent; a `TEXTUAL_FPS` of the
    user's own is kept."""
    code = (
        "import os; from iac_tui.cli import set_frame_rate; set_frame_rate(); import textual.constants, textual.screen; "
        "print(textual.constants.MAX_FPS, round(1 / textual.screen.UPDATE_PERIOD), os.environ.get('TEXTUAL_FPS'))"
    )
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(cli.FRAMES_PER_SECOND), str(cli.FRAMES_PER_SECOND), "None"]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env={**env, "TEXTUAL_FPS": "30"})
    assert out.stdout.split() == ["30", "30", "30"]


async def test_textuals_frame_timer_waits_an_extra_interval_after_a_long_tick():
    """Why `cli.FRAMES_PER_SECOND` is above Textual's 60: after a tick longer than its interval,
    Textual 8.2's timer skips to the grid point after the next one (`count = int(elapsed /
    interval + 1)`, then `next = start + (count + 1) * interval`). Driven by a clock of its own,
    not timed. If this fails, Textual changed its timer: measure the echo again
    (`bench/tui_answer.py --keys-jitter 0.8`) before keeping the higher frame cap."""
    from textual import timer as timer_module
    from textual.app import App

    clock = {"now": 1000.0}

    async def sleep(seconds: float) -> None:
        clock["now"] += max(0.0, seconds)
        await asyncio.sleep(0)

    ticks: list[float] = []
    interval = 1.0

    def tick() -> None:
        ticks.append(clock["now"])
        clock["now"] += 1.25 * interval  # each tick lasts longer than the interval

    app = App()
    async with app.run_test():
        mp = pytest.MonkeyPatch()
        mp.setattr(timer_module._time, "get_time", lambda: clock["now"])
        mp.setattr(timer_module, "sleep", sleep)
        try:
            timer = app.set_interval(interval, tick)
            for _ in range(200):
                if len(ticks) >= 3:
                    break
                await asyncio.sleep(0)
            timer.stop()
        finally:
            mp.undo()
    start = ticks[0] - interval  # the grid: start + k * interval
    grid = [round((t - start) / interval, 6) for t in ticks[:3]]
    # a fixed grid would tick at 1, 3, 5 (the first grid point after each tick's end); Textual 8.2 at 1, 4, 7
    assert grid == [1.0, 4.0, 7.0], f"Textual's timer ticked at grid points {grid}: see this test's docstring"
