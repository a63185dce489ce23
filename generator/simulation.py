"""The simulator checked against the lab: simulate every measured Part B cell, compare.

    python -m generator.simulation --results docs/assets/data/results.json [--raw data/raw]
        [--seeds 5] [--out FILE.json]

Calibrates site_src/explorer/simulate.py (loaded by path, as the reader's browser loads it)
from results.json's part_a, saturation and part_c only, then runs every setting at every
measured rate with the cell's own arrival rate and window, several seeds, and compares the
simulated p50, p99, throughput and keeps-up with the measured cell. Nothing is fitted to
Part B. `--raw` supplies the S runs' client CPU per request from the raw files while
results.json does not carry `saturation.client_cpu_us_per_request` yet.
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
    found = {key: statistics.median(run[key] for run in runs) for key in COMPARED}
    found["mean_batch_size"] = statistics.median(run["mean_batch_size"] for run in runs)
    found["keeps_up_seeds"] = sum(run["keeps_up"] for run in runs)
    found["keeps_up"] = found["keeps_up_seeds"] == len(runs)
    return found


def relative_error(simulated: float, measured: float | None) -> float | None:
    if measured is None or measured == 0:
        return None
    return (simulated - measured) / measured


def compare_cells(results: dict, sim, costs: dict, seeds) -> list:
    design, settings = results["design"], results["part_b"]["settings"]
    share = design.get("keeps_up_share", sim.KEEPS_UP_SHARE)
    rows = []
    for name in design["settings"]:
        setting = settings[name]
        for key in design["rate_multiples"]:
            cell = setting["rates"].get(key)
            if not cell or not cell.get("rounds"):
                continue
            found = simulate_cell(sim, costs, setting, cell, design["window_s"], seeds, share)
            row = {"setting": name, "rate": key, "measured_keeps_up": cell["keeps_up"],
                   "simulated": found}  # fmt: skip
            row["measured"] = {metric: cell.get(metric) for metric in COMPARED}
            row["measured"]["mean_batch_size"] = cell.get("mean_batch_size")
            row["error"] = {m: relative_error(found[m], cell.get(m)) for m in COMPARED}
            rows.append(row)
    return rows


def summary(rows: list) -> dict:
    """Keeps-up agreement over all cells; median and worst relative error of p50, p99 and
    throughput over the cells that kept up (measured), and where the worst is."""
    agree = [row for row in rows if row["simulated"]["keeps_up"] == row["measured_keeps_up"]]
    kept = [row for row in rows if row["measured_keeps_up"]]
    found = {
        "cells": len(rows),
        "keeps_up_agree": len(agree),
        "keeps_up_agreement_share": len(agree) / len(rows) if rows else None,
        "keeps_up_disagree": [
            f"{row['setting']} at {row['rate']}" for row in rows if row not in agree
        ],  # fmt: skip
        "kept_up_cells": len(kept),
    }
    for metric in COMPARED:
        errors = [(row["error"][metric], row) for row in kept if row["error"][metric] is not None]
        if not errors:
            continue
        worst, at = max(errors, key=lambda pair: abs(pair[0]))
        found[metric] = {
            "median_abs_error": statistics.median(abs(error) for error, _ in errors),
            "worst_error": worst,
            "worst_at": f"{at['setting']} at {at['rate']}",
            "within_10pct": sum(abs(error) <= 0.10 for error, _ in errors),
        }
    return found


def validate(results: dict, raw_dir: Path | None = None, seeds: int = DEFAULT_SEEDS,
             sim=None) -> dict:  # fmt: skip
    sim = sim or load_simulator()
    costs = sim.calibrate(**calibration_inputs(results, raw_dir))
    began = time.perf_counter()
    rows = compare_cells(results, sim, costs, range(seeds))
    return {"seeds": seeds, "calibration": costs, "cells": rows, "summary": summary(rows),
            "seconds": time.perf_counter() - began}  # fmt: skip


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.1f}%"


def print_report(found: dict) -> None:
    print(f"{'setting':>10} {'rate':>5}  {'keeps up sim/lab':>16}  "
          f"{'p50 ms sim/lab':>22}  {'p99 ms sim/lab':>22}  {'throughput sim/lab':>20}")  # fmt: skip
    for row in found["cells"]:
        sim, lab = row["simulated"], row["measured"]
        cells = [
            f"{sim[m]:9.3f}/{lab[m] if lab[m] is not None else float('inf'):9.3f} "
            f"{percent(row['error'][m]):>7}"
            for m in ("p50_ms", "p99_ms")
        ]
        print(f"{row['setting']:>10} {row['rate']:>5}  "
              f"{sim['keeps_up_seeds']}/{len(range(found['seeds']))} "
              f"{'yes' if sim['keeps_up'] else 'no':>3}/{'yes' if row['measured_keeps_up'] else 'no':>3}"
              f"   {cells[0]} {cells[1]}  {sim['throughput']:7.0f}/{lab['throughput']:7.0f} "
              f"{percent(row['error']['throughput']):>7}")  # fmt: skip
    print(json.dumps(found["summary"], indent=1))
    print(f"{len(found['cells'])} cells × {found['seeds']} seeds in {found['seconds']:.1f} s")


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
    found = validate(results, args.raw, args.seeds)
    print_report(found)
    if args.out:
        args.out.write_text(json.dumps(found, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
