"""Confine a command with Landlock and a seccomp network filter (the sandbox's Landlock backend).

    python3 -I -S landlock_exec.py [--write PATH]... [--read-only PATH]... [--hide PATH]...
                                   [--blank FILE] [--network] -- PROGRAM [ARG]...

Standard library only, used two ways: imported by the agent, which prepares a `Confinement` before
it starts a command and applies it in the forked child just before the exec (`preexec_fn`: no
second interpreter), and run by path with `-I -S` where an argv is needed (the command runs in
the editor's terminal), when it confines itself and then execs PROGRAM. A command gets:

- a mount namespace of its own where one can be made (as root, or in a user namespace of its
  own; probed once per process): each `--read-only` path bound read-only onto itself, each
  `--hide` path covered (an empty read-only tmpfs over a directory, the empty `--blank` FILE
  (default /dev/null) over a file), a pseudo-terminal instance of its own on /dev/pts (the
  person's other terminals out of reach) and a private tmpfs on /dev/shm;
- Landlock (Linux >= 5.13): everything may be read and executed but the devices of /dev other
  than `DEVICES` (null, zero, full, random, urandom, tty, ptmx, pts); the `--write` trees may be
  changed too, and /dev/shm. Where no mount namespace can be made, the `--read-only` and `--hide`
  paths are left out of the grants instead (only read, or not read at all; their names stay
  listed). Landlock only grants, so a tree holding such a path is granted entry by entry: a
  directory holding one keeps its existing files writable but gets no new entries of its own
  (its subdirectories without such paths are granted whole). Landlock also forbids mounting and
  unmounting, so no mount above can be undone;
- no capabilities: the bounding set emptied and root given none on exec (`SECBIT_NOROOT`), so a
  command run as root can neither undo the restrictions nor read the non-dumpable agent's memory
  and environment;
- the process may not trace or read the memory and environment of processes outside the
  sandbox (Landlock's ptrace rule), nor (ABI >= 6) signal them;
- without `--network`, seccomp refuses every socket but a Unix one (`EAFNOSUPPORT`), and
  `connect`, `bind`, `listen`, `accept` (`EPERM`), and io_uring (`ENOSYS`), which Landlock
  does not cover (UDP, Unix sockets);
- `PR_SET_NO_NEW_PRIVS`, so nothing it execs gains privileges; a new session (`setsid`), so it
  has no controlling terminal to push keystrokes into.

If any of this cannot be applied the command is not run: exit status 126 and the reason on
stderr (`Unavailable` in the preparing process).
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys

TYPE_CHECKING = False  # mypy takes it as true; this program starts without importing typing
if TYPE_CHECKING:
    from typing import NoReturn

LANDLOCK_CREATE_RULESET_VERSION = 1
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
RULE_PATH_BENEATH = 1

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

READ = EXECUTE | READ_FILE | READ_DIR
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
"""The rights a rule on a file (not a directory) may carry."""
DEV = "/dev"
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts")
"""The devices of /dev a command may open, read and write (`> /dev/null`, random bytes, a
pseudo-terminal): the others (disks, input devices, cameras, the kernel log) are not readable in
the sandbox, as bubblewrap's `--dev` shows only these."""
SHARED_MEMORY = "/dev/shm"
"""POSIX shared memory and semaphores (Python's `multiprocessing`): writable, a private tmpfs of
the sandbox's own where a mount namespace could be made."""

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 28, 47, 4
SECBIT_NOROOT, SECBIT_NOROOT_LOCKED = 1 << 0, 1 << 1
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC, MS_PRIVATE, MS_RELATIME = 1024, 2048, 4096, 16384, 1 << 18, 1 << 21
LOCKED_FLAGS = {  # statvfs flag -> the mount flag a remount must keep (the kernel refuses to drop them)
    os.ST_NOSUID: MS_NOSUID, os.ST_NODEV: MS_NODEV, os.ST_NOEXEC: MS_NOEXEC,
    os.ST_NOATIME: MS_NOATIME, os.ST_NODIRATIME: MS_NODIRATIME, os.ST_RELATIME: MS_RELATIME,
}  # fmt: skip
ARCHES = {  # AUDIT_ARCH, socket, connect, accept, bind, listen, accept4, io_uring_setup
    "x86_64": (0xC000003E, 41, 42, 43, 49, 50, 288, 425),
    "aarch64": (0xC00000B7, 198, 203, 202, 200, 201, 242, 425),
}
AF_UNIX = 1

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
for _name in ("prctl", "syscall", "mount", "unshare"):  # looked up now: a forked child must not call dlsym
    getattr(libc, _name)


