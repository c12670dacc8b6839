"""read_file: numbered lines, limits and continuation, binary refusal, encodings, odd paths."""

from __future__ import annotations

import os
import re
import tracemalloc

import pytest

from iac_code.tools.read_file import MAX_LINE_CHARS, ReadFileTool

tool = ReadFileTool()

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489") + b"\x00" * 64


def numbered(lines: list[str], start: int = 1) -> str:
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, start))


async def test_lines_are_numbered_like_cat_n(project, call):
    (project / "main.tf").write_text('resource "aws_vpc" "main" {\n  cidr_block = "10.0.0.0/16"\n}\n')
    result = await call(tool, path="main.tf")
    assert not result.is_error
    assert result.output == numbered(['resource "aws_vpc" "main" {', '  cidr_block = "10.0.0.0/16"', "}"])


async def test_a_range_shows_those_lines_and_where_they_are(project, call):
    (project / "big.tf").write_text("".join(f"line {n}\n" for n in range(1, 101)))
    result = await call(tool, path="big.tf", start_line=10, end_line=12)
    assert result.output == numbered(["line 10", "line 11", "line 12"], 10) + "\n[Showing lines 10-12 of 100.]"
    result = await call(tool, path="big.tf", start_line=99)
    assert result.output == numbered(["line 99", "line 100"], 99) + "\n[Showing lines 99-100 of 100.]"


async def test_the_first_2000_lines_by_default_with_a_hint_to_continue(project, call):
    (project / "long.txt").write_text("".join(f"{n}\n" for n in range(1, 5001)))
    result = await call(tool, path="long.txt")
    lines = result.output.splitlines()
    assert lines[0] == f"{1:>6}\t1" and lines[1999] == f"{2000:>6}\t2000"
    assert lines[2000] == "[Showing lines 1-2000 of 5,000. Continue with start_line=2001.]"
    result = await call(tool, path="long.txt", start_line=4001)
    assert result.output.splitlines()[-1] == "[Showing lines 4001-5000 of 5,000.]"


async def test_a_file_without_final_newline_counts_its_last_line(project, call):
    (project / "f.txt").write_text("a\nb")
    assert (await call(tool, path="f.txt")).output == numbered(["a", "b"])
    assert (await call(tool, path="f.txt", start_line=2)).output == numbered(["b"], 2) + "\n[Showing lines 2-2 of 2.]"


async def test_bad_ranges_are_errors_the_model_can_fix(project, call):
    (project / "f.txt").write_text("a\nb\n")
    past = await call(tool, path="f.txt", start_line=5)
    assert past.is_error and "past the end" in past.output and "2 lines" in past.output
    backwards = await call(tool, path="f.txt", start_line=2, end_line=1)
    assert backwards.is_error and "before start_line" in backwards.output
    assert isinstance(tool.parse({"path": "f.txt", "start_line": 0}), str)


async def test_an_empty_file_says_so(project, call):
    (project / "empty.tf").write_bytes(b"")
    result = await call(tool, path="empty.tf")
    assert not result.is_error and "empty" in result.output


async def test_a_3_million_character_line_is_clipped_with_its_length(project, call):
    (project / "min.json").write_text("x" * 3_000_000)
    result = await call(tool, path="min.json")
    assert not result.is_error
    first = result.output.splitlines()[0]
    assert first == f"{1:>6}\t" + "x" * MAX_LINE_CHARS + " [... line clipped: 3,000,000 characters in all]"
    assert len(result.output) < 3 * MAX_LINE_CHARS


async def test_clipping_counts_characters_not_bytes(project, call):
    (project / "wide.txt").write_text("é" * 2500 + "\n", encoding="utf-8")
    result = await call(tool, path="wide.txt")
    assert "é" * MAX_LINE_CHARS + " [... line clipped: 2,500 characters in all]" in result.output


async def test_continuation_always_makes_progress_when_output_is_capped(project, call):
    """Lines long enough to hit the output budget long before 2,000 lines: every call moves on."""
    (project / "wide.csv").write_text("".join(f"{n:05d}" + "y" * 1_990 + "\n" for n in range(1, 301)))
    seen: list[int] = []
    start = 1
    for _ in range(300):
        result = await call(tool, path="wide.csv", start_line=start)
        numbers = [int(m) for m in re.findall(r"^ *(\d+)\t", result.output, re.M)]
        assert numbers and numbers[0] == start
        seen += numbers
        hint = re.search(r"Continue with start_line=(\d+)", result.output)
        if hint is None:
            break
        assert int(hint.group(1)) == numbers[-1] + 1
        start = numbers[-1] + 1
    assert seen == list(range(1, 301))


