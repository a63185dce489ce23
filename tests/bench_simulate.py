"""Benchmark of the simulator in CPython (not a test): `.venv/bin/python tests/bench_simulate.py`.

Calibrates site_src/explorer/simulate.py from the committed campaign (data/raw, the
generator's choice) and times one simulated 8 s window at 2.5 × S (B=32 W=2), the explorer's
heaviest ordinary question, several seeds: CPU time and wall time of `run()`, and of a whole
`simulate()` answer (which also simulates none on the same arrivals; its none is remembered
afterwards, so the warm answer is the setting's run alone). The browser's budget is 1 s warm
in Pyodide (issue 17), which runs Python 1.5-3× slower than CPython; the browser timing
itself is tests/bench_site.py's. Writes data/bench/simulate.json and prints it. On a machine
where the lab measures on core 1, run it as `taskset -c 0 …`.
"""

import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a file, not a module: the repository root is not on sys.path

from generator.arithmetic import results  # noqa: E402
from generator.reading import load  # noqa: E402
from generator.simulation import validate as simulation  # noqa: E402

OUT = ROOT / "data" / "bench" / "simulate.json"
SEEDS = range(5)
MAX_BATCH, MAX_WAIT_MS, RATE, WINDOW_S = 32, 2, 2.5, 8.0


def timed(call) -> tuple[float, float, object]:
    """(CPU seconds, wall seconds, what `call()` returned)."""
    cpu, wall = time.process_time(), time.perf_counter()
    found = call()
    return time.process_time() - cpu, time.perf_counter() - wall, found


def main() -> int:
    chosen = load.choose_campaign(ROOT / "data" / "raw")
    built = results.build_results(chosen)
    sim = simulation.load_simulator()
    costs = sim.calibrate(**simulation.calibration_inputs(built))
    rate = RATE * costs["S"]
    runs = []
    for seed in SEEDS:
        cpu, wall, found = timed(
            lambda seed=seed: sim.run(MAX_BATCH, MAX_WAIT_MS, rate, costs, WINDOW_S, seed)
        )
        runs.append({"seed": seed, "cpu_s": cpu, "wall_s": wall, "requests": found["requests"]})
    cold_cpu, cold_wall, _ = timed(lambda: sim.simulate(built, MAX_BATCH, MAX_WAIT_MS, RATE))
    warm_cpu, warm_wall, _ = timed(lambda: sim.simulate(built, MAX_BATCH, MAX_WAIT_MS, RATE))
    report = {
        "machine": {
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },  # fmt: skip
        "campaign": chosen.name,
        "question": f"B={MAX_BATCH} W={MAX_WAIT_MS} at {RATE:g} × S, {WINDOW_S:g} s window",
        "run_cpu_s_median": round(statistics.median(r["cpu_s"] for r in runs), 4),
        "run_cpu_s_max": round(max(r["cpu_s"] for r in runs), 4),
        "run_wall_s_median": round(statistics.median(r["wall_s"] for r in runs), 4),
        "requests_per_run": [r["requests"] for r in runs],
        "simulate_first_answer_cpu_s": round(cold_cpu, 4),
        "simulate_first_answer_wall_s": round(cold_wall, 4),
        "simulate_warm_answer_cpu_s": round(warm_cpu, 4),
        "simulate_warm_answer_wall_s": round(warm_wall, 4),
        "browser_budget_s": 1.0,
    }
    OUT.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