class Unavailable(Exception):
    """The confinement cannot be prepared here (raised in the preparing process; the command must not run)."""


class PathBeneath(ctypes.Structure):
    """`struct landlock_path_beneath_attr`."""

    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def fail(message: str) -> NoReturn:
    """End this process (one that was to exec the command) with exit status 126 and `message`
    on stderr. Only a system call writes it: in a forked child the parent's `sys.stderr` (its
    buffer, its lock) is not to be touched."""
    os.write(2, f"iac-code sandbox (landlock): {message}; the command did not run\n".encode("utf-8", "replace"))
    os._exit(126)


def syscall(number: int, *args: object) -> int:
    result = libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


def abi_version() -> int:
    """The kernel's Landlock ABI version (0: none)."""
    try:
        return syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    except OSError:
        return 0


def handled_rights(abi: int) -> int:
    rights = (1 << 13) - 1  # EXECUTE .. MAKE_SYM: ABI 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class Rules:
    """The rules granting `grants` (path -> rights) except what `limits` (path -> the rights
    allowed there: READ for read-only, 0 for hidden) takes away."""

    def __init__(self, handled: int, limits: dict[str, int]) -> None:
        self.handled = handled
        self.limits = limits
        self.found: dict[str, int] = {}  # path -> rights, to add to the ruleset

    def grant(self, path: str, rights: int) -> None:
        rights &= self.handled
        if path in self.limits:
            rights &= self.limits[path]
        if not rights:
            return
        inner = [lim for lim, allowed in self.limits.items() if lim != path and inside(lim, path) and rights & ~allowed]
        if not inner or not os.path.isdir(path) or os.path.islink(path):
            self.add(path, rights)
            return
        own = rights
        for lim in inner:
            own &= self.limits[lim]
        self.add(path, own | (rights & READ_DIR))  # names stay listed; the entries get their own rules
        try:
            names = os.listdir(path)
        except OSError:
            return
        for name in names:
            child = os.path.join(path, name)
            if not os.path.islink(child):  # a link is checked where it leads
                self.grant(child, rights)

    def add(self, path: str, rights: int) -> None:
        self.found[path] = self.found.get(path, 0) | rights


def make_ruleset(abi: int, writable: list[str], limits: dict[str, int], shared_memory: bool) -> int:
    """A Landlock ruleset (its fd, close-on-exec) reading everything, writing the `writable`
    trees and the devices (and /dev/shm when `shared_memory`), less what `limits` takes away."""
    handled = handled_rights(abi)
    rules = Rules(handled, limits)
    rules.grant("/", READ)
    for path in writable:
        rules.grant(path, handled)
    for path in DEVICES:
        rules.grant(path, READ | WRITE_FILE | IOCTL_DEV)
    if shared_memory and os.path.isdir(SHARED_MEMORY):
        rules.grant(SHARED_MEMORY, handled)
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("QQQ", handled, 0, scoped) if abi >= 6 else struct.pack("Q", handled)
    try:
        ruleset = syscall(SYS_CREATE_RULESET, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    except OSError as exc:
        raise Unavailable(f"cannot create a Landlock ruleset: {exc.strerror}") from None
    try:
        for path, rights in rules.found.items():
            add_rule(ruleset, path, rights, gone_ok=True)
    except BaseException:
        os.close(ruleset)
        raise
    return ruleset


def add_rule(ruleset: int, path: str, rights: int, gone_ok: bool = False) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError as exc:
        if gone_ok:
            return  # gone meanwhile: nothing to grant
        raise Unavailable(f"cannot open {path}: {exc.strerror}") from None
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        beneath = PathBeneath(rights, fd)
        syscall(SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(beneath), ctypes.c_uint32(0))
    except OSError as exc:
        raise Unavailable(f"cannot add the Landlock rule for {path}: {exc.strerror}") from None
    finally:
        os.close(fd)


def enter_mount_namespace() -> bool:
    """Make this process a mount namespace of its own with private mounts (as root directly, else
    in a new user namespace mapping our uid and gid to themselves); False where that cannot be done
    (then the process may be left in a user namespace of its own: probe in a child)."""
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWNS) != 0:
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
            return False
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            try:
                fd = os.open(f"/proc/self/{name}", os.O_WRONLY | os.O_CLOEXEC)
            except OSError:
                return False
            try:
                os.write(fd, text.encode())
            except OSError:
                return False
            finally:
                os.close(fd)
    try:
        mount(None, b"/", None, MS_REC | MS_PRIVATE)
    except OSError:
        return False
    return True


