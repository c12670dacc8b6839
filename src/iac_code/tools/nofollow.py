"""Operating on exactly the file that was checked (PROTOCOL.md, Permissions; issue 10, hole 1).

Permissions decide on a path resolved once through its symlinks (`ToolContext.resolve`), so the
path holds no link. The file tools then reach that path without following any link: every
directory from `/` down is opened with `O_NOFOLLOW`, and the file is opened, created or replaced
relative to its parent directory's descriptor (`openat`, `renameat`). If a directory on the way
was swapped for a symbolic link after the check, this fails with `PathChanged` instead of
landing somewhere else; the file itself is opened with `O_NOFOLLOW` too, and a replace renames
over the name (a link put there is replaced, never followed).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO never hangs the open


class PathChanged(OSError):
    """A directory or file on a checked path is now a symbolic link or not a directory."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            errno.ELOOP,
            f"{path} changed after it was checked (a symbolic link or a file now stands in its way)",
        )
        self.path = path


class HardLinked(PathChanged):
    """A file that had one name when it was checked now has more (a hard link was made since)."""

    def __init__(self, path: Path) -> None:
        OSError.__init__(
            self,
            errno.EMLINK,
            f"{path} has another name (a hard link, perhaps to a file outside the project) that it "
            "did not have when it was checked",
        )
        self.path = path


def changed_message(name: str, exc: PathChanged, action: str) -> str:
    """The tool error for `PathChanged`: what was not done and what to do."""
    return (
        f"{name} was not {action}: {exc.strerror}. Nothing was changed; look at the path again "
        "(e.g. with list_files) and retry with the real location."
    )


class ParentDir:
    """The directory holding `path`, opened without following links; use as a context manager.

    `create=True` makes missing directories (mode 0777 minus the umask). `linked` says the check
    saw the file multi-linked (and asked about it as outside): otherwise a file with more than one
    hard link is refused with `HardLinked` when it is opened or replaced. Raises `PathChanged` or
    the `OSError` of a missing directory (FileNotFoundError) or one that cannot be opened.
    """

    def __init__(self, path: Path, create: bool = False, *, linked: bool = False) -> None:
        self.path = path
        self.name = path.name
        self.linked = linked
        self.fd = _open_dirs(path.parent, create)

    def __enter__(self) -> ParentDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the directory descriptor."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def lstat(self) -> os.stat_result:
        """The file's own status (a link is not followed). Raises OSError (FileNotFoundError)."""
        return os.stat(self.name, dir_fd=self.fd, follow_symlinks=False)

    def open_read(self) -> BinaryIO:
        """The file opened for reading; `PathChanged` if it is now a link, OSError if it is not a
        regular file (IsADirectoryError for a directory)."""
        try:
            fd = os.open(self.name, _READ_FLAGS, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PathChanged(self.path) from None
            raise
        try:
            mode = os.fstat(fd).st_mode
            if stat.S_ISDIR(mode):
                raise IsADirectoryError(errno.EISDIR, "Is a directory")
            if not stat.S_ISREG(mode):
                raise OSError(errno.EINVAL, "not a regular file (a device, FIFO or socket)")
            if not self.linked and os.fstat(fd).st_nlink > 1:
                raise HardLinked(self.path)
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return os.fdopen(fd, "rb")

    def read_capped(self, limit: int) -> bytes | None:
        """The file's bytes, or None if it is larger than `limit`. Raises as `open_read`."""
        with self.open_read() as f:
            data = f.read(limit + 1)
        return None if len(data) > limit else data

    def replace(self, data: bytes) -> None:
        """Replace the file with `data` atomically: a temp file in this directory, then a rename
        over the name. An existing file keeps its permission bits; a new one gets 0666 minus the
        umask. Raises OSError (the temp file is removed)."""
        try:
            st = self.lstat()
        except FileNotFoundError:
            mode: int | None = None
        else:
            mode = stat.S_IMODE(st.st_mode)
            if not self.linked and stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                raise HardLinked(self.path)
        tmp = f".iac-code-{os.urandom(6).hex()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=self.fd)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                if mode is not None:
                    os.fchmod(f.fileno(), mode)
                os.fsync(f.fileno())
            os.replace(tmp, self.name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=self.fd)
            raise


def check_dirs(path: Path, *, linked: bool = False) -> None:
    """Verify that the directories holding `path` still contain no symbolic link, and (unless
    `linked`, as for `ParentDir`) that the file has not gained a hard link, before a client is
    asked to touch `path`. Raises `PathChanged` or OSError; a missing directory is fine."""
    with contextlib.suppress(FileNotFoundError):
        with ParentDir(path, linked=linked) as parent:
            try:
                st = parent.lstat()
            except FileNotFoundError:
                return
            if not linked and stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                raise HardLinked(path)


def _open_dirs(directory: Path, create: bool) -> int:
    """Open the absolute `directory` component by component from `/`, following no link."""
    fd = os.open("/", _DIR_FLAGS)
    try:
        for part in directory.parts[1:]:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=fd)
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise PathChanged(directory) from None
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd
