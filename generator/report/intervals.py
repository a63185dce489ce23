"""The report's own check of the interval rule (generator/arithmetic/intervals.py), by different
arithmetic.

Given the paired log-ratios d of one comparison and the verdict published for it (the dict of
`IntervalVerdict.as_dict`), `check` recomputes everything here and returns the disagreements
as plain strings (empty when every value agrees to 4 significant digits and every count,
yes/no and verdict word exactly), as report_explorer.check_explorer does; the report raises
its Disagreement on the first. Never imports generator.arithmetic.stats or
generator.arithmetic.intervals.

Different routes on purpose:
- the null distribution of the signed-rank statistic T+: for n <= 20 by enumerating every
  one of the 2^n sign vectors (the sums built by doubling, then counted); above, by the
  generating function prod_r (1 + x^r) evaluated at x = 2^B (one big Python integer with
  B bits per coefficient, wide enough that no coefficient carries into the next), its
  coefficients read back from the integer's bytes;
- the interval's k: the tail's cumulative counts and a bisection against the allowed count;
- the Walsh averages by plain loops over the sorted d, the estimate by statistics.median;
- the µs values as level·(exp(x) − 1), not expm1.
"""

import bisect
import itertools
import math
import statistics
from fractions import Fraction
from functools import lru_cache

import numpy as np

DIGITS = 4
RELATIVE_TOLERANCE = 10.0**-DIGITS
ABSOLUTE_TOLERANCE = {"log": 1e-12, "us": 1e-6}  # for values that are 0 up to rounding
ENUMERATE_UP_TO = 20
WORDS = ("told apart", "the same within ±δ", "not resolved")


@lru_cache(maxsize=256)
def null_counts(n: int) -> tuple[int, ...]:
    """counts[t] = sign vectors of n ranks whose positive ranks sum to t, t = 0 … n(n+1)/2."""
    if n <= ENUMERATE_UP_TO:
        sums = np.zeros(1, dtype=np.int64)
        for rank in range(1, n + 1):  # every vector without rank r, then every one with it
            sums = np.concatenate((sums, sums + rank))
        return tuple(int(c) for c in np.bincount(sums, minlength=n * (n + 1) // 2 + 1))
    width = (n + 8) // 8  # bytes per coefficient: every coefficient < 2^n fits in n + 1 bits
    poly = 1
    for rank in range(1, n + 1):
        poly += poly << (8 * width * rank)
    top = n * (n + 1) // 2
    raw = poly.to_bytes(width * (top + 1), "little")
    return tuple(int.from_bytes(raw[width * t : width * (t + 1)], "little") for t in range(top + 1))


def ends_rank(n: int, confidence: float) -> tuple[int, Fraction, bool]:
    """(k, achieved confidence, reaches): the ends are the k-th smallest and largest Walsh
    averages; k = 1 and reaches False when no k reaches the confidence."""
    counts = null_counts(n)
    cumulative = list(itertools.accumulate(counts[: len(counts) // 2 + 1]))
    one_tail = (1 - Fraction(str(confidence))) / 2
    allowed = math.floor(one_tail * 2**n)
    k = bisect.bisect_right(cumulative, allowed)  # how many tails stay within the allowance
    reaches = k > 0
    k = max(k, 1)
    return k, 1 - Fraction(2 * cumulative[k - 1], 2**n), reaches


def walsh(d: list) -> list:
    ordered = sorted(float(x) for x in d)
    return sorted(
        (ordered[i] + ordered[j]) / 2 for i in range(len(ordered)) for j in range(i, len(ordered))
    )


def recompute(d, delta: float) -> dict:
    """The rule's answer, log units, unrounded (+inf when the 95% level is out of reach)."""
    averages = walsh(list(d))
    n = len(list(d))
    out = {"n": n, "estimate": statistics.median(averages), "delta": float(delta)}
    for level, confidence in (("95", 0.95), ("90", 0.90)):
        k, achieved, reaches = ends_rank(n, confidence)
        out[f"low{level}"] = averages[k - 1]
        out[f"high{level}"] = averages[len(averages) - k]
        out[f"achieved{level}"] = float(achieved)
        out[f"reaches{level}"] = reaches
    if out["reaches95"] and (out["low95"] > 0 or out["high95"] < 0):
        out["verdict"] = WORDS[0]
    elif out["reaches90"] and out["low90"] >= -delta and out["high90"] <= delta:
        out["verdict"] = WORDS[1]
    else:
        out["verdict"] = WORDS[2]
    out["resolvable"] = (out["high95"] - out["low95"]) / 2 if out["reaches95"] else math.inf
    return out


def expected(d, delta: float, level_us: float | None = None) -> dict:
    """What IntervalVerdict.as_dict publishes for d, recomputed here (unrounded; +inf where it
    writes null): the rule's values and, with A's level, `level_us` and each value in µs."""
    computed = recompute(d, delta)
    if level_us is not None:
        computed["level_us"] = level_us
        for key in ("estimate", "low95", "high95", "low90", "high90", "delta", "resolvable"):
            value = computed[key]
            computed[f"{key}_us"] = (
                level_us * (math.exp(value) - 1) if math.isfinite(value) else value
            )
    return computed


def close(published, computed, unit: str) -> bool:
    if published is None or computed is None or not math.isfinite(computed):
        return published is None and (computed is None or not math.isfinite(computed))
    return math.isclose(
        published, computed, rel_tol=RELATIVE_TOLERANCE, abs_tol=ABSOLUTE_TOLERANCE[unit]
    )


def check(d, published: dict, delta: float | None = None, name: str = "interval") -> list[str]:
    """Disagreements between `published` (IntervalVerdict.as_dict, with or without its µs
    values) and the rule recomputed here from d; `delta` the campaign's δ (default: the one
    published). Keys other than the rule's are not looked at."""
    problems = []
    if delta is None:
        delta = published.get("delta")
    if delta is None:
        return [f"{name}: no δ published and none given"]
    computed = recompute(d, delta)
    level = published.get("level_us")
    if level is not None:
        for key in ("estimate", "low95", "high95", "low90", "high90", "delta", "resolvable"):
            value = computed[key]
            computed[f"{key}_us"] = level * (math.exp(value) - 1) if math.isfinite(value) else value
    for key, value in computed.items():
        if key not in published:
            problems.append(
                f"{name} {key}: missing from the published verdict (recomputed {value!r})"
            )
            continue
        shown = published[key]
        if isinstance(value, bool | str | int) and not isinstance(value, float):
            same = shown == value and type(shown) is type(value)
        else:
            same = isinstance(shown, int | float | None) and not isinstance(shown, bool)
            same = same and close(shown, value, "us" if key.endswith("_us") else "log")
        if not same:
            problems.append(f"{name} {key}: published {shown!r}, recomputed {value!r}")
    return problems
