"""nofollow: a checked path is opened as exactly that file, never through a link swapped in."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from iac_code.tools.nofollow import HardLinked, ParentDir, PathChanged, check_dirs


def test_replace_writes_atomically_and_keeps_the_mode(project: Path):
    target = project / "a" / "b" / "main.tf"
    with ParentDir(target, create=True) as parent:
        parent.replace(b"one\n")
    os.chmod(target, 0o640)
    with ParentDir(target) as parent:
        parent.replace(b"two\n")
        assert parent.read_capped(100) == b"two\n"
        assert parent.read_capped(2) is None
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(os.listdir(target.parent)) == ["main.tf"]  # no temp file left


def test_a_directory_swapped_for_a_link_is_refused(project: Path, tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "sub").symlink_to(outside)
    target = project / "sub" / "x.txt"
    with pytest.raises(PathChanged):
        ParentDir(target, create=True)
    with pytest.raises(PathChanged):
        check_dirs(target)
    assert list(outside.iterdir()) == []


def test_a_file_swapped_for_a_link_is_not_read_and_replacing_it_replaces_the_link(project: Path, tmp_path: Path):
    secret = tmp_path / "secret"
    secret.write_text("s3cret")
    (project / "f").symlink_to(secret)
    with ParentDir(project / "f") as parent:
        with pytest.raises(PathChanged):
            parent.open_read()
        parent.replace(b"mine")
    assert secret.read_text() == "s3cret"
    assert not (project / "f").is_symlink() and (project / "f").read_text() == "mine"


def test_a_fifo_is_refused_without_hanging(project: Path):
    os.mkfifo(project / "pipe")
    with ParentDir(project / "pipe") as parent, pytest.raises(OSError, match="not a regular file"):
        parent.open_read()


def test_a_file_that_gained_a_hard_link_after_the_check_is_refused(project: Path, tmp_path: Path):
    """A hard link may be another name of a file outside the project: unless the check saw it
    (and asked about it as outside: `linked=True`), it is neither read nor replaced."""
    secret = tmp_path / "id_rsa"
    secret.write_text("KEY\n")
    os.link(secret, project / "notes.txt")
    with ParentDir(project / "notes.txt") as parent, pytest.raises(HardLinked):
        parent.read_capped(100)
    with ParentDir(project / "notes.txt") as parent, pytest.raises(HardLinked):
        parent.replace(b"x")
    with pytest.raises(HardLinked):
        check_dirs(project / "notes.txt")
    with ParentDir(project / "notes.txt", linked=True) as parent:
        assert parent.read_capped(100) == b"KEY\n"
    assert secret.read_text() == "KEY\n"
