"""Where an answer's time goes at half load: `none` and queue B=1 at 0.5 × S on the real
service, traced on the shared core, for the old machinery (a past commit) and this one.

    [setsid -w] python -m lab.bench.handler_trace [--cpu 1] [--rounds 3] [--window-s 4]
        [--rate-multiple 0.5] [--old 903928e] [--saturation S] [--nice N]
        [--out data/bench/handler_trace.json]

Each round runs every version × setting once, in an order that alternates between rounds, on
the round's arrivals (the same for all of them): a fresh service pinned to the measurement
core, the version's own open-loop client pinned there too (one thread each, as the campaign
runner does), `perf record` of that core from another core (lab/machine/schedtrace.py), and the
service's /proc counters around the client's run. The trace is cut to the measured window
(the service's first /predict read to its last answer) and counted: the service's event-loop
iterations (epoll_pwait calls), reads and writes; the client's wake-ups and reads; context
switches on the core and who caused them; loop iterations and switches between a request's
read and its answer; answers that overtook a request read earlier (served out of order).

Counts matter more than times here: the machine this runs on may be shared, so each run also
records the load before and after it and the share of the core other processes took; on a
busy machine `setsid -w … --nice -10` (as root) gives this run's processes most of the core
(lab.bench.sidebyside.shield). S
defaults to the published campaign's (so the rates are those of its Part B). Needs `perf`
(Debian: linux-perf) and root (or perf_event_paranoid ≤ 1). About 3 minutes with the
defaults. The findings (medians over rounds) are what the handler page will show.
"""

import argparse
import datetime
import json
import os
import statistics
import sys
from pathlib import Path

import numpy as np

from lab.bench.sidebyside import (
    NICE_HELP,
    Machinery,
    campaign_saturation,
    latency_percentiles_us,
    shield,
)
from lab.load.arrivals import arrival_seed
from lab.machine import schedtrace
from lab.machine.fingerprint import fingerprint
from lab.machine.quiet import load_snapshot
from lab.paths import DATA
from lab.servicespec import NONE, QUEUE_B1, Setting

OUT = DATA / "bench" / "handler_trace.json"
CAMPAIGN = "full-20261129"
OLD_COMMIT = "903928e"
RATE_MULTIPLE = 0.5
SETTINGS = {"none": NONE, "queue B=1": QUEUE_B1}


def one_run(version: Machinery, setting: Setting, rate: float, window_s: float, seed: int,
            cpu: int, perf_cpus: set[int]) -> dict:  # fmt: skip
    """One traced run: (client stats, latency percentiles, server moments, counts)."""
    load_before = load_snapshot(cpu)
    with version.service(setting, cpu) as service:
        with schedtrace.ProcCounters(service.pid) as service_counters:
            recorder = schedtrace.Recorder(cpu, perf_cpus)
            with recorder:
                out = version.scratch("trace")
                arguments = ["--port", str(service.port), "--arrival-rate", f"{rate:.6f}",
                             "--window-s", str(window_s), "--seed", str(seed)]  # fmt: skip
                client = version.start_client("openloop", arguments, cpu, out)
                meta, columns = version.finish_client(client, out, window_s + 240)
        try:
            span = schedtrace.request_span(recorder.events(), service.pid)
            counted = schedtrace.count_events(span, service.pid, client.pid)
            counted["lost_events"] = recorder.lost_events()
        finally:
            recorder.remove()
    stats = meta["stats"]
    return {
        "requests": stats["requests"],
        "latency_us": latency_percentiles_us(columns),
        "server_moments_us_p50": {
            name: float(np.median(columns[f"{name}_us"]))
            for name in ("ready", "queued", "model", "call")
            if f"{name}_us" in columns
        },
        "client": {key: stats[key] for key in CLIENT_KEYS if key in stats},
        "service_proc_per_request": {
            name: round(value / stats["requests"], 4)
            for name, value in service_counters.found.items()
        },
        "trace": counted,
        "per_request": per_request(counted),
        "load_before": load_before,
        "load_after": load_snapshot(cpu),
    }


CLIENT_KEYS = ("answered", "client_cpu_us_per_request", "dispatch_lag_us_p50", "client_wakeups",
               "client_voluntary_switches", "client_involuntary_switches", "answers_compared",
               "answers_differing", "answer_clock", "event_loop")  # fmt: skip


