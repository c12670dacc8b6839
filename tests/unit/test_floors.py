"""The floors of DESIGN.md, and no cycle between modules.

No module of `iac_code` imports a module of a higher floor: core < tools, providers,
session_store, mcp_client, iac < agent < acp, headless, demo < cli. And in `iac_code` and in
`iac_tui`, no module depends on itself through others (`a -> b -> a`): a cycle is a dependency
pointing the wrong way, broken by moving the shared thing down or passing what is used.

Every import in a file counts, wherever it is written (`ast.walk` visits the whole tree): at
module level, inside functions (a lazy import is an import-time optimisation, not another
dependency rule) and inside `if TYPE_CHECKING:` blocks (a type named in a signature is a
dependency too). A module's imports of its own parent packages are left out of the graph (Python
runs a package's `__init__` before its modules anyway).
"""

from __future__ import annotations

import ast
import functools
from collections import deque
from pathlib import Path

import pytest

import iac_code
import iac_tui

FLOORS = {
    "core": 0,
    "tools": 1,
    "providers": 1,
    "session_store": 1,
    "mcp_client": 1,
    "iac": 1,
    "agent": 2,
    "acp": 3,
    "headless": 3,
    "demo": 3,
    "cli": 4,
}
ROOT = Path(iac_code.__file__).parent
PACKAGES = {"iac_code": ROOT, "iac_tui": Path(iac_tui.__file__).parent}


def imported_modules(path: Path, root: Path = ROOT, top: str = "iac_code") -> list[tuple[int, str]]:
    """(line, absolute module name) for every import anywhere in `path` (the package `top` lives
    in `root`), relative imports resolved; `from m import x` names both `m` and `m.x`."""
    return list(_imports_in(path.read_text(encoding="utf-8"), (top, *path.relative_to(root).parts[:-1])))


@functools.lru_cache(maxsize=1024)
def _imports_in(source: str, package: tuple[str, ...]) -> tuple[tuple[int, str], ...]:
    """`imported_modules` of a module's source in `package`: parsed once per source, though three
    tests walk the same modules (each parse and walk of iac_code took ~0.3 s here)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return tuple(found)


def floor_of(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "iac_code" or len(parts) < 2:
        return None
    return FLOORS.get(parts[1])


def upward_imports(root: Path = ROOT) -> list[str]:
    """`file:line imports module` for every import of a higher floor under the package `root`."""
    upward = []
    for path in sorted(root.rglob("*.py")):
        own = FLOORS.get(path.relative_to(root).parts[0].removesuffix(".py"))
        if own is None:
            continue
        for line, module in imported_modules(path, root):
            other = floor_of(module)
            if other is not None and other > own:
                upward.append(f"{path.relative_to(root)}:{line} imports {module}")
    return upward


def module_name(path: Path, root: Path, top: str) -> str:
    """`top.a.b` for `root/a/b.py` and for `root/a/b/__init__.py`."""
    parts = [top, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path, top: str) -> dict[str, set[str]]:
    """module -> the modules of the package `top` (in `root`) it imports, its own parent
    packages left out."""
    paths = {module_name(path, root, top): path for path in sorted(root.rglob("*.py"))}
    return {
        name: {
            other
            for _, other in imported_modules(path, root, top)
            if other in paths and other != name and not name.startswith(other + ".")
        }
        for name, path in paths.items()
    }


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo += graph[module]
    return seen


def _shortest_cycle(graph: dict[str, set[str]], start: str) -> list[str]:
    """The shortest path `start -> ... -> start` (breadth first, names in sorted order)."""
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        module = queue.popleft()
        for other in sorted(graph[module]):
            if other == start:
                path = [module]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if other not in came_from:
                came_from[other] = module
                queue.append(other)
    return []


def cycles(graph: dict[str, set[str]]) -> list[str]:
    """One `a -> b -> a` per group of modules that import each other (a strongly connected
    component of the graph), starting at the group's first name; [] when the graph has none."""
    reach = {module: _reachable(graph, module) for module in graph}
    found, grouped = [], set()
    for module in sorted(graph):
        if module in grouped or module not in reach[module]:
            continue
        grouped |= {other for other in reach[module] if module in reach[other]}
        found.append(" -> ".join(_shortest_cycle(graph, module)))
    return found


@pytest.mark.parametrize("top", sorted(PACKAGES))
def test_no_cycle_between_modules(top: str) -> None:
    assert cycles(import_graph(PACKAGES[top], top)) == []


def test_the_graph_sees_every_import_and_names_each_cycle(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text("from pkg import a\n")  # a parent importing its module: no cycle
    (tmp_path / "a.py").write_text(
        "from typing import TYPE_CHECKING\nfrom pkg import c\n"
        "if TYPE_CHECKING:\n    from pkg.b import B\n"
    )
    (tmp_path / "b.py").write_text("def f():\n    from . import a\n")
    (tmp_path / "c.py").write_text("import pkg.d\n")
    (tmp_path / "d.py").write_text("from .c import x\n")
    (tmp_path / "e.py").write_text("from pkg import a, b\n")  # depends on a cycle, is in none
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.a"] == {"pkg.b", "pkg.c"}
    assert graph["pkg.b"] == {"pkg.a"}
    assert cycles(graph) == ["pkg.a -> pkg.b -> pkg.a", "pkg.c -> pkg.d -> pkg.c"]
    (tmp_path / "b.py").write_text("B = 1\n")
    (tmp_path / "d.py").write_text("x = 1\n")
    assert cycles(import_graph(tmp_path, "pkg")) == []


def test_no_module_imports_a_higher_floor() -> None:
    assert upward_imports() == []


def test_core_imports_nothing_of_iac_code() -> None:
    inward = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted((ROOT / "core").rglob("*.py"))
        for line, module in imported_modules(path)
        if module.startswith("iac_code.") and not module.startswith("iac_code.core")
    ]
    assert inward == []


def test_the_check_reports_upward_imports_lazy_relative_and_for_types(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "x.py").write_text(
        "from iac_code.core import events\n"
        "def f():\n    from iac_code.agent import loop\n"
        "from ..acp import server\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from iac_code.headless import run\n"
    )
    assert sorted(upward_imports(tmp_path)) == [
        "tools/x.py:3 imports iac_code.agent",
        "tools/x.py:3 imports iac_code.agent.loop",
        "tools/x.py:4 imports iac_code.acp",
        "tools/x.py:4 imports iac_code.acp.server",
        "tools/x.py:7 imports iac_code.headless",
        "tools/x.py:7 imports iac_code.headless.run",
    ]
