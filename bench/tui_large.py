"""iac-tui under load, as a table: launch, a 50-diff permission request, typing while text streams, a long session.

    python bench/tui_large.py [--only launch,diffs,typing,pager,session,turncpu] [--turns 1000]

- launch: `python -m iac_tui` in a pseudo-terminal (120x40) on the real `iac-code acp` (scripted
  model), from exec to ready for input: the prompt box drawn and a key typed at that moment
  echoed; and a minimal Textual app showing one Input, measured the same way in the same run
  (alternated, median of `--repeat` runs each): the figure is the ratio. Also the ratios of exec
  to the prompt box drawn, and of the process's CPU time until ready (steadier on a loaded
  machine), and exec to the agent's session open ("new session" in the status bar).
- diffs: a foreign agent (in-process, the SDK's agent side over its memory transport) asks
  permission for one edit of 50 files of 21 lines; time from the agent sending the request to the
  question shown (the docked question up and a screen refresh done), and to the reviewer shown.
- typing: while 10,000 text chunks stream (paced at about 1,000 a second, a fast agent), 40 keys
  are typed into the prompt box; per key, the time from pressing it to its character being in
  the prompt's text (median and 95th percentile).
- pager: a command's output of 100,000 lines; from `p` on its panel to the pager showing the
  last screen.
- session: 1,000 prompt turns (a short answer and a tool call each, about 11 rows) through the
  app; the app's RSS after 100 / 250 / 500 / 1,000 turns with pruning (`--max-rows`, default
  2,500), and after 100 / 250 without (`--unpruned-turns`: an app that never prunes slows down as
  it grows). About 0.4 s a turn on an idle 2-core machine, so the 1,000 turns take ~7 minutes.
- turncpu: the app process's CPU time per turn (`time.process_time`) in two never-pruned
  sessions, one near 30 blocks and one near 300, `--cpu-turns` turns each, alternated between the
  two (a loaded machine inflates CPU time too, by minutes-long waves: alternating makes both
  sides bear the same load): the medians and their ratio (flat is 1.0: a turn's cost does not
  grow with the session). Turns are driven as a terminal drives them, not through Pilot (see
  `Session`).

The in-process agent is `tests/tui/scenario_agent.py`. Figures to compare on one machine; the
load average is printed with them (other work on the machine inflates wall times).
Nothing here asserts a threshold.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import contextlib
import fcntl
import json
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "tui"))
sys.path.insert(0, str(ROOT / "bench"))


# ----- launch -----

MINIMAL_APP = """
import sys
from textual.app import App
from textual.widgets import Input
class Minimal(App):
    def compose(self):
        yield Input(placeholder="Ask the agent")
Minimal().run()
"""


PLACEHOLDER = b"sk the agent"
"""The prompt box's placeholder as it is first drawn: its first letter is the cursor, drawn in
another style (so "Ask the agent" only shows once the cursor blinks off, up to a second later)."""


def process_cpu(pid: int) -> float:
    """The CPU seconds (user + system, all threads) process `pid` has used so far."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Launch:
    """One launch, in seconds from exec (None: not within 60 s): the prompt box drawn, a key
    typed at that moment echoed (ready for input), and the process's CPU time at that moment;
    "new session" on the screen."""

    drawn: float | None = None
    ready: float | None = None
    ready_cpu: float | None = None
    opened: float | None = None


def compile_tree(src: Path) -> None:
    """Write the bytecode of `src`'s modules, as installing a package does (Textual's was written
    when it was installed): with `PYTHONDONTWRITEBYTECODE` set, or bytecode older than the source,
    every launch compiled the app's changed modules again and the ratio measured that."""
    compileall.compile_dir(str(src), quiet=1)


