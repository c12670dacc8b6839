"""The floors of DESIGN.md: no module of `iac_code` imports a module of a higher floor.

core < tools, providers, session_store, mcp_client, iac < agent < acp, headless, demo < cli. Lazy imports
inside functions count too: a floor is a dependency rule, not an import-time optimisation.
"""

from __future__ import annotations

import ast
from pathlib import Path

import iac_code

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


def imported_modules(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, absolute module name) for every import in `path`, relative imports resolved."""
    package = ["iac_code", *path.relative_to(root).parts[:-1]]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


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


def test_the_check_reports_upward_imports_lazy_and_relative(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "x.py").write_text(
        "from iac_code.core import events\n"
        "def f():\n    from iac_code.agent import loop\n"
        "from ..acp import server\n"
    )
    assert sorted(upward_imports(tmp_path)) == [
        "tools/x.py:3 imports iac_code.agent",
        "tools/x.py:3 imports iac_code.agent.loop",
        "tools/x.py:4 imports iac_code.acp",
        "tools/x.py:4 imports iac_code.acp.server",
    ]
