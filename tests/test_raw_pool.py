"""The worker pools of parsing and resolution: how they treat the garbage collector."""

from __future__ import annotations

import gc

import pytest

from kgtool.raw.pool import WORKER_COLLECT_AFTER, worker_pool


def _young_threshold(_: int) -> int:
    return gc.get_threshold()[0]


def test_workers_collect_rarely_and_the_run_is_collected_again_after_the_pool() -> None:
    """While a pool runs, what this process held as its workers forked is frozen (no
    collection walks it, here or in a worker); once the pool is done it is collected again,
    or a long-lived process (the MCP server) would keep its cycles for ever."""
    assert gc.get_freeze_count() == 0
    threshold = gc.get_threshold()
    with worker_pool(2) as pool:
        assert gc.get_freeze_count() > 0
        seen = list(pool.map(_young_threshold, range(4)))
    assert seen == [WORKER_COLLECT_AFTER] * 4
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == threshold  # only the workers collect less often


def test_a_pool_ended_by_an_error_unfreezes_too() -> None:
    with pytest.raises(RuntimeError), worker_pool(2):
        raise RuntimeError("a chunk failed")
    assert gc.get_freeze_count() == 0


def test_a_freeze_made_before_the_pool_is_left_as_it_was() -> None:
    """A host that froze its own objects before running kgtool in its process keeps them
    frozen: the pool neither freezes more nor unfreezes them."""
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with worker_pool(2) as pool:
            assert list(pool.map(_young_threshold, range(2))) == [WORKER_COLLECT_AFTER] * 2
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
