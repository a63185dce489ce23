"""The service's garbage collector: kept out of the requests' way, and counted.

`settle()` runs once before serving (lab/service/serve.py's `run_uvicorn`); `snapshot()` is
what GET /batches reports under "gc" (collections and the CPU time they took, per generation,
since `settle`). Tested by tests/test_gc_watch.py.

Why (issue 33, measured with lab/bench/core_time.py): with the collector's default threshold
a young-generation collection runs every 700 net allocations of container objects. A request
that waits for its batch keeps its coroutine frames, scope and Request alive, so under load
many requests are alive at every collection: they are walked, promoted and walked again in
the older generations. The collector's CPU per answer therefore grows with the requests in
flight: at 2.5 × S, B=32 W=0 spent 17% of the service's core time in it (none at S: 1%).
Objects freed by reference counting never reach a collection, and the service makes almost no
cyclic garbage (under 1 object per request), so a young threshold of 100,000 leaves the
collector as a safety net that a run never meets, while memory stays where it was.
"""

import gc
import time

# A young collection after this many net container allocations (CPython's default is 700).
YOUNG_THRESHOLD = 100_000
OLDER_THRESHOLDS = (10, 10)  # CPython's defaults for the older generations

_collections = [0, 0, 0]
_cpu_ns = [0, 0, 0]
_current = [0, -1]  # the running collection's start (thread CPU ns) and generation


def settle() -> None:
    """Collect once, move everything loaded so far (model, app, libraries) out of the
    collector's sight, raise the young threshold, and start counting collections."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
    if _count not in gc.callbacks:
        gc.callbacks.append(_count)


def _count(phase: str, info: dict) -> None:
    # Thread CPU time: a collection preempted by the client on the shared core is not longer.
    if phase == "start":
        _current[0], _current[1] = time.thread_time_ns(), info["generation"]
    elif _current[1] >= 0:
        generation = _current[1]
        _collections[generation] += 1
        _cpu_ns[generation] += time.thread_time_ns() - _current[0]
        _current[1] = -1


def snapshot() -> dict:
    """Collections and their CPU time (µs) per generation since `settle`, and the threshold."""
    return {
        "collections": list(_collections),
        "cpu_us": [round(ns / 1000, 1) for ns in _cpu_ns],
        "threshold": list(gc.get_threshold()),
        "frozen": gc.get_freeze_count(),
    }
