"""The report: recompute every published number from the raw files and compare.

A SEPARATE code path on purpose: it reads the run files itself (generator/report/runs.py, the
lab's codec decodes them), has its own percentile (integer nearest-rank), its own medians
(statistics.median) and its own figure formulas (generator/report/figures.py), and imports
nothing of the build's arithmetic, charts, pages or simulation (an import-linter contract in
pyproject.toml says so); the answers checked to the bit and the machinery are recounted by
answers.py, the machinery's benchmarks (data/bench/) recomputed from their runs by bench.py.
The simulator's published check (results.json `simulation` and assets/data/simulation.json)
is recomputed by simulation.py; the comparison with other full campaigns (every cell of
theirs from their own raw files) by compare.py; each published value is compared by
checker.py. It shares names, never formulas: setting names and rate keys
(lab/rawformat/names.py), and the campaign's own rules, guesses and names
(generator/reading/description.py). Counts and yes/no values must match exactly; floats
within checker.RELATIVE_TOLERANCE. Run:
`python -m generator report [--campaign NAME] [--raw data/raw] [--results FILE] [--bench DIR]`
Exit 0 when everything agrees, 1 naming the first disagreeing figure, 2 on unreadable data.
"""

import json
import math
from pathlib import Path

from generator.reading.metrics import CELL_ONLY
from generator.report import answers as report_answers
from generator.report import bench as report_bench
from generator.report import compare as report_compare
from generator.report import figures as report_figures
from generator.report import intervals as report_intervals
from generator.report import pictures as report_pictures
from generator.report import simulation as report_simulation
from generator.report import switchback as report_switchback
from generator.report.answers import published_at
from generator.report.checker import Checker, Disagreement
from generator.report.explorer import check_explorer
from generator.report.runs import load_campaign, middle, of_kind, part_b_cells, rank_percentile
from lab.rawformat import codec
from lab.rawformat.kinds import published_kinds
from lab.rawformat.names import rate_key, record_name


def check_missing(data, results, check, say):
    absent = sorted(e["run_id"] for e in data["schedule"] if e["run_id"] not in data["runs"])
    check.same("missing", sorted(m["run_id"] for m in results["missing"]), absent)
    # the kinds results.json has no section for are counted (lab/rawformat/kinds.py names them)
    others = {}
    for entry in data["schedule"]:
        if entry["kind"] not in published_kinds():
            others[entry["kind"]] = others.get(entry["kind"], 0) + 1
    check.same("other_kinds (its kinds)", sorted(results["other_kinds"]), sorted(others))
    for kind, count in others.items():
        check.dig(results, ("other_kinds", kind), count)
    say(
        f"runs: {len(data['schedule'])} scheduled, {len(absent)} missing"
        + (f" ({', '.join(absent[:5])}{' …' if len(absent) > 5 else ''})" if absent else "")
    )


def meets_quiet_rule(record: dict, rule: dict) -> bool:
    """The campaign's quiet rule on a run's quiet check, judged again from its last try: the
    measurement core idle enough over the rule's seconds, and the other cores too when the
    rule and the record have them."""
    other, other_share = rule["other_core_idle_share"], record.get("other_cores_idle_share")
    # A check before the run lasts the rule's seconds; one judged on the run's own core watch
    # (mode "watch") or spanning the service's start ("startup") lasts at least that long.
    spans = record.get("mode") in ("watch", "startup")
    return (
        (record["seconds"] >= rule["seconds"] if spans else record["seconds"] == rule["seconds"])
        and record["idle_share"] >= rule["idle_share"]
        and (other is None or other_share is None or other_share >= other)
    )


def quiet_runs(data: dict) -> int:
    rule = data["description"].quiet
    records = [meta["quiet"] for _, meta, _ in data["runs"].values() if meta.get("quiet")]
    return sum(meets_quiet_rule(record, rule) for record in records)


def check_quiet(data, results, check, say):
    records = [meta.get("quiet") for _, meta, _ in data["runs"].values() if meta.get("quiet")]
    quiet = quiet_runs(data)
    check.dig(results, ("quiet", "runs"), len(records))
    check.dig(results, ("quiet", "quiet_runs"), quiet)
    tries = max((r["tries"] for r in records), default=0)
    check.dig(results, ("quiet", "tries_max"), tries)
    metas = [meta for _, meta, _ in data["runs"].values()]
    before = [m["load_before"]["idle_share"] for m in metas if m.get("load_before")]
    loads = [m[k] for m in metas for k in ("load_before", "load_after") if m.get(k)]
    steal = max((x["steal_share"] for x in loads), default=None)
    busiest = max((x["loadavg"][0] for x in loads), default=None)
    others = [
        m["core_watch"]["others_share"]
        for m in metas
        if (m.get("core_watch") or {}).get("others_share") is not None
    ]
    check.dig(results, ("quiet", "watched_runs"), len(others))
    if others:
        check.dig(results, ("quiet", "others_share_max"), max(others))
        say(
            f"{len(others)} runs watched while they ran: at most {max(others):.1%} of the "
            "measurement core went to anything else"
        )
    if before:
        check.dig(results, ("quiet", "idle_share_min"), min(before))
        check.dig(results, ("quiet", "steal_share_max"), steal)
        check.dig(results, ("quiet", "loadavg_max"), busiest)
    say(f"{quiet} of {len(records)} runs met the campaign's quiet rule; most tries {tries}")
    if before:
        say(
            f"lowest idle share before a run {min(before):.0%}, most steal {steal:.1%}, "
            f"highest 1-minute load {busiest:.2f}"
        )


