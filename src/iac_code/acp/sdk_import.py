"""Importing the `acp` SDK without reading its models' source and without building the models it
does not use: the one module with private access to pydantic.

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
live as long as the process anyway): another ~40 ms of CPU per start (0.35 -> 0.30 s of imports).

And the models are built when first used, not at the import (`deferred_model_builds()`: pydantic's
`defer_build`, set for the classes made inside it through the default of its private
`_config.config_defaults`): a model's fields are collected as the class is made, its validator and
serializer built at its first validation or dump, the same as an eager build would have made
them. An agent uses a few dozen of the ~280 (an `initialize`, a session and a turn build ~20):
~0.08 s of CPU less per `iac-code acp` start, initialize to a prompt turn's end (0.95 -> 0.88 s,
medians of 10 alternated, 3 Dec 2026). Our own models are made outside it, eagerly.

A process that imported the SDK before keeps the models it built (the test suite imports it
through here first, tests/conftest.py). tests/unit/test_sdk_import.py fails, naming what moved,
when a pydantic release changes what this relies on; the agent itself then imports the SDK as it
is (slower, the same models).
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


def _pydantic_private(name: str) -> ModuleType | None:
    """pydantic's private module `name` (None if a release removed it)."""
    try:
        return importlib.import_module(f"pydantic._internal.{name}")
    except ImportError:  # pragma: no cover - the SDK is then imported as it is
        return None


_LOCK = threading.RLock()


def _no_docstrings(cls: type[Any], use_inspect: bool = False) -> dict[str, str]:
    """`extract_docstrings_from_cls` finding nothing: the fields keep the descriptions `Field()` gives."""
    return {}


@contextlib.contextmanager
def without_attribute_docstrings() -> Iterator[None]:
    """While inside, pydantic models built with `use_attribute_docstrings` take no description from
    their fields' docstrings (and their source is not read). The original is put back on exit."""
    fields = _pydantic_private("_fields")
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


@contextlib.contextmanager
def deferred_model_builds() -> Iterator[None]:
    """While inside, pydantic models made (whose config does not say otherwise) defer their build
    to their first use (`defer_build=True`). The default is put back on exit."""
    config = _pydantic_private("_config")
    defaults = getattr(config, "config_defaults", None)
    if not isinstance(defaults, dict) or defaults.get("defer_build") is not False:
        yield  # a release that moved it: the models are built at once, as the SDK makes them
        return
    with _LOCK:
        defaults["defer_build"] = True
        try:
            yield
        finally:
            defaults["defer_build"] = False


def import_sdk() -> None:
    """Import the `acp` SDK (and its schema) without its attribute docstrings, its models' builds
    deferred to their first use, without garbage collection, then freeze what it made; nothing
    happens when the SDK is imported already."""
    if "acp" in sys.modules:
        return
    collecting = gc.isenabled()
    gc.disable()
    try:
        with without_attribute_docstrings(), deferred_model_builds():
            import acp  # noqa: F401 - the SDK's models are made here
    finally:
        if collecting:
            gc.enable()
    gc.freeze()
