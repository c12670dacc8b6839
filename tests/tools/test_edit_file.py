"""edit_file: exact replacement, distinct errors, line endings and BOM byte for byte, diffs."""

from __future__ import annotations

import re
import stat

import pytest

from iac_code.core.events import DiffContent
from iac_code.tools.edit_file import EditFileTool
from iac_code.tools.read_file import ReadFileTool

tool = EditFileTool()

MAIN = 'resource "aws_vpc" "main" {\n  cidr_block = "10.0.0.0/16"\n  tags = {}\n}\n'


async def test_replaces_one_exact_occurrence(project, call):
    (project / "main.tf").write_text(MAIN)
    result = await call(tool, path="main.tf", old_string='"10.0.0.0/16"', new_string='"10.1.0.0/16"')
    assert not result.is_error
    assert (project / "main.tf").read_text() == MAIN.replace("10.0.", "10.1.")
    assert result.output.startswith("Edited main.tf: replaced 1 occurrence at line 2.\nThe edited region now reads:\n")
    assert '     2\t  cidr_block = "10.1.0.0/16"' in result.output
    (diff,) = result.content
    assert diff == DiffContent(str(project / "main.tf"), MAIN.replace("10.0.", "10.1."), MAIN)
    assert [(loc.path, loc.line) for loc in result.locations] == [(str(project / "main.tf"), 2)]


async def test_the_location_is_the_first_changed_line(project, call):
    (project / "main.tf").write_text(MAIN)
    result = await call(
        tool, path="main.tf", old_string='"main" {\n  cidr_block', new_string='"main" {\n  enable_dns = true\n  cidr_block'
    )
    assert result.locations[0].line == 2


async def test_not_found_and_several_matches_are_distinct_errors(project, call):
    (project / "x.tf").write_text("tags = {}\nname = 1\ntags = {}\n\ntags = {}\n")
    missing = await call(tool, path="x.tf", old_string="labels = {}", new_string="x")
    assert missing.is_error and missing.output.startswith("Cannot edit x.tf: old_string was not found.")
    several = await call(tool, path="x.tf", old_string="tags = {}", new_string="tags = { a = 1 }")
    assert several.is_error
    assert several.output == (
        "Cannot edit x.tf: old_string occurs 3 times (at lines 1, 3, 5). Add surrounding context to make it "
        "unique, or set replace_all to replace every occurrence."
    )
    assert (project / "x.tf").read_text() == "tags = {}\nname = 1\ntags = {}\n\ntags = {}\n"


async def test_replace_all(project, call):
    (project / "x.tf").write_text("a\nb\na\n")
    result = await call(tool, path="x.tf", old_string="a", new_string="c", replace_all=True)
    assert (project / "x.tf").read_text() == "c\nb\nc\n"
    assert "replaced 2 occurrences (at lines 1, 3)" in result.output


async def test_same_strings_and_line_number_prefixes_are_rejected(project, call):
    (project / "x.tf").write_text("a = 1\n")
    same = await call(tool, path="x.tf", old_string="a = 1", new_string="a = 1")
    assert same.is_error and "the same" in same.output
    prefixed = await call(tool, path="x.tf", old_string="     1\ta = 1", new_string="a = 2")
    assert prefixed.is_error and "line-number prefix" in prefixed.output


async def test_crlf_file_matches_an_lf_old_string_and_stays_crlf(project, call):
    path = project / "win.tf"
    path.write_bytes(b'a = 1\r\nb = 2\r\nc = 3\r\n')
    await call(tool, path="win.tf", old_string="b = 2\nc = 3\n", new_string="b = 20\nx = 1\nc = 3\n")
    assert path.read_bytes() == b"a = 1\r\nb = 20\r\nx = 1\r\nc = 3\r\n"


async def test_mixed_endings_keep_every_untouched_ending(project, call):
    path = project / "mixed.tf"
    path.write_bytes(b"one\r\ntwo\nthree\r\nfour\n")
    await call(tool, path="mixed.tf", old_string="two", new_string="TWO\nAND A HALF")
    # the replaced text had no line break: new breaks take the majority ending (a tie: LF)
    assert path.read_bytes() == b"one\r\nTWO\nAND A HALF\nthree\r\nfour\n"
    await call(tool, path="mixed.tf", old_string="three\nfour", new_string="3\n4")
    # the replaced text spanned one CRLF break: the replacement's break is CRLF too
    assert path.read_bytes() == b"one\r\nTWO\nAND A HALF\n3\r\n4\n"


async def test_a_crlf_old_string_matches_an_lf_file(project, call):
    path = project / "unix.tf"
    path.write_bytes(b"a\nb\n")
    await call(tool, path="unix.tf", old_string="a\r\nb", new_string="A\r\nB")
    assert path.read_bytes() == b"A\nB\n"


