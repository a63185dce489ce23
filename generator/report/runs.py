"""The report's own reading of a campaign's raw runs, not through generator/reading/load.py
or the build's arithmetic: the run files decoded by the lab's codec, the attempt each run uses
judged again by the report's slow-run rule (generator/report/attempts.py), and each Part B
run's metrics with the report's own percentile (integer nearest rank) and medians
(statistics.median). `load_campaign` and `part_b_cells` serve both this campaign's checks
(generator/report/checks.py) and the other campaigns' (generator/report/compare.py).
Used by `python -m generator report`.
"""

import json
import math
import statistics
from pathlib import Path

import numpy as np

from generator.reading.description import read_description
from generator.reading.metrics import SERVICE_CPU
from generator.report import attempts as report_attempts
from generator.report.checker import Disagreement
from lab.rawformat import codec
from lab.rawformat.names import rate_key, record_name


def read_run_file(path: Path) -> tuple[dict, dict]:
    """Decoding the documented raw format is not arithmetic: the lab's codec reads it."""
    return codec.read_run(path)


# --- own arithmetic --------------------------------------------------------------------


def rank_percentiles(values, qs) -> list[float]:
    """Nearest rank with integer arithmetic: for each q the ceil(q*n/100)-th smallest value
    (one sort for all the qs: a campaign's report sorts a few million answers)."""
    ordered = np.sort(np.asarray(values, dtype=float))  # exact for µs counts; inf sorts last
    return [float(ordered[(q * len(ordered) + 99) // 100 - 1]) for q in qs]


def rank_percentile(values, q: int) -> float:
    return rank_percentiles(values, (q,))[0]


def send_lag_p99(meta: dict, columns: dict) -> float:
    """From the per-request column; a run without it (format 4) recorded only this figure."""
    if "send_lag_us" in columns:
        return rank_percentile(columns["send_lag_us"].tolist(), 99)
    return float(meta["send_lag_us_p99"])


def part_b_metrics(meta: dict, columns: dict, keep_share: float) -> dict:
    status = columns["status"].astype(np.int64)
    latency = columns["latency_us"].astype(np.int64)
    good = (status == 200) & (latency >= 0)
    waits = np.where(good, latency.astype(float), math.inf)  # never answered: waits forever
    n, window = len(waits), float(meta["window_s"])
    ends = columns["arrival_us"].astype(np.int64)[good] + latency[good]
    done = int(good.sum())
    speed = done / max(window, ends.max() / 1e6) if done else 0.0
    p50, p90, p99 = rank_percentiles(waits, (50, 90, 99))
    out = {
        "requests": n,
        "answered": done,
        "never_answered": int(((status == 0) | (latency < 0)).sum()),
        "offered_rate": n / window,
        "throughput": speed,
        "keeps_up": bool(speed >= keep_share * n / window),
        "p50_ms": p50 / 1e3,
        "p90_ms": p90 / 1e3,
        "p99_ms": p99 / 1e3,
        "max_ms": float(waits.max()) / 1e3,
        "send_lag_us_p99": send_lag_p99(meta, columns),
    }
    out["non_200"] = n - done - out["never_answered"]
    client_cpu = (meta.get("client") or {}).get("client_cpu_us_per_request")
    if client_cpu is not None:
        out["client_cpu_us_per_request"] = float(client_cpu)
    service_s = (meta.get("core_watch") or {}).get("service_cpu_s")
    if service_s is not None and done:  # the service's CPU over the run, per answer
        out[SERVICE_CPU] = service_s * 1e6 / done
    answered = status == 200
    if answered.any():
        out["mean_batch_size"] = float(np.mean(columns["batch_size"][answered], dtype=float))
        for name in ("ready_us", "queued_us", "model_us"):
            out[f"{name}_p50"] = rank_percentile(columns[name][answered].tolist(), 50)
    if meta["setting"]["batcher"] != "none":
        first = columns["batches_first_wait_us"].tolist()
        out["batches"] = len(first)
        if first:
            p50, p99 = rank_percentiles(first, (50, 99))
            out["first_wait_us_p50"], out["first_wait_us_p99"] = p50, p99
            out.update(timer_waits(first, columns["batches_size"].tolist(), meta["setting"]))
    return out


def timer_waits(first_waits: list, sizes: list, setting: dict) -> dict:
    """Share of batches that filled to the cap, and the p50 first wait of the others."""
    cap = int(setting.get("max_batch") or 0)
    if not cap:
        return {}
    short = [wait for wait, size in zip(first_waits, sizes, strict=True) if size != cap]
    found = {"full_batch_share": (len(sizes) - len(short)) / len(sizes)}
    if short:
        found["first_wait_unfilled_us_p50"] = rank_percentile(short, 50)
    return found


def bucket_label(size: int) -> str:
    """1, 2, 3-4, 5-8 … 65-128, 129+ by powers of two (bit_length, not a table)."""
    if size <= 2:
        return str(size)
    if size > 128:
        return "129+"
    high = 1 << (size - 1).bit_length()
    return f"{high // 2 + 1}-{high}"


def middle(values) -> float:
    return statistics.median(values)


# --- a campaign -------------------------------------------------------------------------------


def load_campaign(raw: Path, name: str | None, results: dict) -> dict:
    """Schedule, files and every run's meta and columns, for the campaign results.json names:
    of a run with several attempts, the one the slow-run rule uses, judged here again."""
    name = name or results["campaign"]["name"]
    folder = Path(raw) / name
    schedule = json.loads((folder / "schedule.json").read_text())
    info = json.loads((folder / "campaign.json").read_text())
    described = read_description(folder, info)
    rule = described.slow_runs if described.speed_probe else None
    files, runs, verdicts, metas_of = report_attempts.attempt_files(folder), {}, {}, {}
    for entry in schedule:
        found = files.get(entry["run_id"], {})
        if sorted(found) != list(range(1, len(found) + 1)):
            raise Disagreement(f"{entry['run_id']}: attempt files {sorted(found)}, not 1, 2 …")
        if not found:
            continue
        use = 1
        if rule is not None:
            metas = [codec.read_meta(found[number]) for number in sorted(found)]
            reference = described.speed_probe["reference"]
            verdict = report_attempts.judge_run(metas, entry["kind"], rule, reference)
            try:
                report_attempts.follows_rule(entry["run_id"], verdict, rule)
            except report_attempts.RuleBroken as error:
                raise Disagreement(f"the slow-run rule: {error}") from error
            verdicts[entry["run_id"]], use = verdict, verdict["chosen"]
            metas_of[entry["run_id"]] = metas
        elif len(found) > 1:
            raise Disagreement(f"{entry['run_id']}: {len(found)} attempts, no slow-run rule")
        runs[entry["run_id"]] = (entry, *read_run_file(found[use]))
    return {
        "name": name,
        "schedule": schedule,
        "runs": runs,
        "info": info,
        "description": described,
        "rule": rule,
        "verdicts": verdicts,
        "attempt_metas": metas_of,
    }


def of_kind(data: dict, kind: str) -> list:
    return [run for run in data["runs"].values() if run[0]["kind"] == kind]


def part_b_cells(data: dict) -> dict:
    """{(setting, rate key): {"scheduled": [rounds], "rounds": {round: metrics}, "cap": B}}."""
    cells = {}
    for entry in data["schedule"]:
        if entry["kind"] == "part_b":
            key = (record_name(entry["setting"]), rate_key(entry["rate_multiple"]))
            cell = cells.setdefault(key, {"scheduled": [], "rounds": {}, "batch_buckets": {}})
            cell["scheduled"].append(entry["round"])
            cell["cap"] = int(entry["setting"].get("max_batch") or 0)
            cell["wait_ms"] = float(entry["setting"].get("max_wait_ms") or 0)
            cell["batcher"] = entry["setting"]["batcher"]
    share = data["description"].keeps_up_share
    for _, meta, columns in of_kind(data, "part_b"):
        key = (record_name(meta["setting"]), rate_key(meta["rate_multiple"]))
        cells[key]["rounds"][meta["round"]] = part_b_metrics(meta, columns, share)
        cells[key]["rounds"][meta["round"]]["arrival_rate"] = float(meta["arrival_rate"])
        if meta["setting"]["batcher"] != "none":
            buckets = cells[key]["batch_buckets"]
            for size in columns["batches_size"].tolist():
                label = bucket_label(size)
                buckets[label] = buckets.get(label, 0) + 1
    return cells
