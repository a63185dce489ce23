"""The report's own check of the machinery's benchmarks the handler page shows (results.json
`bench`): every number recomputed from the benchmark files' runs, not from their summaries.

- handler_trace.json: per version and setting, each count per request worked out again from
  the trace's raw counts (`trace.counts`, `trace.requests`) over the answers in the traced
  span, rounded to 3 decimals per run as lab/bench/handler_trace.py records them, then the
  median over rounds (rounded the same way); queue B=1's p50 minus none's, round by round;
  the latency range and the machine's load;
- batcher.json: per measure the per-pair values from the runs (queue B=1's p50 minus none's
  at 0.5 × S, the W = 1 ms overshoot, the best batched throughput ÷ none's at 2.5 × S, the
  closed-loop answers per second, the open-loop throughput and kept-up pairs at 2 and 2.5 × S,
  the client's CPU per request), their medians, new ÷ old and whether each target was met;
- switchback.json (issue 28): per comparison and statistic, d per run as ln(B ÷ A), its SD
  (statistics.stdev), A's level (statistics.median) and the interval verdict by
  generator/report/intervals.py, never generator/arithmetic/intervals.py; the added-work recovery;
  the swapped runs and the A/A route effect (d with its sign turned where the routes were
  swapped); each W arm's overshoot (per-run median unfilled first wait − W, its interval);
  the example run's slices and shown requests read again from its `.run.zip` (checked by sha256),
  with an integer nearest-rank p50;
- core_time.json (issue 33): per version, setting and rate each part's µs per answer as the
  median over rounds of the runs' `us_per_answer` (and the median of their sums), rounded to 2
  decimals as lab/bench/core_time.py records them; from those, per setting and version the
  growth from S to the top rate (totals, outside the model, the collector, the part that grew
  most, the rounds' lowest and highest total at the top rate) and at the top rate what the new
  service cut and the part that rose most; the client's split, the kept-up rounds,
  the answers that differed and the new service's collector (thresholds, frozen, collections);
- ceiling.json (issue 33, batcher.json's format): per pair the ceiling S ÷ (1 − none's model
  share) from none's closed loop (its S, and its model stage when its client reported it, else
  none's model stage at 0.5 × S), the best batched ÷ none at
  2.5 × S and its share of the ceiling (target, met, stretch met), B=32 W=0's kept-up pairs
  at 2.5 × S, the answers checked and S's loops.

A file that changed since the build (its sha256), or that exists without being shown (or
the reverse), is a disagreement. Used by `python -m generator report`; the folder is the one
results.json names (`bench.dir`, from the repository root) unless --bench gives another.
"""

import hashlib
import json
import math
import statistics
from pathlib import Path

from generator.report import intervals as report_intervals
from generator.report.answers import compare, machinery_kind
from generator.report.checker import Disagreement
from lab.rawformat import codec

ROOT = Path(__file__).resolve().parents[2]
FILES = {
    "handler_trace": "handler_trace.json",
    "batcher": "batcher.json",
    "switchback": "switchback.json",
    "core_time": "core_time.json",
    "ceiling": "ceiling.json",
}
VERSIONS = ("old", "new")


def rounded3(value: float) -> float:
    return round(value, 3)


# --- handler_trace.json ---------------------------------------------------------------------


def per_answer(run: dict) -> dict:
    """One traced run's counts per request answered, from its raw counts."""
    counts, requests = run["trace"]["counts"], run["trace"]["requests"]
    answered = requests["answered"]
    service, client = counts["service"], counts["client"]
    switches = sum(group.get(kind, 0) for group in counts.values()
                   for kind in ("switched_out_blocked", "switched_out_preempted"))  # fmt: skip
    shares = {
        "service_loop_iterations": service.get("epoll_waits", 0),
        "service_writes": service.get("message_writes", 0),
        "client_woken": client.get("woken", 0),
        "client_message_reads": client.get("message_reads", 0),
        "context_switches_on_core": switches,
    }
    found = {name: rounded3(count / answered) for name, count in shares.items()}
    found["answered_out_of_read_order_share"] = round(
        requests["answered_out_of_read_order"] / answered, 4
    )
    found["loop_iterations_read_to_answer"] = requests["loop_iterations_read_to_answer_mean"]
    found["service_switched_out_read_to_answer"] = requests[
        "service_switched_out_read_to_answer_mean"
    ]
    found["others_core_share"] = run["trace"]["core_share"].get("others", 0.0)
    proc = run["service_proc_per_request"]
    found["service_cpu_ns_per_request"] = proc["cpu_ns"]
    found["service_involuntary_switches_per_request"] = proc["involuntary_switches"]
    found["service_voluntary_switches_per_request"] = proc["voluntary_switches"]
    found["client_cpu_us_per_request"] = run["client"]["client_cpu_us_per_request"]
    found["p50_us"] = run["latency_us"]["p50"]
    return found