def check_speed_probe(data, results, check, say) -> dict:
    """The slow-run rule's decisions, judged again from the raw probes, against results.json:
    every attempt's slowness in the order they ran, each decision, the counts."""
    rule, verdicts = data["rule"], data["verdicts"]
    if rule is None:
        if "speed_probe" in results:
            raise Disagreement("speed_probe: published, but the campaign had no speed probe")
        say("no speed probe in this campaign: every run has one attempt")
        return {}
    judged = {run_id: v for run_id, v in verdicts.items() if v["judged"]}
    reruns = sum(len(v["slow"]) - 1 for v in judged.values())
    if reruns > rule["budget_runs"]:
        raise Disagreement(f"{reruns} re-runs, over the rule's budget of {rule['budget_runs']}")
    ran = sorted((at, run_id, index) for run_id, v in verdicts.items()
                 for index, at in enumerate(v["at"]))  # fmt: skip
    table = ("speed_probe", "attempts")
    check.dig(results, (*table, "run_id"), [run_id for _, run_id, _ in ran])
    check.dig(results, (*table, "attempt"), [index + 1 for _, _, index in ran])
    for moment in ("before", "after"):
        check.dig(results, (*table, moment), [verdicts[r][moment][i] for _, r, i in ran])
    decided = {run_id: v for run_id, v in judged.items() if True in v["slow"]}
    published = results["speed_probe"].get("decisions", {})
    check.same("speed_probe/decisions (runs)", sorted(published), sorted(decided))
    for run_id, verdict in decided.items():
        for key in ("slow", "chosen", "passed"):
            check.dig(results, ("speed_probe", "decisions", run_id, key), verdict[key])
    found = {
        "threshold": rule["threshold"],
        "runs_rerun": sum(len(v["slow"]) > 1 for v in judged.values()),
        "reruns": reruns,
        "slow_attempts": sum(v["slow"].count(True) for v in judged.values()),
        "never_passed": [run_id for run_id, v in judged.items() if not v["passed"]],
        "quiet_but_slow": sum(
            bool((meta.get("quiet") or {}).get("quiet")) and slow
            for run_id, v in judged.items()
            for meta, slow in zip(data["attempt_metas"][run_id], v["slow"], strict=True)
        ),
    }
    for key, value in found.items():
        if key != "threshold":
            check.dig(results, ("speed_probe", key), value)
    by_kind = {}
    for entry in data["schedule"]:
        if entry["run_id"] in found["never_passed"]:
            kind = by_kind.setdefault(entry["kind"], {"runs": 0, "rounds": set()})
            kind["runs"] += 1
            if "round" in entry:
                kind["rounds"].add(entry["round"] + 1)
    for kind, counted in by_kind.items():
        path = ("speed_probe", "never_passed_by_kind", kind)
        check.dig(results, (*path, "runs"), counted["runs"])
        check.dig(results, (*path, "rounds"), sorted(counted["rounds"]))
    published_kinds = sorted(results["speed_probe"].get("never_passed_by_kind", {}))
    check.same("speed_probe/never_passed_by_kind (kinds)", published_kinds, sorted(by_kind))
    check.dig(results, ("speed_probe", "rule", "threshold"), rule["threshold"])
    check.dig(results, ("speed_probe", "rule", "budget_runs"), rule["budget_runs"])
    for part, value in data["description"].speed_probe["reference"].items():
        check.dig(results, ("speed_probe", "reference", part), value)
    every = [x for v in verdicts.values() for x in v["before"] + v["after"] if x is not None]
    found["slowness_min"], found["slowness_max"] = min(every), max(every)
    check.dig(results, ("speed_probe", "slowness_max"), found["slowness_max"])
    check.dig(results, ("speed_probe", "slowness_min"), found["slowness_min"])
    say(
        f"{len(ran)} attempts of {len(verdicts)} runs probed; {found['slow_attempts']} slow "
        f"(a probe over {1 + rule['threshold']:g}× the reference); {found['runs_rerun']} runs "
        f"measured again ({reruns} re-runs, budget {rule['budget_runs']}); "
        f"{len(found['never_passed'])} never passed"
    )
    return found


