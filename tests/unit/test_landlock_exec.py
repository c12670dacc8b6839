"""The Landlock backend (`tools/sandbox/landlock_exec.py`) both ways the agent uses it: as a program
(the editor's terminal) and as a `Confinement` its forked child applies before the exec (a local
command); with a mount namespace of its own where one can be made, and with Landlock alone where
it cannot (inside a bubblewrap sandbox that forbids new user namespaces and holds no capability,
or `mounts=False`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from iac_code.tools.sandbox import detect
from iac_code.tools.sandbox.backends import LANDLOCK_EXEC
from iac_code.tools.sandbox.landlock_exec import DEVICES, Confinement

SCRIPT = """
P=$1 H=$2 T=$3
cd "$P"
try() { if eval "$2" 2>/dev/null; then echo "$1 yes"; else echo "$1 no"; fi; }
try edit 'echo y >> main.tf'
try sub 'echo y > modules/new.tf'
try root 'echo y > new.tf'
try hook 'echo x > .git/hooks/pre-commit'
try gitconfig 'echo x >> .git/config'
try dotenv 'grep -q SECRET .env'
try key 'grep -q KEY "$H/.ssh/id_rsa"'
try outside 'echo x > "$H/outside"'
try tmp 'echo x > "$T/t"'
try tcp 'echo x > /dev/tcp/127.0.0.1/9'
try shm 'python3 -c "import multiprocessing as m; m.Pool(1).map(abs, [1])"'
try random 'test "$(head -c 8 /dev/urandom | wc -c)" = 8 && echo x > /dev/null'
"""


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = Path(os.path.realpath(tmp_path))
    project, home, tmp = root / "proj", root / "home", root / "tmp"
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / ".git" / "config").write_text("[core]\n")
    (project / "modules").mkdir()
    (project / "main.tf").write_text("# x\n")
    (project / ".env").write_text("SECRET=1\n")
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    tmp.mkdir()
    return project, home, tmp


def helper(project: Path, home: Path, tmp: Path) -> list[str]:
    return [sys.executable, "-I", "-S", str(LANDLOCK_EXEC), "--write", str(project), "--write", str(tmp),
            "--read-only", str(project / ".git"), "--hide", str(project / ".env"), "--hide", str(home / ".ssh"),
            "--", "/bin/bash", "-c", SCRIPT, "probe", str(project), str(home), str(tmp)]  # fmt: skip


def confined(project: Path, home: Path, tmp: Path, *, mounts: bool | None = None) -> dict[str, str]:
    """The probe run as a local command: the confinement prepared here, applied in the forked child."""
    argv = ["/bin/bash", "-c", SCRIPT, "probe", str(project), str(home), str(tmp)]
    with Confinement([str(project), str(tmp)], [str(project / ".git")], [str(project / ".env"), str(home / ".ssh")],
                     mounts=mounts) as confinement:  # fmt: skip
        return outcome(argv, preexec_fn=confinement.apply)


def outcome(argv: list[str], preexec_fn=None) -> dict[str, str]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False, preexec_fn=preexec_fn, start_new_session=True)
    assert done.returncode == 0, done.stderr
    return dict(line.split() for line in done.stdout.splitlines())


CONTAINED = {"hook": "no", "gitconfig": "no", "dotenv": "no", "key": "no", "outside": "no", "tcp": "no", "random": "yes"}


@pytest.mark.parametrize("way", ["program", "forked child"])
def test_with_a_mount_namespace(place, way):
    if detect("landlock").backend != "landlock":
        pytest.skip(f"Landlock does not work here: {detect('landlock').landlock}")
    seen = outcome(helper(*place)) if way == "program" else confined(*place)
    assert seen == {**CONTAINED, "edit": "yes", "sub": "yes", "root": "yes", "tmp": "yes", "shm": "yes"}


def test_with_landlock_alone(place):
    if detect("landlock").backend != "landlock" or detect("bwrap").backend != "bwrap":
        pytest.skip("needs Landlock, and bubblewrap to take the mount namespace away")
    project, home, tmp = place
    root = str(project.parent)
    jail = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", root, root,
            "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--"]  # fmt: skip
    seen = outcome(jail + helper(*place))
    # the project's top level holds .git and .env: Landlock cannot grant new entries there
    assert seen == {**CONTAINED, "edit": "yes", "sub": "yes", "root": "no", "tmp": "yes", "shm": "yes"}


def test_a_forked_child_with_landlock_alone(place):
    if detect("landlock").backend != "landlock":
        pytest.skip(f"Landlock does not work here: {detect('landlock').landlock}")
    seen = confined(*place, mounts=False)
    assert seen == {**CONTAINED, "edit": "yes", "sub": "yes", "root": "no", "tmp": "yes", "shm": "yes"}


def test_an_ancestors_environment_is_out_of_reach(tmp_path):
    """iac-tui (like this test process) is a dumpable ancestor of the agent's commands: Landlock's
    ptrace scope keeps its /proc environ and memory from them (bubblewrap's PID namespace does)."""
    if detect("landlock").backend != "landlock":
        pytest.skip(f"Landlock does not work here: {detect('landlock').landlock}")
    probe = ["/bin/bash", "-c", f"head -c 64 /proc/{os.getpid()}/environ >/dev/null && echo read"]
    plain = subprocess.run(probe, capture_output=True, text=True, timeout=60, check=False)
    assert plain.stdout == "read\n"  # same user, not confined: readable
    with Confinement([str(tmp_path)], mounts=False) as confinement:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=60, check=False, preexec_fn=confinement.apply)
    assert done.stdout == "" and "Permission denied" in done.stderr


