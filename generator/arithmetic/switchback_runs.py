"""A campaign's switchback runs and its footprint (results.json `switchback`, `footprint`).

- `switchback` (a campaign with switchback runs, the third full campaign's profile on): per
  run each arm's p50 and p99 (latency from the scheduled arrival, nearest rank, a request not
  answered with 200 counting as infinitely late: null when the percentile falls on one), its
  server time (the nearest-rank median of ready + queued + model over the arm's answered
  requests) and the median first wait of its batches that did not fill, all from the run's own
  columns; then per pair of the campaign's design the switchback benchmark's arithmetic
  (generator/arithmetic/bench_files.py `pair_entry`): d per run, its SD, the interval verdict
  by the rule the campaign froze, the routes' places and the W overshoot;
- `footprint` (a campaign whose runs carry timelines, from 2026-12-02 on): its wall time,
  from the first attempt's start to the last attempt's end (timeline `start` and `measured`;
  the speed probe's calibration before the first run is not in it), and the bytes of every
  file in its folder.

Run through `python -m generator build`; the report recomputes both with its own code
(generator/report/switchback.py).
"""

import math

import numpy as np

from generator.arithmetic import bench_files, stats
from generator.reading.load import Campaign, DataError, need, read_meta, read_run
from lab.rawformat import codec

SERVER_MOMENTS = ("ready_us", "queued_us", "model_us")  # they add up (Server-Timing)


def finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


def arm_values(columns: dict, arm: int, max_batch: int) -> dict:
    """One arm's statistics in one run (the module docstring), in the benchmark's keys."""
    chosen = columns["arm"] == arm
    status = columns["status"][chosen]
    answered = status == 200
    latency = stats.latencies_us(columns["latency_us"][chosen], status)
    p50, p99 = stats.percentiles(latency, (50, 99)) if latency.size else (math.inf, math.inf)
    server = sum(columns[name][chosen][answered].astype(np.int64) for name in SERVER_MOMENTS)
    of_arm = columns["batches_arm"] == arm
    sizes, waits = columns["batches_size"][of_arm], columns["batches_first_wait_us"][of_arm]
    unfilled = waits[sizes < max_batch] if max_batch else waits[:0]
    return {
        "requests": int(chosen.sum()),
        "answered": int(answered.sum()),
        "p50_us": finite_or_none(p50),
        "p99_us": finite_or_none(p99),
        "server_us_p50": stats.percentile(server, 50) if answered.any() else None,
        "unfilled_first_wait_us_p50": stats.percentile(unfilled, 50) if unfilled.size else None,
    }


def pair_name(pairs: list, meta: dict, path) -> str:
    """The design's pair a run belongs to: the same arms, added work and slicing."""
    key = (
        need(meta, "arm_a.name", path),
        need(meta, "arm_b.name", path),
        float(need(meta, "added_work_us_b", path)),
        bool(meta.get("twin_slices", False)),
    )
    for pair in pairs:
        mine = (pair["arm_a"]["name"], pair["arm_b"]["name"], float(pair["added_work_us_b"]),
                bool(pair.get("twin_slices", False)))  # fmt: skip
        if mine == key:
            return pair["name"]
    raise DataError(f"{path}: its arms {key[:2]} are no switchback pair of the campaign's design")


def run_record(pairs: list, meta: dict, columns: dict, path) -> dict:
    """One run as the benchmark file keeps one: its pair, index, first arm, routes, arms."""
    caps = {arm: int(need(meta, f"arm_{arm}", path).get("max_batch") or 0) for arm in "ab"}
    return {
        "pair": pair_name(pairs, meta, path),
        "index": need(meta, "run_index", path),
        "first_arm": need(meta, "first_arm", path),
        "swap_routes": bool(meta.get("swap_routes", False)),
        "arms": {arm: arm_values(columns, number, caps[arm]) for number, arm in enumerate("ab")},
    }


def section(campaign: Campaign, runs: list, seen) -> dict | None:
    """results.json `switchback`: the design's pairs judged over the campaign's switchback
    runs (`runs`: (schedule entry, path) of the runs with a file); None without one. `seen`
    is called with each run's meta (the quiet summary counts every run)."""
    if not runs:
        return None
    described = campaign.description
    if not described.interval_rule:
        raise DataError(f"{campaign.path}: switchback runs are judged by the interval rule "
                        "only, and the campaign froze another")  # fmt: skip
    pairs = need(campaign.info, "design.switchbacks", campaign.path / "campaign.json")
    records, windows, slices, rates = [], set(), set(), set()
    for _, path in runs:
        meta, columns = read_run(path, "switchback")
        seen(meta)
        records.append(run_record(pairs, meta, columns, path))
        windows.add(float(need(meta, "window_s", path)))
        slices.add(float(need(meta, "slice_s", path)))
        rates.add(float(need(meta, "rate_multiple", path)))
    comparisons, names = bench_files.compare_pairs(
        pairs, records, described.told_apart, campaign.path
    )
    aa, independent = bench_files.aa_names(names, comparisons)
    found = {
        "runs": len(records),
        "window_s": sorted(windows),
        "slice_s": sorted(slices),
        "rate_multiple": sorted(rates),
        "names": names,
        "comparisons": comparisons,
    }
    if aa:
        found["aa"] = aa
    if independent:
        found["aa_independent"] = independent
    return found


def footprint(folder) -> dict | None:
    """results.json `footprint`: the wall time from the first attempt's start to the last
    one's end and the bytes of the campaign's folder; None when no run has a timeline."""
    spans = []
    for path in codec.run_files(folder):
        timeline = read_meta(path).get("timeline")
        if timeline:
            start = float(timeline["start"])
            spans.append((start, start + float(timeline["marks"]["measured"])))
    if not spans:
        return None
    first, last = min(s for s, _ in spans), max(e for _, e in spans)
    raw_bytes = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    return {
        "attempts": len(spans),
        "wall_minutes": (last - first) / 60,
        "raw_bytes": raw_bytes,
        "raw_mib": raw_bytes / 2**20,
    }
