"""The interval rule for telling two settings apart (issue 28, from the third campaign on).

Input: paired log-ratios d_1 … d_n, d = ln(statistic of B) − ln(statistic of A), one per
paired run (a switchback run) or per round (Part B's grid, on the same arrivals).

- **estimate**: the Hodges–Lehmann estimate, the median of the n(n+1)/2 Walsh averages
  (d_i + d_j)/2, i ≤ j (the mean of the two middle ones when their count is even).
- **interval**: the exact Wilcoxon signed-rank confidence interval, [W_(k), W_(M+1−k)] with
  W_(1) ≤ … ≤ W_(M) the sorted Walsh averages. k is the largest count with
  P(T+ ≤ k−1) ≤ (1 − confidence)/2 under the exact null distribution of the signed-rank
  statistic T+ for n (every one of the 2^n sign patterns equally likely; counted exactly, in
  integers, by dynamic programming over the ranks 1 … n: no normal approximation at any n).
  The achieved confidence, 1 − 2·P(T+ ≤ k−1), is at least the one asked (conservative) and
  is returned. When even k = 1 is too wide a tail (n < 6 at 95%, n < 5 at 90%), no interval
  reaches the level: the whole range [min d, max d] is returned with its own confidence
  1 − 2/2^n (0.9375 for n = 5) and `reaches` false, and no verdict may rest on it.
- **ties and zeros** among the d_i need no special handling: Walsh averages are plain numbers,
  tied ones take consecutive places in the sorted list and a zero d is an average like any
  other. The interval is closed, so with ties (rounded timings) it covers the true shift at
  least as often as with continuous data: each such tie counts on the interval's side.
- **verdict** (in this order): "told apart" when the 95% interval reaches its level and lies
  strictly on one side of 0; "the same within ±δ" when the 90% interval reaches its level
  and lies inside [−δ, +δ] (two one-sided tests at 5% each; δ in log units, given by the
  caller and recorded); otherwise "not resolved". A precise small difference can satisfy
  both; it is "told apart", and the 90% interval still shows it is smaller than δ.
- **resolvable**: the smallest difference this design could resolve, the half-width of the
  95% interval, (high − low)/2: the same interval moved so its middle sits that far from 0
  would touch 0; any farther and it is told apart. +inf when the 95% level is out of reach
  (n < 6): then no difference at all could be told apart.
- **µs**: `log_to_us` turns a value e in log units into a·(exp(e) − 1) µs at A's level a
  (for example the median over runs of A's p50); `IntervalVerdict.in_us` does it for the
  estimate, every interval end, δ and the resolvable difference.

Used by the build (generator/arithmetic/grid_verdicts.py: Part B's grid;
generator/arithmetic/bench_files.py: the switchback benchmark). The report checks its results with
its own code, generator/report/intervals.py, which must NOT import this module.
"""

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from generator.arithmetic.stats import round_sig

CONFIDENCE = 0.95  # told apart
EQUIVALENCE_CONFIDENCE = 0.90  # the same within ±δ (two one-sided tests at 5%)
TOLD_APART = "told apart"
SAME_WITHIN = "the same within ±δ"
NOT_RESOLVED = "not resolved"
VERDICTS = (TOLD_APART, SAME_WITHIN, NOT_RESOLVED)


@lru_cache(maxsize=512)
def signed_rank_counts(n: int) -> tuple[int, ...]:
    """How many of the 2^n sign patterns give T+ = t, for t = 0 … floor(M/2), M = n(n+1)/2.

    Exact integers, by dynamic programming over the ranks: adding rank r to the patterns so
    far, count_new[t] = count[t] + count[t − r]. Only the lower half is kept (T+ is
    symmetric about M/2, and every interval end lies in the lower tail)."""
    if n < 0:
        raise ValueError(f"n must be >= 0, not {n}")
    half = n * (n + 1) // 4
    counts = np.zeros(half + 1, dtype=object)
    counts[0] = 1
    for rank in range(1, min(n, half) + 1):
        counts[rank:] = counts[rank:] + counts[:-rank]  # right side first: old counts
    return tuple(int(c) for c in counts)


def _exact(confidence: float) -> Fraction:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    return Fraction(confidence).limit_denominator(10**9)  # 0.95 -> 19/20 exactly


@lru_cache(maxsize=2048)
def critical_count(n: int, confidence: float) -> tuple[int, float, bool]:
    """(k, achieved confidence, reaches) for n pairs: the interval is [W_(k), W_(M+1−k)].

    k is the largest with P(T+ <= k−1) <= (1 − confidence)/2; when none is (n too small),
    k = 1 (the whole range) and reaches is False. n >= 1."""
    if n < 1:
        raise ValueError("an interval needs at least one paired difference")
    tail = (1 - _exact(confidence)) / 2
    patterns = 2**n
    most = patterns * tail.numerator // tail.denominator  # patterns allowed in one tail
    k, below = 0, 0  # below = patterns with T+ <= k - 1
    for count in signed_rank_counts(n):
        if below + count > most:
            break
        k, below = k + 1, below + count
    reaches = k >= 1
    if not reaches:
        k, below = 1, signed_rank_counts(n)[0]
    return k, float(1 - Fraction(2 * below, patterns)), reaches