def check_marks(data, results, check, say) -> None:
    """Every section that rests on a run which never passed the slow-run rule says so, and
    none says so of a run that passed."""
    never = {run_id for run_id, v in data["verdicts"].items() if v["judged"] and not v["passed"]}
    marked = {"part_a": [], "part_c": [], "saturation": [], "part_b": {}}
    for run_id in sorted(never):
        entry, meta, _ = data["runs"][run_id]
        if entry["kind"] == "part_b":
            key = (record_name(meta["setting"]), rate_key(meta["rate_multiple"]))
            marked["part_b"].setdefault(key, []).append(meta["round"])
        else:
            marked[entry["kind"]].append(run_id)
    if "part_a" in results:
        indexes = sorted(data["runs"][r][1]["run_index"] for r in marked["part_a"])
        check.same("part_a/never_passed_runs", results["part_a"].get("never_passed_runs", []),
                   indexes)  # fmt: skip
    if "part_c" in results:
        check.same("part_c/never_passed_runs", results["part_c"].get("never_passed_runs", []),
                   sorted(marked["part_c"]))  # fmt: skip
    for index, run in enumerate(results.get("saturation", {}).get("runs", [])):
        check.same(f"saturation/runs/{index}/never_passed", run.get("never_passed", False),
                   run["run_id"] in marked["saturation"])  # fmt: skip
    for name, setting in results.get("part_b", {}).get("settings", {}).items():
        for rate, cell in setting["rates"].items():
            check.same(f"part_b/settings/{name}/rates/{rate}/never_passed_rounds",
                       cell.get("never_passed_rounds", []),
                       sorted(marked["part_b"].get((name, rate), [])))  # fmt: skip
    if data["rule"] is None:
        say("no slow-run rule in this campaign")
        return
    say(f"{len(never)} runs never passed the slow-run rule; every section resting on one says so"
        if never else "every run judged by the slow-run rule passed it")  # fmt: skip


def check_part_a(data, results, check, say):
    runs = sorted(of_kind(data, "part_a"), key=lambda run: run[1]["run_index"])
    if not runs:
        return {}, {}
    per_call, per_run = {}, {}
    for size in sorted({int(s) for _, _, cols in runs for s in set(cols["size"].tolist())}):
        medians = [
            middle(cols["call_ns"][cols["size"] == size].tolist()) / 1e3
            for _, _, cols in runs
            if (cols["size"] == size).any()
        ]
        per_call[size], per_run[size] = middle(medians), medians
        check.dig(results, ("part_a", "by_size", str(size), "per_call_us"), per_call[size])
        check.dig(results, ("part_a", "by_size", str(size), "per_row_us"), per_call[size] / size)
    say(
        f"{len(runs)} runs; per call: "
        + ", ".join(f"{s} rows {per_call[s]:,.1f} µs" for s in per_call if s in (1, 32, 1024))
    )
    return per_call, per_run


def check_bits(data, results, check, say):
    runs = of_kind(data, "bits")
    if not runs:
        return {}
    table = runs[-1][1]["results"]
    scores = sum(v["scores"] for v in table.values())
    equal = sum(v["equal"] for v in table.values())
    check.dig(results, ("bits", "scores"), scores)
    check.dig(results, ("bits", "equal"), equal)
    say(f"{equal:,} of {scores:,} scores equal to the bit")
    return {"scores": scores, "equal": equal}


def client_cpu(data) -> float | None:
    """The closed-loop client's CPU µs per request, median of the S runs (the simulator's
    calibration reads it); None when a run did not record it."""
    found = [
        meta["stats"].get("client_cpu_us_per_request") for _, meta, _ in of_kind(data, "saturation")
    ]
    return middle(found) if found and None not in found else None


def check_saturation(data, results, check, say):
    values = [meta["stats"]["throughput"] for _, meta, _ in of_kind(data, "saturation")]
    if not values:
        return {}
    s = {"S": middle(values), "S_min": min(values), "S_max": max(values)}
    for key, value in s.items():
        check.dig(results, ("saturation", key), value)
    client = client_cpu(data)
    if client is not None:
        check.dig(results, ("saturation", "client_cpu_us_per_request"), client)
    say(f"S = {s['S']:,.1f} answers/s (runs {s['S_min']:,.1f} – {s['S_max']:,.1f})")
    return s


