"""The named headline figures: one table that pages (`fig.NAME`) and guesses refer to.

Each figure picks (or divides) values already computed by generator.arithmetic.stats into the
results dict; nothing is measured here. A figure whose data is missing is left out (so a page naming
it fails the build and a guess about it is "not testable"); it is never invented. Only the
explicit Absent marker means "not in this campaign": any other error is a bug and stops the
build. Figures at the quiet and busy rates are named by those rates (`_at_0_5`), which are
the campaign's own (campaign.description).
Run through `python -m generator build`; list them with `python -m generator figures`.
"""

import math

from generator.arithmetic import stats
from lab.rawformat.names import NONE, QUEUE_B1, setting_name, slug

B32_W0, B32_W2 = setting_name("queue", 32, 0), setting_name("queue", 32, 2)


class Absent(Exception):
    """The data a figure needs is not in the results."""


def get(results: dict, *path):
    """results[path…], or Absent; infinite values are kept (as inf)."""
    value = results
    for key in path:
        if not isinstance(value, dict) or key not in value:
            raise Absent("/".join(map(str, path)))
        value = value[key]
    if value is None:
        raise Absent("/".join(map(str, path)))
    return value


def cell(results: dict, setting: str, rate: str) -> dict:
    return get(results, "part_b", "settings", setting, "rates", rate)


def metric(results: dict, setting: str, rate: str, name: str):
    """A cell's median of a metric (None = infinite), or Absent when no round measured it."""
    found = cell(results, setting, rate)
    if name not in found:
        raise Absent(f"{setting} at {rate}: no {name}")
    return found[name]


def known(value):
    if value is None:
        raise Absent("undefined")
    return value


# --- the table: (name, unit, what, function of results) ------------------------------


def rows_text(key: str) -> str:
    return "1 row" if key == "1" else f"{int(key):,} rows"


def part_a_figures(results: dict) -> list:
    sizes = get(results, "part_a", "by_size")
    rows = []
    for key, entry in sizes.items():
        rows.append(
            (
                f"part_a_per_call_us_{key}",
                "µs",
                f"per-call time, {rows_text(key)}",
                lambda r, e=entry: e["per_call_us"],
            )
        )
        rows.append(
            (
                f"part_a_per_row_us_{key}",
                "µs",
                f"per-row time, {rows_text(key)}",
                lambda r, e=entry: e["per_row_us"],
            )
        )

    def size(key, what):
        return get(sizes, key, what)

    for key in ("2", "4"):
        if key in sizes and "1" in sizes:
            rows.append(
                (
                    f"part_a_runs_{key}_rows_below_1",
                    "runs",
                    f"runs whose median call of {rows_text(key)} was shorter than of 1 row",
                    lambda r, k=key: runs_below(size(k, "per_call_us_runs"),
                                                size("1", "per_call_us_runs")),
                )
            )  # fmt: skip
    rows += [
        (
            "part_a_call_ratio_1024_vs_1",
            "×",
            "per-call time at 1,024 rows / at 1 row",
            lambda r: known(stats.ratio(size("1024", "per_call_us"), size("1", "per_call_us"))),
        ),
        (
            "part_a_per_row_saving_1024",
            "×",
            "per-row time at 1 row / at 1,024 rows",
            lambda r: known(stats.ratio(size("1", "per_row_us"), size("1024", "per_row_us"))),
        ),
        (
            "part_a_per_row_drop_512_to_1024",
            "share",
            "per-row time saved from 512 to 1,024 rows",
            lambda r: 1 - known(stats.ratio(size("1024", "per_row_us"), size("512", "per_row_us"))),
        ),
    ]
    return rows


def runs_below(values: list, baseline: list) -> int:
    """Runs (same order) in which the value was below the baseline's."""
    return sum(v < b for v, b in zip(values, baseline, strict=True))


