"""iac_tui.gc_pacing: which full collection runs when (counted against a stand-in collector and
clock), and what a frozen reference cycle waits for (the real collector)."""

from __future__ import annotations

import gc
import weakref

import pytest

from iac_tui import gc_pacing
from iac_tui.gc_pacing import GcPacer


class FakeGc:
    """The collector's counts as a test sets them; the calls made, in order."""

    def __init__(self) -> None:
        self.thresholds = (700, 10, 10)
        self.count2 = 0  # collections of generation 1 since the last full one
        self.unfrozen = 100  # objects in generation 2 after a collection
        self.calls: list[str] = []
        self.counted: list[int | None] = []  # the generation of each get_objects call

    def get_threshold(self) -> tuple[int, int, int]:
        return self.thresholds

    def set_threshold(self, threshold0: int, threshold1: int = 10, threshold2: int = 10, /) -> None:
        self.thresholds = (threshold0, threshold1, threshold2)

    def get_count(self) -> tuple[int, int, int]:
        return (0, 0, self.count2)

    def collect(self, generation: int = 2) -> int:
        self.calls.append(f"collect({generation})")
        self.count2 = 0
        return 0

    def freeze(self) -> None:
        self.calls.append("freeze")

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")

    def get_objects(self, generation: int | None = None) -> list[object]:
        self.counted.append(generation)
        return [None] * self.unfrozen  # generation 2 after a collection, or all before freezing


RECENT = ["collect(2)", "freeze"]
WHOLE = ["unfreeze", "collect(2)", "freeze"]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.key = float("-inf")

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def rig():
    fake, clock = FakeGc(), Clock()
    pacer = GcPacer(lambda: clock.key, collector=fake, clock=clock, applies=True)
    yield pacer, fake, clock
    pacer.stop()


def test_start_freezes_the_start_up_heap_without_collecting_and_turns_automatic_full_collections_off_stop_gives_them_back(rig):
    pacer, fake, _ = rig
    pacer.start()
    assert fake.calls == ["freeze"]  # no collection before the first paint
    assert fake.thresholds[:2] == (700, 10) and fake.thresholds[2] > 10**6
    pacer.stop()
    assert fake.thresholds == (700, 10, 10)
    assert fake.calls == ["freeze", "unfreeze"]
    pacer.stop()  # idempotent
    assert fake.calls == ["freeze", "unfreeze"]


def test_a_recent_collection_runs_once_python_would_consider_a_full_one_and_not_right_after_a_key(rig):
    pacer, fake, clock = rig
    pacer.start()
    fake.calls.clear()
    fake.count2 = 9
    pacer.tick()
    assert fake.calls == []
    fake.count2 = 10
    clock.key = clock.now - gc_pacing.KEY_GRACE / 2  # a key was just typed: its echo goes first
    pacer.tick()
    assert fake.calls == []
    clock.now += gc_pacing.KEY_GRACE
    pacer.tick()
    assert fake.calls == RECENT
    assert (pacer.recent_runs, pacer.whole_runs) == (1, 0)
    assert fake.counted == [None, 2]  # all objects at start; then the survivors, all in generation 2


def test_keys_without_a_pause_defer_a_recent_collection_only_up_to_a_bound(rig):
    pacer, fake, clock = rig
    pacer.start()
    fake.calls.clear()
    clock.key = clock.now
    fake.count2 = gc_pacing.RECENT_FORCED * 10 - 1
    pacer.tick()
    assert fake.calls == []
    fake.count2 += 1
    pacer.tick()
    assert fake.calls == RECENT


def test_a_whole_collection_waits_for_a_pause_in_typing_unless_the_frozen_objects_grew_too_much(rig):
    pacer, fake, clock = rig
    fake.unfrozen = 1000  # the start-up heap: 1,000 objects frozen at start
    pacer.start()
    fake.calls.clear()
    fake.unfrozen = 600  # each recent collection freezes 600 more
    clock.key = clock.now - 1  # keys keep coming (a recent collection may run, a whole one not)
    for _ in range(3):
        clock.now += 0.25
        clock.key = clock.now - gc_pacing.KEY_GRACE
        fake.count2 = 10
        pacer.tick()
    # 1,000 + 600 = x1.6 (>= WHOLE_GROWTH, but typing), x2.2, x2.8 (< WHOLE_LIMIT): recent ones only
    assert fake.calls == RECENT * 3
    fake.calls.clear()
    clock.now += 0.25
    clock.key = clock.now
    pacer.tick()  # x2.8: still typing, nothing due
    assert fake.calls == []
    clock.now += gc_pacing.QUIET
    pacer.tick()  # a pause: the whole collection runs
    assert fake.calls == WHOLE


