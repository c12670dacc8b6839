"""The nine tools as an ACP client sees them through `iac-code acp` on the scripted model.

For each tool: the `tool_call` (kind, provisional title), the `tool_call_update`s (final title,
locations, content, rawOutput) and, for write_file/edit_file/bash/agent, the permission request
with the diff or command.
"""

from __future__ import annotations

import asyncio
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from acp.schema import ToolCallProgress, ToolCallStart
from harness import RecordingClient, serve_agent, wait_for


def use(name: str, **input: Any) -> dict:
    return {"type": "tool_use", "name": name, "input": input}


def turn(*blocks: dict, match: str | None = None, **extra: Any) -> dict:
    out: dict[str, Any] = {"blocks": list(blocks), **extra}
    if match is not None:
        out["match"] = match
    return out


def say(text: str, match: str | None = None) -> dict:
    return turn({"type": "text", "text": text}, match=match)


def the_call(agent, sid: str, title: str) -> tuple[ToolCallStart, list[ToolCallProgress]]:
    """The `tool_call` and the updates of the call whose final title is `title`."""
    for updates in agent.tool_calls(sid).values():
        if any(getattr(u, "title", None) == title for u in updates[1:]):
            start, *rest = updates
            assert isinstance(start, ToolCallStart)
            return start, rest
    raise AssertionError(f"no tool call titled {title!r}")


def merged(updates: list[ToolCallProgress]) -> dict[str, Any]:
    """The call's fields as a client holding the latest value of each would see them at the end."""
    seen: dict[str, Any] = {}
    for u in updates:
        for key in ("title", "kind", "status", "content", "locations", "raw_input", "raw_output"):
            value = getattr(u, key)
            if value is not None:
                seen[key] = value
    return seen


def texts(content: list[Any]) -> list[str]:
    return [c.content.text for c in content if c.type == "content"]


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "modules" / "vpc").mkdir(parents=True)
    (root / "main.tf").write_text('module "vpc" {\n  source = "./modules/vpc"\n}\n')
    (root / "modules" / "vpc" / "main.tf").write_text('resource "aws_vpc" "this" {\n  cidr_block = var.cidr\n}\n')
    return root


async def test_read_and_search_tools_run_without_asking(tmp_path):
    root = project(tmp_path)
    script = [
        turn(
            use("read_file", path="main.tf", start_line=1, end_line=2),
            use("list_files", path="modules"),
            use("glob", pattern="**/*.tf"),
            use("grep", pattern="aws_vpc", path="modules/"),
        ),
        say("looked around"),
    ]
    async with serve_agent(root, script=script) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "look")).stop_reason == "end_turn"
        assert agent.client.permissions == []
        real = root.resolve()

        start, updates = the_call(agent, sid, "Read main.tf (lines 1-2)")
        assert (start.title, start.kind) == ("Read file", "read")
        call = merged(updates)
        assert call["status"] == "completed" and call["kind"] == "read"
        assert [(loc.path, loc.line) for loc in call["locations"]] == [(str(real / "main.tf"), 1)]
        assert texts(call["content"]) == ['     1\tmodule "vpc" {\n     2\t  source = "./modules/vpc"\n[Showing lines 1-2 of 3.]']
        assert call["raw_input"] == {"path": "main.tf", "start_line": 1, "end_line": 2}

        start, updates = the_call(agent, sid, "List modules/")
        assert (start.title, start.kind, merged(updates)["kind"]) == ("List files", "read", "read")
        assert texts(merged(updates)["content"]) == ["modules/ (1 entry)\nvpc/"]
        assert [loc.path for loc in merged(updates)["locations"]] == [str(real / "modules")]

        start, updates = the_call(agent, sid, "Glob **/*.tf")
        assert (start.title, start.kind, merged(updates)["kind"]) == ("Glob", "search", "search")
        assert sorted(texts(merged(updates)["content"])[0].splitlines()) == ["main.tf", "modules/vpc/main.tf"]

        start, updates = the_call(agent, sid, "Grep `aws_vpc` in modules/")
        assert (start.title, start.kind, merged(updates)["kind"]) == ("Grep", "search", "search")
        assert texts(merged(updates)["content"]) == ["modules/vpc/main.tf"]
        assert merged(updates)["raw_output"] == {"output": "modules/vpc/main.tf"}