def versions_of(found: dict) -> dict:
    named = {}
    for version in VERSIONS:
        loops = [run["client"]["event_loop"] for run in found["runs"]
                 if run["version"] == version and "client" in run]  # fmt: skip
        named[version] = {"commit": found["commits"][version], "machinery": machinery_kind(loops)}
    return named


def load_of(runs: list, others: list) -> dict:
    snapshots = [run[key] for run in runs for key in ("load_before", "load_after")]
    averages = [snapshot["loadavg"][0] for snapshot in snapshots]
    found = {"loadavg_min": min(averages), "loadavg_max": max(averages)}
    idle = [snapshot["idle_share"] for snapshot in snapshots if "idle_share" in snapshot]
    if idle:
        found["core_idle_share_max"] = max(idle)
    if others:
        found["others_share_min"], found["others_share_max"] = min(others), max(others)
    return found


def machine_of(found: dict) -> dict:
    return {
        "date": found["date"],
        "cores": found["fingerprint"]["cores"],
        "cpu_model": found["fingerprint"]["cpu_model"],
        "cpu": found["cpu"],
    }


def trace_numbers(found: dict) -> dict:
    runs = found["runs"]
    summary, overhead = {}, {}
    for version in VERSIONS:
        summary[version] = {}
        for setting in ("none", "queue B=1"):
            chosen = [per_answer(r) for r in runs
                      if r["version"] == version and r["setting"] == setting]  # fmt: skip
            summary[version][setting] = {
                name: rounded3(statistics.median(run[name] for run in chosen)) for name in chosen[0]
            }
        by_round = {
            (r["setting"], r["round"]): r["latency_us"]["p50"]
            for r in runs
            if r["version"] == version
        }
        rounds = sorted({r for _, r in by_round})
        per_round = [by_round[("queue B=1", r)] - by_round[("none", r)] for r in rounds]
        overhead[version] = {"median": statistics.median(per_round), "per_round": per_round}
    latencies = [run["latency_us"]["p50"] for run in runs]
    return {
        **machine_of(found),
        "versions": versions_of(found),
        "rate_multiple": found["rate_multiple"],
        "arrival_rate": found["arrival_rate"],
        "rounds": found["rounds"],
        "window_s": found["window_s"],
        "shielded": found.get("shielded"),
        "settings": ["none", "queue B=1"],
        "summary": summary,
        "queue_b1_p50_overhead_us": overhead,
        "p50_us_min": min(latencies),
        "p50_us_max": max(latencies),
        "load": load_of(runs, [run["trace"]["core_share"]["others"] for run in runs]),
    }


# --- batcher.json ----------------------------------------------------------------------------


def one(runs: list, **where) -> dict | None:
    chosen = [run for run in runs if all(run.get(k) == v for k, v in where.items())]
    return chosen[0] if chosen else None


def value_of(runs: list, key: str, **where):
    run = one(runs, **where)
    return None if run is None else run.get(key)


def versus(per_version: dict, target: dict | None = None) -> dict:
    """Per version the per-pair values and their median, new ÷ old, the target and whether
    today's median met it."""
    found = {
        version: {"per_pair": values, "median": statistics.median(values) if values else None}
        for version, values in per_version.items()
    }
    old, new = found["old"]["median"], found["new"]["median"]
    if old and new is not None:
        found["new_over_old"] = round(new / old, 4)
    if target is not None and new is not None:
        found["target"] = target
        if "at_most" in target:
            found["met"], found["stretch_met"] = new <= target["at_most"], new <= target["stretch"]
        elif "at_least" in target:
            found["met"] = new >= target["at_least"]
            if "stretch" in target:
                found["stretch_met"] = new >= target["stretch"]
    return found


def per_pair(runs: list, pairs: int, measure) -> dict:
    found = {}
    for version in VERSIONS:
        values = [measure(version, pair) for pair in range(pairs)]
        found[version] = [value for value in values if value is not None]
    return found


def open_value(opened: list, version, pair, setting, multiple, key="p50_us"):
    return value_of(opened, key, version=version, pair=pair, setting=setting,
                    rate_multiple=multiple)  # fmt: skip


def best_over_none(opened: list, version, pair):
    """The best batched throughput ÷ none's, at 2.5 × S, in one pair."""
    none = open_value(opened, version, pair, "none", 2.5, "throughput")
    batched = [open_value(opened, version, pair, name, 2.5, "throughput")
               for name in ("B=32 W=0", "B=128 W=0")]  # fmt: skip
    return None if not none or None in batched else max(batched) / none


def overshoot(opened: list, version, pair):
    """The W = 1 ms overshoot of one pair (µs)."""
    return open_value(opened, version, pair, "B=32 W=1", 0.5, "overshoot_us")


def kept_pairs(opened: list, setting: str, multiple: float) -> dict:
    return {version: sum(bool(run["kept_up"]) for run in opened if run["version"] == version
                         and run["setting"] == setting and run["rate_multiple"] == multiple)
            for version in VERSIONS}  # fmt: skip


