"""The validate tool: diagnostics for the model, relative paths, read-only category."""

from __future__ import annotations

from iac_code.tools.validate import ValidateTool

tool = ValidateTool()


async def test_reports_each_problem_on_one_line(project, call):
    (project / "net").mkdir()
    (project / "net" / "main.tf").write_text('output "a" {\n  value = var.region\n}\n')
    (project / "ok.yaml").write_text("a: 1\n")
    result = await call(tool, paths=["net", "ok.yaml"])
    assert not result.is_error
    lines = result.output.splitlines()
    assert lines[0] == "Validated net, ok.yaml: 1 error."
    assert lines[1].startswith("net/main.tf:2:11 error terraform.undeclared-variable ")


async def test_clean_project_and_missing_path(project, call):
    (project / "values.yaml").write_text("replicas: 2\n")
    assert (await call(tool)).output == "Validated .: no problems found."
    missing = await call(tool, paths=["nope"])
    assert missing.is_error and missing.output == "Not found: nope."


def test_is_read_only():
    assert (tool.category, tool.kind) == ("read", "read")