def per_request(counted: dict) -> dict:
    """The counts that explain the cost, per request answered in the traced span."""
    answered = counted["requests"].get("answered", 0)
    if not answered:
        return {}
    service, client = counted["counts"]["service"], counted["counts"]["client"]
    others = counted["counts"]["others"]

    def per(value) -> float:
        return round(value / answered, 3)

    switches = sum(group.get(kind, 0) for group in (service, client, others)
                   for kind in ("switched_out_blocked", "switched_out_preempted"))  # fmt: skip
    return {
        "service_loop_iterations": per(service.get("epoll_waits", 0)),
        "service_writes": per(service.get("message_writes", 0)),
        "service_preempted": per(service.get("switched_out_preempted", 0)),
        "service_woken": per(service.get("woken", 0)),
        "client_woken": per(client.get("woken", 0)),
        "client_message_reads": per(client.get("message_reads", 0)),
        "context_switches_on_core": per(switches),
        "loop_iterations_read_to_answer": counted["requests"][
            "loop_iterations_read_to_answer_mean"
        ],
        "service_switched_out_read_to_answer": counted["requests"][
            "service_switched_out_read_to_answer_mean"
        ],
        "answered_out_of_read_order_share": round(
            counted["requests"]["answered_out_of_read_order"] / answered, 4
        ),
        "others_core_share": counted["core_share"].get("others", 0.0),
    }


def summarize(runs: list[dict]) -> dict:
    """Medians over rounds for each version × setting, and B=1's p50 overhead over none."""
    found: dict = {}
    for run in runs:
        key = found.setdefault(run["version"], {}).setdefault(run["setting"], [])
        key.append(run)
    summary = {}
    for version, settings in found.items():
        summary[version] = {}
        for setting, group in settings.items():
            numbers = {"p50_us": [r["latency_us"]["p50"] for r in group]}
            for name in group[0]["per_request"]:
                numbers[name] = [r["per_request"][name] for r in group]
            for name in ("cpu_ns", "involuntary_switches", "voluntary_switches"):
                numbers[f"service_{name}_per_request"] = [
                    r["service_proc_per_request"][name] for r in group
                ]
            numbers["client_cpu_us_per_request"] = [
                r["client"]["client_cpu_us_per_request"] for r in group
            ]
            summary[version][setting] = {
                name: round(statistics.median(values), 3) for name, values in numbers.items()
            }
        pairs = [
            (b1["latency_us"]["p50"] - none["latency_us"]["p50"])
            for none, b1 in zip(
                settings.get("none", []), settings.get("queue B=1", []), strict=False
            )
        ]
        if pairs:
            summary[version]["queue_b1_p50_overhead_us"] = {
                "per_round": pairs,
                "median": statistics.median(pairs),
            }
    return summary


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cpu", type=int, default=1, help="the measurement core")
    parser.add_argument("--rounds", type=int, default=3, help="traced runs per version")
    parser.add_argument("--window-s", type=float, default=4.0, help="seconds traced per run")
    parser.add_argument("--rate-multiple", type=float, default=RATE_MULTIPLE, help="× S")
    parser.add_argument("--old", default=OLD_COMMIT, help="the commit of the old machinery")
    parser.add_argument("--saturation", type=float, default=None, help="S (default: campaign's)")
    parser.add_argument("--nice", type=int, default=0, help=NICE_HELP)
    parser.add_argument(
        "--out", type=Path, default=OUT, help=f"where the JSON goes (default: {OUT})"
    )
    args = parser.parse_args(argv)
    why_not = schedtrace.perf_available()
    if why_not:
        print(f"lab.bench.handler_trace: {why_not}", file=sys.stderr)
        return 2
    shielded = shield(args.nice)
    saturation = args.saturation or campaign_saturation(CAMPAIGN)
    rate = args.rate_multiple * saturation
    perf_cpus = (set(range(os.cpu_count() or 1)) - {args.cpu}) or {args.cpu}
    runs = []
    with (
        Machinery("old", commit=args.old) as old,
        Machinery("new") as new,
    ):
        versions = [old, new]
        for round_index in range(args.rounds):
            seed = arrival_seed("handler-trace", round_index, args.rate_multiple)
            order = [(v, s) for v in versions for s in SETTINGS]
            for version, name in order if round_index % 2 == 0 else order[::-1]:
                run = one_run(version, SETTINGS[name], rate, args.window_s, seed, args.cpu,
                              perf_cpus)  # fmt: skip
                run.update(round=round_index, version=version.label, setting=name)
                runs.append(run)
                print(f"round {round_index} {version.label:>3} {name:<9} p50 "
                      f"{run['latency_us']['p50'] / 1000:7.2f} ms  {run['per_request']}",
                      flush=True)  # fmt: skip
        commits = {version.label: version.git_commit for version in versions}
    found = {
        "what": __doc__.splitlines()[0],
        "command": "python -m lab.bench.handler_trace " + " ".join(argv or sys.argv[1:]),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "fingerprint": fingerprint(),
        "commits": commits,
        "cpu": args.cpu,
        "saturation_S": saturation,
        "rate_multiple": args.rate_multiple,
        "arrival_rate": rate,
        "window_s": args.window_s,
        "rounds": args.rounds,
        "nice": args.nice,
        "shielded": shielded,
        "summary": summarize(runs),
        "runs": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    print(json.dumps(found["summary"], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