def check_part_b(data, results, check, say):
    cells = part_b_cells(data)
    check.dig(results, ("design", "keeps_up_share"), data["description"].keeps_up_share)
    for (name, rate), cell in sorted(cells.items()):
        path = ("part_b", "settings", name, "rates", rate)
        rounds = sorted(cell["rounds"])
        check.dig(results, (*path, "rounds"), rounds)
        for metric in sorted({m for run in cell["rounds"].values() for m in run}):
            values = [cell["rounds"][r].get(metric) for r in rounds]
            for index, value in enumerate(values):
                if value is not None and metric not in CELL_ONLY:
                    check.dig(results, (*path, "by_round", metric, index), value)
            present = [v for v in values if v is not None]
            if metric != "keeps_up" and present:
                check.dig(results, (*path, metric), middle(present))
        kept = len(rounds) == len(cell["scheduled"]) and all(
            cell["rounds"][r]["keeps_up"] for r in rounds
        )
        check.dig(results, (*path, "keeps_up"), bool(rounds) and kept)
        if cell["batch_buckets"]:
            for label, count in cell["batch_buckets"].items():
                check.dig(results, (*path, "batch_sizes", label), count)
    say(
        f"{sum(len(c['rounds']) for c in cells.values())} runs in {len(cells)} cells "
        "(setting × rate)"
    )
    return cells


def signed(a: float, b: float):
    """a - b with infinities; both infinite -> None."""
    if math.isinf(a) and math.isinf(b):
        return None
    return a - b


# --- the interval rule (issue 28): a campaign that ran under it ---------------------------------

DELTA_OF = {"p50_ms": "p50", "p99_ms": "p99", "throughput": "throughput"}
IN_US = ("p50_ms", "p99_ms")


def own_log_ratios(mine: dict, base: dict, rounds: list, metric: str) -> list | None:
    """ln(setting) − ln(baseline) per round; None when a value is not finite and positive."""
    found = []
    for r in rounds:
        a, b = mine[r][metric], base[r][metric]
        if a is None or b is None or not (0 < a < math.inf and 0 < b < math.inf):
            return None
        found.append(math.log(a / b))
    return found


def check_interval(
    check, results, path: tuple, mine: dict, base: dict, metric: str, rule: dict
) -> bool:
    """One paired diff judged by the interval rule: its verdict, direction and interval
    (report_intervals), the level in µs the baseline cell's median of its rounds. Returns
    whether the rule, recomputed here, tells the two apart."""
    both = sorted(set(mine) & set(base))
    d = own_log_ratios(mine, base, both, metric) if both else None
    shown = published_at(results, path)
    if not isinstance(shown, dict) or "interval" not in shown or "verdict" not in shown:
        raise Disagreement(f"{'/'.join(path)}: no verdict or interval under the interval rule")
    if d is None:
        check.dig(results, (*path, "interval"), None)
        check.dig(results, (*path, "verdict"), report_intervals.WORDS[2])
        return False
    interval = shown["interval"] if isinstance(shown["interval"], dict) else {}
    problems = report_intervals.check(
        d, interval, rule["delta"][DELTA_OF[metric]], "/".join((*path, "interval"))
    )
    if problems:
        raise Disagreement(problems[0])
    check.count += 1
    present = [base[r][metric] for r in base if base[r][metric] is not None]
    level = middle(present) if present else math.inf
    if metric in IN_US and math.isfinite(level):
        check.dig(results, (*path, "interval", "level_us"), level * 1000)
    else:
        check.same(
            "/".join((*path, "interval", "level_us (absent)")), "level_us" in interval, False
        )
    verdict = report_intervals.recompute(d, rule["delta"][DELTA_OF[metric]])
    check.dig(results, (*path, "verdict"), verdict["verdict"])
    apart = verdict["verdict"] == report_intervals.WORDS[0]
    if apart:
        check.dig(results, (*path, "direction"), "higher" if verdict["low95"] > 0 else "lower")
    return apart


def interval_rule(data: dict) -> dict | None:
    """The campaign's interval rule, as its own description states it (never results.json's
    word for it), or None under the rounds rule."""
    described = data["description"]
    return described.told_apart if described.interval_rule else None


