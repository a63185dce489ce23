"""The simulator checked against the lab: simulate every measured Part B cell, compare.

    python -m generator.simulation --results docs/assets/data/results.json [--seeds 5]
        [--out FILE.json]

Calibrates site_src/explorer/simulate.py (imported as site_src.explorer.simulate: the same
file the reader's browser loads) from results.json alone (`calibrate_results`): its costs from
part_a, saturation and part_c, the machinery the campaign recorded, and the growth of the work
outside the model with load fitted on the cells that never batch (none and queue B=1); then
runs every setting at every measured rate with the cell's own arrival rate and window,
several seeds, and compares the simulated p50, p99, throughput and keeps-up with the measured
cell. The batched cells were never fitted: `held_out` is the summary over them alone. The
build (`python -m generator build`) publishes it as results.json's `simulation`
(`section()`), the per-cell table as assets/data/simulation.json (`split()`); the runs are
kept between builds in a cache (generator/simulation/cache.py).

`validate()` returns `seeds`, `window_s`, `calibration` (the costs and where each came
from), `settings` shaped like part_b's ({name: {max_batch, max_wait_ms, rates: {rate key:
cell}}}, a cell holding the simulated p50_ms, p99_ms, throughput, mean_batch_size (medians
over seeds), keeps_up (every seed kept up), keeps_up_seeds, keeps_up_agrees and `error`
{metric: (simulated − measured) / measured}), `summary` (keeps-up agreement over all
cells; median and worst relative error over the cells the lab saw keep up, and where) and
`held_out` (the same over the batched cells, which the calibration never read). With the
other full campaigns' results (`section(..., others=…)`), `others` holds each one's own
`summary` and `held_out`, calibrated from its own results.json (`brief()`).
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from generator.simulation import cache as simulation_cache
from generator.simulation import whatif
from site_src.explorer import simulate

COMPARED = ("p50_ms", "p99_ms", "throughput")
SIMULATED = (*COMPARED, "mean_batch_size")
DEFAULT_SEEDS = 5  # the campaign's cells are medians of 5 rounds; the same count of seeds
TABLE = "simulation.json"  # the per-cell table, beside results.json


def load_simulator():
    """The explorer's simulator (a module without state: every caller may share it). Passed
    around as `sim` so that a test can hand another in its place."""
    return simulate


def calibration_inputs(results: dict) -> dict:
    """The parts of results.json the costs at S come from: part_a, saturation, part_c (the
    growth with load and the machinery: `calibrate_results`)."""
    return {name: results.get(name) for name in ("part_a", "saturation", "part_c")}


def measured_cells(results: dict) -> list:
    """(setting name, rate key, setting, measured cell) of every Part B cell with a round."""
    settings = results["part_b"]["settings"]
    return [
        (name, key, settings[name], cell)
        for name in results["design"]["settings"]
        for key, cell in settings[name]["rates"].items()
        if cell.get("rounds")
    ]


def simulated_runs(sim, costs: dict, results: dict, seeds: list, cache_dir) -> tuple[list, bool]:
    """Every measured cell's runs, one per seed ([[run, …], …] in measured_cells order),
    from the cache when it holds them; and whether it did."""
    design = results["design"]
    share = design.get("keeps_up_share", sim.KEEPS_UP_SHARE)
    jobs = [(s["max_batch"], s["max_wait_ms"], cell["arrival_rate"])
            for _, _, s, cell in measured_cells(results)]  # fmt: skip
    wanted = simulation_cache.key(
        Path(sim.__file__).read_bytes(), costs, [[*job, design["window_s"], share] for job in jobs],
        list(seeds),
    )  # fmt: skip
    cached = simulation_cache.load(cache_dir, wanted)
    if cached is not None and len(cached) == len(jobs):
        return cached, True
    runs = [
        [sim.run(cap, wait, rate, costs, design["window_s"], seed, keeps_up_share=share,
                 speed=sim.seed_speed(costs, seed))
         for seed in seeds]
        for cap, wait, rate in jobs
    ]  # fmt: skip
    simulation_cache.store(cache_dir, wanted, runs)
    return runs, False


def simulate_cell(runs: list, cell: dict) -> dict:
    """The campaign's cell metrics, simulated: each a median over seeds (as a cell is a
    median over rounds); keeps up when every seed kept up (as every round must)."""
    found = {key: statistics.median(run[key] for run in runs) for key in SIMULATED}
    found["keeps_up_seeds"] = sum(run["keeps_up"] for run in runs)
    found["keeps_up"] = found["keeps_up_seeds"] == len(runs)
    found["keeps_up_agrees"] = found["keeps_up"] == cell["keeps_up"]
    found["error"] = {metric: relative_error(found[metric], cell.get(metric))
                      for metric in COMPARED}  # fmt: skip
    return found


def relative_error(simulated: float, measured: float | None) -> float | None:
    """(simulated − measured) / measured; None when either side is missing or infinite."""
    if measured is None or measured == 0 or simulated in (None, float("inf")):
        return None
    return (simulated - measured) / measured


def compare_cells(results: dict, all_runs: list) -> dict:
    """{setting name: {max_batch, max_wait_ms, rates: {rate key: simulated cell}}}."""
    found = {}
    for (name, key, setting, cell), runs in zip(measured_cells(results), all_runs, strict=True):
        entry = found.setdefault(name, {"rates": {}})
        entry.update(max_batch=setting["max_batch"], max_wait_ms=setting["max_wait_ms"])
        entry["rates"][key] = simulate_cell(runs, cell)
    return found


def cells(compared: dict, results: dict) -> list:
    """(setting, rate key, simulated cell, measured cell) in design order."""
    measured = results["part_b"]["settings"]
    return [
        (name, key, cell, measured[name]["rates"][key])
        for name, setting in compared.items()
        for key, cell in setting["rates"].items()
    ]


def metric_summary(errors: list) -> dict:
    """Over [(error, setting, rate key)]: the median |error|, the worst and where, how many
    within 10% and 25%, and how many the simulator put below the lab."""
    worst, setting, rate = max(errors, key=lambda row: abs(row[0]))
    return {
        "cells": len(errors),
        "median_abs_error": statistics.median(abs(error) for error, _, _ in errors),
        "worst_error": worst,
        "worst_setting": setting,
        "worst_rate": rate,
        "within_10pct": sum(abs(error) <= 0.10 for error, _, _ in errors),
        "within_25pct": sum(abs(error) <= 0.25 for error, _, _ in errors),
        "simulated_lower": sum(error < 0 for error, _, _ in errors),
    }


def summary(compared: dict, results: dict, batched_only: bool = False) -> dict:
    """Keeps-up agreement over all cells (`batched_only`: the cells of settings that batch,
    B > 1); median and worst relative error of p50, p99 and throughput over the cells the lab
    saw keep up, and where the worst is."""
    rows = cells(compared, results)
    if batched_only:
        rows = [row for row in rows if compared[row[0]]["max_batch"] > 1]
    kept = [row for row in rows if row[3]["keeps_up"]]
    disagree = [(name, key, cell) for name, key, cell, _ in rows if not cell["keeps_up_agrees"]]
    found = {
        "cells": len(rows),
        "keeps_up_agree": len(rows) - len(disagree),
        "keeps_up_disagree": [f"{name} at {key}" for name, key, _ in disagree],
        "simulated_only_kept_up": sum(cell["keeps_up"] for _, _, cell in disagree),
        "measured_only_kept_up": sum(not cell["keeps_up"] for _, _, cell in disagree),
        "kept_up_cells": len(kept),
    }
    for metric in COMPARED:
        errors = [(cell["error"][metric], name, key) for name, key, cell, _ in kept
                  if cell["error"][metric] is not None]  # fmt: skip
        if errors:
            found[metric] = metric_summary(errors)
    return found


def validate(results: dict, seeds: int = DEFAULT_SEEDS, sim=None, cache_dir=None) -> dict:
    """The whole comparison, shaped like results.json's part_b; `cached` says whether the
    runs came from the cache (cache_dir None: no cache)."""
    sim = sim or load_simulator()
    costs = sim.calibrate_results(results)
    all_runs, cached = simulated_runs(sim, costs, results, list(range(seeds)), cache_dir)
    compared = compare_cells(results, all_runs)
    return {
        "seeds": seeds,
        "window_s": results["design"]["window_s"],
        "calibration": costs,
        "settings": compared,
        "summary": summary(compared, results),
        "held_out": summary(compared, results, batched_only=True),
        "cached": cached,
    }


NO_PART_B = "the campaign has no Part B cell to check the simulator against"


def section(results: dict, whatifs: Path | None = None, seeds: int = DEFAULT_SEEDS,
            cache_dir=None, others: tuple = ()) -> dict:  # fmt: skip
    """results.json's `simulation`: the validation, the what-ifs of `whatifs`
    (generator/simulation/whatif.py) and, for each of `others` (the other full campaigns'
    results), the same validation calibrated from that campaign's own results (`others`);
    or {"skipped": why} when the campaign cannot give it."""
    if not results.get("part_b"):
        return {"skipped": NO_PART_B}
    sim = load_simulator()
    try:
        found = validate(results, seeds, sim, cache_dir)
    except sim.CalibrationError as error:
        return {"skipped": str(error)}
    if whatifs is not None:
        found["examples"] = whatif.examples(results, whatifs, sim)
    if others:
        found["others"] = {other["campaign"]["name"]: brief(other, seeds, sim, cache_dir)
                           for other in others}  # fmt: skip
    return found


def brief(results: dict, seeds: int, sim, cache_dir) -> dict:
    """Another campaign's validation, calibrated from its own results.json alone: `summary`,
    `held_out`, `seeds`, `machinery` and the fitted wake cost (`service_wake_us`, `wake_from`); or
    {"skipped": why}. Its per-cell table is not published (the page shows the summaries)."""
    if not results.get("part_b"):
        return {"skipped": NO_PART_B}
    try:
        found = validate(results, seeds, sim, cache_dir)
    except sim.CalibrationError as error:
        return {"skipped": str(error)}
    load = found["calibration"].get("load") or {}
    kept = {key: found[key] for key in ("seeds", "summary", "held_out")}
    kept["machinery"] = found["calibration"]["machinery"]
    kept.update({key: load[key] for key in ("service_wake_us", "wake_from") if key in load})
    return kept


def split(simulation: dict) -> tuple[dict, dict | None]:
    """(results.json's `simulation` without the per-cell table but naming its file, the
    table {seeds, window_s, settings}); the table is None when there is none."""
    if "settings" not in simulation:
        return simulation, None
    kept = {key: value for key, value in simulation.items() if key not in ("settings", "cached")}
    kept["table"] = TABLE
    table = {key: simulation[key] for key in ("seeds", "window_s", "settings")}
    return kept, table


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.1f}%"


def print_report(found: dict, results: dict) -> None:
    print(f"{'setting':>10} {'rate':>5}  keeps up sim/lab  {'p50 ms sim/lab':>24}  "
          f"{'p99 ms sim/lab':>26}  {'throughput sim/lab':>21}")  # fmt: skip
    for name, key, sim, lab in cells(found["settings"], results):
        shown = [f"{sim[m]:9.3f}/{lab[m] or float('inf'):9.3f} {percent(sim['error'][m]):>7}"
                 for m in ("p50_ms", "p99_ms")]  # fmt: skip
        kept = f"{'yes' if sim['keeps_up'] else 'no'}/{'yes' if lab['keeps_up'] else 'no'}"
        print(f"{name:>10} {key:>5}  {sim['keeps_up_seeds']}/{found['seeds']} {kept:>8}  "
              f"{shown[0]}  {shown[1]}  {sim['throughput']:6.0f}/{lab['throughput']:6.0f} "
              f"{percent(sim['error']['throughput']):>7}")  # fmt: skip
    print(json.dumps(found["summary"], indent=1))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m generator.simulation", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--results", type=Path, required=True)
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS)
    parser.add_argument("--out", type=Path, help="write the whole comparison as JSON here")
    args = parser.parse_args(argv)
    results = json.loads(args.results.read_text(encoding="utf-8"))
    if "part_b" not in results:
        print(f"{args.results}: no part_b to validate against", file=sys.stderr)
        return 2
    sim = load_simulator()
    began = time.process_time()
    try:
        found = validate(results, args.seeds, sim)
    except sim.CalibrationError as error:
        print(f"{args.results}: {error}", file=sys.stderr)
        return 2
    print_report(found, results)
    print(f"{found['summary']['cells']} cells × {args.seeds} seeds: "
          f"{time.process_time() - began:.1f} s of CPU")  # fmt: skip
    if args.out:
        args.out.write_text(json.dumps(found, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
