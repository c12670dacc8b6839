"""The suite's two tiers: the `e2e` mark, derived from what a test uses.

A test is `e2e` (the contract tier) when it starts a Python process: the real `iac-code acp`
(`harness.spawn_agent`, `harness.spawn_raw`, an `IacTui` app, which starts its agent), another
of our programs (`iac-code validate`, `-p`, `iac-tui`), a foreign ACP agent, an MCP server, a
fresh interpreter. Every other test is the fast tier (`pytest -m "not e2e"`): unit tests, the
agent's sessions in process, widgets on a bare `Conversation` in a small App.

Nothing is written in a test for this. At collection, a test is marked `e2e` when its own code,
the fixtures it requests and the helpers they name (functions, classes and constants of the
tests' own modules, followed through imports between them) name `sys.executable` or `IacTui`:
every way a test starts a Python process goes through one of those two names. A test the rule
misses (a process started by a library the test calls, say) takes `@pytest.mark.e2e` by hand.

The rule is kept honest at run time: a test not marked `e2e` that starts a Python process
fails at teardown, naming the command (`check_no_python_process`).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve()
TESTS = HERE.parent
LANDLOCK_LAUNCHER = Path(importlib.util.find_spec("iac_code").origin).parent / "tools" / "sandbox" / "landlock_exec.py"
"""The command sandbox's Landlock launcher (`python -I -S landlock_exec.py … -- PROGRAM`), a
stdlib-only script that confines itself and execs the command at once: where bubblewrap is not
installed, every sandboxed command in a client terminal starts through it. It is the sandbox's
exec, not a program of ours doing work, so it does not make a test `e2e` (the fast tier would
otherwise depend on which sandbox the machine has)."""
ROOTS = frozenset({"executable", "IacTui"})
"""The names through which a test starts a Python process: `sys.executable`, the app."""


class Module:
    """One of the tests' own modules, read once: where its top-level names are defined."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.defs: dict[str, ast.AST] = {}
        self.imports: dict[str, tuple[Path, str | None]] = {}
        """A name -> (the test module it comes from, its name there; None for the module itself)."""
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.defs[node.name] = node
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            self.defs[name.id] = node
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                source = local_module(path.parent, node.module)
                if source is not None:
                    for alias in node.names:
                        self.imports[alias.asname or alias.name] = (source, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    source = local_module(path.parent, alias.name)
                    if source is not None:
                        self.imports[alias.asname or alias.name] = (source, None)


def local_module(directory: Path, dotted: str) -> Path | None:
    """The tests' own module `dotted` as imported from `directory` (pytest puts a test file's
    directory, and tests/conftest.py puts tests/, on sys.path), or None for any other module."""
    relative = Path(*dotted.split(".")).with_suffix(".py")
    for base in (directory, TESTS):
        if (base / relative).is_file():
            return (base / relative).resolve()
    return None


@cache
def module(path: Path) -> Module:
    return Module(path)


@cache
def names(node: ast.AST) -> frozenset[str]:
    """Every identifier `node` mentions: names, attributes (`sys.executable` -> `executable`)."""
    found = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            found.add(child.id)
        elif isinstance(child, ast.Attribute):
            found.add(child.attr)
    return frozenset(found)


@cache
def fixture_modules(directory: Path) -> tuple[Path, ...]:
    """The conftest.py files whose fixtures a test in `directory` sees, up to tests/."""
    found = []
    while True:
        if (directory / "conftest.py").is_file():
            found.append(directory / "conftest.py")
        if directory == TESTS or directory == directory.parent:
            return tuple(found)
        directory = directory.parent


Ref = tuple[Path, str]
"""A top-level name of one of the tests' modules."""


@cache
def mentions(ref: Ref) -> frozenset[Ref]:
    """The top-level names `ref`'s definition mentions (an imported name: its definition)."""
    path, name = ref
    if path == HERE:
        return frozenset()  # this module's names start nothing (is_python names sys.executable to recognise it)
    where = module(path)
    if name in where.defs:
        return frozenset((path, n) for n in names(where.defs[name]))
    if name in where.imports and where.imports[name][1] is not None:
        return frozenset({where.imports[name]})  # type: ignore[arg-type]
    return frozenset()


SILENT: set[Ref] = set()
"""Names known to reach no root (every name visited by a search that found none)."""


def reaches_root(start: set[Ref]) -> bool:
    """Whether any of `start`, or what they mention (transitively), is a root."""
    todo, seen = list(start - SILENT), set()
    while todo:
        ref = todo.pop()
        if ref[1] in ROOTS:
            return True
        if ref not in seen:
            seen.add(ref)
            todo += [r for r in mentions(ref) if r not in seen and r not in SILENT]
    SILENT.update(seen)
    return False


def starts_python(item: pytest.Function) -> bool:
    """Whether the test's code, fixtures and the helpers they name (transitively) name a root."""
    test_file = Path(str(item.path)).resolve()
    if TESTS not in test_file.parents:
        return False
    here = module(test_file)
    node = here.defs.get(item.cls.__name__ if item.cls else item.originalname)
    start = {(test_file, n) for n in names(node)} if node else set()
    for fixture in item.fixturenames:
        start |= {(path, fixture) for path in (test_file, *fixture_modules(test_file.parent)) if fixture in module(path).defs}
    return reaches_root(start)


def mark_e2e(items: list[pytest.Item]) -> None:
    """Mark every collected test that starts a Python process `e2e`."""
    for item in items:
        if isinstance(item, pytest.Function) and not item.get_closest_marker("e2e") and starts_python(item):
            item.add_marker(pytest.mark.e2e)
    for cached in (module, names, mentions):  # the parsed test modules (~100,000 AST nodes): not needed
        cached.cache_clear()  # once marked, and every full garbage collection of the run walked them


def is_python(argv: Any) -> bool:
    """Whether `argv` (as given to subprocess.Popen) runs a Python program: an interpreter given
    a script, `-m` or `-c`. The bare interpreter is not counted: the sandbox probes a forked
    child with `[sys.executable]` and a preexec_fn that exits before the exec (once per process,
    so whichever test comes first would fail), nor the sandbox's launcher (`LANDLOCK_LAUNCHER`)."""
    if isinstance(argv, str | bytes | os.PathLike):
        argv = [argv]
    if len(argv) < 2:
        return False
    program = os.fsdecode(argv[0])
    if not (program == sys.executable or Path(program).name.startswith("python")):
        return False
    script = next((os.fsdecode(arg) for arg in argv[1:] if not os.fsdecode(arg).startswith("-")), "")
    return Path(script).resolve() != LANDLOCK_LAUNCHER


@pytest.fixture(autouse=True)
def check_no_python_process(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A fast-tier test must not start a Python process: if it does, it fails at teardown,
    naming the command (mark it `e2e`, or start the process through a name tiers.ROOTS lists)."""
    if request.node.get_closest_marker("e2e"):
        yield
        return
    started: list[str] = []
    popen_init = subprocess.Popen.__init__

    def init(self: subprocess.Popen[Any], args: Any, *rest: Any, **kw: Any) -> None:
        if is_python(args):
            started.append(" ".join(map(os.fsdecode, [args] if isinstance(args, str | bytes) else args)))
        popen_init(self, args, *rest, **kw)

    monkeypatch.setattr(subprocess.Popen, "__init__", init)
    yield
    if started:
        pytest.fail(
            f"{request.node.nodeid} is in the fast tier but started a Python process: {started[0]!r}. "
            "Mark it @pytest.mark.e2e (tests/tiers.py says how the mark is derived).",
            pytrace=False,
        )