_MOUNTS_WORK: dict[str, bool] = {}


def mount_namespace_works() -> bool:
    """Whether a child of this process can make the mount namespace `enter_mount_namespace`
    makes (probed once per process, in a child that exits without exec'ing anything)."""
    if "works" not in _MOUNTS_WORK:
        import subprocess  # only here: the stand-alone program starts faster without it

        def probe() -> None:
            os._exit(0 if enter_mount_namespace() else 1)

        try:
            done = subprocess.run([sys.executable], preexec_fn=probe, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10, check=False)  # fmt: skip
            _MOUNTS_WORK["works"] = done.returncode == 0
        except (OSError, subprocess.SubprocessError):
            _MOUNTS_WORK["works"] = False
    return _MOUNTS_WORK["works"]


def mount(source: bytes | None, target: bytes, fstype: bytes | None, flags: int, data: bytes | None = None) -> None:
    """mount(2) with bytes (or None) arguments."""
    if libc.mount(source, target, fstype, ctypes.c_ulong(flags), data) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def bind_read_only(source: bytes, target: bytes) -> None:
    mount(source, target, None, MS_BIND | MS_REC)
    kept = os.statvfs(target).f_flag
    flags = sum(ms for st, ms in LOCKED_FLAGS.items() if kept & st)
    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)


