"""``asks.core.gcpause.paused_gc``: the collector off inside, restored after, survivors aged."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from asks.core.gcpause import paused_gc


@pytest.fixture(autouse=True)
def _restore_gc() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()


def test_off_inside_on_after_and_what_was_built_is_in_the_oldest_generation() -> None:
    gc.unfreeze()  # an earlier in-process launch may have frozen its session (cli.run)
    gc.enable()
    with paused_gc():
        assert not gc.isenabled()
        built = [[n] for n in range(2 * gc.get_threshold()[0])]  # more than a young gc
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert id(built) in oldest and id(built[0]) in oldest


def test_a_disabled_collector_stays_disabled_also_after_an_error() -> None:
    gc.disable()
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError("boom")
    assert not gc.isenabled()
    gc.enable()
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_objects_frozen_by_the_process_stay_frozen() -> None:
    was_frozen = gc.get_freeze_count() > 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with paused_gc():
            [[n] for n in range(10)]
        assert gc.get_freeze_count() == frozen > 0
    finally:
        if not was_frozen:  # later tests (test_journal's) expect an unfrozen heap
            gc.unfreeze()
