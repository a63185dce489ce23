"""The report's own formulas for the named figures and guess verdicts (not the build's
generator/arithmetic/figures.py).

Works on what generator/report/checks.py recomputed from the raw files: Part A per-call medians,
bit totals, S, and Part B cells of per-round metrics. It must give exactly the figure
names results.json publishes: a figure here but not there (or the reverse) is a
disagreement. Names (settings, slugs) are the shared ones of lab/rawformat/names.py; the
quiet and busy rates are the campaign's own. Used by `python -m generator report`.
"""

import math
import statistics

from generator.report import intervals as report_intervals
from lab.rawformat.names import NONE, QUEUE_B1, setting_name, slug

UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6}
B32_W0, B32_W2 = setting_name("queue", 32, 0), setting_name("queue", 32, 2)


def med(cell: dict | None, metric: str):
    """Median of the measured rounds' values of a metric; None when nothing measured."""
    if cell is None:
        return None
    values = [run[metric] for run in cell["rounds"].values() if run.get(metric) is not None]
    return statistics.median(values) if values else None


def kept(cell: dict) -> bool:
    runs = cell["rounds"]
    return (
        bool(runs)
        and len(runs) == len(cell["scheduled"])
        and all(run["keeps_up"] for run in runs.values())
    )


def kept_up_to(cells_by_rate: dict):
    """Highest rate kept up before the first that was not; None while rounds are missing."""
    highest = 0.0
    for rate in sorted(cells_by_rate, key=float):
        cell = cells_by_rate[rate]
        if kept(cell):
            highest = float(rate)
            continue
        failed = any(not run["keeps_up"] for run in cell["rounds"].values())
        return highest if failed or len(cell["rounds"]) == len(cell["scheduled"]) else None
    return highest


def paired_diffs(cells, name, base, rate, metric):
    """Per common round: name − base (None when both are infinite); None if no such pair."""
    a, b = cells.get((name, rate)), cells.get((base, rate))
    if a is None or b is None:
        return None
    out = []
    for r in sorted(set(a["rounds"]) & set(b["rounds"])):
        x, y = a["rounds"][r][metric], b["rounds"][r][metric]
        out.append(None if math.isinf(x) and math.isinf(y) else x - y)
    return out


def agree(diffs: list, needed: int) -> bool:
    return len(diffs) == needed and (
        all(d is not None and d > 0 for d in diffs) or all(d is not None and d < 0 for d in diffs)
    )


def divide(a, b):
    ok = a is not None and b is not None and b != 0 and not math.isinf(a) and not math.isinf(b)
    return a / b if ok else None


def part_a(figures: dict, per_call: dict, per_run: dict) -> None:
    for size, value in per_call.items():
        figures[f"part_a_per_call_us_{size}"] = value
        figures[f"part_a_per_row_us_{size}"] = value / size
    for size in (2, 4):  # the oddity both boxes showed: a few rows cheaper than one
        if size in per_run and 1 in per_run:
            figures[f"part_a_runs_{size}_rows_below_1"] = len(
                [1 for mine, one in zip(per_run[size], per_run[1], strict=True) if mine < one]
            )
    if 1 in per_call and 1024 in per_call:
        figures["part_a_call_ratio_1024_vs_1"] = per_call[1024] / per_call[1]
        figures["part_a_per_row_saving_1024"] = per_call[1] * 1024 / per_call[1024]
        if 512 in per_call:
            figures["part_a_per_row_drop_512_to_1024"] = 1 - (per_call[1024] / 1024) / (
                per_call[512] / 512
            )


def per_setting(figures: dict, cells: dict, quiet: str, busy: str) -> None:
    for name in sorted({name for name, _ in cells}):
        mine = {rate: c for (n, rate), c in cells.items() if n == name}
        s = slug(name)
        for rate in (quiet, busy):
            for metric in ("p50_ms", "p99_ms"):
                figures[f"{s}_{metric}_at_{slug(rate)}"] = med(mine.get(rate), metric)
        figures[f"{s}_mean_batch_at_{slug(quiet)}"] = med(mine.get(quiet), "mean_batch_size")
        figures[f"{s}_highest_rate_kept_up"] = kept_up_to(mine)
        for metric, label in (("throughput", "peak_throughput"), ("p99_ms", "p99_ms_max")):
            values = [med(c, metric) for c in mine.values() if med(c, metric) is not None]
            figures[f"{s}_{label}"] = max(values) if values else None


