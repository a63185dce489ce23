"""The simulator checked against the lab: simulate every measured Part B cell, compare.

    python -m generator.simulation --results docs/assets/data/results.json [--raw data/raw]
        [--seeds 5] [--out FILE.json]

Calibrates site_src/explorer/simulate.py (loaded by path, as the reader's browser loads it)
from results.json's part_a, saturation and part_c only, then runs every setting at every
measured rate with the cell's own arrival rate and window, several seeds, and compares the
simulated p50, p99, throughput and keeps-up with the measured cell. Nothing is fitted to
Part B. `--raw` supplies the S runs' client CPU per request from the raw files while
results.json does not carry `saturation.client_cpu_us_per_request` yet.

`validate()` returns what results.json could publish as `simulation`: `seeds`, `window_s`,
`calibration` (the costs and where each came from), `settings` shaped like part_b's
({name: {max_batch, max_wait_ms, rates: {rate key: cell}}}, a cell holding the simulated
p50_ms, p99_ms, throughput, mean_batch_size, keeps_up, keeps_up_seeds, keeps_up_agrees and
`error` {metric: (simulated − measured) / measured}) and `summary` (keeps-up agreement over
all cells; median and worst relative error over the cells the lab saw keep up).
"""

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path

from lab.rawformat import codec

SIMULATOR = Path(__file__).resolve().parent.parent / "site_src" / "explorer" / "simulate.py"
COMPARED = ("p50_ms", "p99_ms", "throughput")
SIMULATED = (*COMPARED, "mean_batch_size")
DEFAULT_SEEDS = 5  # the campaign's cells are medians of 5 rounds; the same count of seeds


