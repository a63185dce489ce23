"""generator.arithmetic.stats and generator.arithmetic.verdicts against hand-computed cases:
percentiles, medians, throughput, keeps-up, paired differences and the told-apart rule, Part A,
batch buckets and guess verdicts.

Run: `.venv/bin/pytest tests/test_stats.py`
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.arithmetic import stats, verdicts
from generator.report import runs as report_runs

INF = math.inf


# --- percentiles (nearest rank) and medians ---------------------------------------------


@pytest.mark.parametrize(
    ("values", "p", "expected"),
    [
        ([15, 20, 35, 40, 50], 5, 15),  # rank ceil(0.25) = 1
        ([15, 20, 35, 40, 50], 30, 20),  # rank ceil(1.5) = 2
        ([15, 20, 35, 40, 50], 40, 20),  # rank exactly 2: no rounding up
        ([15, 20, 35, 40, 50], 50, 35),
        ([15, 20, 35, 40, 50], 100, 50),
        ([40, 15, 50, 20, 35], 50, 35),  # order of the input does not matter
        ([1, 1, 2, 2], 50, 1),  # ties: rank 2 is the second 1
        ([1, 1, 2, 2], 51, 2),  # rank ceil(2.04) = 3
        ([7, 7, 7], 99, 7),
        ([1, 2, INF, INF], 50, 2),  # never answered sorts last …
        ([1, 2, INF, INF], 75, INF),  # … and makes a high percentile infinite
    ],
)
def test_percentile_nearest_rank(values, p, expected):
    assert stats.percentile(values, p) == expected


def test_p99_of_one_to_hundred_is_99_not_100():
    # 0.99 * 100 in floating point would round the rank up to 100 if computed carelessly
    assert stats.percentile(np.arange(1, 101), 99) == 99
    assert stats.percentile(np.arange(1, 30), 29) == math.ceil(29 * 29 / 100)


def test_percentile_refuses_nothing_and_bad_p():
    with pytest.raises(ValueError):
        stats.percentile([], 50)
    with pytest.raises(ValueError):
        stats.percentile([1, 2], 0)


@given(
    st.lists(st.integers(min_value=0, max_value=10**7), min_size=1, max_size=300),
    st.sampled_from([1, 10, 50, 90, 99, 100]),
)
def test_percentile_agrees_with_the_reports_own_code(values, p):
    assert stats.percentile(values, p) == report_runs.rank_percentile(values, p)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([3, 1, 2], 2),
        ([1, 2, 3, 4], 2.5),
        ([5], 5),
        ([1, INF], INF),
        ([1, 2, INF], 2),
        ([INF, INF, 1], INF),
    ],
)
def test_median(values, expected):
    assert stats.median(values) == expected


def test_round_sig():
    assert stats.round_sig(1098.4321) == 1098.4
    assert stats.round_sig(0.000123456789) == 0.00012346
    assert stats.round_sig(0) == 0.0
    assert stats.round_sig(INF) is None


# --- one Part B run -----------------------------------------------------------------------


def test_throughput_counts_200_answers_over_window_or_last_answer():
    arrivals, status = np.array([0, 100_000, 200_000]), np.array([200, 200, 0])
    latency = np.array([1_000, 2_000, -1])
    assert stats.throughput(arrivals, latency, status, 1.0) == 2.0  # window is longer
    late = np.array([500_000, 1_400_000, -1])  # last answer at 1.5 s
    assert stats.throughput(arrivals, late, status, 1.0) == pytest.approx(2 / 1.5)
    assert stats.throughput(arrivals, latency, np.array([0, 0, 0]), 1.0) == 0.0


def test_keeps_up_at_exactly_the_campaigns_share():
    assert stats.keeps_up(95.0, 100.0, 0.95)
    assert not stats.keeps_up(94.99, 100.0, 0.95)
    assert not stats.keeps_up(95.0, 100.0, 0.96)  # the share is the campaign's, not a constant
    assert "throughput >= 0.9 x offered_rate" in stats.methods(0.9)["keeps_up"]


def part_b_columns(latency, status, batch_size=None):
    n = len(latency)
    return {
        "arrival_us": np.arange(n, dtype=np.uint32) * 10_000,
        "send_lag_us": np.zeros(n, dtype=np.int32),
        "latency_us": np.array(latency, dtype=np.int64),
        "status": np.array(status, dtype=np.uint16),
        "batch_size": np.array(batch_size or [1] * n, dtype=np.uint16),
        "ready_us": np.full(n, 50, dtype=np.uint32),
        "queued_us": np.full(n, 5, dtype=np.uint32),
        "model_us": np.full(n, 600, dtype=np.uint32),
        "batches_size": np.array([2, 1, 1], dtype=np.uint16),
        "batches_first_wait_us": np.array([30, 10, 20], dtype=np.uint32),
    }


def test_a_run_that_drops_requests_does_not_look_fast():
    # 4 requests: two fast answers, one error (500), one never answered
    columns = part_b_columns([1_000, 2_000, 3_000, -1], [200, 200, 500, 0], [2, 2, 1, 1])
    run = stats.part_b_run(columns, window_s=0.04, batcher="queue", keeps_up_share=0.95)
    assert (run["requests"], run["answered"], run["never_answered"], run["non_200"]) == (
        4,
        2,
        1,
        1,
    )
    assert run["p50_ms"] == 2.0  # rank 2 of [1, 2, inf, inf] ms
    assert math.isinf(run["p99_ms"])
    assert run["throughput"] == 2 / 0.04
    assert run["offered_rate"] == 4 / 0.04
    assert run["keeps_up"] is False
    assert run["mean_batch_size"] == 2.0  # over the two requests answered with 200
    assert run["first_wait_us_p50"] == 20
    assert run["batch_size_counts"]["1"] == 2 and run["batch_size_counts"]["2"] == 1


def test_batch_size_buckets():
    counts = stats.batch_size_counts([1, 2, 3, 4, 5, 8, 9, 32, 33, 128, 129, 500])
    assert counts == {
        "1": 1,
        "2": 1,
        "3-4": 2,
        "5-8": 2,
        "9-16": 1,
        "17-32": 1,
        "33-64": 1,
        "65-128": 1,
        "129+": 2,
    }


def test_cell_keeps_up_only_when_every_scheduled_round_kept_up():
    kept = {"keeps_up": True, "p50_ms": 1.0}
    assert stats.cell_summary({0: kept, 1: kept}, [0, 1])["keeps_up"] is True
    missing_one = stats.cell_summary({0: kept}, [0, 1])
    assert missing_one["keeps_up"] is False and missing_one["missing_rounds"] == [1]
    failed = stats.cell_summary({0: kept, 1: {"keeps_up": False, "p50_ms": 3.0}}, [0, 1])
    assert failed["keeps_up"] is False and failed["keeps_up_rounds"] == 1
    assert failed["p50_ms"] == 2.0 and failed["by_round"]["p50_ms"] == [1.0, 3.0]


# --- paired differences and told apart ----------------------------------------------------


@pytest.mark.parametrize(
    ("diffs", "rounds", "apart", "direction"),
    [
        ([0.3, 0.1, 0.2, 0.5, 0.4], 5, True, "higher"),
        ([-1.0, -2.0, -0.1], 3, True, "lower"),
        ([0.3, -0.1, 0.2, 0.5, 0.4], 5, False, "mixed"),  # one round disagrees
        ([0.3, 0.0, 0.2, 0.5, 0.4], 5, False, "mixed"),  # a zero agrees with nothing
        ([0.3, 0.1, 0.2, 0.5], 5, False, "higher"),  # a round missing: not told apart
        ([None, 1.0], 2, False, "mixed"),  # both infinite in one round: undefined
        ([INF, 1.0], 2, True, "higher"),  # only the setting infinite: clearly higher
    ],
)
def test_told_apart_needs_every_round_to_agree_in_sign(diffs, rounds, apart, direction):
    assert stats.told_apart(diffs, rounds) is apart
    assert stats.direction(diffs) == direction


def test_paired_pairs_the_same_rounds_and_handles_infinity():
    setting = {0: 2.0, 1: 3.0, 2: INF, 3: 9.0}
    baseline = {0: 1.0, 1: 1.5, 2: 5.0}  # round 3 missing for the baseline
    pair = stats.paired(setting, baseline, scheduled_rounds=3)
    assert pair["rounds"] == [0, 1, 2]
    assert pair["diffs"] == [1.0, 1.5, INF]
    assert pair["told_apart"] is True and pair["direction"] == "higher"
    assert pair["median"] == 1.5
    both_infinite = stats.paired({0: INF, 1: 2.0}, {0: INF, 1: 1.0}, scheduled_rounds=2)
    assert both_infinite["diffs"] == [None, 1.0]
    assert both_infinite["told_apart"] is False and both_infinite["median"] == 1.0


# --- Part A, S, bits -------------------------------------------------------------------------


def test_part_a_median_of_run_medians():
    run1 = (np.array([1, 1, 1, 2, 2]), np.array([1000, 3000, 2000, 4000, 6000]))
    run2 = (np.array([1, 1, 2, 2]), np.array([4000, 6000, 8000, 8000]))
    result = stats.part_a([run1, run2])
    assert result["sizes"] == [1, 2]
    one, two = result["by_size"]["1"], result["by_size"]["2"]
    assert one["per_call_us_runs"] == [2.0, 5.0] and one["per_call_us"] == 3.5
    assert two["per_call_us"] == 6.5 and two["per_row_us"] == 3.25
    assert one["calls"] == 5


def test_saturation_and_bits():
    s = stats.saturation([{"throughput": t} for t in (1100.0, 1090.0, 1095.0)])
    assert (s["S"], s["S_min"], s["S_max"]) == (1095.0, 1090.0, 1100.0)
    bits = stats.bits(
        {
            "2": {"scores": 4, "equal": 4, "max_abs_diff": 0.0},
            "all": {"scores": 3, "equal": 2, "max_abs_diff": 1e-17},
        }
    )
    assert (bits["scores"], bits["equal"], bits["all_equal"]) == (7, 6, False)


# --- guesses ---------------------------------------------------------------------------------


FIGURES = {
    "p50": {"value": 2.5, "unit": "ms", "what": "a p50"},
    "gain": {"value": 2.0, "unit": "×", "what": "a gain"},
    "kept_everywhere": {"value": 2.0, "unit": "× S", "what": "kept up at every rate"},
    "kept_to_1": {"value": 1.0, "unit": "× S", "what": "kept up to 1 × S"},
    "top_rate": {"value": 2.0, "unit": "× S", "what": "the highest rate measured"},
}


@pytest.mark.parametrize(
    ("guess", "verdict", "measured"),
    [
        (
            {"figure": "p50", "compare": "between", "low": 2.0, "high": 3.5, "unit": "ms"},
            "right",
            2.5,
        ),
        ({"figure": "p50", "compare": "<=", "value": 2000, "unit": "µs"}, "wrong", 2500.0),
        ({"figure": "gain", "compare": ">=", "value": 2.0, "unit": "×"}, "right", 2.0),
        ({"figure": "absent", "compare": ">=", "value": 1, "unit": "×"}, "not testable", None),
        ({"figure": "gain", "compare": ">=", "value": 1, "unit": "ms"}, "not testable", None),
        # kept up at the top rate measured: a guess about a higher rate cannot be judged
        (
            {"figure": "kept_everywhere", "compare": ">=", "value": 2.5, "unit": "× S"},
            "not testable",
            2.0,
        ),
        ({"figure": "kept_everywhere", "compare": ">=", "value": 2.0, "unit": "× S"}, "right", 2.0),
        ({"figure": "kept_to_1", "compare": ">=", "value": 2.5, "unit": "× S"}, "wrong", 1.0),
    ],
)
def test_guess_verdicts(guess, verdict, measured):
    judged = verdicts.guess_verdict({"id": "G", **guess}, FIGURES)
    assert judged["verdict"] == verdict
    assert judged.get("measured") == measured
    assert judged["evidence"]
