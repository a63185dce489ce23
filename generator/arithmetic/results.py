"""Build the results dict (results.json) of one campaign from its raw run files.

Reads each run once, summarises it with generator.arithmetic.stats, and assembles the sections
described in generator/SCHEMA.md: campaign, design, methods, missing, quiet, part_a, bits,
saturation, part_b, paired, best, waits, part_c, switchback and footprint
(generator/arithmetic/switchback_runs.py), pictures (generator/arithmetic/pictures.py),
answer_check (generator/arithmetic/answer_check.py), machinery (generator/arithmetic/machinery.py),
speed_probe, figures, guesses. Of a run the slow-run rule measured again, the attempt it chose is
the one read (generator/arithmetic/attempts.py). The keeps-up share, the quiet rate, the stage names
and the guesses are the campaign's own (campaign.description); names of settings and rates come from
lab/rawformat/names.py. Run through `python -m generator build`.
"""

import json
import math

import numpy as np

from generator.arithmetic import (
    answer_check,
    attempts,
    figures,
    grid_verdicts,
    intervals,
    machinery,
    pictures,
    stats,
    switchback_runs,
    verdicts,
)
from generator.reading.load import Campaign, DataError, need, read_meta, read_run
from generator.reading.metrics import SERVICE_CPU
from lab.rawformat.kinds import published_kinds
from lab.rawformat.names import NONE, rate_key, record_name, setting_name

SCHEMA_VERSION = 1
PUBLISHED_KINDS = published_kinds()  # lab/rawformat/kinds.py


def setting_record(entry: dict, where) -> dict:
    raw = need(entry, "setting", where)
    record = {
        "batcher": need(raw, "batcher", where),
        "max_batch": int(raw.get("max_batch") or 0),
        "max_wait_ms": float(raw.get("max_wait_ms") or 0.0),
    }
    record["name"] = record_name(record)
    return record


def setting_order(record: dict) -> tuple:
    return (record["batcher"] != NONE, record["max_batch"], record["max_wait_ms"])


# --- campaign, design, missing ----------------------------------------------------


def campaign_section(campaign: Campaign) -> dict:
    info = campaign.info
    return {
        "name": campaign.name,
        "profile": info["profile"],
        "chosen": campaign.chosen,
        "complete": campaign.complete,
        "runs_scheduled": len(campaign.schedule),
        "runs_found": len(campaign.schedule) - len(campaign.missing),
        "started_at": info.get("started_at"),
        "seed": info.get("seed"),
        "git_commit": info.get("git_commit"),
        "machine": {"cpu": info.get("cpu"), "fingerprint": info.get("fingerprint")},
        "model": info.get("model"),
    }


def design_section(campaign: Campaign) -> dict:
    where = campaign.path / "schedule.json"
    part_b = campaign.scheduled("part_b")
    records = {}
    for entry in part_b:
        record = setting_record(entry, where)
        records[record["name"]] = record
    ordered = sorted(records.values(), key=setting_order)
    rates = sorted({float(need(e, "rate_multiple", where)) for e in part_b})
    rounds = sorted({int(need(e, "round", where)) for e in part_b})
    design = campaign.info["design"]
    section = {
        "settings": [r["name"] for r in ordered],
        "setting": records,
        "rate_multiples": [rate_key(r) for r in rates],
        "rounds": len(rounds),
        "window_s": design.get("window_s"),
        "keeps_up_share": campaign.description.keeps_up_share,
        "recorded": design,
    }
    if campaign.description.interval_rule:  # issue 28: the rule, for the pages to name
        rule = campaign.description.told_apart
        section["told_apart"] = dict(rule, delta_share=intervals.delta_shares(rule["delta"]))
    return section


def missing_section(campaign: Campaign) -> list[dict]:
    where = campaign.path / "schedule.json"
    missing = []
    for entry in campaign.missing:
        record = {
            "run_id": entry["run_id"],
            "kind": entry["kind"],
            "reason": campaign.reason(entry["run_id"]),
        }
        if entry["kind"] == "part_b":
            record["setting"] = setting_record(entry, where)["name"]
            record["rate_multiple"] = rate_key(need(entry, "rate_multiple", where))
            record["round"] = int(need(entry, "round", where))
        missing.append(record)
    return missing


# --- reading runs by kind ----------------------------------------------------------


def present_runs(campaign: Campaign, kind: str):
    """(schedule entry, path) of the kind's runs that have a file, in schedule order."""
    for entry in campaign.scheduled(kind):
        path = campaign.files.get(entry["run_id"])
        if path is not None:
            yield entry, path


