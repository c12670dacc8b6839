"""The parse cache, keyed by file content: an unchanged file is never parsed twice in a process.

Entries are keyed by (kind, BLAKE2 digest of the text); the cache holds at most `MAX_ENTRIES`
results and forgets the oldest first. Cached values are shared: callers must not mutate them.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
MAX_ENTRIES = 4096
_entries: OrderedDict[tuple[str, bytes], Any] = OrderedDict()


def get_or_compute(kind: str, text: str, compute: Callable[[], T]) -> T:
    """The cached result of parsing `text` as `kind`, computing (and keeping) it when absent."""
    key = (kind, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest())
    if key in _entries:
        _entries.move_to_end(key)
        return _entries[key]
    value = compute()
    _entries[key] = value
    if len(_entries) > MAX_ENTRIES:
        _entries.popitem(last=False)
    return value


def clear() -> None:
    """Forget every cached result (tests and benchmarks measuring a cold start)."""
    _entries.clear()