def busy_side(figures: dict, cells: dict, batch_of: dict, rates: list, busy: str) -> None:
    top = max(rates, key=float)
    figures["top_rate"] = float(top)
    candidates = [
        (med(c, "throughput"), n)
        for (n, r), c in cells.items()
        if r == top and batch_of[n] > 1 and med(c, "throughput") is not None
    ]
    if candidates:
        best = max(candidates)
        figures["best_batched_setting_at_top_rate"] = best[1]
        figures["best_batched_throughput_at_top_rate"] = best[0]
        figures["best_batched_gain_at_top_rate"] = divide(
            best[0], med(cells.get((NONE, top)), "throughput")
        )
        figures["best_batched_kept_up_at_top_rate"] = kept(cells[(best[1], top)])
    figures["settings_kept_up_at_top_rate"] = sum(
        kept(c) for (_, r), c in cells.items() if r == top
    )
    figures["none_throughput_at_top_rate"] = med(cells.get((NONE, top)), "throughput")
    p99s = sorted(
        med(c, "p99_ms")
        for (n, r), c in cells.items()
        if r == busy and batch_of[n] > 1 and med(c, "p99_ms") is not None
    )
    if p99s:
        figures[f"batched_p99_ms_min_at_{slug(busy)}"] = p99s[0]
        figures[f"batched_p99_ms_max_at_{slug(busy)}"] = p99s[-1]


DELTA_OF = {"p50_ms": "p50", "p99_ms": "p99"}  # the rule's δ for each metric


def log_ratios(cells, name, base, rate, metric) -> list | None:
    """ln(name) − ln(base) per common round; None when a round has no finite positive value."""
    a, b = cells[(name, rate)]["rounds"], cells[(base, rate)]["rounds"]
    pairs = [(a[r][metric], b[r][metric]) for r in sorted(set(a) & set(b))]
    if not all(0 < x < math.inf and 0 < y < math.inf for x, y in pairs):
        return None
    return [math.log(x / y) for x, y in pairs]


def apart_by_interval(cells, name, base, rate, metric, rule: dict) -> bool:
    """The interval rule (issue 28) on the paired log ratios, by the report's own arithmetic
    (report_intervals); False when a round has no finite positive value."""
    d = log_ratios(cells, name, base, rate, metric)
    if d is None:
        return False
    verdict = report_intervals.recompute(d, rule["delta"][DELTA_OF[metric]])["verdict"]
    return verdict == report_intervals.WORDS[0]


def comparisons(figures: dict, cells: dict, needed: int, quiet: str, rule=None) -> None:
    at = slug(quiet)
    for name, metric, label in (
        (QUEUE_B1, "p50_ms", "queue_b1_p50_overhead_told_apart"),
        (B32_W0, "p99_ms", f"b32_w0_p99_told_apart_at_{at}"),
        (B32_W0, "p50_ms", f"b32_w0_p50_told_apart_at_{at}"),
    ):
        diffs = paired_diffs(cells, name, NONE, quiet, metric)
        if diffs is not None and len(diffs) >= needed:
            if rule is not None:
                figures[label] = apart_by_interval(cells, name, NONE, quiet, metric, rule)
            else:
                figures[label] = agree(diffs, needed)
    diffs = paired_diffs(cells, QUEUE_B1, NONE, quiet, "p50_ms")
    defined = [d for d in diffs or [] if d is not None]
    figures[f"queue_b1_p50_overhead_us_at_{at}"] = (
        statistics.median(defined) * 1000 if defined else None
    )
    figures[f"b32_w0_p99_cut_at_{at}"] = divide(
        med(cells.get((NONE, quiet)), "p99_ms"), med(cells.get((B32_W0, quiet)), "p99_ms")
    )