def fixed_figures(quiet: str) -> list:
    """Fixed figures: S, bits, the model, runs, and the lesson's comparisons at the quiet rate."""
    at = slug(quiet)
    return [
        ("S", "answers/s", "S, saturation with no batching", lambda r: get(r, "saturation", "S")),
        ("S_min", "answers/s", "lowest saturation run", lambda r: get(r, "saturation", "S_min")),
        ("S_max", "answers/s", "highest saturation run", lambda r: get(r, "saturation", "S_max")),
        (
            "S_us_per_answer",
            "µs",
            "core time per answer at S",
            lambda r: get(r, "saturation", "us_per_answer"),
        ),
        (
            "bits_scores",
            "scores",
            "scores compared in the bit check",
            lambda r: get(r, "bits", "scores"),
        ),
        ("bits_equal", "scores", "scores equal to the bit", lambda r: get(r, "bits", "equal")),
        (
            "bits_all_equal",
            "yes/no",
            "every score equal to the bit",
            lambda r: get(r, "bits", "all_equal"),
        ),
        (
            "model_test_average_precision",
            "AP",
            "the model's test average precision",
            lambda r: get(r, "campaign", "model", "test_average_precision"),
        ),
        (
            "model_trees",
            "trees",
            "trees in the model",
            lambda r: get(r, "campaign", "model", "trees"),
        ),
        (
            "missing_runs",
            "runs",
            "scheduled runs without a raw file",
            lambda r: len(get(r, "missing")),
        ),
        (
            "quiet_runs",
            "runs",
            "runs that met the quiet rule",
            lambda r: get(r, "quiet", "quiet_runs"),
        ),
        (
            f"queue_b1_p50_overhead_us_at_{at}",
            "µs",
            f"queue B=1 p50 minus none at {quiet} × S (median of paired rounds)",
            lambda r: 1000 * get(r, "paired", QUEUE_B1, NONE, quiet, "p50_ms", "median"),
        ),
        (
            "queue_b1_p50_overhead_told_apart",
            "yes/no",
            f"queue B=1 p50 told apart from none at {quiet} × S",
            lambda r: verdict(r, QUEUE_B1, "p50_ms", quiet),
        ),
        (
            f"b32_w0_p99_told_apart_at_{at}",
            "yes/no",
            f"B=32 W=0 p99 told apart from none at {quiet} × S",
            lambda r: verdict(r, B32_W0, "p99_ms", quiet),
        ),
        (
            f"b32_w0_p50_told_apart_at_{at}",
            "yes/no",
            f"B=32 W=0 p50 told apart from none at {quiet} × S",
            lambda r: verdict(r, B32_W0, "p50_ms", quiet),
        ),
        (
            f"b32_w0_p99_cut_at_{at}",
            "×",
            f"none p99 / B=32 W=0 p99 at {quiet} × S",
            lambda r: known(
                stats.ratio(metric(r, NONE, quiet, "p99_ms"), metric(r, B32_W0, quiet, "p99_ms"))
            ),
        ),
        (
            "wait_us_w0",
            "µs",
            f"measured first wait, B=32 W=0 at {quiet} × S",
            lambda r: 1000 * get(r, "waits", "by_setting", B32_W0, "first_wait_ms"),
        ),
        (
            "wait_overshoot_us_w1",
            "µs",
            f"measured first wait minus W, B=32 W=1 at {quiet} × S",
            lambda r: get(r, "waits", "by_setting", setting_name("queue", 32, 1), "overshoot_us"),
        ),
    ] + [
        (
            f"wait_ms_w{w}",
            "ms",
            f"measured first wait, B=32 W={w} at {quiet} × S",
            lambda r, w=w: get(
                r, "waits", "by_setting", setting_name("queue", 32, w), "first_wait_ms"
            ),
        )
        for w in (1, 2, 5, 10)
    ]


def setting_figures(results: dict, quiet: str, busy: str) -> list:
    """Per-setting figures: p50/p99 at the quiet and busy rates, peak throughput, kept up to."""
    rows = []
    for name, setting in get(results, "part_b", "settings").items():
        s = slug(name)
        for rate in (quiet, busy):
            for percentile in ("p50_ms", "p99_ms"):
                rows.append(
                    (
                        f"{s}_{percentile}_at_{slug(rate)}",
                        "ms",
                        f"{name} {percentile[:3]} at {rate} × S",
                        lambda r, n=name, m=percentile, k=rate: metric(r, n, k, m),
                    )
                )
        rows.append(
            (
                f"{s}_mean_batch_at_{slug(quiet)}",
                "rows",
                f"{name} mean batch size at {quiet} × S",
                lambda r, n=name: known(cell(r, n, quiet).get("mean_batch_size")),
            )
        )
        rows.append(
            (
                f"{s}_highest_rate_kept_up",
                "× S",
                f"the highest rate {name} kept up in every round, 0 when it kept up at none",
                lambda r, st=setting: highest_kept_up(st),
            )
        )
        rows.append(
            (
                f"{s}_peak_throughput",
                "answers/s",
                f"{name} highest throughput",
                lambda r, st=setting: highest(measured(st, "throughput")),
            )
        )
        rows.append(
            (
                f"{s}_p99_ms_max",
                "ms",
                f"{name} worst p99 over the rates",
                lambda r, st=setting: highest(measured(st, "p99_ms")),
            )
        )
    return rows


