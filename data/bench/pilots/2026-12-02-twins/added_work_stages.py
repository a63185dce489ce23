"""The pilot that read where the switchback benchmark's added work shows (2026-12-02): A/A
none vs none in twin slices of 0.1 s with 50 and 150 µs of CPU added to arm B, at two rates,
three repetitions, each arm's median `ready`, `queued`, `model` and `call` stage and latency.
It ran the benchmark's own run (lab.bench.switchback.Bench.run), keeping the columns.

    PYTHONPATH=. .venv/bin/python data/bench/pilots/2026-12-02-twins/added_work_stages.py \
        684.2 0.05,0.5        # S (answers/s), then the rate multiples

Wrote added_work_stages.json beside it (it was run as /tmp/sb3/diag.py on the measurement
core, right after the benchmark of 05:59-06:31).
"""

import json
import sys
from pathlib import Path

import numpy as np

from lab.bench import switchback as sb
from lab.bench.sidebyside import Machinery, shield
from lab.campaign.runner import pin_runner_away_from
from lab.design import NONE, Switchback
from lab.model import expected
from lab.service.launcher import Launcher

STAGES = ("ready_us", "queued_us", "model_us", "call_us")


def main(saturation: float, rates: list[float]) -> list[dict]:
    shield(-10)
    cores = pin_runner_away_from(1)
    expected.ensure()
    found = []
    with Launcher(cores=cores or None) as launcher, Machinery("diag") as machinery:
        bench = sb.Bench(launcher, machinery, 1, None, {})
        for repetition in range(3):
            for rate in rates:
                for work in (50.0, 150.0):
                    bench.options = {"rate_multiple": rate, "arrival_rate": rate * saturation,
                                     "window_s": 6.0, "slice_s": 0.1, "drain_s": 30.0}  # fmt: skip
                    pair = Switchback(NONE, NONE, work, twin_slices=True)
                    planned = sb.Planned(repetition, pair, "ab"[repetition % 2],
                                         bool(repetition % 2))  # fmt: skip
                    _, columns = bench.run(planned)
                    answered = columns["status"] == 200
                    row = {"rate": rate, "work": work}
                    for arm in (0, 1):
                        chosen = answered & (columns["arm"] == arm)
                        for stage in STAGES:
                            row[f"{stage}_{'ab'[arm]}"] = float(np.median(columns[stage][chosen]))
                        row[f"lat_{'ab'[arm]}"] = float(np.median(columns["latency_us"][chosen]))
                    found.append(row)
                    print(json.dumps(row), flush=True)
    return found


if __name__ == "__main__":
    rows = main(float(sys.argv[1]), [float(x) for x in sys.argv[2].split(",")])
    out = Path(__file__).with_name("added_work_stages.json")
    out.write_text(json.dumps(rows, indent=1) + "\n")
