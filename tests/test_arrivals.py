"""The seeded Poisson schedule: rate, exponential gaps, reproducibility.

Run: .venv/bin/pytest tests/test_arrivals.py
"""

import numpy as np
import pytest

from lab.load.arrivals import arrival_seed, customer_offset, customers_for_run, poisson_arrivals

RATE = 2_000.0
WINDOW_S = 50.0  # 100,000 arrivals expected
KS_ALPHA = 0.01


@pytest.fixture(scope="module")
def schedule() -> np.ndarray:
    return poisson_arrivals(RATE, WINDOW_S, arrival_seed("test", 0, 1.0))


def test_mean_rate_within_two_percent_over_100k_arrivals(schedule):
    assert len(schedule) > 95_000
    assert abs(len(schedule) / WINDOW_S - RATE) / RATE < 0.02


def test_offsets_sorted_inside_the_window(schedule):
    assert schedule.dtype == np.float64
    assert np.all(np.diff(schedule) >= 0)
    assert schedule[0] >= 0 and schedule[-1] < WINDOW_S


def test_gaps_pass_a_kolmogorov_smirnov_test_for_the_exponential(schedule):
    gaps = np.diff(schedule)
    result = kstest(gaps, "expon", args=(0, 1 / RATE))
    assert result.pvalue > KS_ALPHA


def test_the_same_test_rejects_uniform_gaps_with_the_same_mean():
    # The check above can fail: evenly random gaps of the same mean are not exponential.
    rng = np.random.default_rng(7)
    gaps = rng.uniform(0, 2 / RATE, size=100_000)
    assert kstest(gaps, "expon", args=(0, 1 / RATE)).pvalue < KS_ALPHA


def test_the_same_test_rejects_a_wrong_rate():
    gaps = np.diff(poisson_arrivals(RATE * 1.05, WINDOW_S, 11))
    assert kstest(gaps, "expon", args=(0, 1 / RATE)).pvalue < KS_ALPHA


def test_same_seed_same_arrivals():
    seed = arrival_seed("campaign-a", 2, 1.25)
    assert seed == arrival_seed("campaign-a", 2, 1.25)
    np.testing.assert_array_equal(
        poisson_arrivals(900.0, 8.0, seed), poisson_arrivals(900.0, 8.0, seed)
    )


def test_seed_does_not_care_how_the_rate_multiple_is_written():
    assert arrival_seed("c", 1, 1) == arrival_seed("c", 1, 1.0)


def test_different_round_rate_or_campaign_different_arrivals():
    base = poisson_arrivals(900.0, 8.0, arrival_seed("c", 0, 1.0))
    for seed in (arrival_seed("c", 1, 1.0), arrival_seed("c", 0, 1.25), arrival_seed("d", 0, 1.0)):
        other = poisson_arrivals(900.0, 8.0, seed)
        assert len(other) != len(base) or not np.array_equal(other, base)


def test_seed_is_stable_across_python_runs():
    # sha256 based, not hash(): a campaign resumed in a new process meets the same traffic.
    assert arrival_seed("quick", 0, 0.5) == 7_735_751_878_765_973_915


def test_customers_start_at_the_seeds_offset_and_wrap():
    request_ids = np.arange(100, 110)
    seed = 12345
    start = customer_offset(seed, len(request_ids))
    assert 0 <= start < len(request_ids)
    picked = customers_for_run(request_ids, seed, 25)
    assert picked[0] == request_ids[start]
    assert picked[10] == picked[0]  # wrapped around the list
    np.testing.assert_array_equal(picked, customers_for_run(request_ids, seed, 25))


def test_bad_rate_is_refused():
    with pytest.raises(ValueError):
        poisson_arrivals(0.0, 8.0, 1)


def kstest(*args, **kwargs):
    """scipy's Kolmogorov-Smirnov test, imported when a test asks (scipy takes seconds to
    import, and every test run collects this file)."""
    from scipy import stats

    return stats.kstest(*args, **kwargs)
