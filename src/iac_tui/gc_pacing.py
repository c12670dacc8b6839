"""Python's cyclic garbage collector, paced so that a full collection does not stall a keystroke.

Measured with `bench/tui_answer.py` (a 5,000-line answer streamed for 39 s, CPython 3.11, load
2-4): Python ran a full (generation-2) collection about every 1.7 s of the stream, and each one
walked every object the collector tracks: 50k at start-up, 560k by the end (the answer's widgets,
their strips and caches). Each took 0.1 s at first and 0.3-0.9 s by the end (21 of them: 7.5 s of
the app's 18 s of CPU), and every slow keystroke echo (0.3-0.7 s) had waited for one. Python's
collections of generations 0 and 1 cost little (at most 19 ms) and stay as they are.

So, on CPython before 3.14 (3.14's collector is incremental: it scans its old generation in steps,
and `gc.set_threshold` ignores a third value), `GcPacer` turns Python's automatic full
collections off and runs two kinds of its own, from `tick()` (the app calls it every `TICK` s):

- a *recent* collection, `gc.collect(2)` then `gc.freeze()`: frozen objects are left out of every
  collection, so it walks only what survived since the last freeze, not the whole heap. It runs
  once Python would have considered a full collection (its `threshold2`, 10 by default, of
  generation-1 collections since the last full one), but not within `KEY_GRACE` of a key (the
  key's echo goes first) unless the count reached `RECENT_FORCED` times the threshold.
  A frozen object is still freed once nothing refers to it; only a reference cycle among frozen
  objects waits for:
- a *whole* collection, `gc.unfreeze()`, `gc.collect(2)`, `gc.freeze()`: over everything, once the
  objects frozen by recent collections since the last whole one (counted as they are frozen:
  some are freed since) bring the frozen ones to `WHOLE_GROWTH` times what the last whole one
  froze and no key came for `QUIET` s, or regardless at `WHOLE_LIMIT` times. The garbage cycles
  held meanwhile are bounded by that growth. (`gc.get_freeze_count()` is not used to count: it
  walks the frozen objects, about 55 ms at the end of that answer on a loaded machine.) None runs
  below that limit while a person types: one at 3 times, in a gap of `KEY_GRACE` after a key,
  took 0.2-0.3 s (0.5 s at 0.55 of a CPU) and the next key waited for it, the slowest echo of
  the stream (`bench/tui_answer.py`, 2 runs each alternated: echo max 244-300 ms with it,
  42-57 ms without; at 0.55 of a CPU 465-488 ms, 147-158 ms).

With it (same bench and load): 36 full collections, 2.0 s in all instead of 7.5 s; recent ones
11-49 ms, whole ones 0.2-0.3 s, during the typing one or two. `start()` (before the app's first
paint) only freezes the start-up heap; the first whole collection comes once it has grown.
`stop()` gives Python its thresholds back and unfreezes. One pacer has the collector at a time
(a second `start()` in the process does nothing).
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from typing import Protocol

TICK = 1 / 10  # seconds between two looks at the collector's counts
KEY_GRACE = 1 / 10  # seconds after a key during which a collection waits (the key's echo goes first)
RECENT_FORCED = 3  # ...unless Python's count of generation-1 collections is this many times its threshold2
QUIET = 1.0  # seconds without a key before a whole collection may run
WHOLE_GROWTH = 1.5  # frozen objects against those the last whole collection froze: one may run when quiet
WHOLE_LIMIT = 6.0  # ...and regardless
_OFF = 1 << 30  # a threshold2 never reached: no automatic full collection


class Collector(Protocol):
    """The part of the `gc` module a pacer uses (a stand-in in tests)."""

    def get_threshold(self) -> tuple[int, int, int]: ...
    def set_threshold(self, threshold0: int, threshold1: int = ..., threshold2: int = ..., /) -> None: ...
    def get_count(self) -> tuple[int, int, int]: ...
    def collect(self, generation: int = 2) -> int: ...
    def freeze(self) -> None: ...
    def unfreeze(self) -> None: ...
    def get_objects(self, generation: int | None = None) -> list[object]: ...


_owner: GcPacer | None = None  # the pacer that has the collector


class GcPacer:
    """Full collections of `collector` (the `gc` module) paced around keys.

    `last_key()` is when a key was last pressed, in `clock()`'s seconds (monotonic); `applies`:
    whether this Python needs it (before 3.14). `recent_runs`, `whole_runs`: how many of each ran.
    """

    def __init__(
        self,
        last_key: Callable[[], float],
        *,
        collector: Collector | None = None,
        clock: Callable[[], float] = time.monotonic,
        applies: bool = sys.version_info < (3, 14),
    ) -> None:
        self._last_key = last_key
        self._gc: Collector = collector if collector is not None else gc
        self._clock = clock
        self.applies = applies
        self._thresholds: tuple[int, int, int] | None = None  # Python's, while this pacer has the collector
        self._whole_froze = 0  # objects the last whole collection froze
        self._frozen_since = 0  # objects recent collections froze since (counted then; some are freed since)
        self.recent_runs = 0
        self.whole_runs = 0

    @property
    def active(self) -> bool:
        """Whether this pacer has the collector (started, not stopped)."""
        return self._thresholds is not None

    def start(self) -> None:
        """Take over full collections: Python's automatic full collections off, and the heap as
        it is frozen (the app's modules, classes and start-up objects: no collection walks them
        again until a whole one). The app starts the pacer before its first paint. Not collected
        first: at launch a whole collection (30-40 ms) held the interpreter between the frame that
        drew the first key and the writing of that frame, and Python's own full collection had
        run during the first paint (`bench/tui_large.py --only launch`). Does nothing where the
        pacer does not apply or while another one has the collector."""
        global _owner
        if not self.applies or _owner is not None:
            return
        _owner = self
        self._thresholds = self._gc.get_threshold()
        t0, t1, _ = self._thresholds
        self._gc.set_threshold(t0, t1, _OFF)
        self._whole_froze = len(self._gc.get_objects())
        self._frozen_since = 0
        self._gc.freeze()

    def stop(self) -> None:
        """Give full collections back to Python (its thresholds) and unfreeze (idempotent)."""
        global _owner
        if self._thresholds is None:
            return
        self._gc.set_threshold(*self._thresholds)
        self._thresholds = None
        self._gc.unfreeze()
        if _owner is self:
            _owner = None

    def tick(self) -> None:
        """Run the collection that is due, if one is (see the module): a whole one, else a recent one."""
        if self._thresholds is None:
            return
        froze = max(self._whole_froze, 1)
        frozen = froze + self._frozen_since
        since_key = self._clock() - self._last_key()
        after_key = since_key >= KEY_GRACE
        if (since_key >= QUIET and frozen >= WHOLE_GROWTH * froze) or frozen >= WHOLE_LIMIT * froze:
            self.collect_whole()
            return
        count, threshold = self._gc.get_count()[2], self._thresholds[2]
        if count >= threshold and (after_key or count >= RECENT_FORCED * threshold):
            self.collect_recent()

    def collect_recent(self) -> None:
        """Collect the objects not frozen, then freeze the survivors."""
        self._gc.collect(2)
        self._frozen_since += len(self._gc.get_objects(2))  # the survivors: all unfrozen ones are in generation 2 now
        self._gc.freeze()
        self.recent_runs += 1

    def collect_whole(self) -> None:
        """Collect all objects, the frozen ones too, then freeze the survivors."""
        self._gc.unfreeze()
        self._gc.collect(2)
        self._whole_froze = len(self._gc.get_objects(2))
        self._frozen_since = 0
        self._gc.freeze()
        self.whole_runs += 1
