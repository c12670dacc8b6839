"""write_file: exact bytes, parents, atomic replace keeping the mode, diffs in preview and result."""

from __future__ import annotations

import os
import stat

from iac_code.core.events import DiffContent
from iac_code.tools.write_file import WriteFileTool

tool = WriteFileTool()


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


async def test_creates_parents_and_writes_the_exact_string(project, call):
    content = 'a = "x"\r\nb = "ü"\n\nno final newline'
    result = await call(tool, path="envs/prod/main.tf", content=content)
    assert not result.is_error
    path = project / "envs" / "prod" / "main.tf"
    assert path.read_bytes() == content.encode("utf-8")
    assert result.output == f"Created envs/prod/main.tf (4 lines, {len(content.encode())} bytes)."
    (diff,) = result.content
    assert diff == DiffContent(str(path), content, None)
    assert [(loc.path, loc.line) for loc in result.locations] == [(str(path), None)]


async def test_a_new_file_gets_the_default_mode(project, call):
    await call(tool, path="new.tf", content="x")
    assert stat.S_IMODE((project / "new.tf").stat().st_mode) == 0o666 & ~current_umask()


async def test_overwriting_keeps_the_mode_and_leaves_no_temp_files(project, call):
    script = project / "deploy.sh"
    script.write_text("old\n")
    script.chmod(0o750)
    result = await call(tool, path="deploy.sh", content="#!/bin/sh\necho new\n")
    assert not result.is_error and "replacing its previous content" in result.output
    assert script.read_text() == "#!/bin/sh\necho new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert sorted(p.name for p in project.iterdir()) == ["deploy.sh"]
    (diff,) = result.content
    assert (diff.old_text, diff.new_text) == ("old\n", "#!/bin/sh\necho new\n")


async def test_the_preview_carries_the_same_diff_without_writing(project, ctx):
    (project / "main.tf").write_text("old\n")
    preview = await tool.preview(tool.parse({"path": "main.tf", "content": "new\n"}), ctx)
    assert preview.error is None
    assert preview.content == [DiffContent(str(project / "main.tf"), "new\n", "old\n")]
    assert (project / "main.tf").read_text() == "old\n"
    new = await tool.preview(tool.parse({"path": "fresh.tf", "content": "x"}), ctx)
    assert new.content == [DiffContent(str(project / "fresh.tf"), "x", None)]


async def test_writing_through_a_link_replaces_the_target_and_keeps_the_link(project, call):
    (project / "real.tf").write_text("old")
    os.symlink("real.tf", project / "alias.tf")
    await call(tool, path="alias.tf", content="new")
    assert os.path.islink(project / "alias.tf")
    assert (project / "real.tf").read_text() == "new"


async def test_a_binary_old_file_is_described_in_the_diff(project, call):
    (project / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    result = await call(tool, path="logo.png", content="text now")
    assert result.content[0].old_text == "[previous content: binary file (PNG image, 10 bytes)]"


async def test_impossible_writes_are_errors(project, call, ctx):
    (project / "dir").mkdir()
    (project / "file.txt").write_text("")
    to_dir = await call(tool, path="dir", content="x")
    assert to_dir.is_error and "directory" in to_dir.output
    under_file = await call(tool, path="file.txt/child.tf", content="x")
    assert under_file.is_error and "is a file" in under_file.output
    preview = await tool.preview(tool.parse({"path": "dir", "content": "x"}), ctx)
    assert preview.error is not None


async def test_spaces_and_non_ascii_names(project, call):
    await call(tool, path="my dir/日本語 ファイル.tf", content="ok\n")
    assert (project / "my dir" / "日本語 ファイル.tf").read_text() == "ok\n"


def test_title_kind_and_paths(project, ctx, tmp_path):
    params = tool.parse({"path": "outputs.tf", "content": ""})
    assert tool.title(params) == "Write outputs.tf" and tool.title(None) == "Write file"
    assert tool.paths(params, ctx) == [project / "outputs.tf"]
    assert tool.kind == "edit" and tool.category == "write"


async def test_a_lone_surrogate_fails_already_in_the_preview(project, ctx):
    preview = await tool.preview(tool.parse({"path": "x.tf", "content": "bad \ud800"}), ctx)
    assert preview.error is not None and "surrogate" in preview.error
    assert not (project / "x.tf").exists()
