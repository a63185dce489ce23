"""Pilot (issue 28): which kind of spin leaves the steps after it slower?

    PYTHONPATH=. taskset -c 1 .venv/bin/python \
        data/bench/pilots/2026-12-02-spin-kinds/spin_kinds.py OUT.json

(Run 2026-12-02 16:17 UTC on core 1 as /tmp/pilot/spin_kinds.py, niced -5, right after the
ceiling benchmark; the JSON beside this file is that run's.)

The 2026-12-02 pilot (../2026-12-02-spin-after-effect/) found the `ready` stage's steps 2-15 µs
slower right after a spin to a thread-CPU deadline. That spin asks the kernel for the thread's
CPU time on every turn (CLOCK_THREAD_CPUTIME_ID has no vDSO path: one system call per turn, a
few hundred per spin). This pilot times the same steps (parse the body, look up the row in
the real SQLite store) right after each of three spins and without one, in alternating
blocks of 200 (the order of each pair drawn at random), 40 pairs per spin kind and amount:

- `thread_cpu`: to a thread-CPU deadline (`time.thread_time_ns`, a system call per turn);
- `clock`: to a `perf_counter_ns` deadline (the vDSO: no system call);
- `syscalls_only`: as many `thread_time_ns` calls as `thread_cpu` makes for N (its median
  turns, counted first), with no deadline (is the after-effect the system calls'?).

Per pair the difference of the blocks' medians (µs); over the pairs the Hodges-Lehmann
estimate with the exact Wilcoxon signed-rank 95% interval (generator/arithmetic/intervals.py).
Not read by the generator.
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

BLOCK, PAIRS, AMOUNTS = 200, 40, (50.0, 150.0)


def spin_thread_cpu(microseconds):
    end = time.thread_time_ns() + round(microseconds * 1000)
    turns = 0
    while time.thread_time_ns() < end:
        turns += 1
    return turns


def spin_clock(microseconds):
    end = time.perf_counter_ns() + round(microseconds * 1000)
    while time.perf_counter_ns() < end:
        pass


store = Predictor(artifacts.load_model(), artifacts.store_path(), None, max_records=0).store
ids = list(artifacts.request_ids())[:2000]
bodies = [json.dumps({"customer_id": int(i)}).encode() for i in ids]
turns_for = {a: int(statistics.median(spin_thread_cpu(a) for _ in range(200))) for a in AMOUNTS}


def syscalls_only(microseconds):
    for _ in range(turns_for[microseconds]):
        time.thread_time_ns()


KINDS = {"thread_cpu": spin_thread_cpu, "clock": spin_clock, "syscalls_only": syscalls_only}
found = {"what": __doc__.splitlines()[0], "command": " ".join(sys.argv),
         "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
         "block": BLOCK, "pairs": PAIRS, "turns_for": turns_for, "kinds": {}}  # fmt: skip
random.seed(2812)
k = 0
for name, kind in KINDS.items():
    found["kinds"][name] = {}
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
                        kind(added)
                        spins.append(time.perf_counter_ns() - start)
                    start = time.perf_counter_ns()
                    store.row(customer_id_of(parse_json(body)))
                    times.append(time.perf_counter_ns() - start)
                medians[arm] = statistics.median(times) / 1000
            differences.append(medians["b"] - medians["a"])
        interval = intervals.signed_rank_interval(differences)
        result = {
            "spin_on_clock_us_p50": statistics.median(spins) / 1000,
            "steps_after_us": {
                "estimate": intervals.hodges_lehmann(differences),
                "low95": interval.low,
                "high95": interval.high,
            },  # fmt: skip
            "differences_us": differences,
        }
        found["kinds"][name][str(added)] = result
        after = {key: round(value, 2) for key, value in result["steps_after_us"].items()}
        print(name, added, round(result["spin_on_clock_us_p50"], 1), after, flush=True)
with open(sys.argv[1], "w") as out:
    json.dump(found, out, indent=1)
