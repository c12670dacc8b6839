"""Shared pytest setup: make `tests/harness.py` importable from every test directory."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
