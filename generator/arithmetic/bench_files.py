"""Read the machinery's benchmarks in data/bench/ for the handler page (results.json `bench`).

- `handler_trace.json` (`python -m lab.bench.handler_trace`): where an answer's time goes,
  none and queue B=1 traced on the measurement core, old machinery and new;
- `batcher.json` (`python -m lab.bench.batcher`): the two machineries side by side, with the
  targets (absent until that benchmark has run; the page then says so);
- `switchback.json` (`python -m lab.bench.switchback`, issue 28): switchback runs, two
  settings in one service in alternating slices, judged by the interval rule the file froze
  (its `rule`, checked as a campaign's `rules.told_apart`): per comparison and statistic (p50,
  p99, the server time) d = ln(arm B's) − ln(arm A's) per run, the A/A per-run SD of d, the
  interval verdict in log units and in µs at arm A's level (the median over the runs of A's
  statistic), and for the added-work runs whether the 95% interval contains the added amount
  and excludes 0; with routes counterbalanced (runs recording `swap_routes`), how many were
  swapped and, for the A/A pair, the route effect (d with its sign turned in swapped runs:
  route b's place minus route a's); for an arm with W > 0 whose runs record first waits, the
  overshoot (per run the median first wait of its unfilled batches minus W) with its exact
  Wilcoxon interval; plus one run's requests (`switchback.example.run.zip` beside it) for the
  picture of the alternating slices: per slice its arm, requests and p50, and the first
  SHOWN_SLICES slices' requests, which the build publishes in their own file
  (assets/data/switchback_example.json, `split`). Absent until that benchmark has run: the
  handler and design pages then say so;
- `core_time.json` (`python -m lab.bench.core_time`, issue 33): where the shared core's time
  goes per answer, old service and new, read by generator/arithmetic/core_time.py;
- `ceiling.json` (`python -m lab.bench.batcher --out data/bench/ceiling.json`, issue 33): a
  side-by-side run in batcher.json's format whose pairs also measure the batching ceiling
  (S ÷ (1 − none's model share), as a multiple of S), the best batched setting's share of it
  at 2.5 × S with its target, the pairs in which B=32 W=0 kept up at 2.5 × S, and the load
  client's CPU per request (with its user and kernel time when the client recorded them);
  when the run's rates followed each pair's own S (`--rates-per-pair`), that S per pair.

Both of the last two are absent until their benchmark has run; the handler page then says so.

The formats are described in data/README.md (and in the lab/bench/ modules that write them).
The values shown are the files' own findings (their `summary`: medians over rounds or pairs),
each version named by the machinery its client recorded (generator/arithmetic/machinery.py), with
the load the machine had while they ran; the report recomputes every one from the files' runs
(generator/report/bench.py). A file that lacks a field the page needs is a DataError naming the
file and the field. Run through `python -m generator build`.
"""

import hashlib
import math
from pathlib import Path

import numpy as np

from generator.arithmetic import core_time as core_time_file
from generator.arithmetic import intervals, machinery, stats
from generator.reading.description import DescriptionError, told_apart_rule
from generator.reading.load import DataError, need, read_json
from lab.rawformat import codec
from lab.rawformat.errors import RawFileError

ROOT = Path(__file__).resolve().parents[2]
TRACE, BATCHER, SWITCHBACK = "handler_trace.json", "batcher.json", "switchback.json"
CORE_TIME, CEILING = core_time_file.FILE, "ceiling.json"
VERSIONS = ("old", "new")
TRACE_SETTINGS = ("none", "queue B=1")
TRACE_MEASURES = (
    "loop_iterations_read_to_answer",
    "service_switched_out_read_to_answer",
    "context_switches_on_core",
    "service_loop_iterations",
    "service_writes",
    "client_woken",
    "client_message_reads",
    "answered_out_of_read_order_share",
    "service_cpu_ns_per_request",
    "client_cpu_us_per_request",
    "service_involuntary_switches_per_request",
    "service_voluntary_switches_per_request",
    "others_core_share",
    "p50_us",
)
BATCHER_MEASURES = (
    "queue_b1_p50_overhead_us",
    "w1_overshoot_us",
    "best_batched_over_none_at_2.5",
)
BATCHER_SECTIONS = (
    "closed_loop_answers_per_s",
    "open_loop_high",
    "b32_w0_kept_up_at_2",
    "client_cpu_us_per_request",
    "answers_checked_new",
)
# ceiling.json (issue 33): the measures compared old against new, and the other sections shown
CEILING_MEASURES = (
    "ceiling_over_none",
    "best_batched_over_none_at_2.5",
    "best_batched_share_of_ceiling",
)
CEILING_SECTIONS = ("b32_w0_kept_up_at_2.5", "answers_checked_new", "client_cpu_us_per_request")
# shown when the file has it (a run from before the evening of 2 December does not)
CEILING_OPTIONAL = ("client_user_kernel_us_per_request",)
CEILING_TARGET = "best_batched_share_of_ceiling"