def measured(setting: dict, name: str) -> list:
    """The metric's cell medians over the rates that have at least one measured round; a
    null (a percentile that landed on a request never answered) counts as infinite."""
    return [math.inf if c[name] is None else c[name]
            for c in setting["rates"].values() if name in c]  # fmt: skip


def highest(values: list):
    """The largest value, or Absent when no rate was measured."""
    if not values:
        raise Absent("no rate measured")
    return max(values)


def highest_kept_up(setting: dict) -> float:
    """Highest rate kept up in every round, going up the rates until one was not (0: none).

    A cell with rounds still missing stops the walk: if a measured round failed, the cell
    did not keep up; if every measured round kept up, the answer is unknown (Absent).
    """
    highest = 0.0
    for key in sorted(setting["rates"], key=float):
        cell = setting["rates"][key]
        if cell["keeps_up"]:
            highest = float(key)
            continue
        if cell["missing_rounds"] and cell["keeps_up_rounds"] == len(cell["rounds"]):
            raise Absent(f"rounds missing at {key} × S")
        break
    return highest


def verdict(results: dict, setting: str, name: str, rate: str) -> bool:
    """Told apart from none at the rate, only once every scheduled round is paired."""
    pair = get(results, "paired", setting, NONE, rate, name)
    if len(pair["rounds"]) < get(results, "design", "rounds"):
        raise Absent("rounds missing")
    return pair["told_apart"]


def model_share(results: dict, quiet: str) -> float:
    """What batching can save: the model call's part of the core time S allows per answer
    (the rest, HTTP, the handler and the client, is paid per request however rows batch);
    the model call as no batching measured it at the quiet rate."""
    model_us = known(cell(results, NONE, quiet).get("model_us_p50"))
    share = model_us * get(results, "saturation", "S") / 1e6
    if not 0 < share < 1:
        raise Absent("the model call is not a share of the time per answer")
    return share


def outside_model_at_s(results: dict, quiet: str) -> float:
    """Core time per answer at S outside the model call (none's model call at the quiet rate)."""
    return 1e6 / get(results, "saturation", "S") * (1 - model_share(results, quiet))


def outside_model_at_top(results: dict, throughput: float, name: str) -> float:
    """Time per answer at that throughput minus the model's per-row time at the cap B."""
    cap = get(results, "part_b", "settings", name, "max_batch")
    per_row = get(results, "part_a", "by_size", str(cap), "per_row_us")
    return 1e6 / throughput - per_row