async def test_a_bom_is_kept(project, call):
    path = project / "bom.tf"
    path.write_bytes(b"\xef\xbb\xbfa = 1\r\nb = 2\r\n")
    result = await call(tool, path="bom.tf", old_string="a = 1", new_string="a = 10")
    assert path.read_bytes() == b"\xef\xbb\xbfa = 10\r\nb = 2\r\n"
    assert result.content[0].old_text == "a = 1\nb = 2\n"


async def test_latin1_bytes_elsewhere_are_kept_byte_for_byte(project, call):
    path = project / "legacy.tf"
    path.write_bytes(b"# caf\xe9\nname = 1\n")
    result = await call(tool, path="legacy.tf", old_string="name = 1", new_string="name = 2")
    assert path.read_bytes() == b"# caf\xe9\nname = 2\n"
    assert result.content[0].new_text == "# caf\ufffd\nname = 2\n"
    unmatched = await call(tool, path="legacy.tf", old_string="# caf\ufffd", new_string="# cafe")
    assert unmatched.is_error and "not valid UTF-8" in unmatched.output


async def test_what_read_file_shows_can_be_matched(project, call):
    path = project / "win.tf"
    original = b'\xef\xbb\xbfresource "aws_vpc" "main" {\r\n\tcidr_block = "10.0.0.0/16"\r\n}\r\n'
    path.write_bytes(original)
    shown = (await call(ReadFileTool(), path="win.tf")).output
    body = [m.group(1) for m in re.finditer(r"^ *\d+\t(.*)$", shown, re.M)]
    old = "\n".join(body[:2])
    result = await call(tool, path="win.tf", old_string=old, new_string=old.replace("10.0.", "10.9."))
    assert not result.is_error, result.output
    assert path.read_bytes() == original.replace(b"10.0.", b"10.9.")


async def test_binary_and_missing_files_are_refused(project, call):
    (project / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00IHDR")
    binary = await call(tool, path="logo.png", old_string="IHDR", new_string="x")
    assert binary.is_error and "binary file (PNG image" in binary.output
    missing = await call(tool, path="nope.tf", old_string="a", new_string="b")
    assert missing.is_error and "write_file" in missing.output


async def test_the_mode_is_kept(project, call):
    path = project / "run.sh"
    path.write_text("echo a\n")
    path.chmod(0o755)
    await call(tool, path="run.sh", old_string="a", new_string="b")
    assert stat.S_IMODE(path.stat().st_mode) == 0o755


async def test_preview_shows_the_diff_or_an_error_without_writing(project, ctx):
    (project / "main.tf").write_text(MAIN)
    preview = await tool.preview(tool.parse({"path": "main.tf", "old_string": "tags = {}", "new_string": "tags = { a = 1 }"}), ctx)
    assert preview.error is None
    assert preview.content == [DiffContent(str(project / "main.tf"), MAIN.replace("tags = {}", "tags = { a = 1 }"), MAIN)]
    assert [(loc.path, loc.line) for loc in preview.locations] == [(str(project / "main.tf"), 3)]
    assert (project / "main.tf").read_text() == MAIN
    failing = await tool.preview(tool.parse({"path": "main.tf", "old_string": "nope", "new_string": "x"}), ctx)
    assert failing.error is not None and "not found" in failing.error


async def test_spaces_and_non_ascii_names(project, call):
    path = project / "my dir" / "ファイル.tf"
    path.parent.mkdir()
    path.write_text("a\n")
    await call(tool, path="my dir/ファイル.tf", old_string="a", new_string="é")
    assert path.read_text() == "é\n"


@pytest.mark.parametrize("raw", [{"path": "x", "old_string": "", "new_string": "y"}, {"path": "x", "old_string": "a"}])
def test_invalid_input(raw):
    assert isinstance(tool.parse(raw), str)


def test_title_and_kind():
    assert tool.title(tool.parse({"path": "main.tf", "old_string": "a", "new_string": "b"})) == "Edit main.tf"
    assert tool.kind == "edit" and tool.category == "write"


async def test_a_lone_surrogate_in_new_string_is_an_error_before_asking(project, call, ctx):
    """A `\\ud800` escape in the model's JSON cannot be written as UTF-8: an error, not an exception."""
    (project / "main.tf").write_text("a = 1\n")
    for new in ("a = \ud800", "a = \udcff"):  # \udcff would otherwise be written as the raw byte 0xFF
        params = tool.parse({"path": "main.tf", "old_string": "a = 1", "new_string": new})
        preview = await tool.preview(params, ctx)
        assert preview.error is not None and "surrogate" in preview.error
        result = await call(tool, path="main.tf", old_string="a = 1", new_string=new)
        assert result.is_error and "surrogate" in result.output
    assert (project / "main.tf").read_bytes() == b"a = 1\n"