def shown_dir(folder: Path) -> str:
    """The folder as results.json names it: from the repository root when inside it."""
    folder = Path(folder).resolve()
    try:
        return folder.relative_to(ROOT).as_posix()
    except ValueError:
        return str(folder)


def file_record(path: Path) -> dict:
    return {"file": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def runs_of(found: dict, path: Path) -> list[dict]:
    runs = need(found, "runs", path)
    if not isinstance(runs, list) or not runs:
        raise DataError(f"{path}: field 'runs' must be a non-empty list")
    for index, run in enumerate(runs):
        for field in ("version", "load_before.loadavg", "load_after.loadavg"):
            need(run, field, f"{path} runs[{index}]")
    return runs


def versions(found: dict, runs: list[dict], path: Path) -> dict:
    """{old, new: {commit, machinery}}: the machinery from the event loop each run's client
    recorded (all of a version's runs must agree, else `mixed`)."""
    named = {}
    for version in VERSIONS:
        loops = [run["client"].get("event_loop") for run in runs
                 if run["version"] == version and "client" in run]  # fmt: skip
        if not loops:
            raise DataError(f"{path}: no run of version '{version}'")
        named[version] = {
            "commit": need(found, f"commits.{version}", path),
            "machinery": machinery.overall([machinery.kind_of(loop) for loop in loops]),
        }
    return named


def load_range(runs: list[dict], others: list) -> dict:
    """The machine's 1-minute load average over the runs (before and after each), the
    measurement core's highest idle share, and the share of it other processes took."""
    snapshots = [run[key] for run in runs for key in ("load_before", "load_after")]
    loads = [snapshot["loadavg"][0] for snapshot in snapshots]
    idle = [snapshot["idle_share"] for snapshot in snapshots if "idle_share" in snapshot]
    found = {"loadavg_min": min(loads), "loadavg_max": max(loads)}
    if idle:
        found["core_idle_share_max"] = max(idle)
    if others:
        found.update(others_share_min=min(others), others_share_max=max(others))
    return found


def machine(found: dict, path: Path) -> dict:
    return {
        "date": need(found, "date", path),
        "cores": need(found, "fingerprint.cores", path),
        "cpu_model": need(found, "fingerprint.cpu_model", path),
        "cpu": need(found, "cpu", path),
    }


def handler_trace(path: Path) -> dict:
    """What the handler page shows of the trace: per version and setting the medians over
    rounds (the file's `summary`), queue B=1's p50 minus none's, and the machine's load."""
    found = read_json(path)
    runs = runs_of(found, path)
    for index, run in enumerate(runs):
        for field in ("setting", "latency_us.p50", "trace.core_share.others"):
            need(run, field, f"{path} runs[{index}]")
    summary = {}
    for version in VERSIONS:
        summary[version] = {
            setting: {
                measure: need(found, f"summary.{version}.{setting}.{measure}", path)
                for measure in TRACE_MEASURES
            }
            for setting in TRACE_SETTINGS
        }
    overhead = {
        version: {
            key: need(found, f"summary.{version}.queue_b1_p50_overhead_us.{key}", path)
            for key in ("median", "per_round")
        }
        for version in VERSIONS
    }
    latencies = [run["latency_us"]["p50"] for run in runs]
    return {
        **file_record(path),
        **machine(found, path),
        "versions": versions(found, runs, path),
        "rate_multiple": need(found, "rate_multiple", path),
        "arrival_rate": need(found, "arrival_rate", path),
        "rounds": need(found, "rounds", path),
        "window_s": need(found, "window_s", path),
        "shielded": found.get("shielded"),
        "settings": list(TRACE_SETTINGS),
        "summary": summary,
        "queue_b1_p50_overhead_us": overhead,
        "p50_us_min": min(latencies),
        "p50_us_max": max(latencies),
        "load": load_range(runs, [run["trace"]["core_share"]["others"] for run in runs]),
    }


def batcher(path: Path) -> dict:
    """What the handler page shows of the side-by-side benchmark: the file's summary (per
    measure the per-pair values, medians, new ÷ old, the target and whether it was met)."""
    found = read_json(path)
    runs = runs_of(found, path)
    summary = need(found, "summary", path)
    shown = {}
    for measure in (*BATCHER_MEASURES, *BATCHER_SECTIONS):
        if measure not in summary:
            raise DataError(f"{path}: missing field 'summary.{measure}'")
        shown[measure] = summary[measure]
    for measure in BATCHER_MEASURES:
        for version in VERSIONS:
            need(shown[measure], f"{version}.median", f"{path} summary.{measure}")
        need(shown[measure], "target", f"{path} summary.{measure}")
    others = [
        run["core_watch"]["others_share"]
        for run in runs
        if (run.get("core_watch") or {}).get("others_share") is not None
    ]
    return {
        **file_record(path),
        **machine(found, path),
        "versions": versions(found, runs, path),
        "smoke": bool(need(found, "smoke", path)),
        "pairs": need(found, "pairs", path),
        "window_s": need(found, "window_s", path),
        "shielded": found.get("shielded"),
        "summary": shown,
        "load": load_range(runs, others),
    }


def ceiling(path: Path) -> dict:
    """What the handler page shows of the ceiling run (batcher.json's format): per measure of
    CEILING_MEASURES the file's per-pair values, medians and new ÷ old (the share of the ceiling
    with its target and whether it was met), the pairs B=32 W=0 kept up at 2.5 × S, the answers
    checked, S (the median of the closed loops when the run measured it) and the load."""
    found = read_json(path)
    runs = runs_of(found, path)
    summary = need(found, "summary", path)
    shown = {}
    for measure in (*CEILING_MEASURES, *CEILING_SECTIONS):
        if measure not in summary:
            raise DataError(f"{path}: missing field 'summary.{measure}'")
        shown[measure] = summary[measure]
    shown |= {measure: summary[measure] for measure in CEILING_OPTIONAL if measure in summary}
    for measure in (*CEILING_MEASURES, "b32_w0_kept_up_at_2.5"):
        for version in VERSIONS:
            need(shown[measure], version, f"{path} summary.{measure}")
    for measure in CEILING_MEASURES:
        for version in VERSIONS:
            for field in ("median", "per_pair"):
                need(shown[measure][version], field, f"{path} summary.{measure}.{version}")
    for field in ("target.at_least", "met"):
        need(shown[CEILING_TARGET], field, f"{path} summary.{CEILING_TARGET}")
    for version in VERSIONS:
        for field in ("pairs_kept_up", "pairs"):
            need(shown["b32_w0_kept_up_at_2.5"][version], field,
                 f"{path} summary.b32_w0_kept_up_at_2.5.{version}")  # fmt: skip
    others = [
        run["core_watch"]["others_share"]
        for run in runs
        if (run.get("core_watch") or {}).get("others_share") is not None
    ]
    found_shown = {
        **file_record(path),
        **machine(found, path),
        "versions": versions(found, runs, path),
        "smoke": bool(need(found, "smoke", path)),
        "pairs": need(found, "pairs", path),
        "window_s": need(found, "window_s", path),
        "shielded": found.get("shielded"),
        "saturation_S": need(found, "saturation_S_reference", path),
        "summary": shown,
        "load": load_range(runs, others),
        # per version: whether none's closed loops reported their model stage, so the share
        # came from the same answers as S (lab/bench/batcher.py `ceiling_over_none`)
        "model_share_in_closed_loop": {
            version: model_in_closed_loop(runs, version) for version in VERSIONS
        },
    }
    if found.get("saturation_loops_throughput") is not None:  # S measured on the day
        found_shown["saturation_loops"] = found["saturation_loops_throughput"]
    if found.get("pair_saturation") is not None:  # the rates followed each pair's own S
        found_shown["pair_saturation"] = pair_saturation(runs, found["pair_saturation"], path)
    found_shown["over_saturation"] = over_saturation(
        runs, found_shown["pairs"], shown[CEILING_TARGET]["target"]
    )
    return found_shown


def over_saturation(runs: list, pairs: int, target: dict) -> dict:
    """The best batched answers per second at 2.5 × S ÷ none's S in the same pair (its closed
    loop: the ceiling's own unit), and that ÷ the pair's ceiling. The file's summary divides
    by none's own answers at 2.5 × S instead, which fall below S when none is swamped, so its
    share of the ceiling can pass 1 for that reason alone. Per version: per pair (a pair
    without every value left out) and the median; for the share also how many pairs passed
    the ceiling, and the file's `target` with whether the new median `met` it.

    A batched setting that keeps up answers what it is offered and no more, so at 2.5 × S
    the file's share then measures the offered rate, not the machinery. Beside it, per
    version: `best_kept_up_pairs`, the pairs whose best batched setting kept up there;
    `offered_share_of_ceiling`, the share the file's ratio shows when every request offered
    is answered (the offered rate ÷ none's answers at 2.5 × S ÷ the ceiling); and the
    machinery's own capacity, the best batched closed loop ÷ S (`closed_loop_over_s`) and
    that ÷ the ceiling (`closed_loop_share_of_ceiling`, with `past_ceiling`)."""

    def value(key: str, **where):
        chosen = [run for run in runs if all(run.get(k) == v for k, v in where.items())]
        return chosen[0].get(key) if chosen else None

    keys = ("best_batched_over_s_at_2.5", "share_of_ceiling", "offered_share_of_ceiling",
            "closed_loop_over_s", "closed_loop_share_of_ceiling")  # fmt: skip
    found: dict = {key: {} for key in keys} | {"best_kept_up_pairs": {}}
    batched_names = ("B=32 W=0", "B=128 W=0")
    for version in VERSIONS:
        values: dict = {key: [] for key in keys}
        kept_up = 0
        for pair in range(pairs):
            where = {"version": version, "pair": pair}
            saturation = value("throughput", kind="closed", setting="none", **where)
            model_us = value("model_us_p50", kind="closed", setting="none", **where)
            if model_us is None:  # an older client: none's open loop at 0.5 × S
                model_us = value("model_us_p50", kind="open", setting="none", rate_multiple=0.5,
                                 **where)  # fmt: skip
            top = [[value(key, kind="open", setting=name, rate_multiple=2.5, **where)
                    for key in ("throughput", "kept_up", "arrival_rate")]
                   for name in batched_names]  # fmt: skip
            closed = [value("throughput", kind="closed", setting=name, **where)
                      for name in batched_names]  # fmt: skip
            none_top = value("throughput", kind="open", setting="none", rate_multiple=2.5, **where)
            if not saturation or any(None in run for run in top):
                continue
            best, best_kept_up, offered = max(top, key=lambda run: run[0])
            kept_up += bool(best_kept_up)
            values["best_batched_over_s_at_2.5"].append(best / saturation)
            share = model_us * saturation / 1e6 if model_us is not None else None
            if share is None or not 0 < share < 1:
                continue
            ceiling = 1 / (1 - share)
            values["share_of_ceiling"].append(best / saturation / ceiling)
            if none_top:
                values["offered_share_of_ceiling"].append(offered / none_top / ceiling)
            if None not in closed:
                values["closed_loop_over_s"].append(max(closed) / saturation)
                values["closed_loop_share_of_ceiling"].append(max(closed) / saturation / ceiling)
        for key, per_pair in values.items():
            median = stats.median(per_pair) if per_pair else None
            found[key][version] = {"per_pair": per_pair, "median": median}
        for key in ("share_of_ceiling", "closed_loop_share_of_ceiling"):
            found[key][version]["past_ceiling"] = sum(x > 1 for x in values[key])
        found["best_kept_up_pairs"][version] = kept_up
    new = found["share_of_ceiling"]["new"]["median"]
    found["share_of_ceiling"] |= {"target": target,
                                  "met": new is not None and new >= target["at_least"]}  # fmt: skip
    return found


def pair_saturation(runs: list, listed: list, path: Path) -> list[float]:
    """Each pair's S that its open-loop rates followed (`--rates-per-pair`): the file's list,
    checked against the pair's reference run and the S every open loop of the pair records."""
    references = {run["pair"]: run.get("throughput") for run in runs
                  if run.get("kind") == "reference"}  # fmt: skip
    if sorted(references) != list(range(len(listed))):
        raise DataError(f"{path}: pair_saturation lists {len(listed)} pairs, but the reference "
                        f"runs are of pairs {sorted(references)}")  # fmt: skip
    for pair, saturation in enumerate(listed):
        followed = {run.get("saturation_reference") for run in runs
                    if run.get("kind") == "open" and run.get("pair") == pair}  # fmt: skip
        if references[pair] != saturation or followed != {saturation}:
            followed_shown = sorted(followed, key=str)
            raise DataError(f"{path}: pair {pair}'s S is {saturation} in pair_saturation, "
                            f"{references[pair]} in its reference run and {followed_shown} in "
                            "its open loops")  # fmt: skip
    return listed


def model_in_closed_loop(runs: list, version: str) -> bool:
    """Whether every closed loop of `none` of `version` reported its model stage."""
    closed = [run for run in runs if run.get("version") == version
              and run.get("kind") == "closed" and run.get("setting") == "none"]  # fmt: skip
    return bool(closed) and all(run.get("model_us_p50") is not None for run in closed)


def core_time(path: Path) -> dict:
    """core_time.json as generator/arithmetic/core_time.py reads it, with the file's record
    and machine."""
    found = read_json(path)
    return core_time_file.core_time(found, path, {**file_record(path), **machine(found, path)})


# --- switchback.json (issue 28) ---------------------------------------------------------------

# statistic -> the key of an arm's value in a run of the file (lab/bench/switchback.py)
SWITCHBACK_STATISTICS = {"p50": "p50_us", "p99": "p99_us", "server": "server_us_p50",
                         "ready": "ready_us_p50"}  # fmt: skip
# read only when every run of the file records it (the ready stage: from 2026-12-02's third
# benchmark on), and judged with the δ of the time inside the service it is a part of
OPTIONAL_STATISTICS = {"ready": "server"}
SHOWN_SLICES = 4  # the picture shows the example run's first slices, request by request
EXAMPLE_TABLE = "switchback_example.json"
EXAMPLE_COLUMNS = ("arrival_us", "arm", "latency_us", "status")


def comparison_kind(pair: dict) -> str:
    """'aa' (both arms the same, nothing added), 'added_work' (the same, with CPU work added
    to arm B: the known effect) or 'comparison' (two settings)."""
    same = pair["arm_a"]["name"] == pair["arm_b"]["name"]
    if not same:
        return "comparison"
    return "added_work" if pair["added_work_us_b"] else "aa"


def arm_value(run: dict, arm: str, key: str, where: str):
    value = need(run, f"arms.{arm}.{key}", where)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise DataError(f"{where}: field 'arms.{arm}.{key}' is {value!r}, expected µs or null")
    return value


def statistic(runs: list, key: str, delta: float, path: Path) -> dict:
    """One statistic of one comparison: d per run (null where either arm has no finite
    positive value), the per-run SD of d, A's level and the interval verdict over the runs
    with a d."""
    d, levels = [], []
    for run in runs:
        where = f"{path} runs[{run['_position']}]"
        a, b = arm_value(run, "a", key, where), arm_value(run, "b", key, where)
        finite = a is not None and b is not None and a > 0 and b > 0
        d.append(math.log(b) - math.log(a) if finite else None)
        if a is not None and a > 0:
            levels.append(a)
    present = [x for x in d if x is not None]
    found = {
        "d": d,
        "left_out": len(d) - len(present),
        "sd_d": stats.sample_sd(present),
        "level_us": stats.median(levels) if levels else None,
    }
    if not present:
        found.update(interval=None, contains_zero=None)
        return found
    verdict = intervals.interval_verdict(present, delta)
    found["interval"] = verdict.as_dict(found["level_us"])
    found["contains_zero"] = verdict.low95 <= 0 <= verdict.high95
    return found


def swapped_of(runs: list, path: Path) -> list[bool] | None:
    """Each run's `swap_routes` (route a serving arm B), or None for a file written before
    the routes were counterbalanced (no run has the field; every route then served its arm)."""
    if not any("swap_routes" in run for run in runs):
        return None
    swapped = [need(run, "swap_routes", f"{path} runs[{run['_position']}]") for run in runs]
    if any(not isinstance(value, bool) for value in swapped):
        raise DataError(f"{path}: field 'swap_routes' must be true or false in every run")
    return swapped


def route_effect(found: dict, swapped: list[bool], delta: float) -> dict:
    """An A/A pair's statistic (`statistic`'s answer) read for the routes' places: r = d where
    route b served arm B and −d where the routes were swapped, so r is route b's place minus
    route a's plus noise (the arms are the same); its interval verdict over the runs with a d
    (µs at A's level)."""
    r = [(-d if flipped else d) for d, flipped in zip(found["d"], swapped, strict=True)
         if d is not None]  # fmt: skip
    if not r:
        return {"interval": None}
    return {"interval": intervals.interval_verdict(r, delta).as_dict(found["level_us"])}


def overshoot(runs: list, arm: str, max_wait_ms: float, path: Path) -> dict | None:
    """One arm's W overshoot: per run, the median first wait of its batches that did not fill
    minus W (µs), and the exact Wilcoxon 95% interval of their shift (Hodges–Lehmann estimate);
    None when the file's runs do not record first waits (before 2026-12-02)."""
    key = "unfilled_first_wait_us_p50"
    if not all(key in run["arms"][arm] for run in runs):
        return None
    per_run = [arm_value(run, arm, key, f"{path} runs[{run['_position']}]") for run in runs]
    values = [wait - max_wait_ms * 1000 for wait in per_run if wait is not None]
    found = {"arm": arm, "max_wait_ms": max_wait_ms, "per_run_us": values,
             "left_out": len(per_run) - len(values)}  # fmt: skip
    if not values:
        return dict(found, interval=None)
    interval = intervals.signed_rank_interval(values)
    found["interval"] = {
        "n": len(values),
        "estimate_us": stats.round_sig(intervals.hodges_lehmann(values)),
        "low95_us": stats.round_sig(interval.low),
        "high95_us": stats.round_sig(interval.high),
        "achieved95": stats.round_sig(interval.achieved),
        "reaches95": interval.reaches,
    }
    return found


def recovery(statistics_found: dict, added_us: float, wall_us: float | None = None) -> dict:
    """The known effect: per statistic, whether the 95% interval (in µs at A's level) contains
    the added amount and excludes 0; recovered when both hold and the interval reaches 95%.
    With `wall_us` (the added work's median time on the clock, `added_wall`) the same again
    for that amount: `contains_wall`, `recovered_wall`."""
    found = {}
    for name, entry in statistics_found.items():
        interval = entry["interval"]
        if interval is None or interval["low95_us"] is None or interval["high95_us"] is None:
            found[name] = {"contains_added": False, "excludes_zero": False, "recovered": False}
            if wall_us is not None:
                found[name].update(contains_wall=False, recovered_wall=False)
            continue
        low, high = interval["low95_us"], interval["high95_us"]
        contains, excludes = low <= added_us <= high, low > 0 or high < 0
        found[name] = {
            "contains_added": contains,
            "excludes_zero": excludes,
            "recovered": contains and excludes and interval["reaches95"],
        }
        if wall_us is not None:
            on_clock = low <= wall_us <= high
            found[name].update(
                contains_wall=on_clock,
                recovered_wall=on_clock and excludes and interval["reaches95"],
            )
    return found


def added_wall(runs: list, path: Path) -> dict | None:
    """Arm B's added work as the core delivered it: the median over runs of each run's median
    spin on the clock (µs), with the runs' lowest and highest; None when the file's runs do not
    record it (before 2026-12-02's third benchmark)."""
    key = "added_work_wall_us_p50"
    if not all(key in run["arms"]["b"] for run in runs):
        return None
    per_run = [arm_value(run, "b", key, f"{path} runs[{run['_position']}]") for run in runs]
    values = [value for value in per_run if value is not None]
    if not values:
        return None
    return {"median_us": stats.median(values), "low_us": min(values), "high_us": max(values)}


def slice_table(columns: dict, slices: int, slice_us: float) -> dict:
    """Per slice of the example run (in time order): its arm (0 = A, 1 = B, from the `arm`
    column), its requests and their p50 latency (ms; nearest rank, never answered = +inf)."""
    arrival, arm = columns["arrival_us"].astype(np.int64), columns["arm"]
    latency = stats.latencies_us(columns["latency_us"], columns["status"])
    index = arrival // int(round(slice_us))
    table = {"arm": [], "requests": [], "p50_ms": []}
    for k in range(slices):
        chosen = index == k
        arms = set(arm[chosen].tolist())
        if len(arms) > 1:
            raise DataError(f"slice {k} of the example run holds requests of both arms")
        table["arm"].append(int(arms.pop()) if arms else None)
        table["requests"].append(int(chosen.sum()))
        table["p50_ms"].append(
            stats.percentile(latency[chosen], 50) / 1000 if chosen.any() else None
        )
    return table


def example_run(found: dict, folder: Path, path: Path) -> dict:
    """The example run's requests (the `.run.zip` the file names, checked by sha256): its
    slices and the first SHOWN_SLICES slices' requests (`shown`, published in their own file)."""
    recorded = need(found, "example", path)
    file = folder / need(recorded, "file", f"{path} example")
    try:
        content = file.read_bytes()
    except OSError as error:
        raise DataError(f"{path}: field 'example.file': cannot read {file} ({error})") from error
    if hashlib.sha256(content).hexdigest() != need(recorded, "sha256", f"{path} example"):
        raise DataError(f"{file}: its sha256 is not the one {path} records (example.sha256)")
    try:
        meta, columns = codec.read_run(file)
    except RawFileError as error:
        raise DataError(str(error)) from error
    for name in EXAMPLE_COLUMNS:
        if name not in columns:
            raise DataError(f"{file}: missing column '{name}'")
    slice_s = float(need(found, "slice_s", path))
    slices = int(need(meta, "slices", file))
    end_us = SHOWN_SLICES * slice_s * 1e6
    kept = columns["arrival_us"].astype(np.int64) < end_us
    latency = stats.latencies_us(columns["latency_us"], columns["status"])[kept]
    return {
        "file": file.name,
        "sha256": recorded["sha256"],
        "pair": need(meta, "pair", file),
        "index": need(meta, "index", file),
        "first_arm": need(meta, "first_arm", file),
        "requests": int(columns["arrival_us"].size),
        "slices": slices,
        "slice_table": slice_table(columns, slices, slice_s * 1e6),
        "shown_slices": min(SHOWN_SLICES, slices),
        "shown": {
            "arrival_ms": (columns["arrival_us"][kept] / 1000).tolist(),
            "latency_ms": (latency / 1000).tolist(),
            "arm": columns["arm"][kept].astype(int).tolist(),
        },
    }


def pair_entry(pair: dict, of_pair: list, rule: dict, path: Path) -> dict:
    """One comparison over its runs (each with `arms` and `_position`, as the benchmark file's
    runs): its kind, per statistic d per run with the interval verdict, the known effect's
    recovery, the routes' places and the W overshoot. The campaign's switchback runs are read
    by the same arithmetic (generator/arithmetic/switchback_runs.py)."""
    kind = comparison_kind(pair)
    entry = {
        "arm_a": pair["arm_a"]["name"],
        "arm_b": pair["arm_b"]["name"],
        "added_work_us": float(pair["added_work_us_b"]),
        "kind": kind,
        "twin_slices": bool(pair.get("twin_slices", False)),  # absent before 2026-12-02
        "runs": len(of_pair),
        "statistics": {
            short: statistic(
                of_pair, key, rule["delta"][OPTIONAL_STATISTICS.get(short, short)], path
            )  # fmt: skip
            for short, key in SWITCHBACK_STATISTICS.items()
            if short not in OPTIONAL_STATISTICS
            or all(key in run["arms"][arm] for run in of_pair for arm in ("a", "b"))
        },
    }
    if kind == "added_work":
        wall = added_wall(of_pair, path)
        if wall is not None:
            entry["added_work_wall"] = wall
        on_clock = wall["median_us"] if wall else None
        entry["recovery"] = recovery(entry["statistics"], entry["added_work_us"], on_clock)
    swapped = swapped_of(of_pair, path)
    if swapped is not None:
        entry["swapped_runs"] = sum(swapped)
        if kind == "aa":
            entry["route_effect"] = {
                short: route_effect(
                    found, swapped, rule["delta"][OPTIONAL_STATISTICS.get(short, short)]
                )
                for short, found in entry["statistics"].items()
            }
    waits = {
        arm: overshoot(of_pair, arm, float(pair[f"arm_{arm}"]["max_wait_ms"]), path)
        for arm in ("a", "b")
        if (pair[f"arm_{arm}"].get("max_wait_ms") or 0) > 0
    }
    waits = {arm: found for arm, found in waits.items() if found is not None}
    if waits:
        entry["overshoot"] = waits
    return entry


def compare_pairs(pairs: list, runs: list, rule: dict, path: Path) -> tuple[dict, list]:
    """({pair name: `pair_entry`}, the names in order) of every pair with runs; each run
    names its pair (`pair`)."""
    comparisons, names = {}, []
    for index, pair in enumerate(pairs):
        where = f"{path} pairs[{index}]"
        for field in ("name", "arm_a.name", "arm_b.name", "added_work_us_b"):
            need(pair, field, where)
        of_pair = [dict(run, _position=position) for position, run in enumerate(runs)
                   if need(run, "pair", f"{path} runs[{position}]") == pair["name"]]  # fmt: skip
        if not of_pair:
            continue
        comparisons[pair["name"]] = pair_entry(pair, of_pair, rule, path)
        names.append(pair["name"])
    return comparisons, names


def switchback(path: Path) -> dict:
    """What the pages show of the switchback benchmark (see the module docstring)."""
    found = read_json(path)
    try:
        rule = told_apart_rule(found, path, "rule")
    except DescriptionError as error:
        raise DataError(str(error)) from error
    if rule["rule"] != "hodges_lehmann_wilcoxon_95":
        raise DataError(f"{path}: field 'rule.rule' is {rule['rule']!r}: switchback runs are "
                        "judged by the interval rule only")  # fmt: skip
    pairs = need(found, "pairs", path)
    runs = need(found, "runs", path)
    if not isinstance(pairs, list) or not pairs or not isinstance(runs, list) or not runs:
        raise DataError(f"{path}: fields 'pairs' and 'runs' must be non-empty lists")
    comparisons, names = compare_pairs(pairs, runs, rule, path)
    loads = [run[key]["loadavg1"] for run in runs for key in ("load_before", "load_after")
             if isinstance(run.get(key), dict) and "loadavg1" in run[key]]  # fmt: skip
    others = [run["others_share"] for run in runs if run.get("others_share") is not None]
    load = {}
    if loads:
        load.update(loadavg_min=min(loads), loadavg_max=max(loads))
    if others:
        load.update(others_share_min=min(others), others_share_max=max(others))
    shown = {
        **file_record(path),
        "date": need(found, "date", path),
        "cores": need(found, "fingerprint.cores", path),
        "cpu_model": need(found, "fingerprint.cpu_model", path),
        "cpu": need(found, "cpu", path),
        "smoke": bool(need(found, "smoke", path)),
        "rate_multiple": need(found, "rate_multiple", path),
        "arrival_rate": need(found, "arrival_rate", path),
        "saturation_S": need(found, "saturation_S", path),
        "window_s": need(found, "window_s", path),
        "slice_s": need(found, "slice_s", path),
        "runs": len(runs),
        "rule": dict(rule, delta_share=intervals.delta_shares(rule["delta"])),
        "names": names,
        "comparisons": comparisons,
        "load": load,
    }
    loops = (found.get("saturation_measured") or {}).get("loops_throughput")
    if loops is not None:  # S the median of several closed loops (from 2026-12-02)
        shown["saturation_loops"] = loops
    if "added_work_spin" in found:  # how the added work spun (from 2026-12-02's fifth bench)
        shown["added_work_spin"] = found["added_work_spin"]
    aa, independent = aa_names(names, comparisons)
    if aa:
        shown["aa"] = aa
    if independent:
        shown["aa_independent"] = independent
    if found.get("example") is not None:
        shown["example"] = example_run(found, path.parent, path)
    return shown


TWIN_SUFFIX = ", twin slices"  # how lab/design.py's Switchback names a pair in twin slices


def comparison_label(name: str, switchback: dict) -> str:
    """A comparison's name as the pages and charts show it: without ", twin slices" (the
    benchmark's pairs are twins; the pages say so once), and the A/A control that ran in
    independent slices beside a twin one marked as such."""
    comparison = switchback["comparisons"][name]
    label = name.removesuffix(TWIN_SUFFIX) if comparison.get("twin_slices") else name
    if switchback.get("aa_independent") == name:
        label += " (independent slices)"
    return label


def aa_names(names: list, comparisons: dict) -> tuple[str | None, str | None]:
    """(the A/A control the pages read: the first in twin slices if any, else the first;
    the A/A control in independent slices run beside a twin one, or None)."""
    aa = [name for name in names if comparisons[name]["kind"] == "aa"]
    twins = [name for name in aa if comparisons[name]["twin_slices"]]
    independent = [name for name in aa if not comparisons[name]["twin_slices"]]
    main = (twins or aa or [None])[0]
    return main, (independent[0] if twins and independent else None)


def split(result: dict) -> tuple[dict, dict | None]:
    """(results.json with the example run's shown requests replaced by the name of their file,
    `bench.switchback.example.table`; those requests), or (result, None) when there are none."""
    example = result.get("bench", {}).get("switchback", {}).get("example")
    if not example or "shown" not in example:
        return result, None
    kept = {key: value for key, value in example.items() if key != "shown"}
    kept["table"] = EXAMPLE_TABLE
    switchback_section = dict(result["bench"]["switchback"], example=kept)
    bench = dict(result["bench"], switchback=switchback_section)
    return dict(result, bench=bench), {"shown": example["shown"]}


def section(folder: Path | None) -> dict | None:
    """results.json `bench`: the folder, and each benchmark file found in it; None when the
    build has no bench folder."""
    if folder is None:
        return None
    folder = Path(folder)
    found = {"dir": shown_dir(folder)}
    if (folder / TRACE).exists():
        found["handler_trace"] = handler_trace(folder / TRACE)
    if (folder / BATCHER).exists():
        found["batcher"] = batcher(folder / BATCHER)
    if (folder / SWITCHBACK).exists():
        found["switchback"] = switchback(folder / SWITCHBACK)
    if (folder / CORE_TIME).exists():
        found["core_time"] = core_time(folder / CORE_TIME)
    if (folder / CEILING).exists():
        found["ceiling"] = ceiling(folder / CEILING)
    return found