def top_rate_figures(results: dict, quiet: str, busy: str) -> list:
    """The highest rate: the best batched setting's throughput against none's; the busy
    rate's batched p99s; the handler's moments and the model's share at the quiet rate."""
    at_quiet, at_busy = slug(quiet), slug(busy)
    rates = get(results, "design", "rate_multiples")
    if not rates:
        raise Absent("no Part B rates")
    top = rates[-1]

    def best(r):
        batched = [
            (s["rates"][top]["throughput"], n)
            for n, s in get(r, "part_b", "settings").items()
            if s["max_batch"] > 1 and "throughput" in s["rates"].get(top, {})
        ]
        return max(batched) if batched else known(None)

    return [
        ("top_rate", "× S", "the highest rate measured", lambda r: float(top)),
        (
            "best_batched_setting_at_top_rate",
            "setting",
            "batched setting with most throughput",
            lambda r: best(r)[1],
        ),
        (
            "best_batched_throughput_at_top_rate",
            "answers/s",
            "its throughput at the top rate",
            lambda r: best(r)[0],
        ),
        (
            "none_throughput_at_top_rate",
            "answers/s",
            "none's throughput at the top rate",
            lambda r: metric(r, NONE, top, "throughput"),
        ),
        (
            "best_batched_gain_at_top_rate",
            "×",
            "best batched throughput / none's at top rate",
            lambda r: known(stats.ratio(best(r)[0], metric(r, NONE, top, "throughput"))),
        ),
        (
            "settings_kept_up_at_top_rate",
            "settings",
            "settings that kept up at the top rate in every round",
            lambda r: sum(
                bool(s["rates"].get(top, {}).get("keeps_up"))
                for s in get(r, "part_b", "settings").values()
            ),
        ),
        (
            "best_batched_kept_up_at_top_rate",
            "yes/no",
            "the best batched setting kept up at the top rate",
            lambda r: cell(r, best(r)[1], top)["keeps_up"],
        ),
        (
            "best_batched_outside_model_us_at_top_rate",
            "µs",
            "time per answer at the best batched throughput at the top rate, minus the "
            "model's per-row time at its cap B (Part A): the work batching does not remove",
            lambda r: outside_model_at_top(r, *best(r)),
        ),
        (
            "outside_model_growth_at_top_rate",
            "×",
            "that work per answer at the top rate / at S",
            lambda r: outside_model_at_top(r, *best(r)) / outside_model_at_s(r, quiet),
        ),
        (
            f"batched_p99_ms_min_at_{at_busy}",
            "ms",
            f"lowest batched p99 at {busy} × S",
            lambda r: batched_p99s(r, busy)[0],
        ),
        (
            f"batched_p99_ms_max_at_{at_busy}",
            "ms",
            f"highest batched p99 at {busy} × S",
            lambda r: batched_p99s(r, busy)[-1],
        ),
        (
            f"none_ready_us_at_{at_quiet}",
            "µs",
            f"none: handler start to row ready at {quiet} × S",
            lambda r: known(cell(r, NONE, quiet).get("ready_us_p50")),
        ),
        (
            f"none_model_us_at_{at_quiet}",
            "µs",
            f"none: model call at {quiet} × S",
            lambda r: known(cell(r, NONE, quiet).get("model_us_p50")),
        ),
        (
            "none_model_share_of_answer",
            "share",
            f"the model call's share of the core time per answer (none at {quiet} × S, over S)",
            lambda r: model_share(r, quiet),
        ),
        (
            "batching_ceiling_x_s",
            "× S",
            "the most a batcher could answer if the model call cost nothing: S ÷ (1 − that share)",
            lambda r: 1 / (1 - model_share(r, quiet)),
        ),
        (
            "outside_model_us_at_S",
            "µs",
            "core time per answer at S outside the model call: HTTP, handler and client",
            lambda r: outside_model_at_s(r, quiet),
        ),
        (
            f"b32_w2_queued_plus_model_us_at_{at_quiet}",
            "µs",
            f"B=32 W=2: row ready to score back at {quiet} × S",
            lambda r: (
                known(cell(r, B32_W2, quiet).get("queued_us_p50"))
                + known(cell(r, B32_W2, quiet).get("model_us_p50"))
            ),
        ),
    ]


