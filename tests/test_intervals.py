"""generator.arithmetic.intervals (the interval rule of issue 28) and its independent check,
generator.report.intervals: hand-computed cases for n = 1 … 7 with ties and zeros, the
signed-rank tables, scipy's exact Wilcoxon test as an outside reference for the ends, coverage
by simulation, the three verdicts, the µs conversion, and the report catching a changed value.

Run: `.venv/bin/pytest tests/test_intervals.py`
"""

import json
import math

import numpy as np
import pytest

from generator.arithmetic import intervals
from generator.arithmetic.intervals import NOT_RESOLVED, SAME_WITHIN, TOLD_APART
from generator.report import intervals as report_intervals

# --- the null distribution of T+ ---------------------------------------------------------


def test_null_counts_by_hand():
    # n = 3: the subsets of {1, 2, 3} sum to 0, 1, 2, 3, 3, 4, 5, 6
    assert intervals.signed_rank_counts(3) == (1, 1, 1, 2)  # t = 0 … floor(6/2)
    assert report_intervals.null_counts(3) == (1, 1, 1, 2, 1, 1, 1)
    # n = 4: sums 0 … 10
    assert report_intervals.null_counts(4) == (1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1)
    assert intervals.signed_rank_counts(4) == (1, 1, 1, 2, 2, 2)
    assert intervals.signed_rank_counts(1) == (1,)
    assert intervals.signed_rank_counts(0) == (1,)


@pytest.mark.parametrize("n", [*range(0, 45), 60, 120, 201])
def test_the_two_null_distributions_agree(n):
    """DP over ranks (intervals) against enumeration (n <= 20) or the generating function."""
    full = report_intervals.null_counts(n)
    assert sum(full) == 2**n
    assert full == full[::-1]  # T+ is symmetric about n(n+1)/4
    half = intervals.signed_rank_counts(n)
    assert half == full[: len(half)]
    assert len(half) == n * (n + 1) // 4 + 1


# published tables of the signed-rank test: the largest T with P(T+ <= T) <= alpha/2
TABLE_TWO_SIDED_05 = {6: 0, 7: 2, 8: 3, 9: 5, 10: 8, 11: 10, 12: 13, 13: 17, 14: 21, 15: 25}
TABLE_TWO_SIDED_05 |= {16: 29, 17: 34, 18: 40, 19: 46, 20: 52, 25: 89, 30: 137}
TABLE_TWO_SIDED_10 = {5: 0, 6: 2, 7: 3, 8: 5, 9: 8, 10: 10, 11: 13, 12: 17, 13: 21, 14: 25}
TABLE_TWO_SIDED_10 |= {15: 30, 20: 60, 25: 100, 30: 151}
# (n = 25 at 10%: some printed tables say 101, but exactly P(T+ <= 101) = 0.0507 > 0.05)


@pytest.mark.parametrize(
    ("confidence", "table"), [(0.95, TABLE_TWO_SIDED_05), (0.90, TABLE_TWO_SIDED_10)]
)
def test_k_matches_the_published_tables(confidence, table):
    for n, critical in table.items():
        k, achieved, reaches = intervals.critical_count(n, confidence)
        assert (k - 1, reaches) == (critical, True), n
        assert achieved >= confidence
        assert report_intervals.ends_rank(n, confidence)[0] == k


@pytest.mark.parametrize(("n", "confidence"), [(1, 0.95), (3, 0.95), (5, 0.95), (4, 0.90)])
def test_too_few_pairs_give_the_whole_range_short_of_the_level(n, confidence):
    k, achieved, reaches = intervals.critical_count(n, confidence)
    assert (k, reaches) == (1, False)
    assert achieved == 1 - 2 / 2**n < confidence


def test_achieved_confidence_is_conservative_and_close_for_large_n():
    for n in range(6, 120):
        for confidence in (0.95, 0.90):
            _, achieved, reaches = intervals.critical_count(n, confidence)
            assert reaches and achieved >= confidence
    assert intervals.critical_count(300, 0.95)[1] == pytest.approx(0.95, abs=1e-4)
    assert intervals.critical_count(6, 0.95)[1] == 1 - 2 / 64  # 0.96875: [min, max]
    assert intervals.critical_count(7, 0.95)[1] == 1 - 6 / 128  # 0.953125