def quiet_record(meta: dict) -> dict:
    return {
        "run_id": meta["run_id"],
        "quiet": meta.get("quiet"),
        "core_watch": meta.get("core_watch"),
        "load_before": meta.get("load_before"),
        "load_after": meta.get("load_after"),
    }


def never_passed(campaign: Campaign) -> set:
    """Run ids whose every attempt was slow under the campaign's slow-run rule (kept, marked)."""
    return set((campaign.speed or {}).get("never_passed", ()))


def part_a_section(campaign: Campaign, quiet: list) -> dict | None:
    runs, calls_per_size, marked = [], set(), []
    for entry, path in present_runs(campaign, "part_a"):
        meta, columns = read_run(path, "part_a")
        if columns["size"].size == 0:
            raise DataError(f"{path}: no timed calls in the run (columns are empty)")
        quiet.append(quiet_record(meta))
        runs.append((int(meta["run_index"]), columns["size"], columns["call_ns"]))
        calls_per_size.add(int(meta["calls_per_size"]))
        if entry["run_id"] in never_passed(campaign):
            marked.append(int(meta["run_index"]))
    if not runs:
        return None
    runs.sort(key=lambda run: run[0])
    section = stats.part_a([(size, call_ns) for _, size, call_ns in runs])
    section.update(runs=len(runs), calls_per_size=max(calls_per_size))
    if marked:
        section["never_passed_runs"] = sorted(marked)
    return section


def bits_section(campaign: Campaign, quiet: list) -> dict | None:
    found = list(present_runs(campaign, "bits"))
    if not found:
        return None
    path = found[-1][1]
    meta, _ = read_run(path, "bits")
    quiet.append(quiet_record(meta))
    results = meta["results"]
    for key in results:
        for name in ("scores", "equal", "max_abs_diff"):
            need(results[key], name, f"{path} results.{key}")
    section = stats.bits(results)
    section.update(
        rows=meta["rows"],
        sizes=meta["sizes"],
        by_size={
            key: {name: results[key][name] for name in ("scores", "equal", "max_abs_diff")}
            for key in results
        },
    )
    return section


def saturation_section(campaign: Campaign, quiet: list) -> dict | None:
    runs, meta, client_cpu = [], None, []
    for _, path in present_runs(campaign, "saturation"):
        meta, _ = read_run(path, "saturation")
        quiet.append(quiet_record(meta))
        client_cpu.append(meta["stats"].get("client_cpu_us_per_request"))
        record = {"run_id": meta["run_id"], "run_index": int(meta["run_index"])}
        record.update({name: meta["stats"][name] for name in ("throughput", "answers", "errors")})
        if meta["run_id"] in never_passed(campaign):
            record["never_passed"] = True
        runs.append(record)
    if not runs:
        return None
    runs.sort(key=lambda run: run["run_index"])
    section = stats.saturation(runs)
    section.update(runs=runs, connections=meta["connections"], counted_s=meta["counted_s"])
    if all(cpu_us is not None for cpu_us in client_cpu):  # older campaigns did not record it
        section["client_cpu_us_per_request"] = stats.median(client_cpu)
    return section


# One run file's summary, kept while the process lives (mkdocs serve rebuilds often); keyed
# by path, modification time and size, so a changed file is read again.
RUN_SUMMARIES: dict = {}


def client_cpu_of(meta: dict, path) -> float | None:
    """The open-loop client's CPU time per request (µs) a Part B run recorded; None when it
    did not (older clients)."""
    value = (meta.get("client") or {}).get("client_cpu_us_per_request")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise DataError(
            f"{path}: field 'client.client_cpu_us_per_request' must be a number ≥ 0, not {value!r}"
        )
    return float(value)


def service_cpu_of(meta: dict, answered: int, path) -> float | None:
    """The service's CPU time per answer (µs) over the client's run, from the run's
    `core_watch.service_cpu_s` (the watch spans the window and the drain, as the answers
    do); None when the run recorded no watch or answered nothing."""
    value = (meta.get("core_watch") or {}).get("service_cpu_s")
    if value is None or not answered:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise DataError(
            f"{path}: field 'core_watch.service_cpu_s' must be a number ≥ 0, not {value!r}"
        )
    return float(value) * 1e6 / answered


