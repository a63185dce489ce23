"""Pilot (issue 28): does a spin of N µs of thread CPU slow the handler's steps right after it?

    PYTHONPATH=. taskset -c 1 .venv/bin/python \
        data/bench/pilots/2026-12-02-spin-after-effect/probe.py OUT.json

Apart from the service, the client and the slices: the `ready` stage's own steps (parse the
body, check the record, look up the row in the real SQLite store) are timed right after
`lab.service.switchback.spin(N)` (arm B) and without it (arm A), in alternating blocks of 200
requests (the order of each pair of blocks drawn at random), 60 pairs per N, the whole
probe three times with different seeds. Per pair the
difference of the blocks' medians (µs); over the pairs the Hodges–Lehmann estimate with the
exact Wilcoxon signed-rank 95% interval (generator/arithmetic/intervals.py). Also each spin's
own time on the clock. Not read by the generator; the switchback benchmark's note cites it.
"""

import datetime
import json
import random
import statistics
import sys
import time

from generator.arithmetic import intervals
from lab.model import artifacts
from lab.service.app import Predictor
from lab.service.batch_route import customer_id_of, parse_json
from lab.service.switchback import spin

BLOCK, PAIRS, AMOUNTS = 200, 60, (50.0, 150.0)

store = Predictor(artifacts.load_model(), artifacts.store_path(), None, max_records=0).store
ids = list(artifacts.request_ids())[:2000]
bodies = [json.dumps({"customer_id": int(i)}).encode() for i in ids]
REPEATS = 3  # the whole probe again with another seed: how much the after-effect moves
found = {"what": __doc__.splitlines()[0], "command": " ".join(sys.argv),
         "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
         "block": BLOCK, "pairs": PAIRS, "repeats": []}  # fmt: skip
k = 0
for repeat in range(REPEATS):
    random.seed(28 + repeat)
    amounts = {}
    for added in AMOUNTS:
        differences, spins = [], []
        for _ in range(PAIRS):
            medians = {}
            for arm in random.sample(["a", "b"], 2):
                times = []
                for _ in range(BLOCK):
                    body = bodies[k % len(bodies)]
                    k += 1
                    if arm == "b":
                        start = time.perf_counter_ns()
                        spin(added)
                        spins.append(time.perf_counter_ns() - start)
                    start = time.perf_counter_ns()
                    store.row(customer_id_of(parse_json(body)))
                    times.append(time.perf_counter_ns() - start)
                medians[arm] = statistics.median(times) / 1000
            differences.append(medians["b"] - medians["a"])
        interval = intervals.signed_rank_interval(differences)
        amounts[str(added)] = {
            "spin_on_clock_us_p50": statistics.median(spins) / 1000,
            "steps_after_us": {
                "estimate": intervals.hodges_lehmann(differences),
                "low95": interval.low,
                "high95": interval.high,
            },  # fmt: skip
            "differences_us": differences,
        }
        print(repeat, added, amounts[str(added)]["spin_on_clock_us_p50"],
              amounts[str(added)]["steps_after_us"], flush=True)  # fmt: skip
    found["repeats"].append({"seed": 28 + repeat, "amounts": amounts})
with open(sys.argv[1], "w") as out:
    json.dump(found, out, indent=1)