# --- hand-computed cases, n = 1 … 7 -------------------------------------------------------

# d, estimate, (low95, high95, achieved95, reaches95), (low90, high90, achieved90, reaches90)
HAND = [
    # n = 1: one Walsh average; no confidence at all
    ([0.3], 0.3, (0.3, 0.3, 0.0, False), (0.3, 0.3, 0.0, False)),
    # n = 2: Walsh 0.1, 0.2, 0.3
    ([0.3, 0.1], 0.2, (0.1, 0.3, 0.5, False), (0.1, 0.3, 0.5, False)),
    # n = 3 with a zero: Walsh -0.2, -0.1, 0, 0.1, 0.2, 0.4; median (0 + 0.1)/2
    ([0.4, 0.0, -0.2], 0.05, (-0.2, 0.4, 0.75, False), (-0.2, 0.4, 0.75, False)),
    # n = 4 with ties: Walsh 0.1 x6, 0.3 x3, 0.5; median of the 5th and 6th
    ([0.1, 0.5, 0.1, 0.1], 0.1, (0.1, 0.5, 0.875, False), (0.1, 0.5, 0.875, False)),
    # n = 5: all five agree, yet 95% is out of reach (0.9375); 90% is [min, max]
    ([0.01, 0.02, 0.03, 0.04, 0.05], 0.03, (0.01, 0.05, 0.9375, False), (0.01, 0.05, 0.9375, True)),
    # n = 6: 95% is [min, max] (k = 1, 1 - 2/64); 90% k = 3 (P(T+ <= 2) = 3/64)
    # Walsh of 1..6 (/100): 1, 1.5, 2, 2, … 5, 5, 5.5, 6; median 3.5
    (
        [0.06, 0.05, 0.04, 0.03, 0.02, 0.01],
        0.035,
        (0.01, 0.06, 0.96875, True),
        (0.02, 0.05, 0.90625, True),
    ),
    # n = 6, all zeros: every Walsh average is 0
    ([0.0] * 6, 0.0, (0.0, 0.0, 0.96875, True), (0.0, 0.0, 0.90625, True)),
    # n = 7 with ties and zeros; the 28 Walsh averages, sorted, by place:
    # 1: -0.1 | 2-3: -0.05 | 4-6: 0 | 7-8: 0.05 | 9-13: 0.1 | 14-15: 0.15 | 16-19: 0.2 |
    # 20-23: 0.25 | 24: 0.3 | 25-26: 0.35 | 27: 0.4 | 28: 0.5
    # 95%: k = 3 (P(T+ <= 2) = 3/128); 90%: k = 4 (P(T+ <= 3) = 5/128); median of 14th, 15th
    (
        [0.2, -0.1, 0.0, 0.5, 0.0, 0.3, 0.2],
        0.15,
        (-0.05, 0.35, 1 - 6 / 128, True),
        (0.0, 0.35, 1 - 10 / 128, True),
    ),
]


@pytest.mark.parametrize(("d", "estimate", "wide", "narrow"), HAND)
def test_hand_computed(d, estimate, wide, narrow):
    v = intervals.interval_verdict(d, delta=0.01)
    assert v.n == len(d)
    assert v.estimate == pytest.approx(estimate, abs=1e-12)
    assert (v.low95, v.high95, v.achieved95) == pytest.approx(wide[:3], abs=1e-12)
    assert v.reaches95 is wide[3]
    assert (v.low90, v.high90, v.achieved90) == pytest.approx(narrow[:3], abs=1e-12)
    assert v.reaches90 is narrow[3]
    if wide[3]:
        assert v.resolvable == pytest.approx((wide[1] - wide[0]) / 2, abs=1e-12)
    else:
        assert v.resolvable == math.inf
    assert report_intervals.check(d, v.as_dict()) == []