def walsh_averages(d) -> np.ndarray:
    """The n(n+1)/2 averages (d_i + d_j)/2, i <= j, sorted ascending."""
    values = np.asarray(d, dtype=float).ravel()
    i, j = np.triu_indices(len(values))
    return np.sort((values[i] + values[j]) / 2)


def hodges_lehmann(d) -> float:
    """The median of the Walsh averages."""
    walsh = walsh_averages(d)
    if len(walsh) == 0:
        raise ValueError("no paired differences")
    return float(np.median(walsh))


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    achieved: float  # the confidence it really has (>= the one asked when reaches)
    reaches: bool  # False: the whole range, short of the level asked
    k: int  # the ends are the k-th smallest and k-th largest Walsh averages


def signed_rank_interval(d, confidence: float = CONFIDENCE) -> Interval:
    """The exact Wilcoxon signed-rank interval for the shift of d at `confidence`."""
    walsh = walsh_averages(d)
    if len(walsh) == 0:
        raise ValueError("an interval needs at least one paired difference")
    n = len(np.asarray(d).ravel())
    k, achieved, reaches = critical_count(n, confidence)
    return Interval(float(walsh[k - 1]), float(walsh[-k]), achieved, reaches, k)


def log_to_us(value: float, level_us: float) -> float:
    """A difference in log units as µs at A's level: level·(exp(value) − 1)."""
    return level_us * math.expm1(value) if math.isfinite(value) else value


def delta_shares(delta: dict) -> dict:
    """δ per statistic (log units) as a share of A's level, exp(δ) − 1: 0.05 for ln(1.05)."""
    return {name: log_to_us(value, 1.0) for name, value in delta.items()}


@dataclass(frozen=True)
class IntervalVerdict:
    """The rule's answer for one comparison (B against A); every value in log units."""

    n: int
    estimate: float  # Hodges–Lehmann
    low95: float
    high95: float
    achieved95: float
    reaches95: bool
    low90: float
    high90: float
    achieved90: float
    reaches90: bool
    delta: float  # the equivalence margin δ, log units
    verdict: str  # one of VERDICTS
    resolvable: float  # (high95 − low95)/2; +inf when the 95% level is out of reach

    def in_us(self, level_us: float) -> dict:
        """Estimate, interval ends, δ and resolvable as µs at A's level (not rounded)."""
        names = ("estimate", "low95", "high95", "low90", "high90", "delta", "resolvable")
        return {f"{name}_us": log_to_us(getattr(self, name), level_us) for name in names}

    def as_dict(self, level_us: float | None = None) -> dict:
        """For JSON: floats rounded as generator.arithmetic.stats.round_sig (+inf -> None); with A's
        level, also `level_us` and the µs values (`estimate_us`, `low95_us` …)."""
        out = {
            "n": self.n,
            "estimate": round_sig(self.estimate),
            "low95": round_sig(self.low95),
            "high95": round_sig(self.high95),
            "achieved95": round_sig(self.achieved95),
            "reaches95": self.reaches95,
            "low90": round_sig(self.low90),
            "high90": round_sig(self.high90),
            "achieved90": round_sig(self.achieved90),
            "reaches90": self.reaches90,
            "delta": round_sig(self.delta),
            "verdict": self.verdict,
            "resolvable": round_sig(self.resolvable),
        }
        if level_us is not None:
            out["level_us"] = round_sig(level_us)
            out.update({k: round_sig(v) for k, v in self.in_us(level_us).items()})
        return out


def verdict_of(wide: Interval, narrow: Interval, delta: float) -> str:
    """The rule on the 95% (`wide`) and 90% (`narrow`) intervals; see the module docstring."""
    if wide.reaches and (wide.low > 0 or wide.high < 0):
        return TOLD_APART
    if narrow.reaches and -delta <= narrow.low and narrow.high <= delta:
        return SAME_WITHIN
    return NOT_RESOLVED


def interval_verdict(d, delta: float) -> IntervalVerdict:
    """The whole rule for paired log-ratios d (B against A) with equivalence margin δ (log
    units, >= 0). Needs at least one finite d; raises ValueError otherwise."""
    values = np.asarray(d, dtype=float).ravel()
    if len(values) == 0 or not np.isfinite(values).all():
        raise ValueError("the rule needs at least one paired difference, all finite")
    if not (math.isfinite(delta) and delta >= 0):
        raise ValueError(f"delta must be finite and >= 0, not {delta}")
    wide = signed_rank_interval(values, CONFIDENCE)
    narrow = signed_rank_interval(values, EQUIVALENCE_CONFIDENCE)
    return IntervalVerdict(
        n=len(values),
        estimate=hodges_lehmann(values),
        low95=wide.low,
        high95=wide.high,
        achieved95=wide.achieved,
        reaches95=wide.reaches,
        low90=narrow.low,
        high90=narrow.high,
        achieved90=narrow.achieved,
        reaches90=narrow.reaches,
        delta=float(delta),
        verdict=verdict_of(wide, narrow, delta),
        resolvable=(wide.high - wide.low) / 2 if wide.reaches else math.inf,
    )