def check_paired(cells, results, check, say, rule: dict | None = None):
    """Every published paired difference and told-apart verdict, recomputed; under the
    interval rule (`rule`, the campaign's told_apart) each verdict and interval."""
    rounds_needed = max((len(c["scheduled"]) for c in cells.values()), default=0)
    verdicts = 0
    for name, baselines in results.get("paired", {}).items():
        for baseline, rates in baselines.items():
            for rate, metrics in rates.items():
                mine, base = cells[(name, rate)]["rounds"], cells[(baseline, rate)]["rounds"]
                both = sorted(set(mine) & set(base))
                for metric in metrics:
                    diffs = [signed(mine[r][metric], base[r][metric]) for r in both]
                    path = ("paired", name, baseline, rate, metric)
                    for index, diff in enumerate(diffs):
                        if diff is not None:
                            check.dig(results, (*path, "diffs", index), diff)
                    defined = [d for d in diffs if d is not None]
                    if defined:
                        check.dig(results, (*path, "median"), middle(defined))
                    if rule is not None:
                        apart = check_interval(check, results, path, mine, base, metric, rule)
                    else:
                        signs = {0 if d is None or d == 0 else math.copysign(1, d) for d in diffs}
                        apart = len(both) == rounds_needed and len(signs) == 1 and 0 not in signs
                    check.dig(results, (*path, "told_apart"), apart)
                    verdicts += 1
    rule_name = "the interval rule" if rule is not None else "all rounds agree in sign"
    say(f"{verdicts} paired comparisons, each with its told-apart verdict ({rule_name})")


def check_waits(cells, results, check, say, quiet: str):
    """The waits table: each queue setting's first wait at the quiet rate against W, over all
    batches and over the batches that did not fill."""
    if "waits" not in results:
        return
    check.dig(results, ("waits", "rate"), quiet)
    found = {}
    for (name, rate), cell in sorted(cells.items()):
        first = [run["first_wait_us_p50"] for run in cell["rounds"].values()
                 if run.get("first_wait_us_p50") is not None]  # fmt: skip
        if rate != quiet or cell["batcher"] != "queue" or not first:
            continue
        path, wait_us = ("waits", "by_setting", name), middle(first)
        check.dig(results, (*path, "first_wait_ms"), wait_us / 1000)
        check.dig(results, (*path, "overshoot_us"), wait_us - cell["wait_ms"] * 1000)
        short = [run["first_wait_unfilled_us_p50"] for run in cell["rounds"].values()
                 if run.get("first_wait_unfilled_us_p50") is not None]  # fmt: skip
        if short:
            check.dig(results, (*path, "first_wait_unfilled_ms"), middle(short) / 1000)
            over = middle(short) - cell["wait_ms"] * 1000
            check.dig(results, (*path, "overshoot_unfilled_us"), over)
            found[name] = over
    check.same("waits settings", sorted(results["waits"]["by_setting"]),
               sorted(n for (n, r), c in cells.items() if r == quiet and c["batcher"] == "queue"
                      and any(run.get("first_wait_us_p50") is not None
                              for run in c["rounds"].values())))  # fmt: skip
    timed = [over for name, over in found.items() if cells[(name, quiet)]["wait_ms"] > 0]
    if timed:
        say(
            f"{len(found)} settings; batches that did not fill waited {min(timed):,.0f} to "
            f"{max(timed):,.0f} µs over W (median of rounds)"
        )


def ranking(cell: dict, order: list, name: str) -> tuple:
    """Median p99 of the rounds, then median p50, then the design's order."""
    runs = cell["rounds"].values()
    return (
        middle([r["p99_ms"] for r in runs]),
        middle([r["p50_ms"] for r in runs]),
        order.index(name),
    )


def check_best(cells, results, check, say, rule: dict | None = None):
    """Per rate, the best setting among those that kept up (lowest median p99, then p50,
    then design order) and the runner-up, compared round by round (under the interval rule,
    `rule`, by its verdict)."""
    order = results["design"]["settings"]
    needed = max((len(c["scheduled"]) for c in cells.values()), default=0)
    rates = sorted({rate for _, rate in cells}, key=float)
    published = results.get("best", {}).get("by_rate", {})
    mine = {}
    for rate in rates:
        kept = [n for n in order if (n, rate) in cells and report_figures.kept(cells[(n, rate)])]
        if not kept:
            continue
        ranked = sorted(kept, key=lambda name, at=rate: ranking(cells[(name, at)], order, name))
        mine[rate] = ranked[0]
        path = ("best", "by_rate", rate)
        check.dig(results, (*path, "kept_up"), kept)
        check.dig(results, (*path, "best"), ranked[0])
        if len(ranked) > 1:
            check.dig(results, (*path, "runner_up"), ranked[1])
            for metric in ("p99_ms", "p50_ms"):
                a, b = cells[(ranked[0], rate)]["rounds"], cells[(ranked[1], rate)]["rounds"]
                both = sorted(set(a) & set(b))
                diffs = [signed(a[r][metric], b[r][metric]) for r in both]
                for index, diff in enumerate(diffs):
                    if diff is not None:
                        check.dig(results, (*path, "versus", metric, "diffs", index), diff)
                if rule is not None:
                    where = (*path, "versus", metric)
                    apart = check_interval(check, results, where, a, b, metric, rule)
                else:
                    signs = {0 if d is None or d == 0 else math.copysign(1, d) for d in diffs}
                    apart = len(both) == needed and len(signs) == 1 and 0 not in signs
                check.dig(results, (*path, "versus", metric, "told_apart"), apart)
    check.same("best: rates with a setting that kept up", sorted(published), sorted(mine))
    say("; ".join(f"{rate} × S: {name}" for rate, name in mine.items()) or "no setting kept up")