def answers_checked(opened: list) -> dict:
    checked = [run["client"] for run in opened if run["version"] == "new"]
    return {
        "compared": sum(client.get("answers_compared", 0) for client in checked),
        "differing": sum(client.get("answers_differing", 0) for client in checked),
    }


def others_of(runs: list) -> list:
    return [run["core_watch"]["others_share"] for run in runs
            if (run.get("core_watch") or {}).get("others_share") is not None]  # fmt: skip


def batcher_numbers(found: dict) -> dict:
    runs, pairs, targets = found["runs"], found["pairs"], found["summary"]
    opened = [run for run in runs if run.get("kind") == "open"]

    def b1_minus_none(version, pair):
        b1 = open_value(opened, version, pair, "queue B=1", 0.5)
        none = open_value(opened, version, pair, "none", 0.5)
        return None if b1 is None or none is None else b1 - none

    def target(name):
        return (targets.get(name) or {}).get("target")

    high = {
        f"x{multiple:g}": {
            name: {
                "throughput": versus(per_pair(runs, pairs, lambda v, p, n=name, x=multiple:
                                              open_value(opened, v, p, n, x, "throughput"))),
                "kept_up_pairs": kept_pairs(opened, name, multiple),
            }
            for name in ("none", "B=32 W=0", "B=128 W=0")
        }
        for multiple in (2.0, 2.5)
    }  # fmt: skip
    closed = {
        name: versus(per_pair(runs, pairs, lambda v, p, n=name: value_of(
            runs, "throughput", version=v, pair=p, kind="closed", setting=n)))
        for name in ("none", "B=32 W=0", "B=128 W=0")
    }  # fmt: skip
    summary = {
        "queue_b1_p50_overhead_us": versus(
            per_pair(runs, pairs, b1_minus_none), target("queue_b1_p50_overhead_us")
        ),
        "w1_overshoot_us": versus(
            per_pair(runs, pairs, lambda v, p: overshoot(opened, v, p)),
            target("w1_overshoot_us"),
        ),
        "best_batched_over_none_at_2.5": versus(
            per_pair(runs, pairs, lambda v, p: best_over_none(opened, v, p)),
            target("best_batched_over_none_at_2.5"),
        ),
        "closed_loop_answers_per_s": closed,
        "open_loop_high": high,
        "b32_w0_kept_up_at_2": {
            version: {"pairs_kept_up": count, "pairs": pairs}
            for version, count in high["x2"]["B=32 W=0"]["kept_up_pairs"].items()
        },
        "client_cpu_us_per_request": client_cpu(opened),
        "answers_checked_new": answers_checked(opened),
    }
    return {
        **machine_of(found),
        "versions": versions_of(found),
        "smoke": bool(found["smoke"]),
        "pairs": pairs,
        "window_s": found["window_s"],
        "shielded": found.get("shielded"),
        "summary": summary,
        "load": load_of(runs, others_of(runs)),
    }


# --- ceiling.json (issue 33) ------------------------------------------------------------------


def client_medians(opened: list, fields: dict) -> dict:
    """Per version and `setting xM` of the open loops: {name: the median of the client's
    field} for each field → name of `fields` (runs without the fields, an older client's, left
    out)."""
    found: dict = {}
    for run in opened:
        if not all(field in run["client"] for field in fields):
            continue
        key = f"{run['setting']} x{run['rate_multiple']:g}"
        cell = found.setdefault(run["version"], {}).setdefault(key, {})
        for field in fields:
            cell.setdefault(field, []).append(run["client"][field])
    return {
        version: {
            key: {fields[field]: statistics.median(values) for field, values in cell.items()}
            for key, cell in by_key.items()
        }
        for version, by_key in found.items()
    }


def client_cpu(opened: list) -> dict:
    """Per version and `setting xM` of the open loops: the median client CPU per request."""
    medians = client_medians(opened, {"client_cpu_us_per_request": "cpu"})
    return {version: {key: cell["cpu"] for key, cell in by_key.items()}
            for version, by_key in medians.items()}  # fmt: skip


def closed_loop_reported_model(runs: list, version: str) -> bool:
    """Every closed loop of none of `version` gave its answers' model stage."""
    closed = [run for run in runs if (run.get("kind"), run.get("setting"), run.get("version"))
              == ("closed", "none", version)]  # fmt: skip
    return bool(closed) and all(run.get("model_us_p50") is not None for run in closed)


