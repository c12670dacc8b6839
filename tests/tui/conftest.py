"""Fixtures of the iac-tui tests, and where the snapshot SVGs live.

Snapshots are stored in the repository's top-level `snapshots/` directory, in a folder named
after the test module (syrupy matches snapshot files to modules by that folder name).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
import pytest_textual_snapshot
from syrupy.location import PyTestLocation

from tui_support import Workspace

SNAPSHOT_ROOT = Path(__file__).resolve().parents[2] / "snapshots"


class TopLevelSVGExtension(pytest_textual_snapshot.SVGImageExtension):
    """The plugin's SVG extension, writing to `<repo>/snapshots/<test module>/`."""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(SNAPSHOT_ROOT / test_location.basename)


@pytest.fixture(autouse=True)
def _snapshot_location(monkeypatch: pytest.MonkeyPatch) -> None:
    # snap_compare looks the extension up in its module at call time
    monkeypatch.setattr(pytest_textual_snapshot, "SVGImageExtension", TopLevelSVGExtension)


@pytest.fixture(autouse=True)
def _utc():
    """Times are shown in local time: make that UTC."""
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if saved is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = saved
    time.tzset()


@pytest.fixture
def ws(tmp_path: Path, request: pytest.FixtureRequest) -> Workspace:
    """A fresh project (`infra/`) with its agent config dir, under the test's tmp dir; its apps
    spawn their agent in a module marked `spawned_agent` (tui_support says why)."""
    return Workspace(tmp_path, spawn=request.node.get_closest_marker("spawned_agent") is not None)


@pytest.fixture(autouse=True)
def _no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Nothing reads or writes the real ~/.iac-code."""
    monkeypatch.setenv("IAC_CODE_CONFIG_DIR", str(tmp_path / "iac-config"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    os.environ.pop("IAC_CODE_SCRIPT", None)