async def test_write_file_asks_with_the_diff_and_reports_it(tmp_path):
    root = project(tmp_path)
    (root / "outputs.tf").write_text('output "id" {}\n')
    # the module has the output the new text reads, so the edit brings no new validation problem
    (root / "modules" / "vpc" / "outputs.tf").write_text('output "id" {\n  value = aws_vpc.this.id\n}\n')
    new = 'output "id" {\n  value = module.vpc.id\n}\n'
    script = [turn(use("write_file", path="outputs.tf", content=new)), say("written")]
    async with serve_agent(root, script=script) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "write")).stop_reason == "end_turn"
        path = str(root.resolve() / "outputs.tf")
        (request,) = agent.client.permissions
        assert (request.tool_call.title, request.tool_call.kind) == ("Write outputs.tf", "edit")
        (diff,) = request.tool_call.content
        assert (diff.type, diff.path, diff.old_text, diff.new_text) == ("diff", path, 'output "id" {}\n', new)
        assert [loc.path for loc in request.tool_call.locations] == [path]

        start, updates = the_call(agent, sid, "Write outputs.tf")
        assert (start.title, start.kind) == ("Write file", "edit")
        call = merged(updates)
        assert call["status"] == "completed"
        (diff,) = call["content"]
        assert (diff.type, diff.path, diff.old_text, diff.new_text) == ("diff", path, 'output "id" {}\n', new)
    assert (root / "outputs.tf").read_text() == new


async def test_a_new_file_diff_has_no_old_text(tmp_path):
    root = project(tmp_path)
    script = [turn(use("write_file", path="envs/dev/backend.tf", content="terraform {}\n")), say("ok")]
    async with serve_agent(root, script=script) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, "write")
        (diff,) = agent.client.permissions[0].tool_call.content
        assert diff.old_text is None and diff.new_text == "terraform {}\n"
    assert (root / "envs" / "dev" / "backend.tf").read_text() == "terraform {}\n"


async def test_edit_file_asks_with_the_diff_and_points_at_the_changed_line(tmp_path):
    root = project(tmp_path)
    script = [turn(use("edit_file", path="modules/vpc/main.tf", old_string="var.cidr", new_string='"10.0.0.0/16"')), say("edited")]
    async with serve_agent(root, script=script) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "edit")).stop_reason == "end_turn"
        path = str(root.resolve() / "modules" / "vpc" / "main.tf")
        old = 'resource "aws_vpc" "this" {\n  cidr_block = var.cidr\n}\n'
        new = old.replace("var.cidr", '"10.0.0.0/16"')
        (request,) = agent.client.permissions
        assert (request.tool_call.title, request.tool_call.kind) == ("Edit modules/vpc/main.tf", "edit")
        (diff,) = request.tool_call.content
        assert (diff.path, diff.old_text, diff.new_text) == (path, old, new)
        assert [(loc.path, loc.line) for loc in request.tool_call.locations] == [(path, 2)]

        start, updates = the_call(agent, sid, "Edit modules/vpc/main.tf")
        assert (start.title, start.kind) == ("Edit file", "edit")
        call = merged(updates)
        assert call["status"] == "completed"
        assert [(loc.path, loc.line) for loc in call["locations"]] == [(path, 2)]
        assert [(c.type, c.old_text, c.new_text) for c in call["content"]] == [("diff", old, new)]
        assert call["raw_output"]["output"].startswith("Edited modules/vpc/main.tf: replaced 1 occurrence at line 2.")