def part_b_summary(path, keeps_up_share: float) -> tuple[dict, dict, dict]:
    """(quiet record, setting record and meta keys, per-run metrics) of one Part B file."""
    status = path.stat()
    key = (str(path), status.st_mtime_ns, status.st_size, keeps_up_share)
    if key not in RUN_SUMMARIES:
        meta, columns = read_run(path, "part_b")
        if columns["status"].size == 0:
            raise DataError(f"{path}: no requests in the run (columns are empty)")
        setting = setting_record(meta, path)
        # format 4: the send lag's p99 is the run's own figure (read_run checked it is there)
        lag = None if "send_lag_us" in columns else float(need(meta, "send_lag_us_p99", path))
        metrics = stats.part_b_run(
            columns,
            float(meta["window_s"]),
            setting["batcher"],
            keeps_up_share,
            setting["max_batch"],
            send_lag_us_p99=lag,
        )
        metrics["arrival_rate"] = float(meta["arrival_rate"])
        client_cpu = client_cpu_of(meta, path)
        if client_cpu is not None:  # issue 14: the load client's own cost, shown per cell
            metrics["client_cpu_us_per_request"] = client_cpu
        service_cpu = service_cpu_of(meta, metrics["answered"], path)
        if service_cpu is not None:  # issue 33: what the simulator's wake cost is fitted on
            metrics[SERVICE_CPU] = service_cpu
        where = {
            "setting": setting["name"],
            "rate": rate_key(meta["rate_multiple"]),
            "round": int(meta["round"]),
        }
        RUN_SUMMARIES[key] = (quiet_record(meta), where, metrics)
    return RUN_SUMMARIES[key]


def part_b_runs(campaign: Campaign, quiet: list, marked: dict) -> dict:
    """{(setting name, rate key): {round: per-run metrics}} of every Part B file; `marked`
    gets {(setting name, rate key): [rounds whose run never passed the slow-run rule]}."""
    cells = {}
    share = campaign.description.keeps_up_share
    for entry, path in present_runs(campaign, "part_b"):
        record, where, metrics = part_b_summary(path, share)
        quiet.append(record)
        key = (where["setting"], where["rate"])
        cells.setdefault(key, {})[where["round"]] = dict(metrics)
        if entry["run_id"] in never_passed(campaign):
            marked.setdefault(key, []).append(where["round"])
    return cells


def part_b_section(campaign: Campaign, design: dict, quiet: list) -> dict | None:
    marked = {}
    runs = part_b_runs(campaign, quiet, marked)
    scheduled = {}
    for entry in campaign.scheduled("part_b"):
        key = (setting_record(entry, "schedule.json")["name"], rate_key(entry["rate_multiple"]))
        scheduled.setdefault(key, []).append(int(entry["round"]))
    if not scheduled:
        return None
    settings = {}
    for name in design["settings"]:
        record = design["setting"][name]
        rates = {}
        for rate in design["rate_multiples"]:
            if (name, rate) not in scheduled:
                continue
            cell = stats.cell_summary(runs.get((name, rate), {}), scheduled[(name, rate)])
            cell["rate_multiple"] = float(rate)
            if (name, rate) in marked:
                cell["never_passed_rounds"] = sorted(marked[(name, rate)])
            rates[rate] = cell
        settings[name] = {key: record[key] for key in ("batcher", "max_batch", "max_wait_ms")}
        settings[name]["rates"] = rates
    return {"settings": settings}


# --- paired differences and waits ----------------------------------------------------

PAIRED_METRICS = ("p50_ms", "p99_ms", "throughput")


def baselines(name: str, record: dict, names: list) -> list[str]:
    """The baselines a setting is paired with (see SCHEMA.md, paired)."""
    wanted = []
    if name != NONE:
        wanted.append(NONE)
    if record["batcher"] == "queue" and record["max_wait_ms"] > 0:
        wanted.append(setting_name("queue", record["max_batch"], 0.0))
    return [b for b in wanted if b in names]


def by_round(cell: dict, metric: str) -> dict:
    return dict(zip(cell["rounds"], cell["by_round"].get(metric, []), strict=False))


def compared(cell: dict, base: dict, metric: str, design: dict, rule: dict | None) -> dict:
    """The paired diff of one metric, the setting's cell against the baseline's: the rounds
    rule's record, and under the interval rule (`rule`, the campaign's told_apart) its verdict
    (generator/arithmetic/grid_verdicts.py)."""
    mine, theirs = by_round(cell, metric), by_round(base, metric)
    diff = stats.paired(mine, theirs, design["rounds"])
    if rule is None:
        return diff
    return grid_verdicts.judged(diff, mine, theirs, metric, rule, base.get(metric))


