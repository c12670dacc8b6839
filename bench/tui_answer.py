"""A long answer through iac-tui, as a person sees it: when each line is drawn vs sent, and typing while it streams.

    python bench/tui_answer.py [--rate 200] [--chunk 20] [--lines 5000] [--keys-every 0.25] [--keys-jitter 0.8]

An ACP agent (this file with `--agent`, a separate process on the ACP SDK) answers the first
prompt with a Markdown text of about `--lines` lines: 40 headings, 30 fenced code blocks of 20 to
120 lines (HCL, Python, YAML, JSON, shell), prose between them. It sends it in `--chunk`-character
`agent_message_chunk`s at `--rate` a second (the defaults: 20 characters at 200/s, about 4,000
characters a second, ~40 s), on a fixed schedule: chunk i is due at start + i/rate.

`python -m iac_tui --agent "…"` runs in a pseudo-terminal of 120x40, as in a terminal window. Every
line of the answer carries a unique marker (`Q<line>Q`); this bench reads what the app writes to
the terminal and notes when each marker first appears (drawn). While the answer streams it types a
key every `--keys-every` seconds (`--keys-jitter`: at uneven intervals, as a person types) into
the prompt box and notes when the prompt's text, with that key, is written to the terminal (echo).

Printed: the send time (first to last chunk due), the drawn time (first chunk due to last line
drawn) and their ratio; the lag of lines behind their chunk (median, p95, max); keystroke -> echo
(median, p95, max, keys never echoed within 5 s); the load average before and after. A ratio of
1.0 means the app keeps up. Also printed: the median lag in each tenth of the answer (a lag that
grows along the answer is a cost that grows with its length) and the app's CPU time.
Before the stream, `--idle-keys` keys (digits, at intervals drawn the same way) are typed into
the idle app and their echo measured the same way: the floor, in the same run, that the echo
during the stream is set against (seconds differ between machines; the ratio less).
`--cpu-share F` runs the app (and the agent it starts) in a cgroup allowed F of one CPU in
10-ms periods: a burst of work longer than F x 10 ms takes about 1/F times as long, as on a
slower machine (it needs root and the cgroup cpu controller, v1 or v2; the bench, which
measures, runs outside it).
`--src DIR` runs another checkout's `iac_tui` (to compare before and after);
`TUI_ANSWER_PYSPY=FILE` records a py-spy profile of the app (raw collapsed stacks) while it
streams. Nothing here asserts a threshold.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import fcntl
import json
import os
import pty
import random
import re
import select
import shlex
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# ----- the answer -----

LANGS = ("hcl", "python", "yaml", "json", "bash")
WORDS = (
    "the module declares a bucket with versioning and a lifecycle rule that expires old logs after ninety days "
    "while the network stack peers two VPCs and routes private subnets through one NAT gateway per zone"
).split()


def code_line(lang: str, n: int, i: int) -> str:
    if lang == "hcl":
        return f'  setting_{i:03d} = "value-{i}" # Q{n}Q'
    if lang == "python":
        return f"    total_{i} = compute(items[{i}], limit={i * 3})  # Q{n}Q"
    if lang == "yaml":
        return f"  key_{i}: value-{i}  # Q{n}Q"
    if lang == "json":
        return f'  "key_{i}": "Q{n}Q",'
    return f"echo step {i} && run --index {i}  # Q{n}Q"


def make_answer(lines: int = 5000, headings: int = 40, fences: int = 30) -> str:
    """The answer: `lines` lines, each with its marker Q<line number>Q (1-based; fence lines and
    blank lines have none)."""
    sizes = [20 + (k * 37) % 101 for k in range(fences)]  # 20..120 lines
    out: list[str] = []
    fences_left = list(range(fences))
    per_section = fences / headings
    word = 0
    for section in range(headings):
        out.append(f"## Section {section + 1} Q{len(out) + 1}Q")
        out.append("")
        budget = (lines - len(out)) // (headings - section)  # lines for this section
        start = len(out)
        owed = int((section + 1) * per_section) - (fences - len(fences_left))
        while len(out) - start < budget:
            for _ in range(4):  # a paragraph of 4 lines
                text = " ".join(WORDS[(word + k) % len(WORDS)] for k in range(5))
                word += 5
                out.append(f"{text} Q{len(out) + 1}Q")
            out.append("")
            if owed > 0 and fences_left:
                lang = LANGS[fences_left[0] % len(LANGS)]
                size = sizes[fences_left.pop(0)]
                owed -= 1
                out.append(f"```{lang}")
                out.extend(code_line(lang, len(out) + 1, i) for i in range(size))
                out.append("```")
                out.append("")
    return "\n".join(out) + "\n"


def chunks_of(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


# ----- the agent (its own process) -----


class AnswerAgent:
    """Answers each prompt with the text, paced; writes each chunk's due and sent times to `times`."""

    def __init__(self, text: str, chunk: int, rate: float, times: Path) -> None:
        self.chunks = chunks_of(text, chunk)
        self.rate = rate
        self.times = times

    def on_connect(self, conn) -> None:  # noqa: ANN001
        self.conn = conn

    async def initialize(self, protocol_version: int, **_):  # noqa: ANN003, ANN201
        from acp.schema import AgentCapabilities, Implementation, InitializeResponse

        return InitializeResponse(protocol_version=1, agent_capabilities=AgentCapabilities(), agent_info=Implementation(name="answer-agent", version="0"))

    async def new_session(self, cwd: str, **_):  # noqa: ANN003, ANN201
        from acp.schema import NewSessionResponse

        return NewSessionResponse(session_id="answer-1")

    async def prompt(self, session_id: str, prompt, **_):  # noqa: ANN001, ANN003, ANN201
        from acp import helpers
        from acp.schema import PromptResponse

        start = time.monotonic()
        due, sent = [], []
        for i, chunk in enumerate(self.chunks):
            at = start + i / self.rate
            delay = at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            await self.conn.session_update(session_id=session_id, update=helpers.update_agent_message_text(chunk))
            due.append(at)
            sent.append(time.monotonic())
        self.times.write_text(json.dumps({"due": due, "sent": sent}))
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **_) -> None:  # noqa: ANN003
        return None


