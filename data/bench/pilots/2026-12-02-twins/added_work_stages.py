"""Diagnostic: where the added work's extra server time goes (ready vs model stage), per arm,
at two rates. Uses the switchback bench's own Bench.run and keeps the columns.

Run with S in answers per second and the rate multiples after it:
    cd data/bench/pilots/2026-12-02-twins && PYTHONPATH=../../../.. \
        ../../../../.venv/bin/python added_work_stages.py 684.25 0.05,0.5
"""

import json
import sys

import numpy as np

from lab.bench import switchback as sb
from lab.bench.sidebyside import Machinery, shield
from lab.campaign.runner import pin_runner_away_from
from lab.design import NONE, Switchback
from lab.model import expected
from lab.service.launcher import Launcher

S = float(sys.argv[1])
rates = [float(x) for x in sys.argv[2].split(",")]
shield(-10)
cores = pin_runner_away_from(1)
expected.ensure()
out = []
with Launcher(cores=cores or None) as launcher, Machinery("diag") as machinery:
    bench = sb.Bench(launcher, machinery, 1, None, {})
    for rep in range(3):
        for rate in rates:
            for work in (50.0, 150.0):
                bench.options = {"rate_multiple": rate, "arrival_rate": rate * S, "window_s": 6.0,
                                 "slice_s": 0.1, "drain_s": 30.0}  # fmt: skip
                pair = Switchback(NONE, NONE, work, twin_slices=True)
                summary, c = bench.run(sb.Planned(rep, pair, "ab"[rep % 2], bool(rep % 2)))
                ok = c["status"] == 200
                row = {"rate": rate, "work": work}
                for arm in (0, 1):
                    m = ok & (c["arm"] == arm)
                    for k in ("ready_us", "queued_us", "model_us", "call_us"):
                        if k in c:
                            row[f"{k}_{'ab'[arm]}"] = float(np.median(c[k][m]))
                    row[f"lat_{'ab'[arm]}"] = float(np.median(c["latency_us"][m]))
                out.append(row)
                print(json.dumps(row), flush=True)
with open("/tmp/sb3/diag.json", "w") as handle:
    json.dump(out, handle, indent=1)
