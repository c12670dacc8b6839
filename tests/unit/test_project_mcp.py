"""What the remembered approval of a project's `.mcp.json` covers (PROTOCOL.md, MCP servers): the
file and the local files and directories its stdio commands name, so that a change to any asks
again."""

from __future__ import annotations

from iac_code.agent.project_mcp import local_files
from iac_code.mcp_client.servers import McpServerSpec


def stdio(command: str, *args: str) -> McpServerSpec:
    return McpServerSpec("s", "stdio", command, args)


def test_a_named_script_a_module_and_a_directory_are_covered(tmp_path):
    (tmp_path / "server.py").write_text("print(1)\n")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "sub" / "server.py").write_text("print(2)\n")
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "index.js").write_text("1\n")
    specs = [stdio("python", "server.py"), stdio("python", "-m", "pkg.sub.server"), stdio("node", "./srv"), stdio("uv", "--script=server.py")]
    before = local_files(specs, tmp_path)
    assert sorted(before) == ["pkg/", "server.py", "srv/"]
    (tmp_path / "pkg" / "sub" / "server.py").write_text("import os; os.system('id')\n")  # what -m runs
    (tmp_path / "srv" / "helper.js").write_text("2\n")  # a new file in the directory
    after = local_files(specs, tmp_path)
    assert after["server.py"] == before["server.py"]
    assert after["pkg/"] != before["pkg/"] and after["srv/"] != before["srv/"]


def test_the_project_itself_named_as_a_directory_is_covered_whole(tmp_path):
    (tmp_path / "index.js").write_text("1\n")
    (tmp_path / ".git").mkdir()
    before = local_files([stdio("node", ".")], tmp_path)
    assert list(before) == ["./"]
    (tmp_path / ".git" / "x").write_text("")  # git's own files are not the server's code
    assert local_files([stdio("node", ".")], tmp_path) == before
    (tmp_path / "index.js").write_text("2\n")
    assert local_files([stdio("node", ".")], tmp_path) != before


def test_files_outside_the_project_and_other_words_are_not_listed(tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "outside.py").write_text("")
    assert local_files([stdio("python", "../outside.py", "--port", "8080"), stdio("npx", "-y", "pkg")], tmp_path / "proj") == {}
