"""Benchmarks of the agent, printed as a table: `python bench/run.py [--quick]`.

What is measured (each on the offline scripted model with no chunk delay, agent spawned as a
real `iac-code acp` subprocess and driven with the ACP SDK's client, like an editor would):

- cold start: spawn -> `initialize` answered, and -> first `session/new` answered;
- per-turn overhead: a turn with one short text reply; a turn with 10 `read_file` calls;
- streaming: N text chunks through ACP to the client: chunks per second, peak RSS of both processes;
- sessions: `session/load` replaying a 5,000-message history; `session/list` over 1,000 sessions;
- import time of the agent's modules (`python -X importtime`), and whether `anthropic` is imported;
- shutdown with a stdio MCP server (tests/mcp_probe_server.py) in the session: SIGTERM, or stdin
  closed -> the agent process has exited (PROTOCOL.md, Process lifetime: within 2 s);
- then the terminal app's streaming benchmark (`bench/tui_stream.py`), unless `--no-tui`.

Timings are medians of several runs on this machine; they are figures to compare, not limits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import acp
from acp.schema import ClientCapabilities

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from iac_code.core.conversation import (  # noqa: E402
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    user_text,
)
from iac_code.session_store.store import SessionMeta, SessionStore  # noqa: E402


class QuietClient:
    """Counts updates; approves everything."""

    def __init__(self) -> None:
        self.chunks = 0

    async def session_update(self, session_id, update, **_):  # noqa: ANN001, ANN201
        if getattr(update, "session_update", "") == "agent_message_chunk":
            self.chunks += 1

    async def request_permission(self, session_id, tool_call, options, **_):  # noqa: ANN001, ANN201
        from acp.schema import AllowedOutcome, RequestPermissionResponse

        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id="allow_once"))


def _env(root: Path, script: dict) -> dict[str, str]:
    path = root / f"script-{time.monotonic_ns()}.json"
    path.write_text(json.dumps(script))
    return {"IAC_CODE_MODEL": "scripted", "IAC_CODE_SCRIPT": str(path), "IAC_CODE_CONFIG_DIR": str(root / "cfg")}


async def _spawn(root: Path, script: dict, client: QuietClient | None = None):  # noqa: ANN202
    return acp.spawn_agent_process(
        client or QuietClient(),
        sys.executable,
        "-m",
        "iac_code",
        "acp",
        env=_env(root, script),
        cwd=str(root),
        transport_kwargs={"stderr": asyncio.subprocess.DEVNULL, "limit": 50 << 20},
    )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def cold_start(root: Path) -> tuple[float, float, float]:
    """Seconds to `initialize` answered, to `session/new` answered, and the agent's CPU seconds
    for its whole life (start-up, the two requests, shutdown)."""
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    async with await _spawn(root, {"turns": []}) as (conn, _proc):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        t1 = time.perf_counter()
        await conn.new_session(cwd=str(root), mcp_servers=[])
        t2 = time.perf_counter()
    return t1 - t0, t2 - t0, _children_cpu() - cpu0


async def shutdown_with_mcp(root: Path, how: str) -> float:
    """Seconds from SIGTERM (`how="SIGTERM"`) or closing stdin to the agent's exit, with a live
    stdio MCP server (tests/mcp_probe_server.py) in its session."""
    probe = REPO / "tests" / "mcp_probe_server.py"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "iac_code", "acp", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, cwd=str(root), env={**os.environ, **_env(root, {"turns": []})})
    assert proc.stdin is not None and proc.stdout is not None

    async def ask(rid: int, method: str, params: dict) -> None:
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode() + b"\n")
        while json.loads(await proc.stdout.readline()).get("id") != rid:
            pass

    await ask(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    server = {"name": "probe", "command": sys.executable, "args": [str(probe), "stdio"], "env": []}
    await ask(2, "session/new", {"cwd": str(root), "mcpServers": [server]})
    while True:  # until the server is connected
        message = json.loads(await proc.stdout.readline())
        if str(message.get("method", "")).endswith("mcp_status") and \
                [s["status"] for s in message["params"]["servers"]] == ["connected"]:
            break
    t0 = time.perf_counter()
    if how == "SIGTERM":
        proc.terminate()
    else:
        proc.stdin.close()
    await proc.wait()
    return time.perf_counter() - t0


async def turn_overhead(root: Path, runs: int) -> tuple[float, float]:
    (root / "main.tf").write_text('resource "null_resource" "x" {}\n' * 50)
    reads = [{"type": "tool_use", "name": "read_file", "input": {"path": "main.tf"}} for _ in range(10)]
    turns = []
    for _ in range(runs):
        turns.append({"match": "text", "blocks": [{"type": "text", "text": "A short reply."}]})
        turns.append({"match": "tools", "blocks": reads})
        turns.append({"match": "Read", "blocks": [{"type": "text", "text": "ok"}]})
    text_times, tool_times = [], []
    async with await _spawn(root, {"turns": turns}) as (conn, _proc):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        sid = (await conn.new_session(cwd=str(root), mcp_servers=[])).session_id
        for _ in range(runs):
            t0 = time.perf_counter()
            await conn.prompt(session_id=sid, prompt=[acp.text_block("text please")])
            text_times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            await conn.prompt(session_id=sid, prompt=[acp.text_block("tools please")])
            tool_times.append(time.perf_counter() - t0)
    return statistics.median(text_times), statistics.median(tool_times)


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def streaming(root: Path, chunks: int) -> tuple[float, float, float]:
    client = QuietClient()
    script = {"turns": [{"blocks": [{"type": "text", "text": "w " * chunks}]}]}
    async with await _spawn(root, script, client) as (conn, proc):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        sid = (await conn.new_session(cwd=str(root), mcp_servers=[])).session_id
        t0 = time.perf_counter()
        await conn.prompt(session_id=sid, prompt=[acp.text_block("stream")])
        elapsed = time.perf_counter() - t0
        agent_peak = _rss_mib(proc.pid)
    assert client.chunks == chunks, client.chunks
    client_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return chunks / elapsed, agent_peak, client_peak


def _big_history(store: SessionStore, session_id: str, cwd: str, messages: int) -> None:
    journal = store.create(SessionMeta(session_id=session_id, cwd=cwd, title="big"))
    for i in range(messages // 4):
        journal.append(user_text(f"Question {i}: what does resource {i} do?"))
        use = ToolUseBlock(id=f"toolu_{i}", name="read_file", input={"path": f"mod{i}.tf"})
        journal.append(Message(role="assistant", content=[TextBlock(text="Let me read it."), use]))
        journal.append(Message(role="user", content=[ToolResultBlock(tool_use_id=use.id, content="     1\tresource {}\n" * 20)]))
        journal.append(Message(role="assistant", content=[TextBlock(text=f"Resource {i} is a null resource. " * 5)]))


async def sessions(root: Path, runs: int) -> tuple[float, float]:
    store = SessionStore(root / "cfg" / "sessions")
    _big_history(store, "big", str(root), 5000)
    for i in range(1000):
        store.create(SessionMeta(session_id=f"s{i:04d}", cwd=str(root), title=f"Session {i}"))
    load_times, list_times = [], []
    async with await _spawn(root, {"turns": []}) as (conn, _proc):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
        for _ in range(runs):
            t0 = time.perf_counter()
            await conn.load_session(cwd=str(root), session_id="big", mcp_servers=[])
            load_times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            cursor = None
            while True:
                page = await conn.list_sessions(cwd=str(root), cursor=cursor)
                cursor = page.next_cursor
                if cursor is None:
                    break
            list_times.append(time.perf_counter() - t0)
    return statistics.median(load_times), statistics.median(list_times)


def import_time(runs: int = 5) -> tuple[float, bool]:
    """Median seconds to import the agent's modules, and whether `anthropic` was among them."""
    results = [_import_time() for _ in range(runs)]
    return statistics.median(r[0] for r in results), any(r[1] for r in results)


