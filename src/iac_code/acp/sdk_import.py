"""Importing the `acp` SDK without reading its models' source: the one private access to pydantic.

The SDK's models (`acp.schema`, ~270 classes) are declared with `use_attribute_docstrings=True`:
while each class is built, pydantic finds the class's source, tokenizes and parses it, and copies
each field's docstring into the field's `description`, which only a JSON schema of the model
shows. The agent never asks for one: what it validates and sends is the same without them. That
reading is ~40% of importing the SDK, which is most of what an `iac-code acp` start costs before
it can answer `initialize` (0.51 -> 0.37 s of CPU per start, measured with
`python -m iac_code acp`, initialize and session/new, 2 Dec 2026).

So `iac_code.acp` imports the SDK first thing, inside `without_attribute_docstrings()`: for that
import, pydantic's `_fields.extract_docstrings_from_cls` finds no docstrings. The import also runs
without the garbage collector, whose passes over the ~70,000 objects it makes find nothing to
free, and those objects are then frozen (`gc.freeze()`: later full collections skip them; they
live as long as the process anyway): another ~40 ms of CPU per start (0.35 -> 0.30 s of imports). A process that
imported the SDK before keeps the models it built (the test suite imports it through here first,
tests/conftest.py). tests/unit/test_sdk_import.py
fails, naming what moved, when a pydantic release changes what this relies on; the agent itself
then imports the SDK as it is (slower, the same models).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import sys
import threading
from collections.abc import Iterator
from types import ModuleType
from typing import Any


def _pydantic_fields() -> ModuleType | None:
    """pydantic's private module that collects a model's fields (None if a release removed it)."""
    try:
        return importlib.import_module("pydantic._internal._fields")
    except ImportError:  # pragma: no cover - the SDK is then imported as it is
        return None


_LOCK = threading.Lock()


def _no_docstrings(cls: type[Any], use_inspect: bool = False) -> dict[str, str]:
    """`extract_docstrings_from_cls` finding nothing: the fields keep the descriptions `Field()` gives."""
    return {}


@contextlib.contextmanager
def without_attribute_docstrings() -> Iterator[None]:
    """While inside, pydantic models built with `use_attribute_docstrings` take no description from
    their fields' docstrings (and their source is not read). The original is put back on exit."""
    fields = _pydantic_fields()
    original = getattr(fields, "extract_docstrings_from_cls", None)
    if original is None:
        yield
        return
    with _LOCK:
        setattr(fields, "extract_docstrings_from_cls", _no_docstrings)
        try:
            yield
        finally:
            setattr(fields, "extract_docstrings_from_cls", original)


def import_sdk() -> None:
    """Import the `acp` SDK (and its schema) without its attribute docstrings and without garbage
    collection, then freeze what it made; nothing happens when the SDK is imported already."""
    if "acp" in sys.modules:
        return
    collecting = gc.isenabled()
    gc.disable()
    try:
        with without_attribute_docstrings():
            import acp  # noqa: F401 - the SDK's models are built here
    finally:
        if collecting:
            gc.enable()
    gc.freeze()