def launch_once(argv: list[str], env: dict[str, str], session: bool) -> Launch:
    """Run `python argv` in a 120x40 pseudo-terminal; type a key once the prompt box shows;
    wait for its echo (and for "new session" on the screen when `session`)."""
    start = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the app, in the pseudo-terminal
        os.execve(sys.executable, [sys.executable, *argv], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    seen = b""
    run = Launch()
    mark = 0
    while time.monotonic() - start < 60:
        readable, _, _ = select.select([fd], [], [], 0.005)
        if readable:
            try:
                seen += os.read(fd, 1 << 16)
            except OSError:
                break
        if run.drawn is None and PLACEHOLDER in seen:
            run.drawn = time.monotonic() - start
            os.write(fd, b"Q")  # typed as soon as the prompt box shows
            mark = len(seen)
        if run.drawn is not None and run.ready is None and b"Q" in seen[mark:]:
            run.ready = time.monotonic() - start
            run.ready_cpu = process_cpu(pid)
        if session and run.opened is None and b"new session" in seen:
            run.opened = time.monotonic() - start
        if run.ready is not None and (run.opened is not None or not session):
            break
    os.write(fd, b"\x11")  # ctrl+q: the app stops its agent; wait for that (a run left behind would load the next)
    end = time.monotonic() + 3
    exited = False
    while not exited and time.monotonic() < end:
        exited = os.waitpid(pid, os.WNOHANG)[0] != 0
        if not exited and select.select([fd], [], [], 0.02)[0]:
            with contextlib.suppress(OSError):
                os.read(fd, 1 << 16)
    if not exited:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(fd)
    return run


def bench_launch(repeat: int) -> list[tuple[str, str]]:
    """iac-tui on the real agent and a minimal Textual app with one Input, alternated, `repeat` times each."""
    work = Path(tempfile.mkdtemp(prefix="tui-launch-"))
    script = work / "script.json"
    script.write_text(json.dumps({"turns": []}))
    env = dict(os.environ, IAC_CODE_MODEL="scripted", IAC_CODE_SCRIPT=str(script), IAC_CODE_CONFIG_DIR=str(work / "cfg"), TERM="xterm-256color", HOME=str(work))
    src = os.environ.get("TUI_BENCH_SRC", str(ROOT / "src"))  # another checkout, to compare
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    compile_tree(Path(src))
    app: list[Launch] = []
    minimal: list[Launch] = []
    for _ in range(repeat):
        app.append(launch_once(["-m", "iac_tui", str(work)], env, session=True))
        minimal.append(launch_once(["-c", MINIMAL_APP], env, session=False))

    def median(runs: list[Launch], field: str) -> float | None:
        values = [getattr(r, field) for r in runs if getattr(r, field) is not None]
        return statistics.median(values) if values else None

    figures = {field: (median(app, field), median(minimal, field)) for field in ("drawn", "ready", "ready_cpu")}
    if any(a is None or m is None for a, m in figures.values()):
        return [("launch -> ready for input", "did not get ready")]
    (drawn, drawn_min), (ready, ready_min), (cpu, cpu_min) = figures.values()
    assert drawn and drawn_min and ready and ready_min and cpu and cpu_min
    runs = lambda ts: ", ".join(f"{t.ready:.2f}" for t in ts if t.ready is not None)  # noqa: E731
    opened = median(app, "opened")
    # each app run is followed by a minimal one: their ratio leaves out the machine's drift between pairs
    pairs = [a.ready / m.ready for a, m in zip(app, minimal) if a.ready and m.ready]
    return [
        ("launch -> ready for input (prompt drawn, a key typed then echoed)", f"x{ready / ready_min:.2f} a minimal Textual app with one Input (median of the {len(pairs)} paired ratios x{statistics.median(pairs):.2f}): {ready:.2f} s (runs: {runs(app)}) vs {ready_min:.2f} s (runs: {runs(minimal)})"),
        ("  launch -> prompt box drawn", f"x{drawn / drawn_min:.2f}: {drawn:.2f} s vs {drawn_min:.2f} s"),
        ("  the app process's CPU time until ready", f"x{cpu / cpu_min:.2f}: {cpu:.2f} s vs {cpu_min:.2f} s"),
        ("  launch -> the agent's session open (\"new session\")", f"{opened:.2f} s" if opened is not None else "did not open"),
    ]


# ----- in-process runs -----


def make_app(scenario: str, work: Path):  # noqa: ANN201
    from scenario_agent import ScenarioAgent
    from tui_stream import MemoryConnection

    from iac_tui.app import IacTui

    agent = ScenarioAgent(scenario)
    project = work / "project"
    project.mkdir(parents=True, exist_ok=True)
    app = IacTui(project, animations=False, history_file=None, log_dir=work / "logs", connection_factory=lambda client: MemoryConnection(client, agent))
    return app, agent


async def until(pilot, predicate, timeout: float = 120.0, step: float = 0.001) -> None:  # noqa: ANN001
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise RuntimeError(f"timed out: {predicate}")
        await pilot.pause(step)


async def bench_diffs() -> list[tuple[str, str]]:
    from iac_tui.screens.diff_review import DiffReview
    from iac_tui.widgets.permission import PermissionQuestion

    app, agent = make_app("diffs:50:21", Path(tempfile.mkdtemp(prefix="tui-diffs-")))
    asked: list[float] = []
    original = agent.prompt

    async def prompt(session_id, prompt, **kw):  # noqa: ANN001, ANN003, ANN202
        request = agent.conn.request_permission

        async def timed(**kwargs):  # noqa: ANN003, ANN202
            asked.append(time.perf_counter())
            asked.append(time.process_time())
            return await request(**kwargs)

        agent.conn.request_permission = timed
        return await original(session_id, prompt, **kw)

    agent.prompt = prompt
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.state.session_id, step=0.02)
        await pilot.pause(2.0)  # as in use: the app has been up a moment (its start-up work is done)
        app.prompt_box.load_text("edit everything")
        await pilot.press("enter")
        question = app.query_one(PermissionQuestion)
        await until(pilot, lambda: question.current is not None and question.display)
        await app.animator.wait_until_complete()
        await pilot.pause(0)
        shown, shown_cpu = time.perf_counter() - asked[0], time.process_time() - asked[1]
        await until(pilot, lambda: isinstance(app.screen, DiffReview))
        await pilot.pause(0)
        review, review_cpu = time.perf_counter() - asked[0], time.process_time() - asked[1]
        await pilot.press("escape")
        question.choose(0)
        await until(pilot, lambda: not app.turns.busy)
    return [
        ("50-diff permission request -> question shown", f"{shown:.2f} s wall, {shown_cpu:.2f} s CPU"),
        ("  -> full-screen reviewer shown", f"{review:.2f} s wall, {review_cpu:.2f} s CPU"),
    ]


