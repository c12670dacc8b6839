"""The parse cache, keyed by file content: an unchanged file is not parsed twice in a process
while it is remembered.

Entries are keyed by (kind, BLAKE2 digest of the text) and weigh the length of their text; the
cache keeps the most recently used entries up to `MAX_TEXT` characters of text in all (a parse
tree takes ~45 times its text in memory: ~70 MiB at most) and `MAX_ENTRIES` entries, and
forgets the oldest first, so a repository's size does not set the process's memory. Cached
values are shared: callers must not mutate them.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
MAX_ENTRIES = 4096
MAX_TEXT = 3 << 19  # 1.5 MiB
_entries: OrderedDict[tuple[str, bytes], tuple[int, Any]] = OrderedDict()
_weight = 0


def get_or_compute(kind: str, text: str, compute: Callable[[], T]) -> T:
    """The cached result of parsing `text` as `kind`, computing (and keeping) it when absent."""
    global _weight
    key = (kind, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest())
    if key in _entries:
        _entries.move_to_end(key)
        return _entries[key][1]
    value = compute()
    _entries[key] = (len(text), value)
    _weight += len(text)
    while len(_entries) > 1 and (len(_entries) > MAX_ENTRIES or _weight > MAX_TEXT):
        _weight -= _entries.popitem(last=False)[1][0]
    return value


def clear() -> None:
    """Forget every cached result (tests and benchmarks measuring a cold start)."""
    global _weight
    _entries.clear()
    _weight = 0
