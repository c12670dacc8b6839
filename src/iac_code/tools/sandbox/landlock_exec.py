"""Run a command under Landlock and a seccomp network filter (the sandbox's Landlock backend).

    python3 -I -S landlock_exec.py [--write PATH]... [--read-only PATH]... [--hide PATH]...
                                   [--blank FILE] [--network] -- PROGRAM [ARG]...

A stand-alone script, standard library only (it is run by path with `-I -S`, also by an editor
running the command in its terminal), that restricts itself and then execs PROGRAM:

- a mount namespace of its own where it can make one (as root, or in a user namespace of its
  own): each `--read-only` path bound read-only onto itself, each `--hide` path covered (an
  empty read-only tmpfs over a directory, the empty `--blank` FILE (default /dev/null) over a file);
- Landlock (Linux >= 5.13): everything may be read and executed; the `--write` trees may be
  changed too, and /dev/shm (a private tmpfs in the mount namespace). A `--read-only` or `--hide` path that no mount covered is left out of the grants
  instead (only read, or not read at all; its name stays listed). Landlock only grants, so a tree
  holding such a path is granted entry by entry: a directory holding one keeps its existing files
  writable but gets no new entries of its own (its subdirectories without such paths are granted
  whole). Landlock also forbids mounting and unmounting, so no mount above can be undone;
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

If any of this cannot be applied the command is not run: exit status 126 and the reason on stderr.
"""

import ctypes
import errno
import os
import struct
import sys

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
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts")
"""Written by ordinary commands (`> /dev/null`, a pseudo-terminal): writable in the sandbox."""
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


def fail(message):
    sys.stderr.write(f"iac-code sandbox (landlock): {message}; the command did not run\n")
    sys.stderr.flush()
    os._exit(126)


def syscall(number, *args):
    result = libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


def abi_version():
    """The kernel's Landlock ABI version (0: none)."""
    try:
        return syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    except OSError:
        return 0


def handled_rights(abi):
    rights = (1 << 13) - 1  # EXECUTE .. MAKE_SYM: ABI 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def inside(path, root):
    return path == root or path.startswith(root.rstrip("/") + "/")


class Rules:
    """The rules granting `grants` (path -> rights) except what `limits` (path -> the rights
    allowed there: READ for read-only, 0 for hidden) takes away."""

    def __init__(self, handled, limits):
        self.handled = handled
        self.limits = limits
        self.found = {}  # path -> rights, to add to the ruleset

    def grant(self, path, rights):
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

    def add(self, path, rights):
        self.found[path] = self.found.get(path, 0) | rights


def apply_landlock(writable, read_only, hidden):
    abi = abi_version()
    if abi < 1:
        fail("Landlock is not available in this kernel (Linux >= 5.13 with Landlock enabled)")
    handled = handled_rights(abi)
    limits = {p: READ for p in read_only}
    limits.update({p: 0 for p in hidden})
    rules = Rules(handled, limits)
    rules.grant("/", READ)
    for path in writable:
        rules.grant(path, handled)
    for path in DEVICES:
        rules.grant(path, READ | WRITE_FILE | IOCTL_DEV)
    if os.path.isdir(SHARED_MEMORY):
        rules.grant(SHARED_MEMORY, handled)
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("QQQ", handled, 0, scoped) if abi >= 6 else struct.pack("Q", handled)
    try:
        ruleset = syscall(SYS_CREATE_RULESET, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    except OSError as exc:
        fail(f"cannot create a Landlock ruleset: {exc.strerror}")
    for path, rights in rules.found.items():
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            continue  # gone meanwhile: nothing to grant
        try:
            if not os.path.isdir(path):
                rights &= FILE_RIGHTS
            beneath = struct.pack("=Qi", rights, fd)
            syscall(SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), ctypes.c_char_p(beneath), ctypes.c_uint32(0))
        except OSError as exc:
            fail(f"cannot add the Landlock rule for {path}: {exc.strerror}")
        finally:
            os.close(fd)
    try:
        syscall(SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    except OSError as exc:
        fail(f"cannot enforce the Landlock ruleset: {exc.strerror}")
    os.close(ruleset)


def enter_mount_namespace():
    """A mount namespace of our own (as root directly, else in a new user namespace mapping our
    uid and gid to themselves) with private mounts; False where none can be made."""
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWNS) != 0:
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
            return False
        try:
            for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
                with open(f"/proc/self/{name}", "w") as f:
                    f.write(text)
        except OSError as exc:
            fail(f"cannot map the user namespace: {exc.strerror}")
    try:
        mount(None, "/", None, MS_REC | MS_PRIVATE)
    except OSError:
        return False
    return True