# --- Part C: own arithmetic on the method and breakdown tables ------------------------------

ROUTE_OF = {"single": "predict", "batch": "predict_batch"}


def own_aligned(exchange: dict) -> bool:
    """The alignment rule, written again: every slot in its input's place, same id, and a
    score for a valid record, an error for anything else."""
    sent = json.loads(exchange["request_body"])["records"]
    got = json.loads(exchange["response_body"])["predictions"]
    if exchange["status"] != 200 or len(sent) != len(got):
        return False
    kinds = exchange["record_kinds"]
    if len(kinds) != len(sent):
        return False
    for index, kind in enumerate(kinds):
        slot = got[index]
        if slot["customer_id"] != sent[index]["customer_id"]:
            return False
        has_score = type(slot["probability"]) is float and slot["error"] is None
        has_error = slot["probability"] is None and type(slot["error"]) is dict
        if has_score == has_error or has_score != (kind == "valid"):
            return False
    return True


def part_c_walls(runs: list) -> tuple[dict, int]:
    """{method key: [wall ms per run]} and N, from the method tables."""
    walls = {}
    for _, _, columns in runs:
        for chunk, wall in zip(
            columns["method_chunk"].tolist(), columns["method_wall_ns"].tolist(), strict=True
        ):
            walls.setdefault("loop" if chunk == 0 else str(chunk), []).append(wall / 1e6)
    return walls, int(runs[0][1]["records"])


def part_c_stage(runs: list, route: str, stage: str) -> float:
    medians = []
    for _, _, columns in runs:
        chosen = [
            value
            for name, value in zip(
                columns["breakdown_route"].tolist(),
                columns[f"breakdown_{stage}_us"].tolist(),
                strict=True,
            )
            if name == route
        ]
        medians.append(middle(chosen))
    return middle(medians)


def check_part_c(data, results, check, say):
    stages_of = data["description"].stages
    runs = sorted(of_kind(data, "part_c"), key=lambda run: run[1]["run_index"])
    if not runs:
        return {}
    walls, records = part_c_walls(runs)
    loop = middle(walls["loop"])
    found = {"records": records, "per_record_us": {}, "speedup": {}, "share": {}}
    for key, values in walls.items():
        path = ("part_c", "by_method", key)
        check.dig(results, (*path, "wall_ms_runs"), values)
        found["per_record_us"][key] = middle(values) * 1000 / records
        check.dig(results, (*path, "per_record_us"), found["per_record_us"][key])
        found["speedup"][key] = loop / middle(values)
        check.dig(results, (*path, "speedup"), found["speedup"][key])
    wrong = sum(int(c["method_mismatches"].sum()) for _, _, c in runs)
    lost = sum(int(c["method_errors"].sum()) for _, _, c in runs)
    check.dig(results, ("part_c", "bits", "mismatches"), wrong)
    check.dig(results, ("part_c", "bits", "errors"), lost)
    stage_us = {}
    for side, route in ROUTE_OF.items():
        stages = stages_of[route]
        check.dig(results, ("part_c", "breakdown", side, "stages"), list(stages))
        stage_us[side] = {stage: part_c_stage(runs, route, stage)
                          for stage in (*stages, "outside", "round_trip")}  # fmt: skip
        for stage, value in stage_us[side].items():
            check.dig(results, ("part_c", "breakdown", side, f"{stage}_us"), value)
        trips = [value for _, _, columns in runs
                 for name, value in zip(columns["breakdown_route"].tolist(),
                                        columns["breakdown_round_trip_us"].tolist(), strict=True)
                 if name == route]  # fmt: skip
        for q in (50, 99):
            check.dig(results, ("part_c", "breakdown", side, f"round_trip_us_p{q}"),
                      rank_percentile(trips, q))  # fmt: skip
        share = stage_us[side]["model"] / stage_us[side]["round_trip"]
        found["share"][side] = share
        check.dig(results, ("part_c", "breakdown", side, "model_share"), share)
    recorded = runs[-1][1]["example_exchange"]
    for key in ("request_body", "response_body", "status"):
        check.dig(results, ("part_c", "example", key), recorded[key])
    found["aligned"] = own_aligned(recorded)
    check.dig(results, ("part_c", "example", "aligned"), found["aligned"])
    inprocess = sum(
        meta["bits"]["inprocess"][key]
        for _, meta, _ in runs
        for key in ("all_at_once_mismatches", "single_row_mismatches")
    )
    found["all_equal"] = wrong == 0 and lost == 0 and inprocess == 0
    check.dig(results, ("part_c", "bits", "all_equal"), found["all_equal"])
    found["single"], found["batch"] = stage_us["single"], stage_us["batch"]
    say(
        f"{len(runs)} runs of {records:,} records: loop {found['per_record_us']['loop']:,.1f} "
        f"µs per record; model {share:.0%} of a batch call, "
        f"{found['share']['single']:.0%} of a /predict call; exchange aligned: "
        f"{found['aligned']}"
    )
    return found