async def bench_typing(chunks: int, keys: int) -> list[tuple[str, str]]:
    """Keys are posted as the terminal driver posts them (Pilot.press would wait for an idle
    queue, which a stream never leaves); the echo is polled every millisecond."""
    from textual import events

    app, _ = make_app(f"stream:{chunks}", Path(tempfile.mkdtemp(prefix="tui-typing-")))
    latencies = []
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.state.session_id, step=0.02)
        app.prompt_box.load_text("stream please")
        await pilot.press("enter")
        await until(pilot, lambda: app.query("AgentMessage"))
        for i in range(keys):
            if not app.turns.busy:
                break
            char = "abcdefghij"[i % 10]
            before = app.prompt_box.text
            start = time.perf_counter()
            app.post_message(events.Key(char, char))
            while app.prompt_box.text == before:
                await asyncio.sleep(0.001)
            latencies.append(time.perf_counter() - start)
            await asyncio.sleep(0.1)
        streamed = len(app.query("AgentMessage").last().source.split())
        await until(pilot, lambda: not app.turns.busy, timeout=600, step=0.05)
    if not latencies:
        return [("keystroke -> echo while streaming", "stream ended before typing")]
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.95))]
    return [
        (
            f"keystroke -> echo while {chunks:,} chunks stream ({len(latencies)} keys)",
            f"median {statistics.median(latencies) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms ({streamed:,} chunks shown by the last key)",
        )
    ]