def test_hand_computed_verdicts():
    five, six, zeros, seven = (HAND[i][0] for i in (4, 5, 6, 7))
    # five positive differences: the old all-agree rule would say told apart; this one cannot
    assert intervals.interval_verdict(five, delta=0.01).verdict == NOT_RESOLVED
    # … but their 90% interval [0.01, 0.05] can lie inside ±0.06
    assert intervals.interval_verdict(five, delta=0.06).verdict == SAME_WITHIN
    assert intervals.interval_verdict(five, delta=0.05).verdict == SAME_WITHIN  # closed ends
    assert intervals.interval_verdict(six, delta=0.01).verdict == TOLD_APART  # [0.01, 0.06]
    assert intervals.interval_verdict([-x for x in six], delta=0.01).verdict == TOLD_APART
    # all zeros: the interval [0, 0] does not exclude 0 (strictly) and lies within any δ
    assert intervals.interval_verdict(zeros, delta=0.0).verdict == SAME_WITHIN
    # one end exactly at 0 is not told apart
    assert intervals.interval_verdict([0.0, 0.1, 0.2, 0.3, 0.4, 0.5], 0.01).verdict == NOT_RESOLVED
    assert intervals.interval_verdict(seven, delta=0.3).verdict == NOT_RESOLVED  # 90% to 0.35
    assert intervals.interval_verdict(seven, delta=0.35).verdict == SAME_WITHIN


def test_ties_and_zeros_are_walsh_averages_like_any_other():
    """Ties and zeros need no special handling: the averages are taken as they come."""
    d = [0.0, 0.0, 0.0, 0.1, 0.1, -0.1, 0.0, 0.2]
    walsh = intervals.walsh_averages(d)
    assert len(walsh) == 36
    brute = sorted((d[i] + d[j]) / 2 for i in range(8) for j in range(i, 8))
    assert walsh.tolist() == pytest.approx(brute)
    k = intervals.critical_count(8, 0.95)[0]  # 4 (table: T = 3)
    v = intervals.interval_verdict(d, delta=0.2)
    assert (v.low95, v.high95) == (brute[k - 1], brute[-k])
    assert v.estimate == pytest.approx((brute[17] + brute[18]) / 2)


def test_bad_input():
    with pytest.raises(ValueError):
        intervals.interval_verdict([], delta=0.1)
    with pytest.raises(ValueError):
        intervals.interval_verdict([0.1, math.nan], delta=0.1)
    with pytest.raises(ValueError):
        intervals.interval_verdict([0.1, math.inf], delta=0.1)
    with pytest.raises(ValueError):
        intervals.interval_verdict([0.1, 0.2], delta=-0.1)
    with pytest.raises(ValueError):
        intervals.critical_count(5, 1.0)


# --- scipy's exact Wilcoxon test as the outside reference -----------------------------------


def neighbours_gap(walsh: np.ndarray, value: float) -> float:
    others = walsh[walsh != value]
    return float(np.min(np.abs(others - value)))


