"""Seeded Poisson arrivals for the open-loop client (BRIEF §2, §4).

Every setting in one round and at one rate meets the very same traffic: the same arrival
times and the same customers, because both come from `arrival_seed(campaign, round, rate)`.
A switchback run (issue 28) cuts its arrivals into slices alternating between two arms
(`slice_arms`); its seed is `switchback_seed(campaign, run_index, rate)`. With twin slices
(`twin_slice_arrivals`) each B slice repeats the arrivals of the A slice before it, so the two
arms of one run meet the same traffic and the run's d loses the traffic's own noise.
Used by `python -m lab openloop --seed N`, by the campaign runner and by Part C's client;
tested by `pytest tests/test_arrivals.py` and, the slices, `tests/test_switchback.py`.
"""

import hashlib

import numpy as np

# Gaps are drawn in chunks of the expected count plus this many standard deviations, so one
# draw almost always covers the window; the chunk size depends only on rate and window, so
# the result depends only on the seed.
CHUNK_SPARE_SIGMAS = 6


def _stable_int(text: str) -> int:
    """A 63-bit integer from sha256 of `text`: the same on every machine and Python run."""
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def arrival_seed(campaign: str, round_index: int, rate_multiple: float) -> int:
    """The seed of one round at one rate. 1 and 1.0 give the same seed."""
    return _stable_int(f"arrivals|{campaign}|{int(round_index)}|{float(rate_multiple):.12g}")


def switchback_seed(campaign: str, run_index: int, rate_multiple: float) -> int:
    """The arrival seed of a campaign's switchback runs of one index and rate (every pair of
    settings with that index meets the same arrivals)."""
    return _stable_int(f"switchback|{campaign}|{int(run_index)}|{float(rate_multiple):.12g}")


def slice_arms(arrival_us: np.ndarray, slice_us: int, first_arm: int) -> np.ndarray:
    """The arm (0 = A, 1 = B) of each scheduled arrival of a switchback run: slices of
    `slice_us` alternate from `first_arm`, so an arrival at t goes to arm
    (first_arm + floor(t / slice_us)) % 2, and one exactly on a slice's edge goes to the slice
    that starts there. In whole microseconds, integer arithmetic, so the raw file's
    `arrival_us` gives back every arm exactly."""
    if slice_us < 1 or first_arm not in (0, 1):
        raise ValueError(f"slice_us must be 1 or more and first_arm 0 or 1, got "
                         f"{slice_us} and {first_arm}")  # fmt: skip
    slices = np.asarray(arrival_us, dtype=np.int64) // int(slice_us)
    return ((first_arm + slices) % 2).astype(np.uint8)


def poisson_arrivals(arrival_rate: float, window_s: float, seed: int) -> np.ndarray:
    """Sorted arrival offsets (float64 seconds) in [0, window_s) with exponential gaps."""
    if arrival_rate <= 0 or window_s <= 0:
        raise ValueError(
            f"arrival_rate and window_s must be positive (got {arrival_rate}, {window_s})"
        )
    rng = np.random.default_rng(seed)
    expected = arrival_rate * window_s
    chunk = int(expected + CHUNK_SPARE_SIGMAS * np.sqrt(expected) + 16)
    mean_gap_s = 1.0 / arrival_rate
    offsets = np.cumsum(rng.exponential(mean_gap_s, size=chunk))
    while offsets[-1] < window_s:
        more = offsets[-1] + np.cumsum(rng.exponential(mean_gap_s, size=chunk))
        offsets = np.concatenate([offsets, more])
    return offsets[offsets < window_s]


def twin_slice_arrivals(
    arrival_rate: float, window_s: float, slice_s: float, seed: int
) -> np.ndarray:
    """Poisson arrivals in twin slices (issue 28): the seed's arrivals in slices 0, 2, 4 …
    (`poisson_arrivals`), each repeated one slice later, so slice 2k + 1 holds the very
    arrivals of slice 2k shifted by `slice_s`. Each slice is still a Poisson stream at
    `arrival_rate`; the two slices of a pair are the same one. Sorted float64 seconds in
    [0, window_s). Whole microseconds, so `slice_arms` puts each copy in its own slice."""
    slice_us = round(slice_s * 1e6)
    if slice_us < 1:
        raise ValueError(f"slice_s must be at least a microsecond, got {slice_s}")
    base_us = np.floor(poisson_arrivals(arrival_rate, window_s, seed) * 1e6).astype(np.int64)
    first = base_us[(base_us // slice_us) % 2 == 0]
    both = np.sort(np.concatenate([first, first + slice_us]))
    return both[both < round(window_s * 1e6)] / 1e6


def customer_offset(seed: int, list_length: int | None = None) -> int:
    """Where in the request list a run with this seed starts (modulo `list_length` if given)."""
    offset = _stable_int(f"customers|{int(seed)}")
    return offset % list_length if list_length else offset


def customers_for_run(request_ids: np.ndarray, seed: int, count: int) -> np.ndarray:
    """`count` customer ids from the request list, starting at the seed's offset, wrapping."""
    if len(request_ids) == 0:
        raise ValueError("the request list is empty")
    start = customer_offset(seed, len(request_ids))
    return np.take(request_ids, np.arange(start, start + count), mode="wrap")
