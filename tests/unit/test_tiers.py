"""tests/tiers.py's run-time check: which commands count as starting a Python process."""

from __future__ import annotations

from tiers import LANDLOCK_LAUNCHER, is_python


def test_an_interpreter_given_a_program_is_a_python_process() -> None:
    assert is_python(["/usr/bin/python3", "-m", "iac_code", "acp"])
    assert is_python(["/usr/bin/python3", "-c", "print(1)"])
    assert is_python(["python3", "script.py"])


def test_the_bare_interpreter_and_other_programs_are_not() -> None:
    assert not is_python(["/usr/bin/python3"])
    assert not is_python(["/bin/bash", "-c", "python3 -c 1"])


def test_the_sandbox_launcher_is_the_sandbox_s_exec_not_a_python_process() -> None:
    """Where bubblewrap is missing, a sandboxed command in a client terminal starts through the
    Landlock launcher: the fast tier must not depend on which sandbox the machine has."""
    assert LANDLOCK_LAUNCHER.is_file(), "the launcher moved: update tests/tiers.py"
    assert not is_python(["/usr/bin/python3", "-I", "-S", str(LANDLOCK_LAUNCHER), "--write", "/tmp", "--", "/bin/bash", "-c", "true"])
