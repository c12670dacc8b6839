"""Post-edit feedback: an edit's new problems reach the model (tool result) and the person (the
call's content), and the next scripted turn fixes them; end to end through `iac-code acp`."""

from __future__ import annotations

import json
from pathlib import Path

from harness import serve_agent

from iac_code.core.events import DiffContent, TextContent
from iac_code.tools.base import ToolContext
from iac_code.tools.edit_file import EditFileTool
from iac_code.tools.write_file import WriteFileTool

MAIN = 'variable "region" {\n  type = string\n}\n\noutput "region" {\n  value = var.region\n}\n'


def use(name: str, **input: object) -> dict:
    return {"type": "tool_use", "name": name, "input": input}


async def test_edit_result_lists_only_new_problems(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "main.tf").write_text(MAIN + 'output "old" {\n  value = local.already_broken\n}\n')
    ctx = ToolContext(cwd=root, config_dir=tmp_path / "conf")
    tool = EditFileTool()
    params = tool.parse({"path": "main.tf", "old_string": "var.region", "new_string": "var.regoin"})
    result = await tool.run(params, ctx)
    assert not result.is_error
    tail = result.output.split("\n\n")[-1].splitlines()
    assert tail[0] == "Validation: this edit introduced 1 error - fix them before going on:"
    assert tail[1].startswith('main.tf:6:11 error terraform.undeclared-variable undeclared variable "var.regoin"')
    assert len(tail) == 2  # local.already_broken was broken before the edit
    assert [type(c) for c in result.content] == [DiffContent, TextContent]
    assert result.content[1].text == "\n".join(tail)


async def test_a_clean_write_and_a_non_iac_file_add_nothing(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    ctx = ToolContext(cwd=root, config_dir=tmp_path / "conf")
    tool = WriteFileTool()
    result = await tool.run(tool.parse({"path": "main.tf", "content": MAIN}), ctx)
    assert result.output.startswith("Created main.tf") and "Validation" not in result.output
    result = await tool.run(tool.parse({"path": "notes.txt", "content": "var.x"}), ctx)
    assert "Validation" not in result.output and len(result.content) == 1


async def test_scripted_model_fixes_the_undeclared_variable_it_introduced(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "main.tf").write_text(MAIN)
    script = [
        {"match": "rename", "blocks": [use("edit_file", path="main.tf", old_string="value = var.region", new_string="value = var.aws_region")]},
        {"match": "terraform.undeclared-variable", "blocks": [
            {"type": "text", "text": "The variable is called region; fixing."},
            use("edit_file", path="main.tf", old_string="var.aws_region", new_string="var.region")]},
        {"match": "Edited main.tf", "blocks": [{"type": "text", "text": "Fixed."}]},
    ]
    async with serve_agent(root, script=script, env={"IAC_CODE_PERMISSION_MODE": "accept_edits"}) as agent:
        sid = await agent.new_session()
        assert (await agent.prompt(sid, "rename the output's variable")).stop_reason == "end_turn"
        calls = list(agent.tool_calls(sid).values())
        assert len(calls) == 2
        first, second = ([u for u in updates if getattr(u, "status", None) == "completed"][-1] for updates in calls)
        texts = [c.content.text for c in first.content if c.type == "content"]
        assert len(texts) == 1 and "main.tf:6:11 error terraform.undeclared-variable" in texts[0]
        assert "terraform.undeclared-variable" in json.dumps(first.raw_output)
        assert [c.type for c in second.content] == ["diff"]
        assert "Fixed." in agent.text(sid)
    assert (root / "main.tf").read_text() == MAIN
