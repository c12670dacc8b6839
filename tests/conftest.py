"""Shared pytest setup: make `tests/harness.py` importable from every test directory, keep the
compiled test modules, and the two tiers (`e2e`, derived by tests/tiers.py from what each test uses)."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# Keep pytest's assert-rewritten test modules (and iac_tui's bytecode) in __pycache__ even where
# PYTHONDONTWRITEBYTECODE is set, as on the machine this suite was written on: without them every
# run, in every xdist worker, rewrites every test module again (collection took 10.3 s of CPU
# without the caches, 6.3 s with them, at load 9).
sys.dont_write_bytecode = False

# The ACP SDK as `iac-code acp` imports it (`iac_code.acp.sdk_import`: its models built without
# reading their source for field docstrings, without garbage collection, then frozen), before
# tests/harness.py and the TUI's modules import it: 0.48 s of CPU instead of 0.83 s (medians of 5)
# at collection, and the agents served in this process get the models the agent process has.
from iac_code.acp.sdk_import import import_sdk  # noqa: E402

import_sdk()

from tiers import check_no_python_process, mark_e2e  # noqa: E402,F401 - a fixture used by every test


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "spawned_agent: the iac-tui test's apps spawn `iac-code acp` (tests/tui/tui_support.py)")
    config.addinivalue_line("markers", "e2e: starts a Python process (the real iac-code acp, an agent, a server); derived by tests/tiers.py")
    config.addinivalue_line("markers", "whole_heap: the test collects the whole heap, frozen objects too: it runs first (tests/conftest.py)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    gc.disable()  # parsing the test modules made the run's first full collections (0.5 s), for no garbage
    try:
        mark_e2e(items)
    finally:
        gc.enable()
    # tests/tui first (its tests take seconds each; the slowest 10-18 s), the rest in their order
    # after it: xdist hands tests out in this order, so the run ends on short tests and no worker
    # idles while the other finishes a long one (collected last, they left one worker idle up to ~15 s).
    # Before them the tests marked whole_heap, while the heap is smallest: ~160k objects after
    # collection, ~1.5 million by the end of a fast-tier run (what earlier modules keep alive:
    # cfn-lint's and the providers' schemas, Textual), ~1 s per whole collection there.
    items.sort(key=lambda item: 0 if item.get_closest_marker("whole_heap") else 1 if item.path.parent.name == "tui" else 2)


@pytest.fixture(autouse=True, scope="module")
def _freeze_what_the_module_left() -> Iterator[None]:
    """After a module's tests (torn down last of its fixtures): collect what is not frozen, then
    freeze the survivors (`gc.freeze()`, as `iac_tui.gc_pacing`'s recent collections do).

    Python's automatic full collections walk every object alive; a fast-tier run keeps ~1.5 million
    (Textual, cfn-lint's and the providers' schemas, the modules), and its 29 full collections took
    12.6 s of a 75 s run. Frozen, what the earlier modules left alive is walked no more. A module's
    garbage is collected before anything is frozen, inside the last test's teardown, so an
    exception a finalizer raises fails that test (also under xdist)."""
    yield
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True, scope="session")
def _one_whole_collection_at_the_end() -> Iterator[None]:
    """At the end of the run (inside the last test's teardown, so pytest reports what it finds,
    under xdist too): unfreeze, collect everything, freeze what is left. What the modules froze
    and released later is collected here, and pytest's own 5 end-of-run collections (and the
    interpreter's at exit), which walked ~1.5 million objects (3.6 s and ~5 s more), find little."""
    yield
    gc.unfreeze()
    gc.collect()
    gc.freeze()