async def bench_pager(lines: int) -> list[tuple[str, str]]:
    """A command's output of `lines` lines: from `p` on its panel to the pager's first screen."""
    from iac_tui.screens.pager import Pager
    from iac_tui.widgets.tool_call import ToolCallPanel

    app, _ = make_app(f"output:{lines}", Path(tempfile.mkdtemp(prefix="tui-pager-")))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.state.session_id, step=0.02)
        app.prompt_box.load_text("build it")
        await pilot.press("enter")
        await until(pilot, lambda: not app.turns.busy and app.query(ToolCallPanel), step=0.02)
        app.query_one(ToolCallPanel).focus()
        await pilot.pause(0.2)
        start, start_cpu = time.perf_counter(), time.process_time()
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, Pager) and app.screen.view.is_vertical_scroll_end and app.screen.view.size.height > 0)
        await pilot.pause(0)
        wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return [(f"pager on {lines:,} lines of output -> its last screen shown", f"{wall:.2f} s wall, {cpu:.2f} s CPU")]


def rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class Session:
    """A session of the app on the scenario agent ("turn": a short answer and a tool call each,
    3 blocks a turn), driven as a person's terminal drives it.

    Not with Pilot's `press`/`pause`: each of those waits for every widget of the screen to
    process a callback it posts to each (`Pilot._wait_for_screen`), work a real terminal never
    causes, which grows with the widgets mounted (at 300 blocks it was most of a turn's CPU)."""

    def __init__(self, app, pilot) -> None:  # noqa: ANN001
        self.app, self.pilot = app, pilot
        self.turns = 0
        self.ended = [0]

    @classmethod
    def hook(cls, ended: list[int]):  # noqa: ANN206
        seen: weakref.WeakSet = weakref.WeakSet()  # a message is seen by every widget it bubbles through

        def hook(message) -> None:  # noqa: ANN001
            if type(message).__name__ == "TurnEnded" and message not in seen:
                seen.add(message)
                ended[0] += 1

        return hook

    async def turn(self) -> float:
        """One prompt turn; the process's CPU seconds it took (until its last blocks are drawn)."""
        from textual import events

        self.turns += 1
        start = time.process_time()
        self.app.prompt_box.load_text(f"question {self.turns}")
        self.app.post_message(events.Key("enter", "\r"))  # as the terminal driver posts it
        while self.ended[0] < self.turns:
            await asyncio.sleep(0.002)
        await asyncio.sleep(0.05)  # the turn's last blocks drawn (the screen refreshes at 60 a second)
        return time.process_time() - start


async def session(run) -> None:  # noqa: ANN001
    """Start the app (never-pruned unless IAC_TUI_MAX_ROWS says) and `await run(Session)`."""
    app, _ = make_app("turn", Path(tempfile.mkdtemp(prefix="tui-session-")))
    ended = [0]
    async with app.run_test(size=(120, 40), message_hook=Session.hook(ended)) as pilot:
        await until(pilot, lambda: app.state.session_id, step=0.02)
        one = Session(app, pilot)
        one.ended = ended
        await run(one)


async def session_rss(turns: int) -> dict:
    """Run `turns` prompt turns; the RSS and blocks after 100 / 250 / 500 / 1,000 turns."""
    import gc

    marks = {m for m in (100, 250, 500, 1000, turns) if m <= turns}
    out = {}

    async def run(one: Session) -> None:
        for turn in range(1, turns + 1):
            await one.turn()
            if turn in marks:
                await one.pilot.pause(0.05)
                gc.collect()
                out[turn] = (rss_mib(), len(one.app.conversation.blocks))

    await session(run)
    return out


async def turn_server(turns: int) -> None:
    """Grow a session by `turns` turns, print "ready", then per line read from stdin run one
    turn and print its CPU seconds and the blocks before it (the parent alternates two of these)."""
    loop = asyncio.get_running_loop()

    async def run(one: Session) -> None:
        for _ in range(turns):
            await one.turn()
        print("ready", flush=True)
        while (await loop.run_in_executor(None, sys.stdin.readline)).strip():
            blocks = len(one.app.conversation.blocks)
            print(json.dumps([blocks, await one.turn()]), flush=True)

    await session(run)


