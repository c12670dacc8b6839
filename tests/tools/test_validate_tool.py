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
    assert lines[0] == "Validated net, ok.yaml: 1 error in the 2 files checked."
    assert lines[1].startswith("net/main.tf:2:11 error terraform.undeclared-variable ")


async def test_clean_project_and_missing_path(project, call):
    (project / "values.yaml").write_text("replicas: 2\n")
    assert (await call(tool)).output == "Validated .: no problems in the 1 file checked."
    missing = await call(tool, paths=["nope"])
    assert missing.is_error and missing.output == "Not found: nope."


async def test_files_not_checked_are_named_and_no_problems_is_not_said(project, call):
    (project / "chart" / "templates").mkdir(parents=True)
    (project / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: web\nversion: 0.1.0\n")
    (project / "chart" / "templates" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n")
    assert (await call(tool)).output.splitlines() == [
        "Validated .: no errors or warnings in the 1 file checked.",
        "1 file not checked: a Helm template (rendered by helm, not YAML until then): chart/templates/cm.yaml.",
    ]


def test_is_read_only():
    assert (tool.category, tool.kind) == ("read", "read")
