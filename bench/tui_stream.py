"""Streaming benchmark of iac-tui: N `agent_message_chunk` updates through the app, as a table.

    python bench/tui_stream.py [--feed memory|agent] [--sizes 2500,5000,10000] [--repeat 3] [--flush-interval S]

Feeds:

- `memory` (default): an in-process ACP agent (the SDK's `AgentSideConnection` over its in-memory
  transport) streams N chunks. Everything on the app's side is the real code path: the SDK's
  `ClientSideConnection`, the app's `TuiClient`, one Textual message per chunk, the
  conversation, streaming Markdown. Only the subprocess and its pipes are left out, so the
  figures are the app's own cost.
- `agent`: the real `iac-code acp` subprocess on the scripted model, answering with a text of N
  words (the scripted model streams one word per chunk). Adds the agent's cost and the pipes.

The text is Markdown as an agent writes it: paragraphs of about 60 words, a fenced code block
every ~600 chunks. Each size runs in a fresh Python process (so memory figures do not mix),
headless at 120x40, `--repeat` times (the median is shown). Reported per size: wall time from
pressing enter to the turn's end rendered, cost per chunk, RSS growth and peak RSS of the app
process, and the number of Markdown blocks mounted. Linear cost shows as a flat per-chunk
column; the last line compares the largest size's per-chunk cost with the smallest's.
`--flush-interval 0` turns off the app's gathering of chunks (`StreamingMarkdown.FLUSH_INTERVAL`),
to show what it saves. It is a measurement to read, not a test: nothing here asserts a threshold.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import weakref
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


# ----- the text -----


def make_chunks(count: int) -> list[str]:
    """`count` chunks of Markdown, each matching `\\S+\\s*` (how the scripted model splits text)."""
    words = "the module declares a bucket with versioning and a lifecycle rule that expires old logs after ninety days".split()
    code = ['resource "aws_s3_bucket" "logs" {\n', "bucket = \"acme-logs\"\n", "}\n"]
    chunks: list[str] = []
    code_blocks = 0
    i = 0
    while len(chunks) < count:
        n = len(chunks)
        if n // 600 > code_blocks and chunks[-1].endswith("\n\n"):  # a code block every ~600 chunks, after a paragraph
            code_blocks += 1
            chunks.append("```hcl\n")
            for line in code:
                chunks.extend(piece + (" " if not piece.endswith("\n") else "") for piece in line.split(" ") if piece)
            chunks.append("```\n\n")
            continue
        word = words[i % len(words)]
        i += 1
        chunks.append(word + ("\n\n" if i % 60 == 0 else " "))
    return chunks[:count]


# ----- an in-process agent -----


class StreamingAgent:
    """A minimal ACP agent: one session; each prompt streams the given chunks and ends the turn."""

    def __init__(self, chunks: list[str]) -> None:
        self.chunks = chunks
        self.conn = None

    def on_connect(self, conn) -> None:  # noqa: ANN001
        self.conn = conn

    async def initialize(self, protocol_version: int, **_):  # noqa: ANN003, ANN201
        from acp.schema import AgentCapabilities, Implementation, InitializeResponse

        return InitializeResponse(protocol_version=1, agent_capabilities=AgentCapabilities(), agent_info=Implementation(name="bench-agent", version="0"))

    async def new_session(self, cwd: str, **_):  # noqa: ANN003, ANN201
        from acp.schema import NewSessionResponse, SessionConfigOptionSelect, SessionConfigSelectOption

        option = SessionConfigOptionSelect(
            type="select", id="model", name="Model", category="model", current_value="bench",
            options=[SessionConfigSelectOption(value="bench", name="Bench")],
        )
        return NewSessionResponse(session_id="bench-session", config_options=[option])

    async def prompt(self, session_id: str, prompt, **_):  # noqa: ANN001, ANN003, ANN201
        from acp import helpers
        from acp.schema import PromptResponse

        for chunk in self.chunks:
            await self.conn.session_update(session_id=session_id, update=helpers.update_agent_message_text(chunk))
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **_) -> None:  # noqa: ANN003
        return None


class MemoryConnection:
    """`AgentConnection`'s interface over the SDK's in-memory transport, with an in-process agent
    (`agent_impl`, e.g. `StreamingAgent`); `agent` is the app's side of the connection, as in
    `AgentConnection`."""

    def __init__(self, client, agent_impl) -> None:  # noqa: ANN001
        from iac_tui.stderr_log import StderrLog

        self.client = client
        self.agent_impl = agent_impl
        self.agent = None
        self.process = None
        self.stderr = StderrLog(None)

    @property
    def alive(self) -> bool:
        return self.agent is not None

    async def shutdown(self) -> None:
        """Nothing to stop: the agent lives in this process."""

    async def run(self, on_ready):  # noqa: ANN001, ANN201
        from acp import PROTOCOL_VERSION
        from acp._transport import memory_transport_pair
        from acp.agent.connection import AgentSideConnection
        from acp.client.connection import ClientSideConnection

        from iac_tui.connection import AgentExit, client_capabilities

        agent_side, client_side = memory_transport_pair()
        AgentSideConnection(self.agent_impl, agent_side, listening=True)
        self.agent = ClientSideConnection(self.client, client_side)
        response = await self.agent.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=client_capabilities())
        await on_ready(response)
        await asyncio.Event().wait()  # until the app stops
        return AgentExit("stopped", 0)


# ----- one measurement (in its own process) -----


def rss_kib() -> int:
    """Current resident set size of this process in KiB."""
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


async def measure(feed: str, count: int) -> dict:
    from iac_tui.app import IacTui
    from iac_tui.messages import MessageChunk, TurnEnded

    chunks = make_chunks(count)
    work = Path(tempfile.mkdtemp(prefix="tui-bench-"))
    project = work / "project"
    project.mkdir()
    if feed == "memory":
        agent = StreamingAgent(chunks)
        app = IacTui(project, animations=False, history_file=None, log_dir=work / "logs", connection_factory=lambda client: MemoryConnection(client, agent))
    else:
        script = work / "script.json"
        script.write_text(json.dumps({"turns": [{"blocks": [{"type": "text", "text": "".join(chunks)}]}]}))
        env = {"IAC_CODE_MODEL": "scripted", "IAC_CODE_SCRIPT": str(script), "IAC_CODE_CONFIG_DIR": str(work / "config")}
        app = IacTui(project, env=env, animations=False, history_file=None, log_dir=work / "logs")
    chunks_seen: weakref.WeakSet = weakref.WeakSet()  # a message is seen by every widget it bubbles through
    received = 0
    ended = False

    def hook(message) -> None:  # noqa: ANN001
        nonlocal received, ended
        if isinstance(message, MessageChunk) and message not in chunks_seen:
            chunks_seen.add(message)
            received += 1
        elif isinstance(message, TurnEnded):
            ended = True

    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        while app.state.session_id is None:
            if app.agents.state == "stopped":
                raise RuntimeError("the agent stopped")
            await pilot.pause(0.02)
        await pilot.pause(0.2)
        before = rss_kib()
        app.prompt_box.load_text("stream please")
        start = time.perf_counter()
        await pilot.press("enter")  # (returns once the app is idle: a fast stream may be over by then)
        while not ended or app.turns.busy:
            await pilot.pause(0.005)
        elapsed = time.perf_counter() - start
        after = rss_kib()
        blocks = len(app.query("MarkdownBlock"))
        source = app.query("AgentMessage").last().source
    return {
        "chunks": count,
        "received": received,
        "seconds": elapsed,
        "rss_growth_kib": after - before,
        "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "blocks": blocks,
        "text_ok": source == "".join(chunks),
    }


# ----- the table -----


def run_one(feed: str, count: int, flush_interval: float | None) -> dict:
    extra = [] if flush_interval is None else ["--flush-interval", str(flush_interval)]
    out = subprocess.run(
        [sys.executable, __file__, "--feed", feed, "--one", str(count), *extra], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise SystemExit(f"measurement failed ({count} chunks):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--feed", choices=("memory", "agent"), default="memory")
    parser.add_argument("--sizes", default="2500,5000,10000", help="comma-separated chunk counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (median shown)")
    parser.add_argument("--flush-interval", type=float, help="seconds StreamingMarkdown gathers chunks for (default: as shipped; 0: none)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        if args.flush_interval is not None:
            from iac_tui.widgets import streaming

            streaming.FLUSH_INTERVAL = args.flush_interval
        print(json.dumps(asyncio.run(measure(args.feed, args.one))))
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"iac-tui streaming benchmark: feed={args.feed}, {args.repeat} run(s) per size, median shown, headless 120x40")
    print(f"{'chunks':>8} {'time s':>8} {'µs/chunk':>9} {'RSS +MiB':>9} {'peak MiB':>9} {'md blocks':>10} {'text':>5}")
    per_chunk = {}
    for size in sizes:
        runs = [run_one(args.feed, size, args.flush_interval) for _ in range(args.repeat)]
        seconds = statistics.median(r["seconds"] for r in runs)
        growth = statistics.median(r["rss_growth_kib"] for r in runs) / 1024
        peak = max(r["peak_rss_kib"] for r in runs) / 1024
        ok = all(r["text_ok"] and r["received"] == size for r in runs)
        per_chunk[size] = seconds / size * 1e6
        print(f"{size:>8} {seconds:>8.2f} {per_chunk[size]:>9.1f} {growth:>9.1f} {peak:>9.1f} {runs[0]['blocks']:>10} {'ok' if ok else 'BAD':>5}")
    if len(sizes) > 1:
        small, large = min(sizes), max(sizes)
        print(f"per-chunk cost at {large} vs {small} chunks: x{per_chunk[large] / per_chunk[small]:.2f} (1.00 = linear)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
