"""Writes that would run code later ask in `accept_edits` (PROTOCOL.md, Permissions, "Sensitive
paths"): a provider plugin under `.terraform/` (started by `terraform validate`/`plan`, whose saved
rules or the validate tool then run it unasked) keeps its executable bit when replaced, and
`.GIT/hooks/…` is the git hook on a case-insensitive disk."""

from __future__ import annotations

import pytest
from harness import RecordingClient, spawn_agent

PLUGIN = ".terraform/providers/registry.terraform.io/hashicorp/null/3.2.0/linux_amd64/terraform-provider-null_v3.2.0"


@pytest.mark.parametrize("target", [PLUGIN, ".GIT/hooks/pre-commit", ".Git/config"])
async def test_writes_that_plant_code_ask_in_accept_edits(tmp_path, target):
    project = tmp_path / "proj"
    plugin = project / PLUGIN
    plugin.parent.mkdir(parents=True)
    plugin.write_text("#!/bin/sh\necho real plugin\n")
    plugin.chmod(0o755)
    write = {
        "blocks": [
            {
                "type": "tool_use",
                "name": "write_file",
                "input": {"path": target, "content": "#!/bin/sh\ntouch pwned\n"},
            }
        ]
    }
    script = [write, {"blocks": [{"type": "text", "text": "done"}]}]
    client = RecordingClient(default_answer="reject_once")
    async with spawn_agent(project, script=script, client=client) as agent:
        sid = await agent.new_session()
        await agent.conn.set_session_mode(session_id=sid, mode_id="accept_edits")
        await agent.prompt(sid, "write")
        assert [c.tool_call.raw_input["path"] for c in client.permissions] == [target]
        assert sorted(o.option_id for o in client.permissions[0].options) == [
            "allow_once",
            "reject_once",
        ]
    assert plugin.read_text() == "#!/bin/sh\necho real plugin\n"
    assert not (project / target).exists() or target == PLUGIN