def ceiling_numbers(found: dict) -> dict:
    """The ceiling run (batcher.json's format): per pair the ceiling S ÷ (1 − none's model
    share), that share being none's model stage (a Server-Timing median: of none's closed loop
    itself when its client reported it, else of none's open loop at 0.5 × S) × S (none's
    closed loop, answers per second), as a multiple of S; the best batched ÷ none at
    2.5 × S and its share of the ceiling, with the target; B=32 W=0's kept-up pairs at 2.5 × S."""
    runs, pairs = found["runs"], found["pairs"]
    opened = [run for run in runs if run.get("kind") == "open"]
    target = found["summary"]["best_batched_share_of_ceiling"].get("target")

    def ceiling(version, pair):
        where = {"version": version, "pair": pair, "kind": "closed", "setting": "none"}
        closed = value_of(runs, "throughput", **where)
        model_us = value_of(runs, "model_us_p50", **where)  # the same answers as S, from 12-02
        if model_us is None:  # an older client's closed loop: none's open loop at 0.5 × S
            model_us = open_value(opened, version, pair, "none", 0.5, "model_us_p50")
        if model_us is None or not closed:
            return None
        share = model_us / 1e6 * closed
        return 1 / (1 - share) if 0 < share < 1 else None

    def share(version, pair):
        best, most = best_over_none(opened, version, pair), ceiling(version, pair)
        return None if best is None or not most else best / most

    summary = {
        "ceiling_over_none": versus(per_pair(runs, pairs, ceiling)),
        "best_batched_over_none_at_2.5": versus(
            per_pair(runs, pairs, lambda v, p: best_over_none(opened, v, p)),
            found["summary"]["best_batched_over_none_at_2.5"].get("target"),
        ),
        "best_batched_share_of_ceiling": versus(per_pair(runs, pairs, share), target),
        "b32_w0_kept_up_at_2.5": {
            version: {"pairs_kept_up": count, "pairs": pairs}
            for version, count in kept_pairs(opened, "B=32 W=0", 2.5).items()
        },
        "answers_checked_new": answers_checked(opened),
        "client_cpu_us_per_request": client_cpu(opened),
    }
    if any("client_user_us_per_request" in run["client"] for run in opened):
        summary["client_user_kernel_us_per_request"] = client_medians(
            opened, {"client_user_us_per_request": "user", "client_system_us_per_request": "kernel"}
        )
    mine = {
        **machine_of(found),
        "versions": versions_of(found),
        "smoke": bool(found["smoke"]),
        "pairs": pairs,
        "window_s": found["window_s"],
        "shielded": found.get("shielded"),
        "saturation_S": found["saturation_S_reference"],
        "summary": summary,
        "load": load_of(runs, others_of(runs)),
        "model_share_in_closed_loop": {
            version: closed_loop_reported_model(runs, version) for version in ("old", "new")
        },
    }
    lists = ("best_batched_over_s_at_2.5", "share_of_ceiling", "offered_share_of_ceiling",
             "closed_loop_over_s", "closed_loop_share_of_ceiling")  # fmt: skip
    mine["over_saturation"] = {name: {} for name in (*lists, "best_kept_up_pairs")}
    for version in ("old", "new"):
        made: dict = {name: [] for name in lists}
        kept = 0
        for pair in range(pairs):
            where = {"version": version, "pair": pair, "kind": "closed"}
            s_of_pair = value_of(runs, "throughput", setting="none", **where)
            batched = [open_value(opened, version, pair, name, 2.5, "throughput")
                       for name in ("B=32 W=0", "B=128 W=0")]  # fmt: skip
            if not s_of_pair or None in batched:
                continue
            # the best batched setting at 2.5 × S: the first of the two on a tie, as max() takes
            best_name = ("B=32 W=0", "B=128 W=0")[batched.index(max(batched))]
            kept += bool(open_value(opened, version, pair, best_name, 2.5, "kept_up"))
            made["best_batched_over_s_at_2.5"].append(max(batched) / s_of_pair)
            most = ceiling(version, pair)
            if not most:
                continue
            made["share_of_ceiling"].append(max(batched) / s_of_pair / most)
            offered = open_value(opened, version, pair, best_name, 2.5, "arrival_rate")
            none_top = open_value(opened, version, pair, "none", 2.5, "throughput")
            if none_top:
                made["offered_share_of_ceiling"].append(offered / none_top / most)
            capacity = [value_of(runs, "throughput", setting=name, **where)
                        for name in ("B=32 W=0", "B=128 W=0")]  # fmt: skip
            if None not in capacity:
                made["closed_loop_over_s"].append(max(capacity) / s_of_pair)
                made["closed_loop_share_of_ceiling"].append(max(capacity) / s_of_pair / most)
        for name, values in made.items():
            mine["over_saturation"][name][version] = {
                "per_pair": values,
                "median": statistics.median(values) if values else None,
            }
        for name in ("share_of_ceiling", "closed_loop_share_of_ceiling"):
            mine["over_saturation"][name][version]["past_ceiling"] = len(
                [x for x in made[name] if x > 1]
            )
        mine["over_saturation"]["best_kept_up_pairs"][version] = kept
    judged = mine["over_saturation"]["share_of_ceiling"]
    judged["target"] = target
    judged["met"] = judged["new"]["median"] is not None and not (
        judged["new"]["median"] < target["at_least"]
    )
    if found.get("pair_saturation") is not None:
        mine["pair_saturation"] = [
            value_of(runs, "throughput", kind="reference", pair=pair) for pair in range(pairs)
        ]
    loops = found.get("saturation_loops_throughput")
    if loops is not None:
        mine["saturation_loops"] = loops
        if found["saturation_S_reference"] != statistics.median(loops):
            raise Disagreement("bench/ceiling: saturation_S_reference is not the median of its "
                               "loops")  # fmt: skip
    return mine