def run_agent(args: argparse.Namespace) -> int:
    import acp

    agent = AnswerAgent(make_answer(args.lines), args.chunk, args.rate, Path(args.times))
    asyncio.run(acp.run_agent(agent))
    return 0


# ----- the app in a pseudo-terminal -----

KEYS = "abcdefghijklmnopqrstuvwxyz"


class Terminal:
    """The app in a pty: what it wrote, and when (monotonic seconds) each marker first showed."""

    def __init__(self, argv: list[str], env: dict[str, str], cols: int = 120, rows: int = 40) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(argv[0], argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.tail = ""  # the last bytes read, so that a marker split between reads is found
        self.markers: dict[int, float] = {}
        self.wanted: tuple[str, float] | None = None  # the prompt text awaited, since when
        self.found: float | None = None
        self.seen_text = ""  # everything, decoded (only searched for readiness)

    def pump(self, timeout: float) -> None:
        readable, _, _ = select.select([self.fd], [], [], timeout)
        if not readable:
            return
        try:
            data = os.read(self.fd, 1 << 20)
        except OSError:
            return
        now = time.monotonic()
        text = self.tail + data.decode("utf-8", "replace")
        for match in re.finditer(r"Q(\d+)Q", text):
            self.markers.setdefault(int(match.group(1)), now)
        if self.wanted is not None and self.found is None and self.wanted[0] in text:
            self.found = now
        if len(self.seen_text) < 200_000:
            self.seen_text += text

        self.tail = text[-200:]

    def wait_for(self, needle: str, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if needle in self.seen_text:
                return True
            self.pump(0.02)
        return False

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def close(self) -> None:
        try:
            self.write(b"\x11")  # ctrl+q
            end = time.monotonic() + 3
            while time.monotonic() < end:
                self.pump(0.05)
                if os.waitpid(self.pid, os.WNOHANG)[0]:
                    break
            else:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
        except (OSError, ChildProcessError):
            pass
        os.close(self.fd)


def app_cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far (its threads included)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


def cpu_limited(argv: list[str], share: float) -> tuple[list[str], Path]:
    """`argv` run in a new cgroup allowed `share` of one CPU (quota per 10-ms period), and the
    cgroup's directory (removed by the caller once the processes in it have exited). Raises
    SystemExit, saying why, where no cgroup can be made (not root, no cpu controller)."""
    period = 10_000  # microseconds
    quota = max(1_000, int(share * period))
    name = f"tui-answer-{os.getpid()}"
    try:
        if Path("/sys/fs/cgroup/cgroup.controllers").exists():  # cgroup v2
            root = Path("/sys/fs/cgroup")
            if "cpu" not in (root / "cgroup.subtree_control").read_text().split():
                (root / "cgroup.subtree_control").write_text("+cpu")
            group = root / name
            group.mkdir()
            (group / "cpu.max").write_text(f"{quota} {period}")
        else:  # cgroup v1
            group = Path("/sys/fs/cgroup/cpu") / name
            group.mkdir()
            (group / "cpu.cfs_period_us").write_text(str(period))
            (group / "cpu.cfs_quota_us").write_text(str(quota))
    except OSError as error:
        raise SystemExit(f"--cpu-share needs a cgroup with the cpu controller that this user may create: {error}") from None
    return ["/bin/sh", "-c", f'echo $$ > {shlex.quote(str(group / "cgroup.procs"))} && exec "$@"', "sh", *argv], group


def type_key(term: Terminal, text: str, key: str) -> None:
    """Type `key` into the prompt box, whose text is then `text`: the terminal now awaits the
    end of `text` (`term.wanted`, with the time typed; `term.found` once it shows)."""
    term.found = None
    term.wanted = (text[-12:], time.monotonic())
    term.write(key.encode())


def type_and_wait(term: Terminal, text: str, key: str) -> float | None:
    """`type_key`, then seconds until the terminal shows the end of `text`, or None if not
    within 5 s."""
    type_key(term, text, key)
    assert term.wanted is not None
    while time.monotonic() - term.wanted[1] < 5:
        term.pump(0.002)
        if term.found is not None:
            found, term.wanted = term.found - term.wanted[1], None
            return found
    term.wanted = None
    return None


def measure(args: argparse.Namespace) -> dict:
    text = make_answer(args.lines)
    work = Path(tempfile.mkdtemp(prefix="tui-answer-"))
    (work / "project").mkdir()
    times = work / "times.json"
    agent = shlex.join([sys.executable, __file__, "--agent", "--times", str(times), "--lines", str(args.lines), "--chunk", str(args.chunk), "--rate", str(args.rate)])
    env = dict(os.environ, TERM="xterm-256color", IAC_TUI_MAX_ROWS=str(args.max_rows), HOME=str(work))
    env["PYTHONPATH"] = str(args.src) + os.pathsep + env.get("PYTHONPATH", "")
    compileall.compile_dir(str(args.src), quiet=1)  # its bytecode, as an installed package has it
    argv = [sys.executable, "-m", "iac_tui", str(work / "project"), "--agent", agent]
    group = None
    if args.cpu_share:
        argv, group = cpu_limited(argv, args.cpu_share)
    term = Terminal(argv, env)
    load_before = os.getloadavg()[0]
    try:
        if not term.wait_for("new session", 60):
            raise SystemExit("the app did not get ready within 60 s")
        term.pump(0.5)
        jitter = random.Random(7)  # the same intervals in every run (the stream's)

        def interval(rng: random.Random = jitter) -> float:
            return args.keys_every * (1 + args.keys_jitter * (2 * rng.random() - 1))

        idle: list[float] = []  # the floor: keys typed while nothing streams
        prompt = "stream "
        if args.idle_keys:
            type_and_wait(term, prompt, prompt)
            idle_jitter = random.Random(8)
            for i in range(args.idle_keys):
                time.sleep(interval(idle_jitter))
                prompt += str(i % 10)
                echo = type_and_wait(term, prompt, prompt[-1])
                if echo is not None:
                    idle.append(echo)
        else:
            term.write(prompt.encode())
        profiler = None
        if os.environ.get("TUI_ANSWER_PYSPY"):  # profile the app while it streams: a collapsed-stack file
            import subprocess

            profiler = subprocess.Popen(["py-spy", "record", "-p", str(term.pid), "-f", "raw", "-o", os.environ["TUI_ANSWER_PYSPY"], "-r", "50"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cpu_start = app_cpu_seconds(term.pid)
        term.write(b"\r")
        last_line = text.count("\n")
        last_marked = max(int(m.group(1)) for m in re.finditer(r"Q(\d+)Q", text))
        echoes: list[float] = []
        missed = 0
        typed = "ZZ"  # a prefix, so that the awaited prompt text is unique on the screen
        term.write(typed.encode())
        next_key = time.monotonic() + 1.0
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline:
            term.pump(0.002)
            now = time.monotonic()
            if term.wanted is not None:
                if term.found is not None:
                    echoes.append(term.found - term.wanted[1])
                    term.wanted = None
                elif now - term.wanted[1] > 5:
                    missed += 1
                    term.wanted = None
            streaming = not times.exists()
            if term.wanted is None and streaming and now >= next_key and len(typed) < 100:
                typed += KEYS[len(typed) % len(KEYS)]
                type_key(term, typed, typed[-1])
                next_key = now + interval()
            if not streaming:
                if last_marked in term.markers:
                    break
        term.pump(0.2)
        cpu = app_cpu_seconds(term.pid) - cpu_start
        if profiler is not None:
            profiler.send_signal(signal.SIGINT)
            profiler.wait()
    finally:
        term.close()
        if group is not None:
            try:
                group.rmdir()
            except OSError:
                pass
    sent = json.loads(times.read_text()) if times.exists() else None
    if sent is None:
        raise SystemExit("the agent did not finish sending within the timeout")
    due, sent_at = sent["due"], sent["sent"]
    # the chunk holding the end of each line's marker
    chunk_of_line: dict[int, int] = {}
    offset = 0
    for number, line in enumerate(text.split("\n"), start=1):
        m = re.search(r"Q(\d+)Q", line)
        if m:
            chunk_of_line[number] = (offset + m.end() - 1) // args.chunk
        offset += len(line) + 1
    # a line is shown once it or a later one was drawn (lines can scroll past between two frames)
    shown: dict[int, float] = {}
    earliest = float("inf")
    for n in sorted(chunk_of_line, reverse=True):
        earliest = min(earliest, term.markers.get(n, float("inf")))
        shown[n] = earliest
    lags = [shown[n] - due[c] for n, c in chunk_of_line.items() if shown[n] != float("inf")]
    tenths = []  # the median lag in each tenth of the answer (growth along the answer = cost growing with its length)
    ordered = sorted(n for n in chunk_of_line if shown[n] != float("inf"))
    for k in range(10):
        part = ordered[len(ordered) * k // 10 : len(ordered) * (k + 1) // 10]
        if part:
            tenths.append(statistics.median(shown[n] - due[chunk_of_line[n]] for n in part))
    drawn_last = max(term.markers.values()) if term.markers else float("nan")
    send_time = due[-1] - due[0]
    return {
        "chars": len(text),
        "lines": last_line,
        "chunks": len(due),
        "send_s": send_time,
        "sent_late_s": max(s - d for s, d in zip(sent_at, due)),
        "drawn_s": drawn_last - due[0],
        "ratio": (drawn_last - due[0]) / send_time,
        "lines_seen": len([n for n in chunk_of_line if n in term.markers]),
        "all_shown": all(t != float("inf") for t in shown.values()),
        "lines_marked": len(chunk_of_line),
        "lag_median_s": statistics.median(lags) if lags else float("nan"),
        "lag_p95_s": pct(lags, 0.95) if lags else float("nan"),
        "lag_max_s": max(lags) if lags else float("nan"),
        "lag_tenths_s": tenths,
        "echo_n": len(echoes),
        "echo_missed": missed,
        "echo_median_ms": statistics.median(echoes) * 1000 if echoes else float("nan"),
        "echo_p95_ms": pct(echoes, 0.95) * 1000 if echoes else float("nan"),
        "echo_max_ms": max(echoes) * 1000 if echoes else float("nan"),
        "idle_echo_n": len(idle),
        "idle_echo_median_ms": statistics.median(idle) * 1000 if idle else float("nan"),
        "idle_echo_p95_ms": pct(idle, 0.95) * 1000 if idle else float("nan"),
        "cpu_share": args.cpu_share,
        "app_cpu_s": cpu,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--chunk", type=int, default=20, help="characters per chunk")
    parser.add_argument("--rate", type=float, default=200, help="chunks a second")
    parser.add_argument("--keys-every", type=float, default=0.25, help="seconds between typed keys")
    parser.add_argument("--keys-jitter", type=float, default=0.0, help="each interval drawn uniformly within +- this fraction of --keys-every (0.8: 0.05-0.45 s), as a person types")
    parser.add_argument("--idle-keys", type=int, default=20, help="keys typed into the idle app before the stream (the echo's floor)")
    parser.add_argument("--cpu-share", type=float, default=0.0, help="run the app in a cgroup allowed this share of one CPU (e.g. 0.55: a ~1.8x slower machine); needs root")
    parser.add_argument("--max-rows", type=int, default=2500, help="IAC_TUI_MAX_ROWS of the app")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the source tree whose iac_tui runs (e.g. another checkout's, to compare)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--agent", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--times", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.agent:
        return run_agent(args)
    r = measure(args)
    if args.json:
        print(json.dumps(r))
        return 0
    share = f"; the app limited to {args.cpu_share:g} of a CPU" if args.cpu_share else ""
    print(f"iac-tui long answer ({os.cpu_count()} cores; load average {r['load_before']:.1f} before, {r['load_after']:.1f} after{share}), pty 120x40")
    print(f"  answer: {r['lines']:,} lines, {r['chars']:,} characters, {r['chunks']:,} chunks of {args.chunk} at {args.rate:.0f}/s")
    print(f"  send time {r['send_s']:.1f} s (the agent fell behind its schedule by up to {r['sent_late_s']:.2f} s)")
    print(f"  drawn time {r['drawn_s']:.1f} s: x{r['ratio']:.2f} the send time ({r['lines_seen']:,} of {r['lines_marked']:,} lines drawn; the others scrolled past between two frames)")
    print(f"  the app's CPU time: {r['app_cpu_s']:.1f} s ({r['app_cpu_s'] / r['send_s']:.2f} s per second of the stream)")
    print(f"  line drawn after its chunk was due: median {r['lag_median_s']:.2f} s, p95 {r['lag_p95_s']:.2f} s, max {r['lag_max_s']:.2f} s")
    print(f"  median lag in each tenth of the answer: {' '.join(f'{t:.2f}' for t in r['lag_tenths_s'])} s")
    print(f"  keystroke -> echo ({r['echo_n']} keys, {r['echo_missed']} not echoed within 5 s): median {r['echo_median_ms']:.0f} ms, p95 {r['echo_p95_ms']:.0f} ms, max {r['echo_max_ms']:.0f} ms")
    if r["idle_echo_n"]:
        print(f"  keystroke -> echo in the idle app before it ({r['idle_echo_n']} keys): median {r['idle_echo_median_ms']:.0f} ms, p95 {r['idle_echo_p95_ms']:.0f} ms; during the stream p95 x{r['echo_p95_ms'] / r['idle_echo_p95_ms']:.1f} that")
    return 0


if __name__ == "__main__":
    sys.exit(main())