def test_while_keys_keep_coming_no_whole_collection_runs_below_the_limit_even_in_a_gap(rig):
    """A whole collection (0.2-0.5 s at the end of a long answer) in the gap after a key delayed
    the next key by as much: while a person types only the limit runs one."""
    pacer, fake, clock = rig
    fake.unfrozen = 1000
    pacer.start()
    fake.calls.clear()
    fake.unfrozen = 2000
    clock.key = clock.now - gc_pacing.KEY_GRACE
    fake.count2 = 10
    pacer.tick()  # a recent collection freezes 2,000 more: 3,000 = x3 the start-up heap
    assert fake.calls == RECENT
    fake.calls.clear()
    for _ in range(3):  # keys 0.3 s apart: gaps of KEY_GRACE after each, but never QUIET
        clock.now += 0.3
        clock.key = clock.now - gc_pacing.KEY_GRACE
        pacer.tick()
    assert fake.calls == []
    clock.now += gc_pacing.QUIET  # a pause: now it runs
    pacer.tick()
    assert fake.calls == WHOLE
    assert (pacer.recent_runs, pacer.whole_runs) == (1, 1)


def test_keys_without_a_gap_defer_a_whole_collection_only_up_to_a_bound(rig):
    pacer, fake, clock = rig
    fake.unfrozen = 1000
    pacer.start()
    fake.calls.clear()
    fake.unfrozen = 2500  # each recent collection (forced: keys without a gap) freezes 2,500 more
    for _ in range(2):  # 3,500 frozen: x3.5 (typing: nothing), then 6,000: x6 = WHOLE_LIMIT
        clock.now += 0.05
        clock.key = clock.now
        fake.count2 = gc_pacing.RECENT_FORCED * 10
        pacer.tick()
    assert fake.calls == RECENT * 2
    clock.now += 0.05
    clock.key = clock.now
    pacer.tick()
    assert fake.calls == RECENT * 2 + WHOLE


def test_nothing_is_taken_over_where_it_does_not_apply_or_while_another_pacer_has_the_collector():
    fake = FakeGc()
    later = GcPacer(lambda: 0.0, collector=fake, applies=False)  # a Python with an incremental collector
    later.start()
    later.tick()
    assert fake.calls == [] and not later.active
    first = GcPacer(lambda: 0.0, collector=fake, applies=True)
    second = GcPacer(lambda: 0.0, collector=fake, applies=True)
    first.start()
    try:
        second.start()
        assert first.active and not second.active
        second.stop()
        assert first.active and fake.thresholds[2] > 10**6
    finally:
        first.stop()
    assert fake.thresholds == (700, 10, 10)


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


@pytest.mark.skipif(not GcPacer(lambda: 0.0).applies, reason="the pacer applies before Python 3.14")
@pytest.mark.whole_heap  # three whole collections (start, collect_whole, the module's after stop unfroze all)
def test_with_the_real_collector_a_recent_collection_frees_new_cycles_a_whole_one_frozen_cycles():
    pacer = GcPacer(lambda: float("-inf"))
    old = Node()  # exists at start: frozen
    old_ref = weakref.ref(old)
    pacer.start()
    try:
        assert gc.get_threshold()[2] > 10**6
        new = Node()
        new_ref = weakref.ref(new)
        del old, new
        pacer.collect_recent()
        assert new_ref() is None  # a cycle made since the last freeze: freed by a recent collection
        assert old_ref() is not None  # a frozen one waits for a whole collection
        pacer.collect_whole()
        assert old_ref() is None
    finally:
        pacer.stop()
    assert gc.get_freeze_count() == 0