# --- core_time.json (issue 33) ----------------------------------------------------------------

CORE_BASE = 1.0  # growth read from S to the top rate, as the build reads it; compared, not shared
CORE_FIXED_PARTS = ("load client, user", "load client, kernel",
                    "service kernel (network path, scheduling)", "garbage collector")  # fmt: skip


def core_medians(runs: list, parts: list) -> dict:
    """Per version, setting and rate: each part's median over the rounds and the median of
    the runs' sums, rounded to 2 decimals as lab/bench/core_time.py records its summary."""
    found: dict = {}
    for key in sorted({(r["version"], r["setting"], r["rate_multiple"]) for r in runs}):
        chosen = [run["us_per_answer"] for run in runs
                  if (run["version"], run["setting"], run["rate_multiple"]) == key]  # fmt: skip
        cell = {part: round(statistics.median(run[part] for run in chosen), 2) for part in parts}
        # summed in the order the bench made the parts (the file sorts its keys), so the
        # floats, rounded at the same place, come out as the bench's own
        cell["total"] = round(statistics.median(sum(run[p] for p in parts) for run in chosen), 2)
        version, setting, multiple = key
        found.setdefault(version, {}).setdefault(setting, {})[f"x{multiple:g}"] = cell
    return found


def core_findings(summary: dict, parts: list, settings: list, multiples: list, runs: list) -> dict:
    base = CORE_BASE if CORE_BASE in multiples else multiples[0]
    top = multiples[-1]
    low_key, top_key = f"x{base:g}", f"x{top:g}"
    by_setting = {}
    for setting in settings:
        entry = {}
        for version in VERSIONS:
            low, high = summary[version][setting][low_key], summary[version][setting][top_key]
            grown = [(high[part] - low[part], -index) for index, part in enumerate(parts)]
            amount, minus_index = max(grown)
            gc_low, gc_high = low["garbage collector"], high["garbage collector"]
            entry[version] = {
                "total_base_us": low["total"],
                "total_top_us": high["total"],
                "outside_model_base_us": low["total"] - low["model"],
                "outside_model_top_us": high["total"] - high["model"],
                "gc_base_us": gc_low,
                "gc_top_us": gc_high,
                "gc_share_base": gc_low / low["total"] if low["total"] else None,
                "gc_share_top": gc_high / high["total"] if high["total"] else None,
                "grew_most": parts[-minus_index],
                "grew_most_us": amount,
            }
            totals = [sum(run["us_per_answer"][part] for part in parts) for run in runs
                      if (run["version"], run["setting"], run["rate_multiple"])
                      == (version, setting, top)]  # fmt: skip
            entry[version]["total_top_range_us"] = [min(totals), max(totals)]
        old, new = summary["old"][setting][top_key], summary["new"][setting][top_key]
        saved = [(old[part] - new[part], -index) for index, part in enumerate(parts)]
        amount, minus_index = max(saved)
        rose = [(new[part] - old[part], -index) for index, part in enumerate(parts)]
        rose_us, rose_index = max(rose)
        entry["cut_at_top"] = {
            "total_us": old["total"] - new["total"],
            "most": parts[-minus_index],
            "most_us": amount,
            "rose_most": parts[-rose_index],
            "rose_most_us": rose_us,
        }
        by_setting[setting] = entry
    return {"base_multiple": base, "top_multiple": top, "by_setting": by_setting}