@pytest.mark.parametrize("seed", range(12))
def test_the_ends_are_where_the_exact_test_flips(seed):
    """Shifting d by θ just inside an end, the exact two-sided test keeps θ (p > alpha);
    just outside, it rejects θ, with p = 1 - achieved confidence."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 26))
    d = rng.normal(0.05, 0.2, n)
    walsh = intervals.walsh_averages(d)
    for confidence in (0.95, 0.90):
        got = intervals.signed_rank_interval(d, confidence)
        alpha = 1 - confidence
        for end, inward in ((got.low, +1), (got.high, -1)):
            step = neighbours_gap(walsh, end) / 4
            inside = wilcoxon(d - (end + inward * step), method="exact").pvalue
            outside = wilcoxon(d - (end - inward * step), method="exact").pvalue
            assert inside > alpha, (n, confidence, end)
            assert outside <= alpha, (n, confidence, end)
            assert outside == pytest.approx(1 - got.achieved, rel=1e-9)


def test_scipy_never_rejects_at_n5_and_95():
    d = np.array([0.01, 0.02, 0.03, 0.04, 0.05])
    assert wilcoxon(d, method="exact").pvalue == pytest.approx(2 / 32)  # > 0.05
    assert intervals.interval_verdict(d, delta=0.001).verdict == NOT_RESOLVED


# --- coverage and the verdicts on synthetic data -------------------------------------------


def test_coverage_by_simulation():
    """2,000 seeded draws of n = 40 normal d around a known shift: the 95% interval covers
    it in >= 93% of draws, the 90% in >= 88%; with no shift, told apart in <= 7%."""
    rng = np.random.default_rng(20261201)
    shift, covered95, covered90, apart = 0.1, 0, 0, 0
    for _ in range(2000):
        d = rng.normal(shift, 0.15, 40)
        v = intervals.interval_verdict(d, delta=0.05)
        covered95 += v.low95 <= shift <= v.high95
        covered90 += v.low90 <= shift <= v.high90
        apart += intervals.interval_verdict(d - shift, delta=0.05).verdict == TOLD_APART
    assert covered95 >= 0.93 * 2000
    assert covered90 >= 0.88 * 2000
    assert apart <= 0.07 * 2000


def test_coverage_with_ties_stays_conservative():
    """Timings rounded coarsely (many ties and zeros): the closed interval still covers."""
    rng = np.random.default_rng(7)
    shift, covered = 0.1, 0
    for _ in range(1000):
        d = np.round(rng.normal(shift, 0.15, 20) / 0.1) * 0.1  # ties everywhere, shift on grid
        v = intervals.interval_verdict(d, delta=0.05)
        covered += v.low95 <= shift <= v.high95
    assert covered >= 0.95 * 1000


def test_told_apart_on_a_clear_shift():
    rng = np.random.default_rng(1)
    for shift in (0.3, -0.3):
        v = intervals.interval_verdict(rng.normal(shift, 0.1, 40), delta=0.05)
        assert v.verdict == TOLD_APART
        assert v.estimate == pytest.approx(shift, abs=0.05)
        assert v.low95 <= v.low90 <= v.estimate <= v.high90 <= v.high95
        assert 0 < v.resolvable < 0.1


def test_the_same_within_delta_on_no_shift_and_small_noise():
    v = intervals.interval_verdict(np.random.default_rng(2).normal(0, 0.01, 40), delta=0.05)
    assert v.verdict == SAME_WITHIN
    assert -0.05 <= v.low90 <= v.high90 <= 0.05
    assert v.resolvable < 0.01


def test_not_resolved_on_few_pairs_and_on_big_noise():
    few = intervals.interval_verdict([0.5, 0.6, 0.7, 0.8, 0.9], delta=0.05)
    assert (few.verdict, few.reaches95, few.resolvable) == (NOT_RESOLVED, False, math.inf)
    noisy = intervals.interval_verdict(np.random.default_rng(3).normal(0.02, 1.0, 40), 0.05)
    assert noisy.verdict == NOT_RESOLVED
    assert noisy.low95 < 0 < noisy.high95
    assert noisy.resolvable > 0.3


def test_a_large_n_is_exact_and_quick():
    d = np.random.default_rng(4).normal(0.01, 0.05, 300)
    v = intervals.interval_verdict(d, delta=0.02)
    assert v.achieved95 >= 0.95 and v.achieved90 >= 0.90
    assert report_intervals.check(d, v.as_dict()) == []


# --- µs at A's level, and the JSON form ------------------------------------------------------


def test_log_to_us():
    assert intervals.log_to_us(math.log(1.1), 1000.0) == pytest.approx(100.0)
    assert intervals.log_to_us(math.log(0.9), 1000.0) == pytest.approx(-100.0)
    assert intervals.log_to_us(0.0, 1180.0) == 0.0
    assert intervals.log_to_us(1e-12, 1000.0) == pytest.approx(1e-9)  # expm1: no cancellation
    assert intervals.log_to_us(math.inf, 1000.0) == math.inf


def test_in_us_and_as_dict():
    v = intervals.interval_verdict(HAND[5][0], delta=math.log(1.02))  # n = 6, [0.01, 0.06]
    us = v.in_us(1000.0)
    assert us["estimate_us"] == pytest.approx(1000 * math.expm1(0.035))
    assert us["low95_us"] == pytest.approx(1000 * math.expm1(0.01))
    assert us["high95_us"] == pytest.approx(1000 * math.expm1(0.06))
    assert us["delta_us"] == pytest.approx(20.0)
    assert us["resolvable_us"] == pytest.approx(1000 * math.expm1(0.025))
    out = v.as_dict(level_us=1000.0)
    assert out["verdict"] == TOLD_APART and out["n"] == 6 and out["reaches95"] is True
    assert out["achieved95"] == 0.96875 and out["level_us"] == 1000.0
    assert out["estimate_us"] == round(1000 * math.expm1(0.035), 3)  # 5 significant digits
    assert out["delta"] == 0.019803  # log(1.02) = 0.0198026…, to 5 significant digits
    assert json.loads(json.dumps(out, allow_nan=False)) == out
    few = intervals.interval_verdict([0.1, 0.2], delta=0.1).as_dict(level_us=500.0)
    assert few["resolvable"] is None and few["resolvable_us"] is None  # +inf -> null
    assert set(v.as_dict()) == set(out) - {k for k in out if k.endswith("_us")}


# --- the report's own check ---------------------------------------------------------------


def random_cases(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for index in range(count):
        n = int(rng.integers(1, 61)) if index % 20 else int(rng.integers(100, 260))
        d = rng.normal(rng.normal(0, 0.1), rng.uniform(0.001, 0.3), n)
        if index % 3 == 0:
            d = np.round(d, 2)  # ties and zeros
        if index % 7 == 0:
            d[: n // 3] = 0.0
        yield d, float(rng.uniform(0, 0.2)), float(rng.uniform(50, 20000))


def test_the_report_agrees_on_many_random_inputs():
    verdicts = set()
    for d, delta, level in random_cases(300, 11):
        v = intervals.interval_verdict(d, delta)
        published = json.loads(json.dumps(v.as_dict(level_us=level)))
        assert report_intervals.check(d, published, delta=delta) == [], (list(d), delta)
        assert report_intervals.check(list(d), v.as_dict()) == []  # no µs, δ as published
        verdicts.add(v.verdict)
    assert verdicts == {TOLD_APART, SAME_WITHIN, NOT_RESOLVED}


def test_the_report_catches_a_changed_value():
    d = np.random.default_rng(5).normal(0.05, 0.1, 30)
    v = intervals.interval_verdict(d, delta=0.05)
    good = v.as_dict(level_us=1200.0)
    walsh = sorted(report_intervals.walsh(list(d)))
    k = intervals.critical_count(30, 0.95)[0]
    changes = {
        "low95": good["low95"] * 1.001,  # 0.1% off
        "high95": walsh[-k - 1],  # the next average in: k off by one
        "high90": good["high95"],
        "estimate": good["estimate"] + 0.01,
        "achieved95": 0.95,
        "reaches90": False,
        "verdict": NOT_RESOLVED if v.verdict != NOT_RESOLVED else TOLD_APART,
        "resolvable": None,
        "n": 29,
        "low95_us": good["low95_us"] + 1.0,
        "delta": 0.06,
    }
    for key, changed in changes.items():
        assert changed != good[key]
        problems = report_intervals.check(d, dict(good, **{key: changed}), delta=0.05)
        assert problems and problems[0].startswith(f"interval {key}:"), (key, problems)
    missing = dict(good)
    del missing["high90"]
    assert "missing" in report_intervals.check(d, missing)[0]
    # a different δ than the campaign's is caught, and changes the verdict it implies
    assert report_intervals.check(d, good, delta=0.07)


def wilcoxon(*args, **kwargs):
    """scipy's exact Wilcoxon signed-rank test, an independent check (imported when asked:
    scipy takes seconds to import, and every test run collects this file)."""
    from scipy import stats

    return stats.wilcoxon(*args, **kwargs)