def resolution(figures: dict, cells: dict, quiet: str, rule=None) -> None:
    """Queue B=1's p50 and B=32 W=0's p99 against none's at the quiet rate: the smallest
    difference the campaign's rule could resolve, in µs (rounds rule: the largest distance of
    a round's difference from their median; interval rule: the 95% interval's half-width at
    none's level), and under the interval rule the estimate and interval, by the report's own
    arithmetic."""
    at = slug(quiet)
    for name, setting, metric in (("queue_b1_p50", QUEUE_B1, "p50_ms"),
                                  ("b32_w0_p99", B32_W0, "p99_ms")):  # fmt: skip
        diffs = paired_diffs(cells, setting, NONE, quiet, metric)
        if not diffs:
            continue
        if rule is None:
            if all(d is not None and math.isfinite(d) for d in diffs):
                middle = statistics.median(diffs)
                widest = max(abs(d - middle) for d in diffs)
                figures[f"{name}_resolvable_us_at_{at}"] = 1000 * widest
            continue
        d = log_ratios(cells, setting, NONE, quiet, metric)
        if d is None:
            continue
        level_us = 1000 * med(cells[(NONE, quiet)], metric)
        found = report_intervals.expected(d, rule["delta"][DELTA_OF[metric]], level_us)
        for end in ("resolvable", "estimate", "low95", "high95"):
            if math.isfinite(found[f"{end}_us"]):  # +inf: too few rounds for the 95% level
                figures[f"{name}_{end}_us_at_{at}"] = found[f"{end}_us"]
        figures[f"{name}_verdict_at_{at}"] = found["verdict"]


def handler_and_waits(figures: dict, cells: dict, quiet: str) -> None:
    at = slug(quiet)
    none, b32w2 = cells.get((NONE, quiet)), cells.get((B32_W2, quiet))
    figures[f"none_ready_us_at_{at}"] = med(none, "ready_us_p50")
    figures[f"none_model_us_at_{at}"] = med(none, "model_us_p50")
    queued, model = med(b32w2, "queued_us_p50"), med(b32w2, "model_us_p50")
    if queued is not None and model is not None:
        figures[f"b32_w2_queued_plus_model_us_at_{at}"] = queued + model
    wait = {
        w: med(cells.get((setting_name("queue", 32, w), quiet)), "first_wait_us_p50")
        for w in (0, 1, 2, 5, 10)
    }
    per_answer, model_us = figures.get("S_us_per_answer"), figures[f"none_model_us_at_{at}"]
    if per_answer and model_us is not None and 0 < model_us < per_answer:
        figures["none_model_share_of_answer"] = model_us / per_answer
        figures["batching_ceiling_x_s"] = per_answer / (per_answer - model_us)
    figures["wait_us_w0"] = wait[0]
    figures["wait_overshoot_us_w1"] = None if wait[1] is None else wait[1] - 1000
    for w in (1, 2, 5, 10):
        figures[f"wait_ms_w{w}"] = None if wait[w] is None else wait[w] / 1000


def outside_model(figures: dict, batch_of: dict, quiet: str) -> None:
    """The work per answer batching cannot remove, at the top rate and, when the model call
    is a share of S's time per answer, at S and its growth."""
    best = figures.get("best_batched_setting_at_top_rate")
    per_row = figures.get(f"part_a_per_row_us_{batch_of.get(best)}")
    top = None
    if best and per_row is not None:
        top = 1e6 / figures["best_batched_throughput_at_top_rate"] - per_row
        figures["best_batched_outside_model_us_at_top_rate"] = top
    if figures.get("none_model_share_of_answer") is None:
        return
    at_s = figures["S_us_per_answer"] - figures[f"none_model_us_at_{slug(quiet)}"]
    figures["outside_model_us_at_S"] = at_s
    if top is not None:
        figures["outside_model_growth_at_top_rate"] = top / at_s


def batch_route(figures: dict, part_c: dict) -> None:
    """Part C figures from the report's own per-method and breakdown numbers."""
    if not part_c:
        return
    for key, value in part_c["per_record_us"].items():
        name = "part_c_loop" if key == "loop" else "part_c_chunk_" + key
        figures[name + "_us_per_record"] = value
        if key != "loop":
            figures["part_c_speedup_" + key] = part_c["speedup"][key]
    figures["part_c_records"] = part_c["records"]
    figures["part_c_model_share_single"] = part_c["share"]["single"]
    figures["part_c_model_share_batch"] = part_c["share"]["batch"]
    figures["part_c_exchange_aligned"] = part_c["aligned"]
    figures["part_c_bits_all_equal"] = part_c["all_equal"]
    figures["part_c_round_trip_us_single"] = part_c["single"]["round_trip"]
    figures["part_c_model_us_single"] = part_c["single"]["model"]