async def test_an_edit_that_cannot_apply_fails_without_asking(tmp_path):
    root = project(tmp_path)
    script = [turn(use("edit_file", path="main.tf", old_string="nothing like this", new_string="x")), say("sorry", match="not found")]
    async with serve_agent(root, script=script) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "edit")).stop_reason == "end_turn"
        assert agent.client.permissions == []
        call = merged(the_call(agent, sid, "Edit main.tf")[1])
        assert call["status"] == "failed"
        assert call["raw_output"]["error"].startswith("Cannot edit main.tf: old_string was not found.")
        assert agent.text(sid) == "sorry"


async def test_bash_asks_with_the_command_and_reports_output_and_exit_code(tmp_path):
    root = project(tmp_path)
    command = "echo formatted; ls modules"
    script = [turn(use("bash", command=command, description="Check formatting")), say("ran")]
    async with serve_agent(root, script=script) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "run")).stop_reason == "end_turn"
        (request,) = agent.client.permissions
        assert (request.tool_call.title, request.tool_call.kind) == (f"Run `{command}`", "execute")
        assert request.tool_call.raw_input["command"] == command
        assert texts(request.tool_call.content) == [f"Check formatting\n\n$ {command}"]

        start, updates = the_call(agent, sid, f"Run `{command}`")
        assert (start.title, start.kind) == ("Run command", "execute")
        call = merged(updates)
        assert call["status"] == "completed"
        assert texts(call["content"]) == ["formatted\nvpc\n\nExit code: 0"]
        assert call["raw_output"] == {"output": "formatted\nvpc", "exit_code": 0, "timed_out": False}


async def test_a_failing_command_ends_failed_with_its_exit_code(tmp_path):
    root = project(tmp_path)
    script = [turn(use("bash", command="echo broken >&2; exit 3")), say("it failed", match="Exit code: 3")]
    async with serve_agent(root, script=script, env={"IAC_CODE_PERMISSION_MODE": "bypass_permissions"}) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, "run")
        call = merged(the_call(agent, sid, "Run `echo broken >&2; exit 3`")[1])
        assert call["status"] == "failed" and call["raw_output"]["exit_code"] == 3
        assert agent.text(sid) == "it failed"


SUBAGENT_SCRIPT = [
    turn(use("agent", prompt="Find every aws_vpc and report where it is.", description="Survey VPCs")),
    turn(use("grep", pattern="aws_vpc", output_mode="content"), match="Find every aws_vpc"),
    say("One VPC, in modules/vpc/main.tf line 1.", match="modules/vpc/main.tf:1:"),
    say("The sub-agent found one VPC.", match="One VPC, in modules/vpc/main.tf"),
]


async def test_agent_runs_a_sub_agent_and_returns_its_answer(tmp_path):
    root = project(tmp_path)
    async with serve_agent(root, script=SUBAGENT_SCRIPT) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "survey")).stop_reason == "end_turn"
        (request,) = agent.client.permissions
        assert (request.tool_call.title, request.tool_call.kind) == ("Sub-agent: Survey VPCs", "execute")
        start, updates = the_call(agent, sid, "Sub-agent: Survey VPCs")
        assert (start.title, start.kind) == ("Sub-agent", "execute")
        progress = [t for u in updates if u.status is None and u.content for t in texts(u.content)]
        assert "Grep `aws_vpc`: done" in progress
        call = merged(updates)
        assert call["status"] == "completed"
        assert call["raw_output"] == {"output": "One VPC, in modules/vpc/main.tf line 1."}
        assert agent.text(sid) == "The sub-agent found one VPC."
        # the sub-agent's own calls are not the parent's tool calls
        assert len(agent.tool_calls(sid)) == 1


