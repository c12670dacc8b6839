"""Shared pytest setup: make `tests/harness.py` importable from every test directory, and the
two tiers (`e2e`, derived by tests/tiers.py from what each test uses)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from tiers import check_no_python_process, mark_e2e  # noqa: E402,F401 - a fixture used by every test


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e: starts a Python process (the real iac-code acp, an agent, a server); derived by tests/tiers.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_e2e(items)