def test_only_the_ordinary_devices_can_be_opened(tmp_path):
    """As bubblewrap's `--dev`: null, zero, full, random, urandom, tty, ptmx, pts; not a disk, a
    loop device, /dev/kvm, the console (which this test process, root here, can open)."""
    if detect("landlock").backend != "landlock":
        pytest.skip(f"Landlock does not work here: {detect('landlock').landlock}")
    devices = sorted(str(p) for p in Path("/dev").iterdir() if not p.is_symlink() and (p.is_char_device() or p.is_block_device()))
    others = [d for d in devices if d not in DEVICES and openable(d)]
    probe = ["/bin/bash", "-c", 'for d in "$@"; do if exec 3< "$d"; then echo "$d"; fi 2>/dev/null; done', "probe", *others]
    ordinary = ["/bin/bash", "-c", "head -c 8 /dev/urandom | wc -c > /dev/null && : < /dev/zero && echo ok"]
    with Confinement([str(tmp_path)]) as confinement:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=60, check=False, preexec_fn=confinement.apply)
        usual = subprocess.run(ordinary, capture_output=True, text=True, timeout=60, check=False, preexec_fn=confinement.apply)
    assert done.stdout == ""  # here, as root: the console, kmsg, loop devices, kvm, fuse... outside it
    assert usual.stdout == "ok\n", usual.stderr


def openable(path: str) -> bool:
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY))
    except OSError:
        return False
    return True


def test_the_persons_terminals_are_out_of_reach_and_a_new_one_works(tmp_path):
    """With a mount namespace, a pseudo-terminal instance of the command's own (as bubblewrap's
    `--dev`): a terminal open outside (the person's shell, an editor's) cannot be opened, a new
    one can be made."""
    if detect("landlock").backend != "landlock":
        pytest.skip(f"Landlock does not work here: {detect('landlock').landlock}")
    leader, follower = os.openpty()
    try:
        theirs = os.ttyname(follower)
        probe = ["/bin/bash", "-c", f'exec 3> {theirs} && echo wrote; {sys.executable} -I -c "import os; os.openpty(); print(\'made\')"']
        with Confinement([str(tmp_path)], mounts=True) as confinement:
            done = subprocess.run(probe, capture_output=True, text=True, timeout=60, check=False, preexec_fn=confinement.apply)
    finally:
        os.close(leader)
        os.close(follower)
    assert done.stdout == "made\n", done.stderr