def answers_checked(figures: dict, answers: dict | None) -> None:
    """Every Part B answer checked to the bit: only when some run carried the check."""
    if answers and answers["runs_checked"]:
        figures["answers_compared"] = answers["answers_compared"]
        figures["answers_differing"] = answers["answers_differing"]


def noise(figures: dict, sources: dict, cells: dict, quiet: str) -> None:
    """How far one S run or one round moves: (highest − lowest) / median."""
    s = sources["saturation"]
    if s:
        figures["S_spread"] = (s["S_max"] - s["S_min"]) / s["S"]
    none = cells.get((NONE, quiet)) if cells else None
    if none is None or not none["rounds"]:
        return
    for metric in ("p50_ms", "p99_ms"):
        values = [none["rounds"][r][metric] for r in sorted(none["rounds"])]
        if any(math.isinf(v) for v in values):
            continue
        label, at = metric[:3], slug(quiet)
        figures[f"none_{label}_ms_lowest_round_at_{at}"] = min(values)
        figures[f"none_{label}_ms_highest_round_at_{at}"] = max(values)
        middle = statistics.median(values)
        if middle:
            figures[f"none_{label}_spread_at_{at}"] = (max(values) - min(values)) / middle


def speed_probe(figures: dict, speed: dict) -> None:
    """The slow-run rule's counts, from the report's own decisions (attempts.py)."""
    if not speed:
        return
    figures.update(
        probe_threshold=speed["threshold"],
        slow_runs_rerun=speed["runs_rerun"],
        slow_reruns=speed["reruns"],
        slow_attempts=speed["slow_attempts"],
        slow_never_passed=len(speed["never_passed"]),
        quiet_but_slow_attempts=speed["quiet_but_slow"],
        probe_slowness_max=speed["slowness_max"],
        probe_slowness_min=speed["slowness_min"],
    )


B32_W1 = setting_name("queue", 32, 1)


def switchback(figures: dict, found: dict | None) -> None:
    """The switchback verdicts, read from the report's own recomputation of the section."""
    if not found:
        return
    by_arms = {(e["arm_a"], e["arm_b"]): e for e in found["comparisons"].values()
               if e["kind"] == "comparison"}  # fmt: skip
    for name, arms, statistic in (
        ("switchback_b1_p50_overhead", (NONE, QUEUE_B1), "p50"),
        ("switchback_w1_server_cost", (B32_W0, B32_W1), "server"),
    ):
        interval = (
            (by_arms.get(arms) or {}).get("statistics", {}).get(statistic, {}).get("interval")
        )
        if interval:
            figures[f"{name}_us"] = interval["estimate_us"]
            figures[f"{name}_low95_us"] = interval["low95_us"]
            figures[f"{name}_high95_us"] = interval["high95_us"]
            figures[f"{name}_told_apart"] = interval["verdict"] == "told apart"
            if math.isfinite(interval["resolvable_us"]):  # +inf: too few runs
                figures[f"{name}_resolvable_us"] = interval["resolvable_us"]
    over = ((by_arms.get((B32_W0, B32_W1)) or {}).get("overshoot") or {}).get("b") or {}
    if over.get("interval"):
        figures["switchback_w1_overshoot_us"] = over["interval"]["estimate_us"]
        figures["switchback_w1_overshoot_low95_us"] = over["interval"]["low95_us"]
        figures["switchback_w1_overshoot_high95_us"] = over["interval"]["high95_us"]
    if "aa" in found:
        p50 = found["comparisons"][found["aa"]]["statistics"]["p50"]
        if p50["interval"]:
            figures["switchback_aa_p50_same"] = p50["interval"]["verdict"] == "the same within ±δ"
        figures["switchback_aa_p50_sd_d"] = p50["sd_d"]


def footprint(figures: dict, found: dict | None) -> None:
    if found:
        figures["campaign_wall_minutes"] = found["wall_minutes"]
        figures["campaign_raw_mib"] = found["raw_mib"]