def bench_turn_cpu(measured: int) -> list[tuple[str, str]]:
    """CPU per turn at about 30 and about 300 blocks (a turn adds 3: the prompt, the answer, the
    tool call): two never-pruned sessions grown to 22 and 292 blocks, then `measured` turns in
    each, alternated (so that the machine's load weighs on both alike); the medians and their ratio."""
    env = dict(os.environ, IAC_TUI_MAX_ROWS="100000000")
    servers = [subprocess.Popen([sys.executable, __file__, "--turn-server", str(grown)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env) for grown in (7, 97)]
    try:
        for server in servers:
            assert server.stdout is not None and server.stdout.readline().strip() == "ready", "a turn server failed"
        figures: list[list[tuple[int, float]]] = [[], []]
        for _ in range(measured):
            for server, out in zip(servers, figures):
                assert server.stdin is not None and server.stdout is not None
                server.stdin.write("turn\n")
                server.stdin.flush()
                blocks, cpu = json.loads(server.stdout.readline())
                out.append((blocks, cpu))
    finally:
        for server in servers:
            if server.stdin:
                server.stdin.close()
            server.wait()
    (b30, c30), (b300, c300) = [(round(statistics.median(b for b, _ in f)), statistics.median(c for _, c in f)) for f in figures]
    return [("CPU per turn (app process, never pruned)", f"{c30 * 1000:.0f} ms at {b30} blocks, {c300 * 1000:.0f} ms at {b300} blocks: x{c300 / c30:.2f} ({measured} turns each, alternated)")]


def bench_session(turns: int, max_rows: int, unpruned_turns: int) -> list[tuple[str, str]]:
    rows = []
    runs = ((f"pruned at {max_rows:,} rows", str(max_rows), turns), ("never pruned", "100000000", min(turns, unpruned_turns)))
    for label, limit, count in runs:
        env = dict(os.environ)
        if limit:
            env["IAC_TUI_MAX_ROWS"] = limit
        out = subprocess.run([sys.executable, __file__, "--one-session", str(count)], capture_output=True, text=True, env=env, check=False)
        if out.returncode != 0:
            rows.append((f"{count:,}-turn session, {label}", "failed: " + out.stderr.strip().splitlines()[-1]))
            continue
        marks = json.loads(out.stdout.strip().splitlines()[-1])
        figures = ", ".join(f"{int(k):,}: {v[0]:.0f} MiB/{v[1]} blocks" for k, v in sorted(marks.items(), key=lambda kv: int(kv[0])))
        rows.append((f"RSS after N turns, {label}", figures))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="launch,diffs,typing,pager,session,turncpu")
    parser.add_argument("--cpu-turns", type=int, default=9, help="turns measured in each session of the turncpu run")
    parser.add_argument("--repeat", type=int, default=5, help="launch runs of each app (median shown)")
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--max-rows", type=int, default=2500, help="IAC_TUI_MAX_ROWS of the pruned session run")
    parser.add_argument("--unpruned-turns", type=int, default=250, help="turns of the never-pruned run (it slows down as it grows)")
    parser.add_argument("--one-session", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--turn-server", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.turn_server is not None:
        asyncio.run(turn_server(args.turn_server))
        return 0
    if args.one_session:
        print(json.dumps(asyncio.run(session_rss(args.one_session))))
        return 0
    wanted = set(args.only.split(","))
    rows: list[tuple[str, str]] = []
    if "launch" in wanted:
        rows += bench_launch(args.repeat)
    if "diffs" in wanted:
        rows += asyncio.run(bench_diffs())
    if "typing" in wanted:
        rows += asyncio.run(bench_typing(10_000, 40))
    if "pager" in wanted:
        rows += asyncio.run(bench_pager(100_000))
    if "session" in wanted:
        rows += bench_session(args.turns, args.max_rows, args.unpruned_turns)
    if "turncpu" in wanted:
        rows += bench_turn_cpu(args.cpu_turns)
    width = max(len(r[0]) for r in rows)
    print(f"iac-tui under load ({os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f})")
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
