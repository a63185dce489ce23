"""The service's garbage collector settings and its count (lab/service/gc_watch.py).

    python -m pytest tests/test_gc_watch.py

The served process's side (a thousand requests at once meet no young collection; /batches
reports it) is checked on the real service in tests/test_service.py and tests/test_launcher.py.
"""

import gc

import pytest

from lab.service import gc_watch


@pytest.fixture
def settled():
    """`settle()` in this process, undone afterwards (it changes process-wide settings)."""
    threshold = gc.get_threshold()
    gc_watch.settle()
    yield
    gc.callbacks.remove(gc_watch._count)
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_settle_freezes_what_is_loaded_and_raises_the_young_threshold(settled):
    assert gc.get_freeze_count() > 1000  # pytest and the lab's modules, at the least
    assert gc.get_threshold() == (gc_watch.YOUNG_THRESHOLD, *gc_watch.OLDER_THRESHOLDS)
    assert gc_watch.snapshot()["threshold"] == [gc_watch.YOUNG_THRESHOLD, 10, 10]


def test_each_collection_is_counted_with_its_cpu_time(settled):
    before = gc_watch.snapshot()
    garbage = []
    for _ in range(20_000):  # cycles, which only the collector frees
        node = {}
        node["self"] = node
        garbage.append(node)
    del garbage, node
    gc.collect(0)
    gc.collect(2)
    after = gc_watch.snapshot()
    assert after["collections"][0] == before["collections"][0] + 1
    assert after["collections"][2] == before["collections"][2] + 1
    assert after["collections"][1] == before["collections"][1]
    assert after["cpu_us"][0] > before["cpu_us"][0]  # 20,000 young objects take some time
    assert after["cpu_us"][1] == before["cpu_us"][1]


def test_a_young_collection_runs_after_the_threshold_not_before(settled):
    before = gc_watch.snapshot()["collections"][0]
    kept = [[] for _ in range(gc_watch.YOUNG_THRESHOLD // 2)]  # alive: net allocations
    assert gc_watch.snapshot()["collections"][0] == before
    kept += [[] for _ in range(gc_watch.YOUNG_THRESHOLD)]
    assert gc_watch.snapshot()["collections"][0] > before
    del kept