def compute(sources: dict) -> dict:
    """{figure name: value} of every figure the raw data gives (absent ones left out)."""
    figures = {"missing_runs": sources["missing"], "quiet_runs": sources["quiet_runs"]}
    model = sources["info"].get("model") or {}
    figures["model_test_average_precision"] = model.get("test_average_precision")
    figures["model_trees"] = model.get("trees")
    part_a(figures, sources["part_a"], sources.get("part_a_runs", {}))
    if sources["bits"]:
        b = sources["bits"]
        figures.update(
            bits_scores=b["scores"],
            bits_equal=b["equal"],
            bits_all_equal=b["scores"] == b["equal"] and b["scores"] > 0,
        )
    if sources["saturation"]:
        figures.update(sources["saturation"])
        figures["S_us_per_answer"] = 1e6 / sources["saturation"]["S"]
    cells, (quiet, busy) = sources["cells"], sources["rates"]
    if cells:
        batch_of = {name: cell["cap"] for (name, _), cell in cells.items()}
        needed = max(len(c["scheduled"]) for c in cells.values())
        per_setting(figures, cells, quiet, busy)
        busy_side(figures, cells, batch_of, sorted({r for _, r in cells}, key=float), busy)
        comparisons(figures, cells, needed, quiet, sources.get("rule"))
        resolution(figures, cells, quiet, sources.get("rule"))
        handler_and_waits(figures, cells, quiet)
        outside_model(figures, batch_of, quiet)
    batch_route(figures, sources.get("part_c"))
    answers_checked(figures, sources.get("answers"))
    noise(figures, sources, cells, quiet)
    speed_probe(figures, sources.get("speed"))
    switchback(figures, sources.get("switchback"))
    footprint(figures, sources.get("footprint"))
    return {k: v for k, v in figures.items() if v is not None}


def in_unit(value, figure_unit: str | None, guess: dict):
    """A figure value in the guess's unit: µs, ms and s convert; % and share convert."""
    same = figure_unit == guess["unit"] or {figure_unit, guess["unit"]} == {"×", "x"}
    if value is None or isinstance(value, bool | str) or same:
        return value
    if figure_unit in UNITS and guess["unit"] in UNITS:
        return value * UNITS[figure_unit] / UNITS[guess["unit"]]
    shares = {"share": 1.0, "%": 100.0}
    if figure_unit in shares and guess["unit"] in shares:
        return value / shares[figure_unit] * shares[guess["unit"]]
    return None


def holds(value, guess: dict) -> bool:
    kind = guess["compare"]
    if kind == "between":
        low, high = (guess["low"], guess["high"]) if "low" in guess else guess["value"]
        return low <= value <= high
    if kind == "<=":
        return value <= guess["value"]
    if kind == ">=":
        return value >= guess["value"]
    return value == guess["value"]


# The report's own list of the figures that are differences between two settings: the
# figure -> (the told-apart figure beside it, the value meaning "no difference").
DIFFERENCES = (
    ("b32_w0_p99_cut_at_", "b32_w0_p99_told_apart_at_{at}", 1.0),
    ("queue_b1_p50_overhead_us_at_", "queue_b1_p50_overhead_told_apart", 0.0),
    ("switchback_b1_p50_overhead_us", "switchback_b1_p50_overhead_told_apart", 0.0),
    ("switchback_w1_server_cost_us", "switchback_w1_server_cost_told_apart", 0.0),
)


def needs_unresolved_difference(guess: dict, unit: str | None, figures: dict) -> bool:
    """A guess on a difference figure whose range leaves out "no difference", while the
    paired rounds did not tell the two settings apart: it cannot be right or wrong."""
    for prefix, apart, null in DIFFERENCES:
        if guess["figure"].startswith(prefix):
            at = guess["figure"][len(prefix) :]
            null = in_unit(null, unit, guess)
            told = figures.get(apart.format(at=at))
            return told is not True and null is not None and not holds(null, guess)
    return False


def past_top_rate(value, unit: str | None, guess: dict, figures: dict) -> bool:
    """A × S figure at the top rate measured, and a guess only a higher rate could satisfy."""
    top = figures.get("top_rate")
    if unit != "× S" or top is None or value < top or holds(value, guess):
        return False
    above = guess["high"] if "high" in guess else guess["value"]
    above = above[-1] if isinstance(above, list | tuple) else above
    return guess["compare"] != "<=" and above > top
