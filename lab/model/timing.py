"""Timing the model alone: the order Part A times its batch sizes in, and a block of timed
calls of one size. Part A (lab/parts/part_a.py) and the demo (lab/demo.py) both time with
these, so the reader's machine is measured the way the lab's was. Not run on its own.
"""

import time
from collections.abc import Sequence

import numpy as np

from lab.design import PART_A_SIZES
from lab.model.scoring import score

WARMUP_CALLS = 20


def sizes_order(seed: int, sizes: Sequence[int] = PART_A_SIZES) -> list[int]:
    """The sizes in the random order one run times them in (a new order for each seed), so a
    slow spell of the host falls on different sizes in different runs instead of on one."""
    order = list(sizes)
    np.random.default_rng(seed).shuffle(order)
    return order


def time_calls(
    model, rows: np.ndarray, size: int, calls: int, warmup: int = WARMUP_CALLS
) -> np.ndarray:
    """Wall time in ns of `calls` predict_proba calls on the first `size` rows, after
    `warmup` untimed ones."""
    score_rows = score  # a local name, as the clock: no global lookup inside the timed call
    batch = np.ascontiguousarray(rows[:size])
    for _ in range(warmup):
        score_rows(model, batch)
    times = np.empty(calls, dtype=np.int64)
    clock = time.perf_counter_ns
    for index in range(calls):
        start = clock()
        score_rows(model, batch)
        times[index] = clock() - start
    return times


# --- timing every size in interleaved runs, and how far the runs agree ---------------------

# The timings are too noisy to lean on when, for any size, the slowest run's median is more
# than this share of the size's median above the fastest run's. Part A of the lab's steady
# campaign (full-20261130) spread at most 13% (16 rows); the one that met a slow spell
# (full-20261129) 71% (1 row); timing sizes one block after another on a shared core once made
# one row 84% slower than two rows, the opposite of the truth (issue 34).
TOO_NOISY_SPREAD = 0.20


def interleaved(timer, sizes: Sequence[int], runs: int, seed: int) -> tuple[list, dict]:
    """Time every size once per run, each run in a new random order (Part A's: run r uses
    `sizes_order(seed + r)`), so a host that slows down in the middle slows some run of every
    size instead of one size. `timer(size)` times one block of calls of `size` rows and
    returns their times in ns. Returns (the runs' orders, {size: [each run's median ns]})."""
    orders = [sizes_order(seed + run, sizes) for run in range(runs)]
    medians: dict[int, list[float]] = {size: [] for size in sizes}
    for order in orders:
        for size in order:
            medians[size].append(float(np.median(timer(size))))
    return orders, medians


def spread(values: Sequence[float]) -> float:
    """How far the runs of one size disagree: (slowest − fastest) / their median."""
    middle = float(np.median(values))
    return (max(values) - min(values)) / middle if middle > 0 else 0.0


def noise(medians: dict, limit: float = TOO_NOISY_SPREAD) -> dict:
    """The largest spread over the sizes, where it is, and whether it is above `limit`."""
    spreads = {size: spread(values) for size, values in medians.items()}
    at = max(spreads, key=lambda size: (spreads[size], -size))
    return {
        "spread_limit": limit,
        "largest_spread": spreads[at],
        "at_size": at,
        "too_noisy": spreads[at] > limit,
    }