async def test_cancel_reaches_a_running_sub_agent(tmp_path, monkeypatch):
    from iac_code.core.events import TextDelta
    from iac_code.providers.scripted import ScriptedProvider

    root = project(tmp_path)
    slow = {"blocks": [{"type": "text", "text": " ".join(f"w{i}" for i in range(300))}], "chunk_delay_ms": 100, "match": "Find every"}
    script = [SUBAGENT_SCRIPT[0], slow, say("second prompt answered", match="next")]
    streaming = asyncio.Event()  # the sub-agent's answer has begun (not a fixed 0.5 s after its call shows)
    stream = ScriptedProvider.stream

    async def watched(self: ScriptedProvider, request):  # noqa: ANN001
        async for event in stream(self, request):
            if isinstance(event, TextDelta) and event.text.startswith("w0"):
                streaming.set()
            yield event

    monkeypatch.setattr(ScriptedProvider, "stream", watched)
    async with serve_agent(root, script=script, env={"IAC_CODE_PERMISSION_MODE": "bypass_permissions"}) as agent:
        sid = await agent.new_session()
        prompt = asyncio.create_task(agent.prompt(sid, "survey"))
        await wait_for(lambda: bool(agent.tool_calls(sid)), timeout=20)
        await asyncio.wait_for(streaming.wait(), 20)
        await agent.conn.cancel(session_id=sid)
        result = await asyncio.wait_for(prompt, 10)
        assert result.stop_reason == "cancelled"
        assert list(agent.final_status(sid).values()) == ["failed"]
        assert (await agent.prompt(sid, "next")).stop_reason == "end_turn"
        assert agent.text(sid) == "second prompt answered"


class _Page(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        body = b"<html><body><h1>aws_vpc</h1><p>Provides a <b>VPC</b>.</p></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


async def test_web_fetch_asks_once_per_host_and_returns_markdown(tmp_path):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True).start()  # shutdown() waits a poll (0.5 s by default)
    host = f"127.0.0.1:{httpd.server_address[1]}"
    url = f"http://{host}/docs"
    try:
        root = project(tmp_path)
        script = [turn(use("web_fetch", url=url)), turn(use("web_fetch", url=url + "/more")), say("fetched")]
        client = RecordingClient(answers=["allow_always"])
        async with serve_agent(root, script=script, client=client, env={"IAC_CODE_ALLOW_PRIVATE_FETCH": "1"}) as agent:
            sid = await agent.new_session()
            assert (await agent.prompt(sid, "fetch")).stop_reason == "end_turn"
            [asked] = agent.client.permissions  # the second fetch from the host runs unasked
            names = {o.option_id: o.name for o in asked.options}
            assert names["allow_always"] == f"Always allow fetches from `{host}`"
            start, updates = the_call(agent, sid, f"Fetch {url}")
            assert (start.title, start.kind) == ("Fetch", "fetch")
            call = merged(updates)
            assert call["status"] == "completed" and call["kind"] == "fetch"
            assert texts(call["content"])[0].endswith("# aws_vpc\n\nProvides a **VPC**.")
    finally:
        httpd.shutdown()
        httpd.server_close()


async def test_web_fetch_refuses_private_addresses_by_default(tmp_path):
    root = project(tmp_path)
    script = [turn(use("web_fetch", url="http://127.0.0.1:9/")), say("refused", match="IAC_CODE_ALLOW_PRIVATE_FETCH")]
    async with serve_agent(root, script=script) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, "fetch")
        assert list(agent.final_status(sid).values()) == ["failed"]
        assert agent.text(sid) == "refused"


async def test_writes_outside_the_cwd_ask_even_when_permissions_are_bypassed(tmp_path):
    root = project(tmp_path)
    script = [
        turn(use("write_file", path="inside.tf", content="a")),
        turn(use("write_file", path="../outside.tf", content="b")),
        say("done"),
    ]
    client = RecordingClient(default_answer="allow_always")
    async with serve_agent(root, script=script, client=client, env={"IAC_CODE_PERMISSION_MODE": "bypass_permissions"}) as agent:
        sid = await agent.new_session()
        await agent.prompt(sid, "write")
        (request,) = agent.client.permissions
        assert request.tool_call.title == "Write ../outside.tf"
    assert (root / "inside.tf").read_text() == "a"
    assert (tmp_path / "outside.tf").read_text() == "b"