def paired_section(part_b: dict, design: dict, rule: dict | None = None) -> dict:
    settings, names = part_b["settings"], design["settings"]
    paired = {}
    for name in names:
        for baseline in baselines(name, design["setting"][name], names):
            for rate, cell in settings[name]["rates"].items():
                base = settings[baseline]["rates"].get(rate)
                if base is None:
                    continue
                metrics = {m: compared(cell, base, m, design, rule) for m in PAIRED_METRICS}
                paired.setdefault(name, {}).setdefault(baseline, {})[rate] = metrics
    return paired


def ranking_key(cell: dict, order: int) -> tuple:
    """Lowest median p99 first (None = never answered = last), then p50, then design order."""
    return (
        math.inf if cell["p99_ms"] is None else cell["p99_ms"],
        math.inf if cell["p50_ms"] is None else cell["p50_ms"],
        order,
    )


def best_section(part_b: dict, design: dict, rule: dict | None = None) -> dict | None:
    """Per rate, only among the settings that kept up there (every round): the one with the
    lowest median p99, the runner-up, and the two compared round by round on the same
    arrivals (p99 and p50)."""
    settings, names = part_b["settings"], design["settings"]
    by_rate = {}
    for rate in design["rate_multiples"]:
        kept = [n for n in names if settings[n]["rates"].get(rate, {}).get("keeps_up")]
        if not kept:
            continue
        ranked = sorted(kept, key=lambda n: ranking_key(settings[n]["rates"][rate], names.index(n)))
        entry = {"kept_up": kept, "best": ranked[0]}
        if len(ranked) > 1:
            first, second = (settings[n]["rates"][rate] for n in ranked[:2])
            entry["runner_up"] = ranked[1]
            entry["versus"] = {
                m: compared(first, second, m, design, rule) for m in ("p99_ms", "p50_ms")
            }
        by_rate[rate] = entry
    return {"by_rate": by_rate} if by_rate else None


def waits_section(part_b: dict, quiet_rate: str) -> dict | None:
    """The first request's wait against W, at the quiet rate (where waits are not queueing)."""
    chosen = {}
    for name, setting in part_b["settings"].items():
        cell = setting["rates"].get(quiet_rate)
        if setting["batcher"] != "queue" or cell is None or "first_wait_us_p50" not in cell:
            continue
        wait_us = cell["first_wait_us_p50"]
        chosen[name] = {
            "max_batch": setting["max_batch"],
            "max_wait_ms": setting["max_wait_ms"],
            "first_wait_ms": wait_us / 1000,
            "overshoot_us": wait_us - setting["max_wait_ms"] * 1000,
            "full_batch_share": cell.get("full_batch_share"),
        }
        unfilled_us = cell.get("first_wait_unfilled_us_p50")
        if unfilled_us is not None:  # the timer's own waits: batches that did not fill
            chosen[name]["first_wait_unfilled_ms"] = unfilled_us / 1000
            chosen[name]["overshoot_unfilled_us"] = unfilled_us - setting["max_wait_ms"] * 1000
    return {"rate": quiet_rate, "by_setting": chosen} if chosen else None


# --- Part C, the batch route -------------------------------------------------------------

EXCHANGE_KEYS = ("route", "record_kinds", "request_body", "response_body", "status")


def part_c_bits(metas: list[dict], methods: dict) -> dict:
    """Over every run and method: scores whose bits differ from the loop's, records left
    without a score, and the in-process check of the loop's scores."""
    mismatches = sum(m["mismatches"] for m in methods.values())
    errors = sum(m["errors"] for m in methods.values())
    inprocess = [meta["bits"].get("inprocess") or {} for meta in metas]
    inprocess_mismatches = sum(
        int(x.get("all_at_once_mismatches", 0)) + int(x.get("single_row_mismatches", 0))
        for x in inprocess
    )
    return {
        "mismatches": mismatches,
        "errors": errors,
        "inprocess_mismatches": inprocess_mismatches,
        "all_equal": mismatches == 0 and errors == 0 and inprocess_mismatches == 0,
    }


def part_c_exchange(meta: dict) -> dict:
    """The captured exchange as recorded, and the alignment rule checked on it here."""
    recorded = meta["example_exchange"]
    exchange = {key: recorded.get(key) for key in EXCHANGE_KEYS}
    exchange["run_id"] = meta["run_id"]
    exchange["aligned"] = stats.exchange_aligned(
        recorded["request_body"],
        recorded["response_body"],
        int(recorded["status"]),
        list(recorded["record_kinds"]),
    )
    return exchange