def load_simulator(path: Path = SIMULATOR):
    spec = importlib.util.spec_from_file_location("site_simulate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def client_cpu_from_raw(raw_dir: Path, campaign: str) -> float:
    """Median over the S runs of the closed-loop client's CPU µs per request (raw meta)."""
    paths = sorted((Path(raw_dir) / campaign / "runs").glob(f"saturation-*{codec.SUFFIX}"))
    values = [codec.read_meta(path)["stats"].get("client_cpu_us_per_request") for path in paths]
    values = [value for value in values if value is not None]
    if not values:
        raise ValueError(f"{raw_dir}/{campaign}/runs: no saturation run records "
                         "stats.client_cpu_us_per_request")  # fmt: skip
    return statistics.median(values)


def calibration_inputs(results: dict, raw_dir: Path | None = None) -> dict:
    """The only parts of results.json the calibration may see: part_a, saturation, part_c."""
    saturation = dict(results.get("saturation") or {})
    if saturation.get("client_cpu_us_per_request") is None and raw_dir is not None:
        campaign = results["campaign"]["name"]
        saturation["client_cpu_us_per_request"] = client_cpu_from_raw(raw_dir, campaign)
    return {"part_a": results.get("part_a"), "saturation": saturation,
            "part_c": results.get("part_c")}  # fmt: skip


def simulate_cell(sim, costs, setting: dict, cell: dict, window_s: float, seeds, share) -> dict:
    """The campaign's cell metrics, simulated: each a median over seeds (as a cell is a
    median over rounds); keeps up when every seed kept up (as every round must)."""
    runs = [
        sim.run(
            setting["max_batch"],
            setting["max_wait_ms"],
            cell["arrival_rate"],
            costs,
            window_s,
            seed,
            keeps_up_share=share,
        )  # fmt: skip
        for seed in seeds
    ]
    found = {key: statistics.median(run[key] for run in runs) for key in SIMULATED}
    found["keeps_up_seeds"] = sum(run["keeps_up"] for run in runs)
    found["keeps_up"] = found["keeps_up_seeds"] == len(runs)
    found["keeps_up_agrees"] = found["keeps_up"] == cell["keeps_up"]
    found["error"] = {metric: relative_error(found[metric], cell.get(metric))
                      for metric in COMPARED}  # fmt: skip
    return found


def relative_error(simulated: float, measured: float | None) -> float | None:
    """(simulated − measured) / measured; None when the lab's value is missing or infinite."""
    if measured is None or measured == 0 or simulated == float("inf"):
        return None
    return (simulated - measured) / measured


def compare_cells(results: dict, sim, costs: dict, seeds) -> dict:
    """{setting name: {max_batch, max_wait_ms, rates: {rate key: simulated cell}}}, for every
    Part B cell with at least one measured round."""
    design, settings = results["design"], results["part_b"]["settings"]
    share = design.get("keeps_up_share", sim.KEEPS_UP_SHARE)
    found = {}
    for name in design["settings"]:
        setting = settings[name]
        rates = {
            key: simulate_cell(sim, costs, setting, cell, design["window_s"], seeds, share)
            for key, cell in setting["rates"].items()
            if cell.get("rounds")
        }
        found[name] = {"max_batch": setting["max_batch"],
                       "max_wait_ms": setting["max_wait_ms"], "rates": rates}  # fmt: skip
    return found


def cells(compared: dict, results: dict) -> list:
    """(setting, rate key, simulated cell, measured cell) in design order."""
    measured = results["part_b"]["settings"]
    return [
        (name, key, cell, measured[name]["rates"][key])
        for name, setting in compared.items()
        for key, cell in setting["rates"].items()
    ]


def summary(compared: dict, results: dict) -> dict:
    """Keeps-up agreement over all cells; median and worst relative error of p50, p99 and
    throughput over the cells the lab saw keep up, and where the worst is."""
    rows = cells(compared, results)
    kept = [row for row in rows if row[3]["keeps_up"]]
    found = {
        "cells": len(rows),
        "keeps_up_agree": sum(row[2]["keeps_up_agrees"] for row in rows),
        "keeps_up_disagree": [
            f"{name} at {key}" for name, key, cell, _ in rows if not cell["keeps_up_agrees"]
        ],  # fmt: skip
        "kept_up_cells": len(kept),
    }
    for metric in COMPARED:
        errors = [(cell["error"][metric], f"{name} at {key}") for name, key, cell, _ in kept
                  if cell["error"][metric] is not None]  # fmt: skip
        if errors:
            worst, where = max(errors, key=lambda pair: abs(pair[0]))
            found[metric] = {
                "median_abs_error": statistics.median(abs(error) for error, _ in errors),
                "worst_error": worst,
                "worst_at": where,
                "within_10pct": sum(abs(error) <= 0.10 for error, _ in errors),
                "within_25pct": sum(abs(error) <= 0.25 for error, _ in errors),
            }
    return found


def validate(results: dict, raw_dir: Path | None = None, seeds: int = DEFAULT_SEEDS,
             sim=None) -> dict:  # fmt: skip
    """The whole comparison, shaped like results.json's part_b (proposed key `simulation`)."""
    sim = sim or load_simulator()
    costs = sim.calibrate(**calibration_inputs(results, raw_dir))
    compared = compare_cells(results, sim, costs, range(seeds))
    return {"seeds": seeds, "window_s": results["design"]["window_s"], "calibration": costs,
            "settings": compared, "summary": summary(compared, results)}  # fmt: skip


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, required=True)
    parser.add_argument("--raw", type=Path, default=Path("data/raw"))
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS)
    parser.add_argument("--out", type=Path, help="write the whole comparison as JSON here")
    args = parser.parse_args(argv)
    results = json.loads(args.results.read_text(encoding="utf-8"))
    if "part_b" not in results:
        print(f"{args.results}: no part_b to validate against", file=sys.stderr)
        return 2
    began = time.process_time()
    found = validate(results, args.raw, args.seeds)
    print_report(found, results)
    print(f"{found['summary']['cells']} cells × {args.seeds} seeds: "
          f"{time.process_time() - began:.1f} s of CPU")  # fmt: skip
    if args.out:
        args.out.write_text(json.dumps(found, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