def core_time_numbers(found: dict) -> dict:
    """Where the core's time goes: the medians over rounds from the runs' `us_per_answer`, the
    findings from those, and per version the client's split, the kept-up rounds, the answers
    that differed and the new service's collector."""
    runs = found["runs"]
    parts = [*CORE_FIXED_PARTS, *found["layers"]]
    settings = list(dict.fromkeys(run["setting"] for run in runs))
    multiples = sorted({float(run["rate_multiple"]) for run in runs})
    summary = core_medians(runs, parts)
    kept, differing, split = {}, {}, {}
    for version in VERSIONS:
        mine = [run for run in runs if run["version"] == version]
        split[version] = all(run["client"].get("client_user_us_per_request") is not None
                             for run in mine)  # fmt: skip
        counts = [run["client"].get("answers_differing") for run in mine]
        differing[version] = None if None in counts else sum(counts)
        for setting in settings:
            for multiple in multiples:
                chosen = [run for run in mine if run["setting"] == setting
                          and run["rate_multiple"] == multiple]  # fmt: skip
                kept.setdefault(version, {}).setdefault(setting, {})[f"x{multiple:g}"] = {
                    "kept_up": sum(1 for run in chosen if run["kept_up"]),
                    "rounds": len(chosen),
                }
    numbers = {
        **machine_of(found),
        "commits": {version: found["commits"][version] for version in VERSIONS},
        "smoke": bool(found["smoke"]),
        "rounds": found["rounds"],
        "window_s": found["window_s"],
        "saturation_S": found["saturation_S"],
        "shielded": found.get("shielded"),
        "settings": settings,
        "rate_multiples": multiples,
        "parts": parts,
        "summary": summary,
        "findings": core_findings(summary, parts, settings, multiples, runs),
        "client_split": split,
        "kept_up": kept,
        "answers_differing": differing,
    }
    if found.get("saturation_loops_throughput") is not None:
        numbers["saturation_loops"] = found["saturation_loops_throughput"]
    new = [run for run in runs if run["version"] == "new"]
    if all(isinstance(run.get("gc_counted"), dict) for run in new):
        counted = [run["gc_counted"] for run in new]
        numbers["gc_new"] = {
            "threshold": counted[0]["threshold"],
            "frozen_min": min(gc["frozen"] for gc in counted),
            "frozen_max": max(gc["frozen"] for gc in counted),
            "collections": [
                sum(generation)
                for generation in zip(*(gc["collections"] for gc in counted), strict=True)
            ],
            "answers": sum(run["answered"] for run in new),
        }
    return numbers


# --- switchback.json -------------------------------------------------------------------------

ARM_KEYS = {"p50": "p50_us", "p99": "p99_us", "server": "server_us_p50", "ready": "ready_us_p50"}
DELTA_OF = {"ready": "server"}  # the ready stage, where present in every run, takes the server's δ
SHOWN_SLICES = (
    4  # as the build shows them (generator/arithmetic/bench_files.py); compared, not shared
)


