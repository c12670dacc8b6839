"""Shared pytest setup: make `tests/harness.py` importable from every test directory, keep the
compiled test modules, and the two tiers (`e2e`, derived by tests/tiers.py from what each test uses)."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# Keep pytest's assert-rewritten test modules (and iac_tui's bytecode) in __pycache__ even where
# PYTHONDONTWRITEBYTECODE is set, as on the machine this suite was written on: without them every
# run, in every xdist worker, rewrites every test module again (collection took 10.3 s of CPU
# without the caches, 6.3 s with them, at load 9).
sys.dont_write_bytecode = False

from tiers import check_no_python_process, mark_e2e  # noqa: E402,F401 - a fixture used by every test


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "spawned_agent: the iac-tui test's apps spawn `iac-code acp` (tests/tui/tui_support.py)")
    config.addinivalue_line("markers", "e2e: starts a Python process (the real iac-code acp, an agent, a server); derived by tests/tiers.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_e2e(items)
    # tests/tui first (its tests take seconds each; the slowest 10-18 s), the rest in their order
    # after it: xdist hands tests out in this order, so the run ends on short tests and no worker
    # idles while the other finishes a long one (collected last, they left one worker idle up to ~15 s)
    items.sort(key=lambda item: 0 if item.path.parent.name == "tui" else 1)


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Collect once, then freeze what is left before pytest's own end-of-run collections.

    pytest's unraisable-exception check collects garbage 5 times at the end of a run (to surface
    finalizers that fail), and the interpreter collects again as it exits: with the ~1.5 million
    objects a fast-tier run holds by then (Textual, cfn-lint's schemas, the providers' schemas),
    that was 3.6 s and another ~5 s of exit in one process (the fast tier: 89 s -> 79 s wall).
    One full collection here still runs the finalizers of every test's garbage (so pytest still
    reports them); what survives it is reachable, and frozen it is no longer walked again."""
    gc.collect()
    gc.freeze()