def check_figures(data, results, check, say, sources):
    computed = report_figures.compute(sources)
    published = results.get("figures", {})
    for name in sorted(set(published) | set(computed)):
        if name not in computed:
            raise Disagreement(f"figure {name}: published, but the raw data does not give it")
        if name not in published:
            raise Disagreement(
                f"figure {name}: the raw data gives {computed[name]!r}, "
                "but results.json does not publish it"
            )
        check.same(f"figure {name}", published[name]["value"], computed[name])
    say(f"{len(computed)} named figures")
    return computed


GUESS_KEYS = ("id", "date", "text", "figure", "compare", "unit", "low", "high", "value")


def check_guesses(data, results, figures, check, say):
    """The guesses published are the campaign's own, word for word, each with its verdict."""
    described = data["description"]
    written = described.guesses
    check.same("guesses", [g["id"] for g in results.get("guesses", [])], [g["id"] for g in written])
    for index, guess in enumerate(written):
        for key in GUESS_KEYS:
            if key in guess:
                check.dig(results, ("guesses", index, key), guess[key])
    say(f"{len(written)} guesses, as the campaign wrote them at {described.guesses_commit[:12]}")
    for index, guess in enumerate(results.get("guesses", [])):
        unit = results["figures"].get(guess["figure"], {}).get("unit")
        value = report_figures.in_unit(figures.get(guess["figure"]), unit, guess)
        verdict = (
            "not testable"
            if value is None or report_figures.past_top_rate(value, unit, guess, figures)
            else ("right" if report_figures.holds(value, guess) else "wrong")
        )
        if verdict != "not testable" and report_figures.needs_unresolved_difference(
            guess, unit, figures
        ):
            verdict = "not resolved"
        check.same(f"guess {guess['id']} verdict", guess["verdict"], verdict)
        if value is not None:
            check.dig(results, ("guesses", index, "measured"), value)
        say(
            f"{guess['id']}: {verdict}"
            + ("" if value is None else f" (measured {value:,.4g} {guess['unit']})")
        )


def run_checks(
    raw: Path, campaign: str | None, results: dict, echo=print, bench: Path | None = None
) -> int:
    """Every check, in reading order; raises Disagreement on the first that fails. `bench`:
    the benchmarks' folder (default: the one results.json names)."""
    data = load_campaign(raw, campaign, results)
    check = Checker()

    def section(title):
        echo(f"\n== {title}")
        return lambda line: echo(f"   {line}")

    check_missing(data, results, check, section("runs"))
    speed = check_speed_probe(data, results, check, section("speed probe and slow runs"))
    check_quiet(data, results, check, section("quiet check"))
    sources = {
        "info": data["info"],
        "rates": (data["description"].quiet_rate, data["description"].busy_rate),
        "missing": len(data["schedule"]) - len(data["runs"]),
        "quiet_runs": quiet_runs(data),
        "speed": speed,
    }
    sources["part_a"], sources["part_a_runs"] = check_part_a(
        data, results, check, section("Part A")
    )
    sources["bits"] = check_bits(data, results, check, section("bits"))
    sources["saturation"] = check_saturation(data, results, check, section("S"))
    sources["cells"] = check_part_b(data, results, check, section("Part B"))
    rule = sources["rule"] = interval_rule(data)
    check_told_apart_rule(data, results, check)
    check_paired(sources["cells"], results, check, section("paired differences"), rule)
    check_waits(sources["cells"], results, check, section("waits"), sources["rates"][0])
    check_best(
        sources["cells"], results, check, section("best setting among those that kept up"), rule
    )
    report_compare.check(
        raw, sources["cells"], results.get("comparison"), check, section("the other campaigns")
    )
    report_pictures.check(data, results, check, section("pictures"))
    sources["part_c"] = check_part_c(data, results, check, section("Part C, the batch route"))
    # issue 14: every answer checked to the bit, the machinery, the machinery's benchmarks
    sources["answers"] = report_answers.check(
        of_kind(data, "part_b"), data["info"], results, check, section("every answer, to the bit")
    )
    report_bench.check(results, bench, check, section("the machinery's benchmarks"))
    sources.update(
        report_switchback.check(
            data, Path(raw) / data["name"], results, check, section("switchback runs, footprint")
        )
    )
    check_marks(data, results, check, section("runs that never passed the slow-run rule"))
    sources["client_cpu_us_per_request"] = client_cpu(data)
    report_simulation.check(data, results, check, section("the simulator, checked"), sources)
    figures = check_figures(data, results, check, section("figures"), sources)
    check_guesses(data, results, figures, check, section("guesses"))
    problems = check_explorer(results, section("explorer"))
    if problems:
        raise Disagreement(problems[0])
    return check.count


