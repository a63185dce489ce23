"""The report's check of a campaign's switchback runs and footprint (results.json `switchback`
and `footprint`, generator/arithmetic/switchback_runs.py), by the report's own code.

Each switchback run's arms recomputed from its columns (nearest rank by sorting, a request not
answered with 200 as +inf; the server time as ready + queued + model summed here; the unfilled
batches picked by the arm's own cap), each run matched to the design's pair by its arms, then
the pairs judged by the report's switchback arithmetic (generator/report/bench.py
`pairs_numbers`, the one that checks the benchmark file) and compared value by value. The
footprint: every attempt file's timeline read again for the wall time, the folder's bytes
summed by os.walk. Called by `python -m generator report`.
"""

import math
import os
from pathlib import Path

import numpy as np

from generator.report import bench as report_bench
from generator.report.answers import compare
from generator.report.checker import Disagreement
from generator.report.runs import of_kind, rank_percentiles
from lab.rawformat import codec


def finite(value: float) -> float | None:
    return None if math.isinf(value) else value


def arm_numbers(columns: dict, arm: int, cap: int) -> dict:
    chosen = np.flatnonzero(columns["arm"] == arm)
    status = columns["status"][chosen].tolist()
    latency = columns["latency_us"][chosen].tolist()
    waits = [t if s == 200 and t >= 0 else math.inf for s, t in zip(status, latency, strict=True)]
    p50, p99 = rank_percentiles(waits, (50, 99)) if waits else (math.inf, math.inf)
    server = [
        int(columns["ready_us"][i]) + int(columns["queued_us"][i]) + int(columns["model_us"][i])
        for i, s in zip(chosen, status, strict=True)
        if s == 200
    ]
    unfilled = [
        int(wait)
        for which, size, wait in zip(columns["batches_arm"].tolist(),
                                     columns["batches_size"].tolist(),
                                     columns["batches_first_wait_us"].tolist(), strict=True)
        if which == arm and size < cap
    ]  # fmt: skip
    return {
        "requests": len(status),
        "answered": sum(1 for s in status if s == 200),
        "p50_us": finite(p50),
        "p99_us": finite(p99),
        "server_us_p50": rank_percentiles(server, (50,))[0] if server else None,
        "unfilled_first_wait_us_p50": rank_percentiles(unfilled, (50,))[0] if unfilled else None,
    }


def pair_of(pairs: list, meta: dict) -> str:
    for pair in pairs:
        if (
            pair["arm_a"]["name"] == meta["arm_a"]["name"]
            and pair["arm_b"]["name"] == meta["arm_b"]["name"]
            and float(pair["added_work_us_b"]) == float(meta["added_work_us_b"])
            and bool(pair.get("twin_slices")) == bool(meta.get("twin_slices"))
        ):
            return pair["name"]
    raise Disagreement(f"{meta['run_id']}: no pair of the design has its arms")


def switchback_numbers(data: dict) -> dict | None:
    runs = of_kind(data, "switchback")
    if not runs:
        return None
    pairs = data["info"]["design"]["switchbacks"]
    records = []
    for _, meta, columns in runs:
        caps = {arm: int(meta[f"arm_{arm}"].get("max_batch") or 0) for arm in "ab"}
        records.append({
            "pair": pair_of(pairs, meta),
            "swap_routes": bool(meta.get("swap_routes", False)),
            "arms": {arm: arm_numbers(columns, i, caps[arm]) for i, arm in enumerate("ab")},
        })  # fmt: skip
    comparisons, names = report_bench.pairs_numbers(pairs, records, data["description"].told_apart)
    return {
        "runs": len(records),
        "window_s": sorted({float(meta["window_s"]) for _, meta, _ in runs}),
        "slice_s": sorted({float(meta["slice_s"]) for _, meta, _ in runs}),
        "rate_multiple": sorted({float(meta["rate_multiple"]) for _, meta, _ in runs}),
        "names": names,
        "comparisons": comparisons,
        **report_bench.aa_of(names, comparisons),
    }


def footprint_numbers(folder: Path) -> dict | None:
    starts, ends = [], []
    for name in sorted(os.listdir(folder / "runs")) if (folder / "runs").is_dir() else ():
        if name.endswith(codec.SUFFIX):
            timeline = codec.read_meta(folder / "runs" / name).get("timeline")
            if timeline:
                starts.append(timeline["start"])
                ends.append(timeline["start"] + timeline["marks"]["measured"])
    if not starts:
        return None
    size = 0
    for root, _, files in os.walk(folder):
        size += sum(os.path.getsize(os.path.join(root, name)) for name in files)
    return {
        "attempts": len(starts),
        "wall_minutes": (max(ends) - min(starts)) / 60,
        "raw_bytes": size,
        "raw_mib": size / 1024 / 1024,
    }


def check(data: dict, folder: Path, results: dict, checker, say) -> dict:
    """Both sections recomputed and compared; returns them for the figures."""
    found = {"switchback": switchback_numbers(data), "footprint": footprint_numbers(folder)}
    for name, mine in found.items():
        checker.same(f"{name} published", name in results, mine is not None)
        if mine is None:
            say(f"no {name}")
            continue
        before = checker.count
        compare(checker, results, (name,), mine)
        say(f"{name}: {checker.count - before} values recomputed from the runs")
    return found