def part_c_figures(results: dict) -> list:
    """Per-record time and speedup of every method, the bits, and the model's share of the
    boundary time for one /predict call and one batch call."""
    methods = get(results, "part_c", "by_method")
    rows = []
    for key, method in methods.items():
        prefix = "part_c_loop" if key == "loop" else f"part_c_chunk_{key}"
        label = "the loop of /predict" if key == "loop" else f"/predict_batch, chunks of {key}"
        rows.append(
            (
                f"{prefix}_us_per_record",
                "µs",
                f"time per record, {label}",
                lambda r, m=method: m["per_record_us"],
            )
        )
        if key != "loop":
            rows.append(
                (
                    f"part_c_speedup_{key}",
                    "×",
                    f"loop wall time / {label} wall time",
                    lambda r, m=method: known(m["speedup"]),
                )
            )
    rows += [
        (
            "part_c_records",
            "records",
            "customers scored by every method",
            lambda r: get(r, "part_c", "records"),
        ),
        (
            "part_c_bits_all_equal",
            "yes/no",
            "every method gave the loop's scores to the bit, no record lost",
            lambda r: get(r, "part_c", "bits", "all_equal"),
        ),
        (
            "part_c_model_share_single",
            "share",
            "model's share of one /predict call's round trip",
            lambda r: get(r, "part_c", "breakdown", "single", "model_share"),
        ),
        (
            "part_c_model_share_batch",
            "share",
            "model's share of one batch call's round trip",
            lambda r: get(r, "part_c", "breakdown", "batch", "model_share"),
        ),
        (
            "part_c_round_trip_us_single",
            "µs",
            "round trip of one /predict call (median)",
            lambda r: get(r, "part_c", "breakdown", "single", "round_trip_us"),
        ),
        (
            "part_c_model_us_single",
            "µs",
            "model time inside one /predict call (median)",
            lambda r: get(r, "part_c", "breakdown", "single", "model_us"),
        ),
        (
            "part_c_exchange_aligned",
            "yes/no",
            "the captured batch exchange is aligned",
            lambda r: get(r, "part_c", "example", "aligned"),
        ),
    ]
    return rows


def answer_figures(results: dict) -> list:
    """Every Part B answer checked to the bit (issue 14): absent for a campaign whose runs
    carry no check (they ran before the open-loop client checked its answers)."""
    if not get(results, "answer_check", "runs_checked"):
        raise Absent("no Part B run checked its answers")
    return [
        (
            "answers_compared",
            "answers",
            "Part B answers (status 200) compared with their customer's single-row score",
            lambda r: get(r, "answer_check", "answers_compared"),
        ),
        (
            "answers_differing",
            "answers",
            "of those, answers that differ from that score in any bit or name another customer",
            lambda r: get(r, "answer_check", "answers_differing"),
        ),
    ]


def batched_p99s(results: dict, busy: str) -> list:
    values = sorted(
        math.inf if s["rates"][busy]["p99_ms"] is None else s["rates"][busy]["p99_ms"]
        for s in get(results, "part_b", "settings").values()
        if s["max_batch"] > 1 and "p99_ms" in s["rates"].get(busy, {})
    )
    return values or known(None)


def spread_of(values: list, key: str):
    found = stats.spread(values)
    return known(found[key] if found else None)


def noise_figures(results: dict, quiet: str) -> list:
    """How far one run or round moves: S over its runs, none's p50 and p99 over the rounds
    at the quiet rate (the per-round values the paired verdicts rest on)."""
    at = slug(quiet)

    def runs_s(r):
        return [run["throughput"] for run in get(r, "saturation", "runs")]

    rows = [
        (
            "S_spread",
            "share",
            "(fastest − slowest S run) / S",
            lambda r: spread_of(runs_s(r), "spread"),
        ),
    ]
    for metric in ("p50_ms", "p99_ms"):
        label = metric[:3]

        def rounds(r, m=metric):
            return get(cell(r, NONE, quiet), "by_round", m)

        rows += [
            (f"none_{label}_ms_lowest_round_at_{at}", "ms",
             f"none's lowest {label} of a round at {quiet} × S",
             lambda r, f=rounds: spread_of(f(r), "min")),
            (f"none_{label}_ms_highest_round_at_{at}", "ms",
             f"none's highest {label} of a round at {quiet} × S",
             lambda r, f=rounds: spread_of(f(r), "max")),
            (f"none_{label}_spread_at_{at}", "share",
             f"(highest − lowest round) / median, none's {label} at {quiet} × S",
             lambda r, f=rounds: spread_of(f(r), "spread")),
        ]  # fmt: skip
    return rows


