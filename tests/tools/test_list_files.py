"""list_files: one level, sorted, directories marked, links shown, capped."""

from __future__ import annotations

import os

from iac_code.tools.list_files import MAX_ENTRIES, ListFilesTool

tool = ListFilesTool()


async def test_one_level_sorted_with_directories_marked(project, call):
    (project / "modules" / "vpc").mkdir(parents=True)
    (project / "modules" / "vpc" / "main.tf").write_text("")
    (project / "main.tf").write_text("")
    (project / ".gitignore").write_text("")
    (project / "README.md").write_text("")
    result = await call(tool)
    assert result.output.splitlines() == ["./ (4 entries)", ".gitignore", "README.md", "main.tf", "modules/"]
    nested = await call(tool, path="modules")
    assert nested.output.splitlines() == ["modules/ (1 entry)", "vpc/"]


async def test_links_show_their_targets_and_broken_ones_say_so(project, call, tmp_path):
    (project / "shared").mkdir()
    (project / "real.tf").write_text("")
    os.symlink("real.tf", project / "alias.tf")
    os.symlink("shared", project / "linked")
    os.symlink("missing.tf", project / "dangling.tf")
    os.symlink("loop", project / "loop")
    result = await call(tool)
    assert not result.is_error
    assert result.output.splitlines()[1:] == [
        "alias.tf -> real.tf",
        "dangling.tf -> missing.tf (broken link: its target is missing or loops)",
        "linked/ -> shared",
        "loop -> loop (broken link: its target is missing or loops)",
        "real.tf",
        "shared/",
    ]


async def test_capped_at_1000_entries_with_a_count_of_the_rest(project, call):
    for n in range(MAX_ENTRIES + 50):
        (project / f"f{n:05d}.tf").write_text("")
    lines = (await call(tool)).output.splitlines()
    assert lines[0] == f"./ ({MAX_ENTRIES + 50:,} entries)"
    assert lines[1] == "f00000.tf" and lines[MAX_ENTRIES] == f"f{MAX_ENTRIES - 1:05d}.tf"
    assert lines[-1].startswith("[... and 50 more entries not shown")
    assert len(lines) == MAX_ENTRIES + 2


async def test_spaces_and_non_ascii_names(project, call):
    (project / "dir with space").mkdir()
    (project / "dir with space" / "résumé ファイル.tf").write_text("")
    result = await call(tool, path="dir with space")
    assert result.output.splitlines()[1:] == ["résumé ファイル.tf"]


async def test_empty_missing_and_file_paths(project, call):
    (project / "empty").mkdir()
    (project / "main.tf").write_text("")
    assert (await call(tool, path="empty")).output == "empty/ is empty."
    missing = await call(tool, path="nope")
    assert missing.is_error and "not found" in missing.output
    a_file = await call(tool, path="main.tf")
    assert a_file.is_error and "read_file" in a_file.output


def test_title_kind_and_paths(project, ctx):
    assert tool.title(None) == "List files"
    assert tool.title(tool.parse({"path": "modules"})) == "List modules/"
    assert tool.title(tool.parse({})) == "List ./"
    assert tool.paths(tool.parse({}), ctx) == [project]
    assert tool.kind == "read" and tool.category == "read"