def mount(source, target, fstype, flags, data=None):
    def arg(text):
        return None if text is None else os.fsencode(text)

    if libc.mount(arg(source), arg(target), arg(fstype), ctypes.c_ulong(flags), arg(data)) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def bind_read_only(source, target):
    mount(source, target, None, MS_BIND | MS_REC)
    kept = os.statvfs(target).f_flag
    flags = sum(ms for st, ms in LOCKED_FLAGS.items() if kept & st)
    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)


def cover(read_only, hidden, blank):
    """Mount over the protected paths; the ones left for Landlock (no mount could be made)."""
    if not enter_mount_namespace():
        return read_only, hidden
    try:  # the commands' shared memory is their own, not the machine's
        mount("tmpfs", SHARED_MEMORY, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
    except OSError:
        pass
    left_read_only, left_hidden = [], []
    for path in read_only:
        try:
            bind_read_only(path, path)
        except OSError:
            left_read_only.append(path)
    for path in hidden:
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=555")
            else:
                bind_read_only(blank, path)
        except OSError:
            left_hidden.append(path)
    return left_read_only, left_hidden


def drop_capabilities():
    """No capability for the command, as root too (a root without them cannot load a module,
    trace the agent or undo the sandbox): the ambient and bounding sets emptied, and root given
    none on exec (`SECBIT_NOROOT`, where we may set it)."""
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
            break  # past the last capability this kernel knows
    libc.prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED, 0, 0, 0)
    kept = capability_sets()
    if kept.get("CapBnd", 1) or kept.get("CapInh", 1):  # what an exec could give back
        fail("cannot take the capabilities away")


def capability_sets():
    """This process's capability sets (`CapInh`, `CapPrm`, `CapEff`, `CapBnd`, `CapAmb`) as numbers."""
    found = {}
    with open("/proc/self/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name.startswith("Cap"):
                found[name] = int(value, 16)
    return found


def network_filter():
    """A seccomp BPF program (bytes of `struct sock_filter`s) refusing network syscalls."""
    machine = os.uname().machine
    if machine not in ARCHES:
        fail(f"no seccomp network filter for the {machine} architecture")
    arch, sock, connect, accept, bind, listen, accept4, io_uring = ARCHES[machine]
    allow, eperm = 0x7FFF0000, 0x00050000 | errno.EPERM
    eafnosupport, enosys = 0x00050000 | errno.EAFNOSUPPORT, 0x00050000 | errno.ENOSYS
    ld_arch, ld_nr, ld_arg0 = (0x20, 0, 0, 4), (0x20, 0, 0, 0), (0x20, 0, 0, 16)

    def jeq(value, yes, no=0):
        return (0x15, yes, no, value)

    def ret(value):
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


def apply_seccomp():
    code, count = network_filter()
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = struct.pack("HxxxxxxP", count, ctypes.addressof(buffer))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.c_char_p(fprog), 0, 0) != 0:
        fail(f"cannot install the seccomp network filter: {os.strerror(ctypes.get_errno())}")


def parse(argv):
    writable, read_only, hidden, blank, network = [], [], [], ["/dev/null"], False
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


def main(argv):
    writable, read_only, hidden, blank, network, command = parse(argv)
    read_only, hidden = cover(read_only, hidden, blank)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        fail(f"cannot set no_new_privs: {os.strerror(ctypes.get_errno())}")
    apply_landlock(writable, read_only, hidden)
    drop_capabilities()
    if not network:
        apply_seccomp()
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