def speed_probe_figures(results: dict) -> list:
    """The slow-run rule's work in this campaign (only where the campaign had the probe)."""
    speed = get(results, "speed_probe")
    return [
        ("probe_threshold", "share", "slow-run threshold: a probe this much slower than "
         "the reference makes the attempt slow", lambda r: speed["rule"]["threshold"]),
        ("slow_runs_rerun", "runs", "runs measured again because a probe found the core slow",
         lambda r: speed["runs_rerun"]),
        ("slow_reruns", "attempts", "attempts after the first, over the campaign",
         lambda r: speed["reruns"]),
        ("slow_attempts", "attempts", "attempts whose probe before or after was slow",
         lambda r: speed["slow_attempts"]),
        ("slow_never_passed", "runs", "runs whose every attempt was slow (kept, marked)",
         lambda r: len(speed["never_passed"])),
        ("quiet_but_slow_attempts", "attempts",
         "attempts that met the quiet rule and still had a slow probe",
         lambda r: speed["quiet_but_slow"]),
        ("probe_slowness_max", "×", "the slowest probe of any attempt, against the reference",
         lambda r: known(speed["slowness_max"])),
        ("probe_slowness_min", "×", "the fastest probe of any attempt, against the reference",
         lambda r: known(speed["slowness_min"])),
    ]  # fmt: skip


B32_W1 = setting_name("queue", 32, 1)


def comparison(results: dict, arm_a: str, arm_b: str) -> dict:
    """The campaign's switchback comparison of these two arms (results.json `switchback`)."""
    for entry in get(results, "switchback", "comparisons").values():
        if (entry["arm_a"], entry["arm_b"]) == (arm_a, arm_b) and entry["kind"] == "comparison":
            return entry
    raise Absent(f"no switchback runs of {arm_a} vs {arm_b}")


def interval_of(entry: dict, statistic: str) -> dict:
    return get(entry, "statistics", statistic, "interval")


# The quiet side's two cost comparisons with no batching on the grid: (figure prefix, setting,
# metric, what it is in words).
QUIET_COSTS = (
    ("queue_b1_p50", QUEUE_B1, "p50_ms", "queue B=1's p50 minus none's"),
    ("b32_w0_p99", B32_W0, "p99_ms", "B=32 W=0's p99 minus none's"),
)


def resolvable_us(diff: dict) -> float:
    """The smallest difference a paired comparison could have resolved, in µs: under the
    interval rule its 95% interval's half-width at the baseline's level; under the rounds rule
    the largest distance of a round's difference from their median (stats.rounds_resolvable:
    a shift beyond it puts every round on one side of 0)."""
    if "interval" in diff:
        return get(diff, "interval", "resolvable_us")
    return 1000 * known(stats.rounds_resolvable(diff["diffs"]))


def resolution_figures(results: dict, quiet: str) -> list:
    """Each quiet-side cost on the grid with the smallest difference its campaign's rule could
    resolve (every campaign), and, under the interval rule, its Hodges–Lehmann estimate and 95%
    interval in µs at none's level: what the campaigns page sets side by side."""
    at = slug(quiet)
    interval_rule = "told_apart" in get(results, "design")
    rows = []
    for name, setting, metric, what in QUIET_COSTS:

        def diff(r, setting=setting, metric=metric):
            return get(r, "paired", setting, NONE, quiet, metric)

        rows.append(
            (f"{name}_resolvable_us_at_{at}", "µs",
             f"{what} at {quiet} × S: the smallest difference the campaign's rule could resolve",
             lambda r, f=diff: resolvable_us(f(r)))
        )  # fmt: skip
        if interval_rule:
            rows += [
                (f"{name}_{end}_us_at_{at}", "µs", f"{what} at {quiet} × S: {words}",
                 lambda r, f=diff, end=end: get(f(r), "interval", f"{end}_us"))
                for end, words in (("estimate", "the Hodges–Lehmann estimate over the rounds"),
                                   ("low95", "its 95% interval's low end"),
                                   ("high95", "its 95% interval's high end"))
            ]  # fmt: skip
            rows.append(
                (f"{name}_verdict_at_{at}", "text", f"{what} at {quiet} × S: the interval "
                 "rule's verdict", lambda r, f=diff: get(f(r), "interval", "verdict"))
            )  # fmt: skip
    return rows