def part_c_section(campaign: Campaign, quiet: list) -> dict | None:
    stages = campaign.description.stages
    runs = []
    for _, path in present_runs(campaign, "part_c"):
        meta, columns = read_run(path, "part_c")
        if columns["method_chunk"].size == 0 or columns["breakdown_route"].size == 0:
            raise DataError(f"{path}: no methods or breakdown calls (columns are empty)")
        quiet.append(quiet_record(meta))
        runs.append((int(meta["run_index"]), meta, columns))
    if not runs:
        return None
    runs.sort(key=lambda run: run[0])
    metas, columns = [run[1] for run in runs], [run[2] for run in runs]
    methods = stats.part_c_methods(columns)
    marked = sorted(meta["run_id"] for meta in metas if meta["run_id"] in never_passed(campaign))
    return {
        **({"never_passed_runs": marked} if marked else {}),
        "runs": len(runs),
        "run_ids": [meta["run_id"] for meta in metas],
        "records": int(metas[0]["records"]),
        "chunks": [int(c) for c in metas[0]["chunks"]],
        "methods": list(methods),
        "by_method": methods,
        "bits": part_c_bits(metas, methods),
        "breakdown": {
            "single": stats.part_c_route(columns, "predict", stages["predict"]),
            "batch": stats.part_c_route(columns, "predict_batch", stages["predict_batch"]),
        },
        "example": part_c_exchange(metas[-1]),
    }


# --- assembling and writing ------------------------------------------------------------


def other_kinds(campaign: Campaign, quiet: list) -> dict:
    """{kind: scheduled runs} of kinds not published yet; their quiet records still count."""
    counts = {}
    for entry in campaign.schedule:
        if entry["kind"] not in PUBLISHED_KINDS:
            counts[entry["kind"]] = counts.get(entry["kind"], 0) + 1
            path = campaign.files.get(entry["run_id"])
            if path is not None:
                quiet.append(quiet_record(read_meta(path)))
    return counts


def build_results(campaign: Campaign) -> dict:
    """The whole results dict, floats rounded, ready for json.dumps; judged by the rules and
    guesses the campaign describes (campaign.description)."""
    described = campaign.description
    campaign.speed = attempts.choose_attempts(campaign)  # which attempt of each run counts
    quiet = []
    design = design_section(campaign)
    results = {
        "schema_version": SCHEMA_VERSION,
        "campaign": campaign_section(campaign),
        "design": design,
        "methods": stats.methods(described.keeps_up_share, described.interval_rule),
        "missing": missing_section(campaign),
        "part_a": part_a_section(campaign, quiet),
        "bits": bits_section(campaign, quiet),
        "saturation": saturation_section(campaign, quiet),
        "part_b": part_b_section(campaign, design, quiet),
        "part_c": part_c_section(campaign, quiet),
        "switchback": switchback_runs.section(
            campaign,
            list(present_runs(campaign, "switchback")),
            lambda meta: quiet.append(quiet_record(meta)),
        ),
        "footprint": switchback_runs.footprint(campaign.path),
        "other_kinds": other_kinds(campaign, quiet),
        "speed_probe": campaign.speed,
    }
    rule = described.told_apart if described.interval_rule else None
    if results["part_b"]:
        results["paired"] = paired_section(results["part_b"], design, rule)
        results["waits"] = waits_section(results["part_b"], described.quiet_rate)
        results["best"] = best_section(results["part_b"], design, rule)
        results["pictures"] = pictures.build(campaign, design, described.quiet_rate)
    # issue 14: every answer checked to the bit, and which machinery the runs recorded
    part_b_metas = [
        (path, read_meta(path), part_b_summary(path, described.keeps_up_share)[2]["answered"])
        for _, path in present_runs(campaign, "part_b")
    ]
    results["answer_check"] = answer_check.section(part_b_metas)
    results["machinery"] = machinery.section(campaign.info, part_b_metas)
    results["quiet"] = stats.quiet(quiet)
    results = {key: value for key, value in results.items() if value is not None}
    results["figures"] = figures.compute(results, described.quiet_rate, described.busy_rate)
    results["guesses"] = [verdicts.guess_verdict(g, results["figures"]) for g in described.guesses]
    return rounded(results)


def rounded(value):
    """A JSON-ready copy: floats to 5 significant digits, infinities to None."""
    if isinstance(value, dict):
        return {str(key): rounded(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(item) for item in value]
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        if math.isnan(value):
            raise DataError(f"a computed value is NaN (a bug or an empty run): {value}")
        return stats.round_sig(float(value))
    return value


def to_json(results: dict) -> str:
    """Compact, sorted, byte-stable JSON text."""
    return (
        json.dumps(
            results, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
        + "\n"
    )