async def test_a_200_mb_file_is_read_in_bounded_memory(project, call):
    path = project / "huge.log"
    with open(path, "wb") as f:
        block = b"z" * (1 << 20)
        for _ in range(200):
            f.write(block)
        f.write(b"\nthe end\n")
    assert path.stat().st_size > 200_000_000
    tracemalloc.start()
    try:
        first = await call(tool, path="huge.log")
        last = await call(tool, path="huge.log", start_line=2)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        path.unlink()
    assert first.output.startswith(f"{1:>6}\t" + "z" * MAX_LINE_CHARS + " [... line clipped: 209,715,200 characters in all]\n")
    assert f"{2:>6}\tthe end" in first.output
    assert last.output == numbered(["the end"], 2) + "\n[Showing lines 2-2 of 2.]"
    assert peak < 16 * 1024 * 1024, f"peak traced memory {peak:,} bytes"


@pytest.mark.parametrize("ranged", [False, True])
async def test_a_png_is_refused_with_a_one_line_description(project, call, ranged):
    (project / "logo.png").write_bytes(PNG)
    extra = {"start_line": 1, "end_line": 5} if ranged else {}
    result = await call(tool, path="logo.png", **extra)
    assert result.is_error
    assert result.output == f"logo.png is a binary file (PNG image, {len(PNG)} bytes); only text files can be read or edited."


async def test_random_bytes_are_refused(project, call):
    (project / "blob.bin").write_bytes(os.urandom(64 * 1024))
    result = await call(tool, path="blob.bin", start_line=3)
    assert result.is_error and "binary file (binary data, 65,536 bytes)" in result.output
    assert "\n" not in result.output


async def test_latin1_is_decoded_with_replacement_and_a_note(project, call):
    (project / "legacy.tf").write_bytes("# café\nname = \"Zürich\"\n".encode("latin-1"))
    result = await call(tool, path="legacy.tf")
    assert not result.is_error
    assert result.output.startswith(numbered(["# caf\ufffd", 'name = "Z\ufffdrich"']))
    assert "not valid UTF-8" in result.output


@pytest.mark.parametrize("line", ["Größe", "é", "ÄÖÜ äöü ß", "Ñandú"])
async def test_a_short_latin1_file_is_text_not_binary(project, call, line):
    """Mostly non-ASCII, so mostly undecodable as UTF-8, but it reads as Latin-1: text, with a note."""
    (project / "short.txt").write_bytes(f"{line}\n".encode("latin-1"))
    result = await call(tool, path="short.txt")
    assert not result.is_error, result.output
    assert "not valid UTF-8" in result.output


async def test_random_bytes_without_nul_are_still_binary(project, call):
    (project / "noise.bin").write_bytes(os.urandom(4096).replace(b"\0", b"\1"))
    result = await call(tool, path="noise.bin")
    assert result.is_error and "binary data" in result.output


async def test_crlf_and_bom_are_not_shown(project, call):
    (project / "win.tf").write_bytes(b"\xef\xbb\xbfa = 1\r\nb = 2\r\n")
    result = await call(tool, path="win.tf")
    assert result.output.startswith(numbered(["a = 1", "b = 2"]) + "\n")
    assert "CRLF" in result.output
    assert "\r" not in result.output and "\ufeff" not in result.output


async def test_paths_with_spaces_and_non_ascii_names(project, call):
    folder = project / "my modules" / "ネットワーク"
    folder.mkdir(parents=True)
    (folder / "variables é.tf").write_text("variable \"x\" {}\n")
    result = await call(tool, path="my modules/ネットワーク/variables é.tf")
    assert result.output == numbered(['variable "x" {}'])
    absolute = await call(tool, path=str(folder / "variables é.tf"))
    assert absolute.output == result.output


async def test_missing_paths_directories_and_broken_links_are_errors(project, call):
    (project / "dir").mkdir()
    os.symlink("nowhere.tf", project / "dangling.tf")
    os.symlink("loop_b", project / "loop_a")
    os.symlink("loop_a", project / "loop_b")
    missing = await call(tool, path="nope.tf")
    assert missing.is_error and "not found" in missing.output
    directory = await call(tool, path="dir")
    assert directory.is_error and "directory" in directory.output and "list_files" in directory.output
    dangling = await call(tool, path="dangling.tf")
    assert dangling.is_error and dangling.output.startswith("dangling.tf is a broken symbolic link")
    loop = await call(tool, path="loop_a")
    assert loop.is_error


async def test_a_fifo_is_refused_instead_of_blocking(project, call):
    os.mkfifo(project / "pipe")
    result = await call(tool, path="pipe")
    assert result.is_error and "not a regular file" in result.output


def test_titles_and_locations(project, ctx):
    assert tool.title(None) == "Read file"
    assert tool.title(tool.parse({"path": "main.tf"})) == "Read main.tf"
    assert tool.title(tool.parse({"path": "main.tf", "start_line": 10, "end_line": 40})) == "Read main.tf (lines 10-40)"
    assert tool.title(tool.parse({"path": "main.tf", "start_line": 10})) == "Read main.tf (from line 10)"
    (location,) = tool.locations(tool.parse({"path": "main.tf", "start_line": 10}), ctx)
    assert (location.path, location.line) == (str(project / "main.tf"), 10)
    assert tool.kind == "read" and tool.category == "read"


def test_a_nul_in_a_path_is_an_input_error():
    assert isinstance(tool.parse({"path": "a\x00b"}), str)