def check_told_apart_rule(data: dict, results: dict, check) -> None:
    """results.json names the interval rule (design.told_apart, without its table's name)
    exactly when the campaign's description does, with the description's levels and δ."""
    described = data["description"]
    shown = results.get("design", {}).get("told_apart")
    if not described.interval_rule:
        check.same("design/told_apart (absent under the rounds rule)", shown is None, True)
        return
    if not isinstance(shown, dict):
        raise Disagreement(
            "design/told_apart: missing, but the campaign ran under the interval rule"
        )
    compared = {key: value for key, value in shown.items() if key != "table"}
    mine = dict(described.told_apart)
    mine["delta_share"] = {name: math.exp(value) - 1 for name, value in mine["delta"].items()}
    check.same("design/told_apart (its keys)", sorted(compared), sorted(mine))
    for key, value in mine.items():
        if isinstance(value, dict):
            for name, inner in value.items():
                check.dig(results, ("design", "told_apart", key, name), inner)
        else:
            check.dig(results, ("design", "told_apart", key), value)


def intervals_inline(results: dict) -> bool:
    """Whether the grid's intervals were read in already (a copy written back whole, as the
    tests' altered results are, carries them inline and names a table that is not beside it)."""
    return any(
        "interval" in diff
        for baselines in (results.get("paired") or {}).values()
        for rates in baselines.values()
        for metrics in rates.values()
        for diff in metrics.values()
        if isinstance(diff, dict)
    )


def with_table(results: dict, results_path: Path) -> dict:
    """results.json with the tables published beside it read back in, as the pages and charts
    saw them: the simulator's per-cell table (`simulation.table`) into `simulation.settings`,
    the speed probe's attempts and decisions (`speed_probe.attempts_table`) into `speed_probe`,
    the grid's intervals under the interval rule (`design.told_apart.table`) into each paired
    diff's and each best-versus diff's `interval`."""
    section = results.get("simulation") or {}
    if section.get("table") and "settings" not in section:
        table = json.loads((results_path.parent / section["table"]).read_text())
        results["simulation"] = dict(section, settings=table["settings"])
    speed = results.get("speed_probe") or {}
    if speed.get("attempts_table"):
        table = json.loads((results_path.parent / speed["attempts_table"]).read_text())
        kept = {key: value for key, value in speed.items() if key != "attempts_table"}
        results["speed_probe"] = dict(kept, **table)
    told_apart = (results.get("design") or {}).get("told_apart") or {}
    if told_apart.get("table") and not intervals_inline(results):
        table = json.loads((results_path.parent / told_apart["table"]).read_text())
        for name, baselines in table.get("paired", {}).items():
            for baseline, rates in baselines.items():
                for rate, metrics in rates.items():
                    for metric, interval in metrics.items():
                        diff = results["paired"][name][baseline][rate][metric]
                        diff["interval"] = interval
        for rate, metrics in table.get("best", {}).items():
            for metric, interval in metrics.items():
                results["best"]["by_rate"][rate]["versus"][metric]["interval"] = interval
    example = ((results.get("bench") or {}).get("switchback") or {}).get("example") or {}
    if example.get("table"):
        table = json.loads((results_path.parent / example["table"]).read_text())
        kept = {key: value for key, value in example.items() if key != "table"}
        results["bench"]["switchback"]["example"] = dict(kept, **table)
    return results


def main(raw: Path, campaign: str | None, results_path: Path, bench: Path | None = None) -> int:
    try:
        results = with_table(json.loads(Path(results_path).read_text()), Path(results_path))
        results = report_compare.with_whole(results, Path(results_path))
    except (OSError, ValueError) as error:
        print(f"report: cannot read {results_path} ({error}); run `python -m generator build`")
        return 2
    try:
        count = run_checks(Path(raw), campaign, results, bench=bench)
    except (Disagreement, report_simulation.SimulationDisagreement) as error:
        print(f"\nDISAGREES: {error}")
        return 1
    except (OSError, KeyError, ValueError, codec.RawFileError) as error:
        print(f"\nreport: cannot recompute ({type(error).__name__}: {error})")
        return 2
    print(f"\nall {count:,} published numbers agree with the raw data")
    return 0