def _import_time() -> tuple[float, bool]:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import iac_code.acp.server, iac_code.tools; iac_code.tools.all_tools()"],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    total = 0
    anthropic = False
    for line in out.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip() == "iac_code.acp.server":
            total = int(parts[1].strip())
        if len(parts) == 3 and parts[2].strip() == "anthropic":
            anthropic = True
    return total / 1e6, anthropic


async def main(quick: bool) -> None:
    runs = 3 if quick else 7
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        starts = [await cold_start(root) for _ in range(runs)]
        rows.append(("cold start: spawn -> initialize answered", f"{statistics.median(s[0] for s in starts) * 1000:.0f} ms"))
        rows.append(("cold start: spawn -> first session/new answered", f"{statistics.median(s[1] for s in starts) * 1000:.0f} ms"))
        rows.append(("  agent CPU for that life (start-up to exit)", f"{statistics.median(s[2] for s in starts) * 1000:.0f} ms"))
        for how in ("SIGTERM", "stdin closed"):
            stops = [await shutdown_with_mcp(root, how) for _ in range(runs)]
            rows.append((f"exit on {how}, one stdio MCP server", f"{statistics.median(stops) * 1000:.0f} ms (max {max(stops) * 1000:.0f} ms)"))
        text, tools = await turn_overhead(root, runs)
        rows.append(("turn: one text reply", f"{text * 1000:.1f} ms"))
        rows.append(("turn: 10 read_file calls + reply", f"{tools * 1000:.1f} ms"))
        n = 20_000 if quick else 100_000
        rate, agent_peak, client_peak = await streaming(root, n)
        rows.append((f"streaming {n:,} chunks", f"{rate:,.0f} chunks/s"))
        rows.append(("  peak RSS agent / client", f"{agent_peak:.0f} MiB / {client_peak:.0f} MiB"))
        load, listing = await sessions(root, runs)
        rows.append(("session/load, 5,000-message replay", f"{load * 1000:.0f} ms"))
        rows.append(("session/list over 1,000 sessions (all pages)", f"{listing * 1000:.0f} ms"))
    seconds, anthropic = import_time()
    rows.append(("import iac_code.acp.server + tools", f"{seconds * 1000:.0f} ms (anthropic imported: {'yes' if anthropic else 'no'})"))
    width = max(len(r[0]) for r in rows)
    print(f"iac-code benchmarks on {platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f} (wall times grow with it)")
    for name, value in rows:
        print(f"  {name:<{width}}  {value}", flush=True)


def tui(quick: bool) -> None:
    """Print the terminal app's streaming table (bench/tui_stream.py)."""
    args = [sys.executable, str(Path(__file__).with_name("tui_stream.py"))]
    if quick:
        args += ["--repeat", "1"]
    print()
    subprocess.run(args, check=False)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs and 20,000 streamed chunks")
    parser.add_argument("--no-tui", action="store_true", help="skip the terminal app's benchmark")
    options = parser.parse_args()
    asyncio.run(main(options.quick))
    if not options.no_tui:
        tui(options.quick)
