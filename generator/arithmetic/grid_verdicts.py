"""Part B's grid judged by the interval rule (issue 28, item 4), for a campaign that ran under it.

A campaign whose description names the interval rule (`hodges_lehmann_wilcoxon_95`,
generator/reading/description.py) has each paired comparison of `paired` and of `best.versus` judged
by generator/arithmetic/intervals.py on the paired log-ratios, one per round measured for both sides
(the same arrivals): d = ln(setting's value) − ln(baseline's value), δ the campaign's own for the
metric (`p50_ms` → its `p50` δ, `p99_ms` → `p99`, `throughput` → `throughput`). Each diff
record keeps every key the rounds rule gives (`rounds`, `diffs`, `median`, `direction`) and
gains `verdict` (one of intervals.VERDICTS) and `interval` (IntervalVerdict.as_dict, for p50
and p99 with `level_us`, the baseline cell's median over its measured rounds in µs, and every
value in µs at that level too); `told_apart` is `verdict == "told apart"`, and a told-apart
difference's `direction` is the side of 0 its 95% interval lies on. A comparison with a round
whose value is not finite and positive on either side (a percentile on a never-answered
request, no answer at all) has no interval (`interval` null) and is not resolved.

A campaign under the rounds rule (`all_rounds_agree_in_sign`) never reaches this module: its
results are exactly what they were before the interval rule existed.

The intervals are published beside results.json in assets/data/intervals.json (`split`; the
full campaign has about 600 comparisons, and results.json, which the explorer loads on every
visit, is at its budget): `paired` {setting: {baseline: {rate: {metric: interval}}}} and
`best` {rate: {metric: interval}}; results.json keeps each diff's `verdict` and names the file
in `design.told_apart.table`. The report reads it back and recomputes every interval with its
own code (generator/report/checks.py, generator/report/intervals.py). Used by
generator/arithmetic/results.py.
"""

import math

from generator.arithmetic import intervals

TABLE = "intervals.json"
DELTA_OF = {"p50_ms": "p50", "p99_ms": "p99", "throughput": "throughput"}
IN_US = {"p50_ms": 1000.0, "p99_ms": 1000.0}  # the metrics shown in µs at the baseline's level


def log_ratios(values: list, baselines: list) -> list[float] | None:
    """d = ln(value) − ln(baseline) per pair (None = never answered = +inf); None when any
    side of any pair is not finite and positive."""
    found = []
    for value, baseline in zip(values, baselines, strict=True):
        if value is None or baseline is None:
            return None
        if not (math.isfinite(value) and math.isfinite(baseline) and value > 0 and baseline > 0):
            return None
        found.append(math.log(value) - math.log(baseline))
    return found


def judged(diff: dict, values: dict, baselines: dict, metric: str, rule: dict, level) -> dict:
    """A paired diff record (generator.arithmetic.stats.paired) with the interval rule's verdict:
    `values` and `baselines` {round: value}; `level` the baseline cell's median in the
    metric's unit (None when it has none)."""
    rounds = diff["rounds"]
    d = log_ratios([values[r] for r in rounds], [baselines[r] for r in rounds]) if rounds else None
    found = dict(diff)
    if d is None:
        found.update(told_apart=False, verdict=intervals.NOT_RESOLVED, interval=None)
        return found
    verdict = intervals.interval_verdict(d, rule["delta"][DELTA_OF[metric]])
    level_us = None
    if metric in IN_US and level is not None and math.isfinite(level):
        level_us = level * IN_US[metric]
    apart = verdict.verdict == intervals.TOLD_APART
    found.update(told_apart=apart, verdict=verdict.verdict, interval=verdict.as_dict(level_us))
    if apart:
        found["direction"] = "higher" if verdict.low95 > 0 else "lower"
    return found


def split(result: dict) -> tuple[dict, dict | None]:
    """(results.json without the intervals, naming their file in `design.told_apart.table`;
    the table {paired, best}); the table is None for a campaign not under the interval rule."""
    told_apart = result.get("design", {}).get("told_apart")
    if told_apart is None:
        return result, None
    table = {"paired": {}, "best": {}}
    paired = {}
    for name, baselines in result.get("paired", {}).items():
        for baseline, rates in baselines.items():
            for rate, metrics in rates.items():
                for metric, diff in metrics.items():
                    kept = {key: value for key, value in diff.items() if key != "interval"}
                    paired.setdefault(name, {}).setdefault(baseline, {}).setdefault(rate, {})
                    paired[name][baseline][rate][metric] = kept
                    table["paired"].setdefault(name, {}).setdefault(baseline, {})
                    table["paired"][name][baseline].setdefault(rate, {})[metric] = diff["interval"]
    shown = dict(result, design=dict(result["design"], told_apart=dict(told_apart, table=TABLE)))
    if "paired" in result:
        shown["paired"] = paired
    if result.get("best"):
        by_rate = {}
        for rate, entry in result["best"]["by_rate"].items():
            if "versus" not in entry:
                by_rate[rate] = entry
                continue
            versus = {}
            for metric, diff in entry["versus"].items():
                versus[metric] = {key: value for key, value in diff.items() if key != "interval"}
                table["best"].setdefault(rate, {})[metric] = diff["interval"]
            by_rate[rate] = dict(entry, versus=versus)
        shown["best"] = dict(result["best"], by_rate=by_rate)
    return shown, table