def switchback_figures(results: dict) -> list:
    """The switchback runs' verdicts (a campaign that has them): queue B=1's p50 overhead
    over none, B=32 W=1's server time over W=0's and its overshoot, each the Hodges–Lehmann
    estimate in µs at arm A's level with its 95% interval; whether the A/A control's p50 is
    the same within ±δ and its per-run SD of d."""
    get(results, "switchback")

    def b1(r):
        return interval_of(comparison(r, NONE, QUEUE_B1), "p50")

    def w1(r):
        return interval_of(comparison(r, B32_W0, B32_W1), "server")

    def overshoot(r):
        found = get(comparison(r, B32_W0, B32_W1), "overshoot", "b", "interval")
        return found

    def aa(r):
        return get(r, "switchback", "comparisons", get(r, "switchback", "aa"), "statistics", "p50")

    rows = []
    for name, what, of in (
        ("switchback_b1_p50_overhead", "queue B=1's p50 minus none's in the switchback runs", b1),
        ("switchback_w1_server_cost", "B=32 W=1's server time minus B=32 W=0's in the "
         "switchback runs", w1),
    ):  # fmt: skip
        rows += [
            (f"{name}_us", "µs", f"{what} (Hodges–Lehmann, at arm A's level)",
             lambda r, f=of: known(f(r)["estimate_us"])),
            (f"{name}_low95_us", "µs", f"{what}: its 95% interval's low end",
             lambda r, f=of: known(f(r)["low95_us"])),
            (f"{name}_high95_us", "µs", f"{what}: its 95% interval's high end",
             lambda r, f=of: known(f(r)["high95_us"])),
            (f"{name}_told_apart", "yes/no", f"{what}: told apart (the 95% interval excludes 0)",
             lambda r, f=of: f(r)["verdict"] == "told apart"),
            (f"{name}_resolvable_us", "µs",
             f"{what}: the smallest difference the runs could resolve (the interval's half-width)",
             lambda r, f=of: known(f(r)["resolvable_us"])),
        ]  # fmt: skip
    rows += [
        ("switchback_w1_overshoot_us", "µs", "B=32 W=1's median first wait of unfilled "
         "batches minus 1 ms in the switchback runs (Hodges–Lehmann over the runs)",
         lambda r: known(overshoot(r)["estimate_us"])),
        ("switchback_w1_overshoot_low95_us", "µs", "that overshoot's 95% interval's low end",
         lambda r: known(overshoot(r)["low95_us"])),
        ("switchback_w1_overshoot_high95_us", "µs", "that overshoot's 95% interval's high end",
         lambda r: known(overshoot(r)["high95_us"])),
        ("switchback_aa_p50_same", "yes/no", "the A/A switchback runs (none vs none): the p50 "
         "the same within ±δ", lambda r: get(aa(r), "interval", "verdict") == "the same within ±δ"),
        ("switchback_aa_p50_sd_d", "log", "the A/A switchback runs: per-run SD of the p50's d",
         lambda r: get(aa(r), "sd_d")),
    ]  # fmt: skip
    return rows


def footprint_figures(results: dict) -> list:
    """The campaign's wall time and bytes on disk (a campaign whose runs carry timelines)."""
    get(results, "footprint")
    return [
        ("campaign_wall_minutes", "min", "the campaign's wall time, from its first run's start "
         "to its last run's end", lambda r: get(r, "footprint", "wall_minutes")),
        ("campaign_raw_mib", "MiB", "the campaign's raw files on disk (its whole folder)",
         lambda r: get(r, "footprint", "raw_mib")),
    ]  # fmt: skip


def table(results: dict, quiet: str, busy: str) -> list:
    """Every figure row this campaign can have a go at: (name, unit, what, function)."""
    rows = fixed_figures(quiet)
    families = (
        part_a_figures,
        lambda r: setting_figures(r, quiet, busy),
        lambda r: top_rate_figures(r, quiet, busy),
        part_c_figures,
        answer_figures,
        lambda r: noise_figures(r, quiet),
        lambda r: resolution_figures(r, quiet),
        speed_probe_figures,
        switchback_figures,
        footprint_figures,
    )
    for family in families:
        try:
            rows += family(results)
        except Absent:
            continue
    return rows


def compute(results: dict, quiet_rate: str, busy_rate: str) -> dict:
    """{name: {value, unit, what}} of every figure whose data is present; the quiet and busy
    rates are the campaign's rate keys for the quiet-side and busy-side figures."""
    figures = {}
    for name, unit, what, function in table(results, quiet_rate, busy_rate):
        try:
            value = function(results)
        except Absent:
            continue
        if isinstance(value, float) and math.isnan(value):
            continue
        figures[name] = {"value": value, "unit": unit, "what": what}
    return dict(sorted(figures.items()))