def nearest_rank(values: list, q: int) -> float:
    ordered = sorted(values)
    return ordered[-(-q * len(ordered) // 100) - 1]


def one_statistic(runs: list, key: str, delta: float) -> dict:
    d, levels = [], []
    for run in runs:
        a, b = run["arms"]["a"][key], run["arms"]["b"][key]
        d.append(math.log(b / a) if a and b and a > 0 and b > 0 else None)
        if a and a > 0:
            levels.append(a)
    present = [x for x in d if x is not None]
    level = statistics.median(levels) if levels else None
    found = {
        "d": d,
        "left_out": d.count(None),
        "sd_d": statistics.stdev(present) if len(present) > 1 else None,
        "level_us": level,
    }
    if not present:
        return {**found, "interval": None, "contains_zero": None}
    interval = report_intervals.expected(present, delta, level)
    found["interval"] = interval
    found["contains_zero"] = interval["low95"] <= 0 <= interval["high95"]
    return found


def routes_read(found_statistic: dict, swapped: list, delta: float) -> dict:
    """An A/A pair's d with the sign turned where the routes were swapped: route b's place
    minus route a's."""
    flipped = [
        -d if turned else d
        for d, turned in zip(found_statistic["d"], swapped, strict=True)
        if d is not None
    ]
    if not flipped:
        return {"interval": None}
    return {"interval": report_intervals.expected(flipped, delta, found_statistic["level_us"])}


def overshoot_of(runs: list, arm: str, max_wait_ms: float) -> dict | None:
    key = "unfilled_first_wait_us_p50"
    if any(key not in run["arms"][arm] for run in runs):
        return None
    waits = [run["arms"][arm][key] for run in runs]
    over = [wait - 1000 * max_wait_ms for wait in waits if wait is not None]
    found = {"arm": arm, "max_wait_ms": max_wait_ms, "per_run_us": over,
             "left_out": waits.count(None)}  # fmt: skip
    if not over:
        return {**found, "interval": None}
    computed = report_intervals.recompute(over, 0.0)  # its 95% ends, in µs as given
    found["interval"] = {
        "n": len(over),
        "estimate_us": computed["estimate"],
        "low95_us": computed["low95"],
        "high95_us": computed["high95"],
        "achieved95": computed["achieved95"],
        "reaches95": computed["reaches95"],
    }
    return found


def recovered(by_statistic: dict, added: float, on_clock: float | None = None) -> dict:
    found = {}
    for name, entry in by_statistic.items():
        interval = entry["interval"] or {}
        low, high = interval.get("low95_us"), interval.get("high95_us")
        if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
            found[name] = {"contains_added": False, "excludes_zero": False, "recovered": False}
            if on_clock is not None:
                found[name] |= {"contains_wall": False, "recovered_wall": False}
            continue
        inside, apart = low <= added <= high, not low <= 0 <= high
        found[name] = {"contains_added": inside, "excludes_zero": apart,
                       "recovered": inside and apart and interval["reaches95"]}  # fmt: skip
        if on_clock is not None:
            held = low <= on_clock <= high
            found[name] |= {"contains_wall": held,
                            "recovered_wall": held and apart and interval["reaches95"]}  # fmt: skip
    return found


def spins_on_clock(runs: list) -> dict | None:
    """Arm B's added work on the clock over the runs (median of the runs' medians, lowest,
    highest), or None when a run does not record it."""
    if any("added_work_wall_us_p50" not in run["arms"]["b"] for run in runs):
        return None
    walls = [run["arms"]["b"]["added_work_wall_us_p50"] for run in runs]
    walls = [wall for wall in walls if wall is not None]
    if not walls:
        return None
    return {"median_us": statistics.median(walls), "low_us": min(walls), "high_us": max(walls)}


def example_numbers(found: dict, folder: Path) -> dict:
    recorded = found["example"]
    path = folder / recorded["file"]
    if hashlib.sha256(path.read_bytes()).hexdigest() != recorded["sha256"]:
        raise Disagreement(f"bench/switchback: {path} is not the file switchback.json names")
    meta, columns = codec.read_run(path)
    arrival = [int(x) for x in columns["arrival_us"].tolist()]
    arms = [int(x) for x in columns["arm"].tolist()]
    answered = [
        s == 200 and t >= 0
        for s, t in zip(columns["status"].tolist(), columns["latency_us"].tolist(), strict=True)
    ]
    latency = [
        t if ok else math.inf
        for t, ok in zip(columns["latency_us"].tolist(), answered, strict=True)
    ]
    slice_us = found["slice_s"] * 1e6
    table = {"arm": [], "requests": [], "p50_ms": []}
    for k in range(meta["slices"]):
        inside = [i for i, t in enumerate(arrival) if k * slice_us <= t < (k + 1) * slice_us]
        table["arm"].append(arms[inside[0]] if inside else None)
        table["requests"].append(len(inside))
        table["p50_ms"].append(nearest_rank([latency[i] for i in inside], 50) / 1000
                               if inside else None)  # fmt: skip
    shown_slices = min(SHOWN_SLICES, meta["slices"])
    kept = [i for i, t in enumerate(arrival) if t < SHOWN_SLICES * slice_us]
    return {
        "file": recorded["file"],
        "sha256": recorded["sha256"],
        "pair": meta["pair"],
        "index": meta["index"],
        "first_arm": meta["first_arm"],
        "requests": len(arrival),
        "slices": meta["slices"],
        "slice_table": table,
        "shown_slices": shown_slices,
        "shown": {
            "arrival_ms": [arrival[i] / 1000 for i in kept],
            "latency_ms": [latency[i] / 1000 for i in kept],
            "arm": [arms[i] for i in kept],
        },
    }


def pairs_numbers(pairs: list, all_runs: list, rule: dict) -> tuple[dict, list]:
    """({pair name: its numbers}, names in order) of every pair with runs (each run naming
    its `pair`, with `arms` and `swap_routes` as the benchmark file's); the campaign's
    switchback runs are checked by the same (generator/report/switchback.py)."""
    comparisons, names = {}, []
    for pair in pairs:
        runs = [run for run in all_runs if run["pair"] == pair["name"]]
        if not runs:
            continue
        same = pair["arm_a"]["name"] == pair["arm_b"]["name"]
        kind = ("added_work" if pair["added_work_us_b"] else "aa") if same else "comparison"
        by_statistic = {
            name: one_statistic(runs, key, rule["delta"][DELTA_OF.get(name, name)])
            for name, key in ARM_KEYS.items()
            if name not in DELTA_OF or all(key in run["arms"][arm] for run in runs for arm in "ab")
        }
        entry = {
            "arm_a": pair["arm_a"]["name"],
            "arm_b": pair["arm_b"]["name"],
            "added_work_us": float(pair["added_work_us_b"]),
            "kind": kind,
            "twin_slices": pair.get("twin_slices") is True,
            "runs": len(runs),
            "statistics": by_statistic,
        }
        if kind == "added_work":
            wall = spins_on_clock(runs)
            if wall is not None:
                entry["added_work_wall"] = wall
            on_clock = wall["median_us"] if wall else None
            entry["recovery"] = recovered(by_statistic, entry["added_work_us"], on_clock)
        if any("swap_routes" in run for run in runs):
            swapped = [run["swap_routes"] for run in runs]
            entry["swapped_runs"] = sum(1 for turned in swapped if turned is True)
            if kind == "aa":
                entry["route_effect"] = {
                    name: routes_read(
                        by_statistic[name], swapped, rule["delta"][DELTA_OF.get(name, name)]
                    )
                    for name in by_statistic
                }
        waits = {}
        for arm in ("a", "b"):
            wait_ms = pair[f"arm_{arm}"].get("max_wait_ms") or 0
            if wait_ms > 0 and (found_wait := overshoot_of(runs, arm, float(wait_ms))):
                waits[arm] = found_wait
        if waits:
            entry["overshoot"] = waits
        comparisons[pair["name"]] = entry
        names.append(pair["name"])
    return comparisons, names


def aa_of(names: list, comparisons: dict) -> dict:
    """{"aa": the A/A control the pages read, "aa_independent": the one in independent slices
    beside a twin one}, each when there is one."""
    found = {}
    aa = [name for name in names if comparisons[name]["kind"] == "aa"]
    twins = [name for name in aa if comparisons[name]["twin_slices"]]
    if aa:  # the pages read the twin-slices control when there is one
        found["aa"] = (twins or aa)[0]
    if twins and len(twins) < len(aa):
        found["aa_independent"] = next(n for n in aa if not comparisons[n]["twin_slices"])
    return found


def switchback_numbers(found: dict, folder: Path) -> dict:
    rule = found["rule"]
    comparisons, names = pairs_numbers(found["pairs"], found["runs"], rule)
    runs = found["runs"]
    loads = [run[key]["loadavg1"] for run in runs for key in ("load_before", "load_after")
             if isinstance(run.get(key), dict) and "loadavg1" in run[key]]  # fmt: skip
    others = [run["others_share"] for run in runs if run.get("others_share") is not None]
    load = {"loadavg_min": min(loads), "loadavg_max": max(loads)} if loads else {}
    if others:
        load.update(others_share_min=min(others), others_share_max=max(others))
    mine = {
        "date": found["date"],
        "cores": found["fingerprint"]["cores"],
        "cpu_model": found["fingerprint"]["cpu_model"],
        "cpu": found["cpu"],
        "smoke": bool(found["smoke"]),
        "rate_multiple": found["rate_multiple"],
        "arrival_rate": found["arrival_rate"],
        "saturation_S": found["saturation_S"],
        "window_s": found["window_s"],
        "slice_s": found["slice_s"],
        "runs": len(runs),
        "rule": {
            **{
                key: rule[key]
                for key in ("rule", "text", "confidence", "same_within_confidence", "delta")
            },
            "delta_share": {name: math.exp(value) - 1 for name, value in rule["delta"].items()},
        },  # fmt: skip
        "names": names,
        "comparisons": comparisons,
        "load": load,
    }
    measured = found.get("saturation_measured") or {}
    if "loops_throughput" in measured:
        mine["saturation_loops"] = measured["loops_throughput"]
        if found["saturation_S"] != statistics.median(measured["loops_throughput"]):
            raise Disagreement("bench/switchback: saturation_S is not the median of its loops")
    if "added_work_spin" in found:  # how the added work spun (a word, from the fifth bench)
        mine["added_work_spin"] = found["added_work_spin"]
    mine.update(aa_of(names, comparisons))
    if found.get("example") is not None:
        mine["example"] = example_numbers(found, folder)
    return mine


# --- the check --------------------------------------------------------------------------------


def folder_of(results: dict, given: Path | None) -> Path:
    if given is not None:
        return Path(given)
    named = Path(results["bench"]["dir"])
    return named if named.is_absolute() else ROOT / named


def check(results: dict, given: Path | None, checker, say) -> None:
    """Every benchmark number results.json shows, recomputed from its file in the folder."""
    if "bench" not in results:
        say("results.json shows no benchmarks (built without a bench folder)")
        return
    folder = folder_of(results, given)
    numbers = {
        "handler_trace": trace_numbers,
        "batcher": batcher_numbers,
        "switchback": lambda found: switchback_numbers(found, folder),
        "core_time": core_time_numbers,
        "ceiling": ceiling_numbers,
    }
    for name, file_name in FILES.items():
        path, shown = folder / file_name, name in results["bench"]
        if path.exists() != shown:
            raise Disagreement(
                f"bench/{name}: {path} {'exists' if path.exists() else 'does not exist'}, but "
                f"results.json {'shows' if shown else 'does not show'} it (rebuild the site)"
            )
        if not shown:
            say(f"no {file_name} in {folder}")
            continue
        content = path.read_bytes()
        if hashlib.sha256(content).hexdigest() != results["bench"][name]["sha256"]:
            raise Disagreement(f"bench/{name}: {path} changed since the build (its sha256)")
        mine = {"file": file_name, "sha256": results["bench"][name]["sha256"]}
        mine.update(numbers[name](json.loads(content)))
        before = checker.count
        compare(checker, results, ("bench", name), mine)
        say(f"{file_name}: {checker.count - before} values recomputed from the file's runs")
    checker.same("bench (its keys)", sorted(results["bench"]),
                 sorted(["dir", *(n for n in FILES if n in results["bench"])]))  # fmt: skip