class Confinement:
    """A command's confinement, prepared in the process that will start it, so that `apply` (run
    in the process that then execs the command: a forked child, as `preexec_fn`) is system calls
    on ready-made arguments: the Landlock ruleset (an fd) and the seccomp program are built here.

    `writable`, `read_only`, `hidden`: real absolute paths; `blank`: the empty file shown over a
    hidden file; `network`: no seccomp filter; `mounts`: whether `apply` makes a mount namespace
    to cover the read-only and hidden paths (default: where a child of this process can,
    `mount_namespace_works`), else Landlock alone keeps them. Raises `Unavailable`. `close` (or
    `with`) releases the ruleset in this process once the child has started.
    """

    def __init__(self, writable: list[str], read_only: list[str] | tuple[()] = (), hidden: list[str] | tuple[()] = (),
                 blank: str = "/dev/null", network: bool = False, mounts: bool | None = None) -> None:
        abi = abi_version()
        if abi < 1:
            raise Unavailable("Landlock is not available in this kernel (Linux >= 5.13 with Landlock enabled)")
        self.mounts = mount_namespace_works() if mounts is None else mounts
        if self.mounts:  # (target, source or None for an empty tmpfs), in order
            self.covers: list[tuple[bytes, bytes | None]] = [(os.fsencode(p), os.fsencode(p)) for p in read_only]
            for p in hidden:
                directory = os.path.isdir(p) and not os.path.islink(p)
                self.covers.append((os.fsencode(p), None if directory else os.fsencode(blank)))
            limits: dict[str, int] = {}
        else:
            self.covers = []
            limits = {p: READ for p in read_only}
            limits.update({p: 0 for p in hidden})
        limits[DEV] = READ_DIR  # names listed; only DEVICES (and /dev/shm) are granted beneath it
        self.seccomp = None if network else seccomp_program()
        terminal = (READ | WRITE_FILE | IOCTL_DEV) & handled_rights(abi)
        self.child_rules = {  # granted in the child, on what it mounted there (a rule holds an inode)
            SHARED_MEMORY: PathBeneath(handled_rights(abi), -1),
            "/dev/pts": PathBeneath(terminal, -1),
            "/dev/pts/ptmx": PathBeneath(terminal & FILE_RIGHTS, -1),
        }
        self.ruleset = make_ruleset(abi, writable, limits, shared_memory=not self.mounts)

    def __enter__(self) -> Confinement:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the ruleset's fd in this process (the child that applied it holds its own)."""
        if self.ruleset >= 0:
            os.close(self.ruleset)
            self.ruleset = -1

    def apply(self, in_namespace: bool = False) -> None:
        """Confine this process (see the module docstring; `in_namespace`: it already has a mount
        namespace of its own); on any failure end it (`fail`). Only system calls through ctypes
        and `os` on prepared arguments: no import, no lock another thread may hold."""
        if self.mounts:
            self.cover(in_namespace)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            fail(f"cannot set no_new_privs: {os.strerror(ctypes.get_errno())}")
        if libc.syscall(ctypes.c_long(SYS_RESTRICT_SELF), ctypes.c_int(self.ruleset), ctypes.c_uint32(0)) != 0:
            fail(f"cannot enforce the Landlock ruleset: {os.strerror(ctypes.get_errno())}")
        drop_capabilities()
        if self.seccomp is not None:
            _, fprog = self.seccomp
            if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog, 0, 0) != 0:
                fail(f"cannot install the seccomp network filter: {os.strerror(ctypes.get_errno())}")

    def cover(self, in_namespace: bool) -> None:
        """In a mount namespace of this process's own: the read-only paths bound read-only onto
        themselves, the hidden ones covered (an empty read-only tmpfs over a directory, `blank`
        over a file), a pseudo-terminal instance of its own on /dev/pts (the person's other
        terminals out of reach; /dev/ptmx its `ptmx`; the grants of the machine's /dev/pts and
        /dev/ptmx, which the mounts cover, apply to them), /dev/shm a private tmpfs (granted in
        the ruleset)."""
        if not in_namespace and not enter_mount_namespace():
            fail("cannot make a mount namespace")
        for target, source in self.covers:
            try:
                if source is None:
                    mount(b"tmpfs", target, b"tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, b"size=4k,mode=555")
                else:
                    bind_read_only(source, target)
            except OSError as exc:
                if exc.errno != errno.ENOENT:  # gone meanwhile: nothing to cover
                    fail(f"cannot protect {os.fsdecode(target)}: {exc.strerror}")
        try:
            mount(b"devpts", b"/dev/pts", b"devpts", MS_NOSUID | MS_NOEXEC, b"newinstance,ptmxmode=0666,mode=0620")
            mount(b"/dev/pts/ptmx", b"/dev/ptmx", None, MS_BIND)
            self.grant_here("/dev/pts")
            self.grant_here("/dev/pts/ptmx")
        except OSError:
            pass  # the machine's /dev/pts stays, as where no mount namespace can be made
        try:
            mount(b"tmpfs", SHARED_MEMORY.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=1777")
        except OSError:
            return  # no /dev/shm here: nothing to grant
        self.grant_here(SHARED_MEMORY)

    def grant_here(self, path: str) -> None:
        """Add the prepared rule of `path` (`child_rules`) to the ruleset, on what `path` is in
        this process (a mount made here); ends the process if the kernel refuses."""
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return  # not there: nothing to grant
        beneath = self.child_rules[path]
        beneath.parent_fd = fd
        if libc.syscall(ctypes.c_long(SYS_ADD_RULE), ctypes.c_int(self.ruleset), ctypes.c_int(RULE_PATH_BENEATH),
                        ctypes.byref(beneath), ctypes.c_uint32(0)) != 0:  # fmt: skip
            fail(f"cannot grant {path}: {os.strerror(ctypes.get_errno())}")
        os.close(fd)


def drop_capabilities() -> None:
    """No capability for the command, as root too (a root without them cannot load a module,
    trace the agent or undo the sandbox): the ambient and bounding sets emptied, and root given
    none on exec (`SECBIT_NOROOT`, where we may set it)."""
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
            break  # past the last capability this kernel knows
    libc.prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED, 0, 0, 0)
    kept = capability_sets()
    if kept.get(b"CapBnd", 1) or kept.get(b"CapInh", 1):  # what an exec could give back
        fail("cannot take the capabilities away")


def capability_sets() -> dict[bytes, int]:
    """This process's capability sets (`CapInh`, `CapPrm`, `CapEff`, `CapBnd`, `CapAmb`, bytes)
    as numbers, read with system calls only (no Python file object in a forked child)."""
    fd = os.open("/proc/self/status", os.O_RDONLY | os.O_CLOEXEC)
    try:
        text = b""
        while chunk := os.read(fd, 65536):
            text += chunk
    finally:
        os.close(fd)
    found: dict[bytes, int] = {}
    for line in text.split(b"\n"):
        name, _, value = line.partition(b":")
        if name.startswith(b"Cap"):
            found[name] = int(value.strip(), 16)
    return found


def network_filter() -> tuple[bytes, int]:
    """A seccomp BPF program (bytes of `struct sock_filter`s) refusing network syscalls, and its
    length; raises `Unavailable` on an architecture it has no numbers for."""
    machine = os.uname().machine
    if machine not in ARCHES:
        raise Unavailable(f"no seccomp network filter for the {machine} architecture")
    arch, sock, connect, accept, bind, listen, accept4, io_uring = ARCHES[machine]
    allow, eperm = 0x7FFF0000, 0x00050000 | errno.EPERM
    eafnosupport, enosys = 0x00050000 | errno.EAFNOSUPPORT, 0x00050000 | errno.ENOSYS
    ld_arch, ld_nr, ld_arg0 = (0x20, 0, 0, 4), (0x20, 0, 0, 0), (0x20, 0, 0, 16)

    def jeq(value: int, yes: int, no: int = 0) -> tuple[int, int, int, int]:
        return (0x15, yes, no, value)

    def ret(value: int) -> tuple[int, int, int, int]:
        return (0x06, 0, 0, value)

    program = [
        ld_arch,
        jeq(arch, 1),
        ret(enosys),  # another ABI (i386 on x86_64: socketcall) runs nothing
        ld_nr,
        (0x35, 0, 1, 0x40000000),  # jge: the x32 ABI
        ret(enosys),
        jeq(io_uring, 0, 1),
        ret(enosys),
        jeq(sock, 0, 4),
        ld_arg0,
        jeq(AF_UNIX, 0, 1),
        ret(allow),
        ret(eafnosupport),
        jeq(connect, 4),
        jeq(bind, 3),
        jeq(listen, 2),
        jeq(accept, 1),
        jeq(accept4, 0, 1),
        ret(eperm),
        ret(allow),
    ]
    return b"".join(struct.pack("HBBI", *op) for op in program), len(program)


def seccomp_program() -> tuple[ctypes.Array[ctypes.c_char], ctypes.Array[ctypes.c_char]]:
    """(the filter's buffer, its `struct sock_fprog`), ready for `prctl(PR_SET_SECCOMP)`: keep
    both alive until it is installed."""
    code, count = network_filter()
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = ctypes.create_string_buffer(struct.pack("HxxxxxxP", count, ctypes.addressof(buffer)))
    return buffer, fprog


def parse(argv: list[str]) -> tuple[list[str], list[str], list[str], str, bool, list[str]]:
    writable: list[str] = []
    read_only: list[str] = []
    hidden: list[str] = []
    blank, network = ["/dev/null"], False
    i = 0
    while i < len(argv) and argv[i] != "--":
        flag = argv[i]
        if flag == "--network":
            network = True
            i += 1
            continue
        if flag not in ("--write", "--read-only", "--hide", "--blank") or i + 1 >= len(argv):
            fail(f"bad argument {flag!r}")
        path = os.path.realpath(argv[i + 1])
        {"--write": writable, "--read-only": read_only, "--hide": hidden, "--blank": blank}[flag].append(path)
        i += 2
    command = argv[i + 1 :]
    if not command:
        fail("no command given after --")
    return writable, read_only, hidden, blank[-1], network, command


def main(argv: list[str]) -> None:
    """The stand-alone program: confine this process, start a new session, exec the command."""
    writable, read_only, hidden, blank, network, command = parse(argv)
    in_namespace = enter_mount_namespace()
    try:
        confinement = Confinement(writable, read_only, hidden, blank, network, mounts=in_namespace)
    except Unavailable as exc:
        fail(str(exc))
    confinement.apply(in_namespace=in_namespace)
    try:
        os.setsid()  # no controlling terminal to push keystrokes into
    except OSError:
        pass  # already a session leader
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"{command[0]}: {exc.strerror}\n")
        os._exit(127 if exc.errno == errno.ENOENT else 126)


if __name__ == "__main__":
    main(sys.argv[1:])
