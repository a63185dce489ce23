"""A simulator of the lab's one core: Poisson arrivals, the client, the service, the batcher.

Standard library only: it runs unchanged in CPython and in the reader's browser (Pyodide), and
imports nothing of the project. Use:
        import json, simulate
        results = json.load(open("docs/assets/data/results.json"))
        results = simulate.with_table(results, "docs/assets/data")  # the validation, for notes
        print(simulate.simulate(results, 32, 2, 1.6))          # B=32 W=2 at 1.6 × S
    python site_src/explorer/simulate.py --results docs/assets/data/results.json \
        --max-batch 32 --max-wait-ms 2 --rate 1.6 [--seed 0] [--machine my-demo.json]
Your own machine: `simulate(results, 32, 2, 1.6, machine=json.load(open("my-demo.json")))`
with a file from `python -m lab demo --save my-demo.json` (`read_demo` checks it).
Checked against every measured Part B cell by `python -m generator.simulation`.

The machine: one core shared by two processes, every cost in µs of that core. The campaign's
machinery (results.json `machinery`, `machinery()`) says which of two it was.
  * The client (lab/load/openloop.py) wakes at each scheduled arrival (Poisson, seeded) and
    sends (`client_send_us`); it reads answers (`client_receive_us`), oldest first. First
    machinery: it is woken by every answer and times it when it reads it. Second: it is woken
    only by arrivals and every COLLECT_US while answers are owed, and an answer is timed by the
    kernel's receive timestamp (when the service wrote it).
  * The service is one uvloop event loop (lab/service/app.py). Each iteration runs the callbacks
    that were ready when it began, then polls the sockets (each request the client has sent
    becomes a handler callback for the next iteration), then runs due timers. With nothing
    to do it sleeps in epoll until a request comes or its timer is due; waking costs
    `service_wake_us`.
  * A handler costs `handler_before_us` (uvicorn, FastAPI, parse, feature lookup). Mode none:
    the same callback scores the row (`model_us` at 1 row) and answers (`answer_us`).
  * Queue mode follows lab/service/batcher.py step by step. First machinery: a submit sets the
    batcher task's event when B rows wait or W = 0, else the first row arms a timer; the task
    takes up to B rows, calls the model once (`model_us` at that size, piecewise linear between
    measured sizes) plus `batcher_us_per_batch`, plans the leftovers and yields (sleep(0)).
    Second: a full batch is scored inside the handler that filled it; W = 0 scores what
    gathered at the loop's next callback; W > 0 when the first row's W has passed. Each answer
    is its own callback.
  * W's timer. First machinery: uvloop's `call_later`, which rounds the delay to whole ms
    counted on a loop clock that is itself whole ms (a delay under 0.5 ms becomes `call_soon`,
    so the batcher checks again every iteration); an idle loop's epoll timeout is whole ms from
    its cached clock, and the kernel ends it `timer_slack_us` late. Second: a timerfd that
    wakes the loop at the deadline itself (lab/machine/timer.py).
  * Every cost is a fixed part plus an exponential tail (`spread_tail`, from Part C's p99 over
    p50 of one /predict round trip).
  * The kernel's scheduler: a woken process does not take the core from the running one
    until that one sleeps or, at a scheduler tick (`tick_us`), has run its slice (`slice_us`).
  * The work outside the model grows with load (`load_fit()`, `at_load()`): the client's and
    the service's cost per request on straight lines in the arrival rate, fitted on the Part B
    cells that never batch (none, queue B=1); the batched cells are what checks them. Waking
    from sleep (`service_wake_us`) is fitted on none's own CPU per answer (`wake_fit()`).
Latency counts from the scheduled arrival. Costs come from `calibrate_results(results)`:
`calibrate(part_a, saturation, part_c)` (never Part B) and the fit above.
"""

import argparse
import json
import math
import os
import random
import sys
from collections import deque

INFINITY = float("inf")
KEEPS_UP_SHARE = 0.95
# Linux's default timer slack for a normal thread (prctl PR_SET_TIMERSLACK): an epoll_wait
# timeout may end this much late. A documented kernel constant, not a measurement of ours.
TIMER_SLACK_US = 50.0
# The kernel's scheduler (EEVDF, Linux ≥ 6.6) on the lab machine: a woken process does not
# take the core from the running one until that one sleeps or, at a tick, has run its slice.
# Base slice 0.75 ms × (1 + log2 of 2 CPUs); ticks every 4 ms (CONFIG_HZ=250). Kernel
# defaults and configuration, not measurements of ours.
SLICE_US = 1500.0
TICK_US = 4000.0
MS = 1000.0
CONNECTIONS = 512  # the open-loop client's kept-alive connections (lab/openloop.py)
# The second machinery's client reads answers every 5 ms while any are owed and no arrival is
# due sooner (COLLECT_NS in lab/load/openloop.py): the lab's code, not a measurement.
COLLECT_US = 5000.0
MAX_REQUESTS = 200_000  # per simulated run, so one answer stays quick
# Kinds of ready callbacks in the simulated loop.
HANDLERS, ANSWERS, BATCHER = 0, 1, 2
# Who has the core.
IDLE, SERVICE, CLIENT = 0, 1, 2


# What the calibration cannot measure outside Part B, said plainly (shown with the results).
ASSUMED = [
    "the open-loop client costs per request what the closed-loop client of the S runs costs",
    "the batcher's own bookkeeping (futures, event, task switches) costs nothing",
    "uvicorn's and FastAPI's work outside the handler is half before the model, half after",
    "a request is readable by the service the moment the client has sent it",
    "an idle core wakes at once (no wake-up latency of the virtual machine)",
    f"timers are uvloop's whole milliseconds; the kernel ends an epoll timeout "
    f"{TIMER_SLACK_US:g} µs late (its default timer slack)",
    f"the scheduler switches at a {TICK_US / MS:g} ms tick once the running process has "
    f"used a {SLICE_US / MS:g} ms slice, or when it sleeps",
]


# What a reader's demo file cannot tell, said plainly (printed with every answer for it).
MACHINE_ASSUMED = [
    "the service adds to your model call what it adds on the lab's machine "
    "(the lab's in-service model time against its Part A, the same straight line)",
    "everything outside the model (client, uvicorn, FastAPI, the handler) is faster or slower "
    "than on the lab's core by the same factor as your one-row model call",
    "your core's timers and scheduler behave like the lab's",
]


class CalibrationError(ValueError):
    """results.json lacks a number the calibration needs; the message names the key."""


# --- costs -------------------------------------------------------------------------------


def need(section: dict | None, key: str, where: str):
    if not isinstance(section, dict) or section.get(key) is None:
        raise CalibrationError(f"calibration needs results.json {where}.{key}; it is missing")
    return section[key]


def interpolate(sizes: list, values: list, size: float) -> float:
    """Piecewise linear in the batch size between measured sizes (a call costs a fixed part
    plus a part per row, so straight lines between neighbours); the end segments extend."""
    if len(sizes) == 1:
        return float(values[0])
    index = 1
    while index < len(sizes) - 1 and sizes[index] < size:
        index += 1
    low, high = sizes[index - 1], sizes[index]
    share = (size - low) / (high - low)
    return values[index - 1] + share * (values[index] - values[index - 1])


def calibrate(part_a: dict, saturation: dict, part_c: dict) -> dict:
    """The simulator's costs from results.json's part_a, saturation and part_c (never Part B).

    * model call in the service: Part A's per-call curve mapped through the two in-service
      model times Part C measured (one /predict call: 1 row; one /predict_batch call: its
      `records` rows) by a straight line, in-service = slope × Part A + offset;
    * client: the closed-loop client's CPU per request in the S runs
      (`saturation.client_cpu_us_per_request`), half on sending, half on receiving;
    * service outside the model: 10⁶ / S is the whole core's time per answer with no
      batching; minus the client and the 1-row model call, the rest is the service's own
      work; Part C's `ready` stage (handler start to row ready) goes before the model, and
      what is left (uvicorn, FastAPI, sockets) is split half before, half after.
    """
    by_size = need(part_a, "by_size", "part_a")
    sizes = sorted(int(key) for key in by_size)
    lab_us = [float(need(by_size[str(size)], "per_call_us", f"part_a.by_size.{size}"))
              for size in sizes]  # fmt: skip
    breakdown = need(part_c, "breakdown", "part_c")
    single = need(breakdown, "single", "part_c.breakdown")
    single_model_us = float(need(single, "model_us", "part_c.breakdown.single"))
    ready_us = float(need(single, "ready_us", "part_c.breakdown.single"))
    batch = breakdown.get("batch") or {}
    lab_at_one = interpolate(sizes, lab_us, 1)
    if batch.get("model_us") and batch.get("records", 1) > 1:
        records = float(batch["records"])
        slope = (float(batch["model_us"]) - single_model_us) / (
            interpolate(sizes, lab_us, records) - lab_at_one
        )
        offset = single_model_us - slope * lab_at_one
    else:  # no batch-route point: scale Part A by the single call's ratio
        slope, offset = single_model_us / lab_at_one, 0.0
    service_model_us = [round(slope * value + offset, 3) for value in lab_us]
    per_answer_us = 1e6 / float(need(saturation, "S", "saturation"))
    client_us = float(need(saturation, "client_cpu_us_per_request", "saturation"))
    plumbing_us = per_answer_us - client_us - single_model_us - ready_us
    if plumbing_us < 0:
        raise CalibrationError(
            f"10⁶/S = {per_answer_us:.1f} µs is less than the client ({client_us:.1f} µs), the "
            f"model ({single_model_us:.1f} µs) and the handler ({ready_us:.1f} µs) together"
        )
    return {
        "model_sizes": sizes,
        "model_us": service_model_us,
        "client_send_us": client_us / 2,
        "client_receive_us": client_us / 2,
        "handler_before_us": ready_us + plumbing_us / 2,
        "answer_us": plumbing_us / 2,
        "batcher_us_per_batch": 0.0,
        "timer_slack_us": TIMER_SLACK_US,
        "slice_us": SLICE_US,
        "tick_us": TICK_US,
        "timer": "uvloop",
        "spread": "fixed",
        "S": float(saturation["S"]),
        "sources": {
            "read": [
                "part_a.by_size.*.per_call_us",
                "part_c.breakdown.single.model_us",
                "part_c.breakdown.single.ready_us",
                "part_c.breakdown.batch.model_us",
                "part_c.breakdown.batch.records",
                "saturation.S",
                "saturation.client_cpu_us_per_request",
            ],
            "model_map": {"slope": round(slope, 5), "offset_us": round(offset, 3)},
            "per_answer_us": round(per_answer_us, 3),
            "client_us": client_us,
            "plumbing_us": round(plumbing_us, 3),
            "assumed": ASSUMED,
        },
    }


# What the campaign recorded about its machinery (results.json `machinery`, from its runs'
# meta: generator/arithmetic/machinery.py), and how the simulator runs each.
MACHINERY = {
    "first": {"timer": "uvloop", "batcher": "task", "client_collect_us": None},
    "second": {"timer": "timerfd", "batcher": "inline", "client_collect_us": COLLECT_US},
}
KERNEL_CLOCK = "kernel receive timestamp"  # a run's `answer_clock` when the kernel timed it


def machinery(section: dict | None) -> dict:
    """How the campaign's service and client ran, from results.json `machinery`: the first
    (a batcher task woken by an event, W on uvloop's whole-millisecond timers, a client on an
    event loop woken by every answer, latency to the client's read) or the second (a batch
    leaves inside the handler that fills it or at the loop's next callback, W on a timerfd, a
    client with no event loop woken only by its arrivals and every COLLECT_US while owed,
    latency to the kernel's receive timestamp when most runs recorded it). A campaign that
    recorded none (or a mix) runs as the first, and says so."""
    section = section or {}
    kind = section.get("kind")
    found = dict(MACHINERY["second" if kind == "second" else "first"])
    clocks = section.get("answer_clocks") or {}
    kernel = clocks.get(KERNEL_CLOCK, 0)
    found["answer_clock"] = "received" if kernel * 2 > sum(clocks.values()) else "read"
    found["machinery"] = kind if kind in MACHINERY else f"{kind or 'not recorded'}: as first"
    return found


def straight_line(points: list) -> tuple:
    """Least squares (intercept, slope) through [(x, y)]; flat at the mean with one x."""
    xs = [x for x, _ in points]
    mean_x, mean_y = sum(xs) / len(xs), sum(y for _, y in points) / len(points)
    spread_x = sum((x - mean_x) ** 2 for x in xs)
    if spread_x == 0:
        return mean_y, 0.0
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / spread_x
    return mean_y - slope * mean_x, slope


def median(values: list) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def load_fit(part_b: dict | None, saturation: dict, base: dict) -> dict:
    """The work outside the model as the load grows, fitted on the settings that never batch
    (none and queue B=1) and on nothing else, so the batched cells check it:
      * the open-loop client's CPU per request at x × S: a straight line through every
        unbatched cell's `client_cpu_us_per_request`;
      * the service's own work per answer outside the model at x × S: a straight line
        through the none cells that fell behind in every round (their throughput is what the
        core could give): 10⁶ / throughput − that client − the one-row model call;
      * the batcher's machinery per batch: the queue B=1 cells that fell behind in every
        round, the median of their work per answer over none's line at the same rate;
      * waking from sleep (`wake_fit()`): from the service's own CPU per answer in the none
        cells, when Part B publishes it; else the open-loop client's line at no load (every
        request wakes it) over the closed-loop client of the S runs (which hardly sleeps),
        taken for the service too (both block in epoll on the same kernel).
    None when Part B has no unbatched cell that fell behind (nothing to fit)."""
    settings = (part_b or {}).get("settings") or {}
    clients, none, queue = [], [], []
    for setting in settings.values():
        if setting.get("max_batch", 2) > 1:
            continue
        for key, cell in setting.get("rates", {}).items():
            if cell.get("rounds") and cell.get("client_cpu_us_per_request") is not None:
                clients.append((float(key), float(cell["client_cpu_us_per_request"])))
    if not clients:
        return None
    client = straight_line(clients)
    model_one = base["model_us"][0]
    for setting in settings.values():
        if setting.get("max_batch", 2) > 1:
            continue
        for key, cell in setting.get("rates", {}).items():
            if cell.get("rounds") and cell.get("keeps_up_rounds") == 0 and cell.get("throughput"):
                x = float(key)
                outside = 1e6 / cell["throughput"] - (client[0] + client[1] * x) - model_one
                (none if setting["max_batch"] == 0 else queue).append((x, outside))
    if not none:
        return None
    service = straight_line(none)
    per_batch = [y - (service[0] + service[1] * x) for x, y in queue]
    woken = wake_fit(settings)
    if woken is None:
        woken = {"service_wake_us": round(max(client[0] - base["sources"]["client_us"], 0.0), 3),
                 "wake_from": "client"}  # fmt: skip
    return {
        "client_line": [round(value, 5) for value in client],
        "outside_line": [round(value, 5) for value in service],
        "batcher_us_per_batch": round(max(median(per_batch), 0.0), 3) if per_batch else 0.0,
        **woken,
        "client_at_s_us": round(base["client_send_us"] + base["client_receive_us"], 3),
        "service_at_s_us": round(base["handler_before_us"] + base["answer_us"], 3),
        "client_cells": len(clients),
        "fell_behind_none": [round(x, 3) for x, _ in none],
        "fell_behind_queue": [round(x, 3) for x, _ in queue],
    }


SERVICE_CPU = "service_cpu_us_per_answer"  # a Part B cell's service CPU per answer


def wake_fit(settings: dict) -> dict | None:
    """The service's cost of waking from sleep, from its CPU per answer in the none cells
    (`service_cpu_us_per_answer`: every µs the service spent in a run, over its answers). In
    a cell that fell behind in every round the service never slept: the median of those
    cells is the work of an answer with no wake (a level, not a line in x: where the service
    never sleeps its work hardly depends on the rate, and a line through a few noisy
    saturated cells would tilt). A cell that kept up in every round spent d more per answer;
    the service was asleep a share q = 1 − throughput × its CPU per answer of the time, and
    a Poisson arrival finds it asleep as often (so q wakes per answer). The wake cost is the
    least-squares w of d = w·q through those cells: Σ d·q / Σ q². None when no none cell
    kept up, or none fell behind, with it published."""
    setting = next((s for s in settings.values() if s.get("max_batch") == 0), None)
    behind, kept = [], []
    for key, cell in ((setting or {}).get("rates") or {}).items():
        if not cell.get("rounds") or cell.get(SERVICE_CPU) is None or not cell.get("throughput"):
            continue
        if cell.get("keeps_up_rounds") == 0:
            behind.append((float(key), float(cell[SERVICE_CPU])))
        elif cell.get("keeps_up"):
            kept.append((float(key), float(cell[SERVICE_CPU]), float(cell["throughput"])))
    if not behind or not kept:
        return None
    awake = median([cpu for _, cpu in behind])
    points = [(x, 1.0 - rate * cpu / 1e6, cpu - awake) for x, cpu, rate in kept]
    points = [point for point in points if point[1] > 0]  # else the CPU outran the clock
    if not points:
        return None
    wake = sum(q * extra for _, q, extra in points) / sum(q * q for _, q, _ in points)
    return {
        "service_wake_us": round(max(wake, 0.0), 3),
        "wake_from": "service",
        "awake_us": round(awake, 3),
        "wake_cells": [[round(x, 3), round(q, 4), round(extra, 3)] for x, q, extra in points],
    }


def tail_share(part_c: dict | None) -> float:
    """How much of each cost is an exponential tail (the rest fixed), so that a request's
    p99 over its p50 is what Part C measured for one /predict call's round trip: with
    cost = 1 − t + t·Exp(1), p99/p50 = (1 + t(ln 100 − 1)) / (1 + t(ln 2 − 1)). 0 without
    Part C's percentiles."""
    single = ((part_c or {}).get("breakdown") or {}).get("single") or {}
    p50, p99 = single.get("round_trip_us_p50"), single.get("round_trip_us_p99")
    if not p50 or not p99 or p99 <= p50:
        return 0.0
    ratio = p99 / p50
    return round((ratio - 1) / (math.log(100) - 1 + ratio * (1 - math.log(2))), 5)


def calibrate_results(results: dict) -> dict:
    """The simulator's costs from results.json: calibrate() of Part A, S and Part C; the
    machinery the campaign recorded (`machinery()`); how each cost varies (`tail_share()`,
    Part C); and the growth of the work outside the model with load (`load_fit()`, fitted
    on the unbatched Part B cells only)."""
    costs = calibrate(results.get("part_a"), results.get("saturation"), results.get("part_c"))
    costs.update(machinery(results.get("machinery")))
    tail = tail_share(results.get("part_c"))
    if tail:
        costs["spread"], costs["spread_tail"] = "tail", tail
    fitted = load_fit(results.get("part_b"), results.get("saturation"), costs)
    sources = dict(costs["sources"])
    sources["read"] = [*sources["read"], *LOAD_READ]
    sources["assumed"] = assumed(costs, fitted)
    costs["sources"] = sources
    if fitted is not None:
        costs["load"] = fitted
        costs["batcher_us_per_batch"] = fitted["batcher_us_per_batch"]
        costs["service_wake_us"] = fitted["service_wake_us"]
    speeds = round_speeds(results.get("part_b"))
    if speeds is not None:
        costs["round_speeds"] = speeds
    return costs


def seed_speed(costs: dict, seed: int) -> float:
    """The machine's speed for the validation's seed `seed`, standing for the lab's round of
    that number (`round_speeds`); 1 without them. The reader's answers run at 1."""
    speeds = costs.get("round_speeds") or [1.0]
    return speeds[seed % len(speeds)]


LOAD_READ = [
    "machinery.kind",
    "machinery.answer_clocks.*",
    "part_c.breakdown.single.round_trip_us_p50",
    "part_c.breakdown.single.round_trip_us_p99",
    "part_b.settings.*.max_batch",
    "part_b.settings.*.rates.*.rounds",
    "part_b.settings.*.rates.*.client_cpu_us_per_request",
    "part_b.settings.*.rates.*.keeps_up_rounds",
    "part_b.settings.*.rates.*.throughput",
    "part_b.settings.*.rates.*.keeps_up",
    "part_b.settings.*.rates.*.by_round.throughput",
    f"part_b.settings.*.rates.*.{SERVICE_CPU}",
]


WAKE_ASSUMED = {  # how the wake cost was fitted (`load_fit`), and what that takes on trust
    "client": "waking from sleep costs the service what it costs the client",
    "service": "a request finds the service asleep as often as the service sleeps, and each "
    "wake from sleep costs the same whatever the load and the setting",
}


def assumed(costs: dict, fitted: dict | None) -> list:
    """What the calibration cannot measure, said plainly, for this campaign's machinery."""
    said = [
        "uvicorn's and FastAPI's work outside the handler is half before the model, half after",
        "a request is readable by the service the moment the client has sent it",
        f"the scheduler switches at a {TICK_US / MS:g} ms tick once the running process has "
        f"used a {SLICE_US / MS:g} ms slice, or when it sleeps",
    ]
    if costs["timer"] == "uvloop":
        said.append(f"timers are uvloop's whole milliseconds; the kernel ends an epoll timeout "
                    f"{TIMER_SLACK_US:g} µs late (its default timer slack)")  # fmt: skip
    else:
        said.append("W's timer (a timerfd) fires at its deadline, with no timer slack")
    if fitted is None:
        said += [ASSUMED[0], ASSUMED[1], ASSUMED[4]]
    else:
        waking = WAKE_ASSUMED[fitted["wake_from"]]
        said += [
            "the work outside the model depends on the arrival rate alone, on a straight line "
            "fitted where none fell behind, and is the same for every setting",
            waking,
        ]
    return said


def at_load(costs: dict, arrival_rate: float) -> dict:
    """The costs at `arrival_rate` requests/s: the client's and the service's work outside
    the model on their fitted lines (`load_fit()`) at x = arrival_rate / S, as factors on
    the costs at S (so `with_costs` scales them too); unchanged without a fit."""
    fitted = costs.get("load")
    if not fitted:
        return costs
    x = arrival_rate / costs["S"]
    client_now = max(fitted["client_line"][0] + fitted["client_line"][1] * x, 0.0)
    service_now = max(fitted["outside_line"][0] + fitted["outside_line"][1] * x, 0.0)
    client_factor = client_now / fitted["client_at_s_us"] if fitted["client_at_s_us"] else 1.0
    service_at_s = fitted["service_at_s_us"]
    service_factor = service_now / service_at_s if service_at_s else 1.0
    changed = dict(costs)
    for part in ("client_send_us", "client_receive_us"):
        changed[part] = costs[part] * client_factor
    for part in ("handler_before_us", "answer_us"):
        changed[part] = costs[part] * service_factor
    return changed


def round_speeds(part_b: dict | None) -> list | None:
    """How fast the machine was in each round of Part B, as a share of its usual speed: in
    the unbatched cells (none, queue B=1) that fell behind in every round the throughput is
    what the core could give, so round r's share is the median over those cells of round r's
    throughput over the cell's median. The lab's rounds ran one after the other, so a slow
    spell hits a round across cells, and a cell keeps up only when every round did. None
    without such cells."""
    shares: dict = {}
    for setting in ((part_b or {}).get("settings") or {}).values():
        if setting.get("max_batch", 2) > 1:
            continue
        for cell in setting.get("rates", {}).values():
            rounds = cell.get("rounds") or []
            throughputs = (cell.get("by_round") or {}).get("throughput") or []
            if not rounds or cell.get("keeps_up_rounds") != 0 or not cell.get("throughput"):
                continue
            for index, throughput in zip(rounds, throughputs, strict=False):
                if throughput:
                    shares.setdefault(index, []).append(throughput / cell["throughput"])
    if not shares:
        return None
    return [round(median(shares[index]), 5) for index in sorted(shares)]


SPEED_PARTS = ("client_send_us", "client_receive_us", "handler_before_us", "answer_us",
               "batcher_us_per_batch", "service_wake_us")  # fmt: skip


def at_speed(costs: dict, speed: float) -> dict:
    """The same machine `speed` times as fast: every cost of the core divided by it (S and
    the load fit, which are shares of the costs at S, unchanged)."""
    if speed == 1:
        return costs
    changed = dict(costs)
    for part in SPEED_PARTS:
        if part in costs:
            changed[part] = costs[part] / speed
    changed["model_us"] = [value / speed for value in costs["model_us"]]
    return changed


def with_costs(costs: dict, per_call_us=None, per_row_us=None, overhead_us=None) -> dict:
    """The same machine with another model (per call + per row × rows) or another total cost
    per request outside the model (`overhead_us`, shared in the calibrated proportions).
    S becomes that machine's: 10⁶ / its time per request with no batching."""
    if per_call_us is None and per_row_us is None and overhead_us is None:
        return costs
    changed = dict(costs)
    if (per_call_us is None) != (per_row_us is None):
        raise ValueError("give both per_call_us and per_row_us, or neither")
    if per_call_us is not None:
        if per_call_us < 0 or per_row_us < 0:
            raise ValueError("per_call_us and per_row_us must be 0 or more")
        changed["model_sizes"] = [1, 2]
        changed["model_us"] = [per_call_us + per_row_us, per_call_us + 2 * per_row_us]
    if overhead_us is not None:
        if overhead_us < 0:
            raise ValueError("overhead_us must be 0 or more")
        parts = ("client_send_us", "client_receive_us", "handler_before_us", "answer_us")
        total = sum(costs[part] for part in parts)
        for part in parts:
            changed[part] = costs[part] * overhead_us / total
    changed["S"] = 1e6 / one_row_us(changed)
    return changed


# --- the reader's machine (`python -m lab demo --save FILE`) -------------------------------

DEMO_FORMAT = "batching-lab-demo/2"  # what the demo writes now (lab/demo.py)
# Every format this reads. "/1" came from a demo that timed each size in one block, one size
# after another, and recorded no spread: still read, and said so (`demo_caution`).
DEMO_FORMATS = ("batching-lab-demo/1", DEMO_FORMAT)


class DemoFileError(ValueError):
    """A demo file this simulator cannot use; the message names the field and what it wants."""


def demo_field(demo, dotted: str, wanted: str, accept):
    """demo['a']['b'] for 'a.b' when `accept(value)`, else a DemoFileError naming the field."""
    value = demo
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            raise DemoFileError(f"demo file: {dotted} is missing; it should be {wanted}")
        value = value[part]
    if not accept(value):
        raise DemoFileError(f"demo file: {dotted} is {value!r} ({type(value).__name__}); "
                            f"it should be {wanted}")  # fmt: skip
    return value


def is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def read_demo(demo) -> dict:
    """The demo file's part_a curve, machine facts and noise, checked: {format, sizes,
    per_call_us, machine, noise} (noise None in a "/1" file, which did not record it)."""
    if not isinstance(demo, dict):
        raise DemoFileError(f"demo file: expected a JSON object, got {type(demo).__name__}")
    wanted = " or ".join(f'"{name}"' for name in DEMO_FORMATS)
    found_format = demo_field(demo, "format", f"{wanted} (from `python -m lab demo --save`)",
                              lambda value: value in DEMO_FORMATS)  # fmt: skip
    machine = {
        "cpu_model": demo_field(demo, "machine.cpu_model", "text", lambda v: isinstance(v, str)),
        "cores": demo_field(demo, "machine.cores", "a whole number, 1 or more",
                            lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1),
        "python": demo_field(demo, "machine.python", "text", lambda v: isinstance(v, str)),
    }  # fmt: skip
    by_size = demo_field(demo, "part_a.by_size", 'an object {"1": {"per_call_us": …}, …}',
                         lambda v: isinstance(v, dict) and v)  # fmt: skip
    for key in by_size:
        if not (key.isdigit() and int(key) >= 1):
            raise DemoFileError(f"demo file: part_a.by_size has the key {key!r}; "
                                "keys should be batch sizes, whole numbers 1 or more")  # fmt: skip
    demo_field(demo, "part_a.by_size.1", "the one-row call: every machine's S needs it",
               lambda v: True)  # fmt: skip
    sizes = sorted(int(key) for key in by_size)
    per_call_us = [demo_field(demo, f"part_a.by_size.{size}.per_call_us",
                              "a number of µs per call, more than 0",
                              lambda v: is_number(v) and v > 0)
                   for size in sizes]  # fmt: skip
    noise = None
    if found_format != DEMO_FORMATS[0]:
        noise = {
            "spread_limit": demo_field(demo, "part_a.noise.spread_limit", "a share, more than 0",
                                       lambda v: is_number(v) and v > 0),
            "largest_spread": demo_field(demo, "part_a.noise.largest_spread",
                                         "a share, 0 or more", lambda v: is_number(v) and v >= 0),
            "at_size": demo_field(demo, "part_a.noise.at_size", "a batch size",
                                  lambda v: isinstance(v, int) and not isinstance(v, bool)),
            "too_noisy": demo_field(demo, "part_a.noise.too_noisy", "true or false",
                                    lambda v: isinstance(v, bool)),
        }  # fmt: skip
    return {"format": found_format, "sizes": sizes,
            "per_call_us": [float(value) for value in per_call_us], "machine": machine,
            "noise": noise}  # fmt: skip


def demo_caution(found: dict) -> str:
    """What to keep in mind about a checked demo file (`read_demo`'s answer) before leaning on
    it, in one sentence: too noisy, or from the older demo that recorded no spread; "" when
    its runs agreed within the demo's limit."""
    noise = found["noise"]
    if noise is None:
        return (
            'Note: this file is from an older demo (format "batching-lab-demo/1") that timed '
            "each size in one block, so a change of your machine's speed part-way would look "
            "like a size effect, and it recorded no spread; `python -m lab demo --save FILE` "
            "now interleaves the sizes and says how far its runs agree."
        )
    if noise["too_noisy"]:
        rows = f"{noise['at_size']:,} row{'s' if noise['at_size'] != 1 else ''}"
        return (
            f"Warning: this demo file's timings are too noisy to lean on: its runs of {rows} "
            f"differ by {noise['largest_spread']:.1%} of their median, more than the demo's "
            f"{noise['spread_limit']:.0%} limit. Run the demo again on a quieter machine."
        )
    return ""


def for_machine(results: dict, demo) -> dict:
    """The lab's calibrated machine with the reader's core (a demo file, `python -m lab demo
    --save FILE`): the model call is the reader's Part A mapped into the service as on the
    lab's machine, and everything outside the model scales with the one-row call."""
    found = read_demo(demo)
    lab = calibrate_results(results)
    model_map = lab["sources"]["model_map"]
    lab_part_a = [float(results["part_a"]["by_size"][str(size)]["per_call_us"])
                  for size in lab["model_sizes"]]  # fmt: skip
    speed = found["per_call_us"][0] / interpolate(lab["model_sizes"], lab_part_a, 1)
    costs = dict(lab)
    costs["model_sizes"] = found["sizes"]
    costs["model_us"] = [max(model_map["slope"] * value + model_map["offset_us"], 0.0)
                         for value in found["per_call_us"]]  # fmt: skip
    for part in ("client_send_us", "client_receive_us", "handler_before_us", "answer_us",
                 "batcher_us_per_batch", "service_wake_us"):  # fmt: skip
        if part in lab:
            costs[part] = lab[part] * speed
    costs["S"] = 1e6 / one_row_us(costs)
    costs["sources"] = dict(lab["sources"], machine=found["machine"], speed=round(speed, 5),
                            assumed=[*lab["sources"]["assumed"], *MACHINE_ASSUMED])  # fmt: skip
    return costs


def model_table(costs: dict, largest: int) -> list:
    """The model call's cost for 0 … largest rows."""
    sizes, values = costs["model_sizes"], costs["model_us"]
    return [0.0] + [interpolate(sizes, values, size) for size in range(1, largest + 1)]


def one_row_us(costs: dict) -> float:
    """The core's time per request with no batching: the model and everything around it."""
    return (costs["client_send_us"] + costs["handler_before_us"] + model_table(costs, 1)[1]
            + costs["answer_us"] + costs["client_receive_us"])  # fmt: skip


# --- arrivals ----------------------------------------------------------------------------


def poisson_arrivals_us(arrival_rate: float, window_s: float, seed: int) -> list:
    """Arrival times in µs from the window's start, exponential gaps, seeded."""
    draw = random.Random(f"arrivals|{seed}").expovariate
    per_us, end_us = arrival_rate / 1e6, window_s * 1e6
    arrivals, now = [], draw(per_us)
    while now < end_us:
        arrivals.append(now)
        now += draw(per_us)
    return arrivals


# --- the loop ----------------------------------------------------------------------------


def tick_after(moment: float, tick_phase: float, tick_us: float) -> float:
    """The first scheduler tick at or after `moment` (no ticks: `moment` itself)."""
    if tick_us <= 0:
        return moment
    return tick_phase + math.ceil((moment - tick_phase) / tick_us) * tick_us


def serve(arrivals: list, max_batch: int, max_wait_ms: float, costs: dict, seed: int) -> dict:
    """Run the client and the service on one core over the arrivals; max_batch 0 is mode
    none. Returns per-request done times (µs), batch sizes and per-batch first waits (µs).
    The machinery is the campaign's (`machinery()`): the batcher as a task woken by an event
    or inline in the handler, W on uvloop's whole-ms timers or a precise timerfd, the client
    woken by every answer or only by its arrivals, latency to the client's read or to the
    kernel's receive timestamp."""
    machine = random.Random(f"machine|{seed}")
    phase_us = machine.random() * MS  # where the loop clock's milliseconds fall
    slack, slice_us, tick_us = costs["timer_slack_us"], costs["slice_us"], costs["tick_us"]
    tick_phase = machine.random() * tick_us  # where the kernel's ticks fall
    uvloop_timer = costs["timer"] == "uvloop"
    inline = costs.get("batcher", "task") == "inline"
    received = costs.get("answer_clock", "read") == "received"
    collect_us = costs.get("client_collect_us")  # None: the client wakes for every answer
    # each cost: fixed, exponential, or a fixed part plus an exponential tail of `tail` of it
    tail = {"fixed": 0.0, "exponential": 1.0}.get(costs["spread"], costs.get("spread_tail", 0.0))
    draw = machine.expovariate
    spread = None
    if tail:

        def spread(mean: float) -> float:
            return mean * (1.0 - tail) + draw(1.0 / (mean * tail)) if mean > 0 else 0.0

    send_us, receive_us = costs["client_send_us"], costs["client_receive_us"]
    before, after = costs["handler_before_us"], costs["answer_us"]
    count, none = len(arrivals), max_batch == 0
    model = model_table(costs, max(min(max_batch, count), 1))
    whole = before + model[1] + after  # mode none: the handler does it all in one callback
    max_wait_us = max_wait_ms * MS
    per_batch_us = costs["batcher_us_per_batch"]
    wake_us = costs.get("service_wake_us", 0.0)  # the service's cost of waking from epoll
    done, written, size_of, first_waits = [0.0] * count, [0.0] * count, [1] * count, []
    enqueued, pending = [0.0] * count, []
    head = 0  # pending[head:] still wait for the batcher
    go, waiting = False, True  # the batcher's event, and whether the batcher waits on it
    # 0: none; 1: a whole-ms uvloop timer due at loop ms `due`; 2: re-checked every
    # iteration (a uvloop delay under 0.5 ms); 3: a precise timer due at µs `due`
    timer, due = 0, 0.0
    ready, todo = deque(), 0  # the loop's callbacks; how many of this iteration are left
    answers = deque()  # answers written, not yet read by the client
    sent = read = got = 0  # requests the client sent; the service read; answers the client read
    collect_at = INFINITY  # the client's next wake to read answers (collect_us only)
    now, loop_ms = 0.0, int(phase_us // MS)
    asleep, wake = True, INFINITY  # the service sleeping in epoll, and its timeout
    owner, preempt_at = IDLE, INFINITY
    timers = 0  # timers armed (W = 0 must leave this at zero, as in lab/service/batcher.py)

    def armed(remaining_us: float) -> tuple:
        """The timer for a wait of `remaining_us` from now: (kind, due)."""
        if not uvloop_timer:
            return 3, now + remaining_us
        when = round(remaining_us / MS)
        return (1, loop_ms + when) if when else (2, 0.0)

    def score(taken: list) -> float:
        """The model call on the taken rows: its cost; the answers are the next callbacks."""
        first_waits.append(now - enqueued[taken[0]])
        size = len(taken)
        for index in taken:
            size_of[index] = size
        ready.append([ANSWERS, taken, 0])
        return (spread(model[size]) if spread else model[size]) + per_batch_us

    while True:
        if collect_us is None:
            client_ready = answers or (sent < count and arrivals[sent] <= now)
        else:
            client_ready = (sent < count and arrivals[sent] <= now) or now >= collect_at
        service_ready = not asleep or read < sent or now >= wake
        if owner == SERVICE:
            keep = service_ready and not (client_ready and now >= preempt_at)
        else:
            keep = owner == CLIENT and client_ready and not (service_ready and now >= preempt_at)
        if not keep:  # the owner blocked or used its slice: the core changes hands
            if owner == SERVICE:
                owner = CLIENT if client_ready else IDLE
            else:
                owner = SERVICE if service_ready else CLIENT if client_ready else IDLE
            if owner == IDLE:  # both sleep: on to the next arrival or the service's timeout
                now = max(now, min(arrivals[sent] if sent < count else INFINITY, wake,
                                   collect_at))  # fmt: skip
                if now == INFINITY:
                    break
                continue
            preempt_at = tick_after(now + slice_us, tick_phase, tick_us)
        if owner == CLIENT:  # the client sends and reads, oldest first, until it sleeps
            while True:  # or, the service waiting, it has used its slice
                if (
                    sent < count
                    and arrivals[sent] <= now
                    and (not answers or arrivals[sent] <= written[answers[0]])
                ):
                    now += send_us
                    sent += 1
                elif answers:
                    index = answers.popleft()
                    now += receive_us
                    got += 1
                    if not received:
                        done[index] = now
                else:
                    break
                if now >= preempt_at and (not asleep or read < sent or now >= wake):
                    break
            if collect_us is not None:  # asleep until the next arrival, or a while to read
                collect_at = now + collect_us if got < sent else INFINITY
            continue
        # one unit of the service
        if asleep:  # epoll returned
            asleep, wake = False, INFINITY
            todo = 0
            now += wake_us
        elif todo:
            item = ready[0]
            kind = item[0]
            if kind == HANDLERS:  # handlers run one by one; the client may preempt between
                index, last = item[1], item[2]
                while index < last:
                    if none:
                        now += spread(whole) if spread else whole
                        written[index] = now
                        if received:
                            done[index] = now
                        answers.append(index)
                    else:
                        now += spread(before) if spread else before
                        enqueued[index] = now
                        pending.append(index)
                        queued = len(pending) - head
                        if inline:  # lab/service/batcher.py: submit()
                            if queued >= max_batch:  # full: scored inside this handler
                                taken, head, timer = pending[head:], len(pending), 0
                                now += score(taken)
                            elif queued == 1:
                                if max_wait_us == 0:  # call_soon: what gathers meanwhile
                                    ready.append([BATCHER])
                                else:
                                    timer, due = armed(max_wait_us)
                                    timers += 1
                        elif queued >= max_batch or max_wait_us == 0:
                            if not go:
                                go = True
                                if waiting:
                                    waiting = False
                                    ready.append([BATCHER])
                        elif queued == 1 and timer == 0:
                            timer, due = armed(max_wait_us)
                            timers += 1
                    index += 1
                    if now >= preempt_at and (answers or (sent < count and arrivals[sent] <= now)):
                        break
                item[1] = index
                if index == last:
                    ready.popleft()
                    todo -= 1
            elif kind == ANSWERS:
                taken, position = item[1], item[2]
                while position < len(taken):
                    index = taken[position]
                    now += spread(after) if spread else after
                    written[index] = now
                    if received:
                        done[index] = now
                    answers.append(index)
                    position += 1
                    if now >= preempt_at:  # the client has an answer to read
                        break
                item[2] = position
                if position == len(taken):
                    ready.popleft()
                    todo -= 1
            elif inline:  # the batch leaves: W = 0's next callback, or W's timer fired
                ready.popleft()
                todo -= 1
                if head < len(pending):
                    taken, head, timer = pending[head:], len(pending), 0
                    now += score(taken)
            else:  # the batcher task: woken by its event, or back from sleep(0)
                ready.popleft()
                todo -= 1
                if not go:
                    waiting = True
                    continue
                go = False
                if head < len(pending):
                    taken = pending[head : head + max_batch]
                    head += len(taken)
                    timer = 0
                    now += score(taken)
                    if head < len(pending):  # _plan_leftovers
                        remaining = enqueued[pending[head]] + max_wait_us - now
                        if len(pending) - head >= max_batch or max_wait_us == 0 or remaining <= 0:
                            go = True
                        else:
                            timer, due = armed(remaining)
                            timers += 1
                ready.append([BATCHER])  # await asyncio.sleep(0)
            continue
        elif not ready and read == sent:  # nothing to run, nothing to read: epoll_wait
            if timer == 2:  # call_soon re-checks: the loop spins until W has passed
                deadline = enqueued[pending[head]] + max_wait_us
                limit = (
                    preempt_at if client_ready else (arrivals[sent] if sent < count else INFINITY)
                )
                now = max(now, min(deadline, limit))
            elif timer == 3 and due > now:  # a timerfd wakes epoll at its deadline
                asleep, wake = True, due
                continue
            elif timer == 0 or (timer == 1 and due > loop_ms):
                # the timeout counts whole ms from the clock cached before this iteration
                asleep = True
                wake = now + (due - loop_ms) * MS + slack if timer else INFINITY
                continue
        # the poll reads what the client sent; then the clock and the timers
        if read < sent:
            ready.append([HANDLERS, read, sent])
            read = sent
        loop_ms = int((now + phase_us) // MS)
        if timer and head < len(pending):  # due? _timer_fired re-checks against W
            deadline = enqueued[pending[head]] + max_wait_us
            fired = loop_ms >= due if timer == 1 else now >= (deadline if timer == 2 else due)
            if fired:
                timer = 0
                remaining = deadline - now
                if remaining > 0:
                    timer, due = armed(remaining)
                    timers += 1
                elif inline:
                    ready.append([BATCHER])
                elif not go:
                    go = True
                    if waiting:
                        waiting = False
                        ready.append([BATCHER])
        elif timer:
            timer = 0
        todo = len(ready)
    if head < len(pending):
        raise RuntimeError(f"{len(pending) - head} rows left unscored: a simulator bug")
    return {
        "done_us": done,
        "written_us": written,
        "batch_size": size_of,
        "first_wait_us": first_waits,
        "timers": timers,
    }


# --- what the campaign publishes per run -------------------------------------------------


def nearest_rank(ordered: list, p: float) -> float:
    return ordered[max(math.ceil(p * len(ordered) / 100) - 1, 0)]


def run_metrics(arrivals, served, window_s, drain_s, keeps_up_share=KEEPS_UP_SHARE) -> dict:
    """p50, p99 (never answered = ∞), throughput, keeps up and mean batch size of one run,
    by the campaign's rules (generator/SCHEMA.md, Methods)."""
    cutoff = (window_s + drain_s) * 1e6
    latencies, last_done, rows, batched = [], 0.0, 0, 0
    for arrival, done, size in zip(arrivals, served["done_us"], served["batch_size"], strict=True):
        if done <= cutoff:
            latencies.append(done - arrival)
            last_done = max(last_done, done)
            rows += 1
            batched += size
        else:
            latencies.append(INFINITY)
    requests = len(arrivals)
    ordered = sorted(latencies)
    throughput = rows / max(window_s, last_done / 1e6) if rows else 0.0
    offered = requests / window_s
    waits = sorted(served["first_wait_us"])
    return {
        "requests": requests,
        "answered": rows,
        "offered_rate": offered,
        "throughput": throughput,
        "keeps_up": throughput >= keeps_up_share * offered,
        "p50_ms": nearest_rank(ordered, 50) / MS if ordered else None,
        "p99_ms": nearest_rank(ordered, 99) / MS if ordered else None,
        "mean_ms": sum(latencies) / requests / MS if requests else None,
        "mean_batch_size": batched / rows if rows else None,
        "batches": len(waits),
        "first_wait_us_p50": nearest_rank(waits, 50) if waits else None,
    }


def run(max_batch, max_wait_ms, arrival_rate, costs, window_s=8.0, seed=0, drain_s=60.0,
        keeps_up_share=KEEPS_UP_SHARE, speed=1.0) -> dict:  # fmt: skip
    """One simulated run: a setting (max_batch 0 = none) at `arrival_rate` requests/s, on
    the machine `speed` times as fast as the calibrated one (`round_speeds`)."""
    check_run(max_batch, max_wait_ms, arrival_rate, window_s)
    arrivals = poisson_arrivals_us(arrival_rate, window_s, seed)
    costs = at_speed(at_load(costs, arrival_rate), speed)
    served = serve(arrivals, max_batch, max_wait_ms, costs, seed)
    found = run_metrics(arrivals, served, window_s, drain_s, keeps_up_share)
    found["timers"] = served["timers"]
    return found


def check_run(max_batch, max_wait_ms, arrival_rate, window_s) -> None:
    """Refuse what the lab could not run, saying why."""
    if not isinstance(max_batch, int) or isinstance(max_batch, bool) or max_batch < 0:
        raise ValueError(f"B must be a whole number, 0 for no batching; got {max_batch!r}")
    if max_batch > CONNECTIONS:
        raise ValueError(f"B={max_batch} cannot fill: the lab's client keeps at most "
                         f"{CONNECTIONS} requests in flight; use B ≤ {CONNECTIONS}")  # fmt: skip
    if not isinstance(max_wait_ms, int | float) or not 0 <= max_wait_ms <= 1000:
        raise ValueError(f"W must be 0 to 1,000 milliseconds; got {max_wait_ms!r}")
    if max_batch == 0 and max_wait_ms:
        raise ValueError("no batching (B=0) has no wait: use W=0")
    if max_batch == 1 and max_wait_ms:
        raise ValueError("B=1 with W>0 is not a setting: a batch of one never waits")
    if not isinstance(arrival_rate, int | float) or not arrival_rate > 0:
        raise ValueError(f"the arrival rate must be more than 0 per second; got {arrival_rate!r}")
    if not isinstance(window_s, int | float) or not window_s > 0:
        raise ValueError(f"the window must be more than 0 seconds; got {window_s!r}")
    if arrival_rate * window_s > MAX_REQUESTS:
        raise ValueError(f"rate × window asks for {arrival_rate * window_s:,.0f} requests; "
                         f"the simulator takes at most {MAX_REQUESTS:,} per run")  # fmt: skip


# --- the reader's box --------------------------------------------------------------------


def milliseconds(value) -> str:
    return "never answered" if value is None or value == INFINITY else f"{value:,.2f} ms"


def per_second(value: float) -> str:
    """A rate for reading, as the site's pages write numbers (generator/wording.py): three
    significant digits with thousands separators, whole numbers from 100 up."""
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    return f"{value:,.{max(2 - magnitude, 0)}f}"


def describe(metrics: dict) -> list:
    """p50 and p99; the answers per second next to the arrivals this run really had (random
    arrivals around the asked mean: keeps up compares with these); the mean batch."""
    return [
        f"p50 {milliseconds(metrics['p50_ms'])}, p99 {milliseconds(metrics['p99_ms'])}",
        f"throughput {per_second(metrics['throughput'])}/s of the "
        f"{per_second(metrics['offered_rate'])}/s that arrived; "
        f"keeps up: {'yes' if metrics['keeps_up'] else 'no'}",
        f"mean batch size {metrics['mean_batch_size']:.2f}",
    ]


def setting_label(max_batch: int, max_wait_ms: float) -> str:
    return "none" if max_batch == 0 else f"B={max_batch} W={max_wait_ms:g}"


def nearest_check(results: dict, max_batch: int, max_wait_ms: float, rate: float) -> list:
    """The validation of the measured cell nearest to this one (the same setting if it was
    measured, else the nearest cap, then wait; then the nearest rate), when results.json
    holds the generator's comparison (`simulation.settings`)."""
    settings = (results.get("simulation") or {}).get("settings") or {}
    cells = [(name, key, cell) for name, setting in settings.items()
             for key, cell in setting.get("rates", {}).items()]  # fmt: skip
    if not cells:
        return []

    def distance(item):
        name, key, _ = item
        setting = settings[name]
        cap = setting["max_batch"] or 0
        return (
            abs(math.log2(max(cap, 0.5)) - math.log2(max(max_batch, 0.5))),
            abs(setting["max_wait_ms"] - max_wait_ms),
            abs(float(key) - rate),
        )

    name, key, cell = min(cells, key=distance)
    error = cell.get("error", {})
    labels = {"p50_ms": "p50", "p99_ms": "p99", "throughput": "throughput"}
    parts = [f"{label} {error[metric] * 100:+.1f}%" for metric, label in labels.items()
             if error.get(metric) is not None]  # fmt: skip
    agreed = "agreed" if cell.get("keeps_up_agrees") else "disagreed"
    return [
        f"checked against the lab at the nearest measured cell, {name} at {key} × S: "
        f"simulated minus measured {', '.join(parts) or 'not comparable'}; keeps up {agreed}"
    ]


def check_results(results) -> None:
    """The first argument is the campaign's results (a dict), never B: a call written
    without it, simulate(32, 2, 1.25), is refused naming the arguments in order."""
    if not isinstance(results, dict):
        raise ValueError(
            "the first argument is the campaign's results, then B, W and the rate: "
            f"simulate(results, b, w, rate, ...); got {results!r} where results goes"
        )


BASELINES: dict = {}  # mode none per (rate, window, seed, costs): the reader asks often


def baseline(arrival_rate: float, costs: dict, window_s: float, seed: int, share: float) -> dict:
    key = (arrival_rate, window_s, seed, share, json.dumps(costs, sort_keys=True))
    if key not in BASELINES:
        if len(BASELINES) >= 64:
            BASELINES.clear()
        BASELINES[key] = run(0, 0, arrival_rate, costs, window_s, seed, keeps_up_share=share)
    return BASELINES[key]


def simulate(results, b, w=0, rate=1, seed=0, window_s=8.0, per_call_us=None,
             per_row_us=None, overhead_us=None, machine=None) -> str:  # fmt: skip
    """B=b W=w (b=0: no batching) at rate × S on the lab's calibrated machine, next to no
    batching on the same arrivals; another model (per_call_us + per_row_us × rows), another
    cost outside the model (overhead_us per request) or the reader's machine (`machine`: a
    demo file's JSON, `python -m lab demo --save FILE`) on request. S is the simulated
    machine's. Plain text."""
    check_results(results)
    costs = for_machine(results, machine) if machine is not None else calibrate_results(results)
    costs = with_costs(costs, per_call_us, per_row_us, overhead_us)
    share = results.get("design", {}).get("keeps_up_share", KEEPS_UP_SHARE)
    arrival_rate = float(rate) * costs["S"]
    mine = run(b, w, arrival_rate, costs, window_s, seed, keeps_up_share=share)
    plain = baseline(arrival_rate, costs, window_s, seed, share)
    lines = [
        f"{setting_label(b, w)} at {float(rate):g} × S: random arrivals averaging "
        f"{per_second(arrival_rate)}/s, {window_s:g} s, seed {seed}: SIMULATED, NOT MEASURED",
        *("  " + line for line in describe(mine)),
        "none on the same arrivals (simulated):",
        *("  " + line for line in describe(plain)),
    ]
    if machine is not None:
        facts = costs["sources"]["machine"]
        lines.append(f"your machine: {facts['cpu_model']}, {facts['cores']} cores, Python "
                     f"{facts['python']}; work outside the model takes "
                     f"{costs['sources']['speed']:.2f} × the lab's time (as your one-row model "
                     "call does)")  # fmt: skip
        caution = demo_caution(read_demo(machine))
        if caution:
            lines.append(caution)
        lines.append("assumed, not measured: " + "; ".join(MACHINE_ASSUMED))
    if machine is not None or per_call_us is not None or overhead_us is not None:
        outside = one_row_us(costs) - model_table(costs, 1)[1]
        lines.append(f"costs assumed: model {model_table(costs, 1)[1]:,.1f} µs for 1 row, "
                     f"{model_table(costs, 32)[32]:,.1f} µs for 32; {outside:,.1f} µs per "
                     f"request outside the model; "
                     f"so S = {per_second(costs['S'])} requests/s")  # fmt: skip
    else:
        lines += nearest_check(results, b, w, float(rate))
    return "\n".join(lines)


def with_table(results: dict, folder: str) -> dict:
    """results.json with its validation table (`simulation.table`, a file beside it: the
    generator writes the per-cell comparison there to keep results.json small) read in as
    `simulation.settings`, which the answers' nearest check reads."""
    section = results.get("simulation") or {}
    if section.get("table") and "settings" not in section:
        with open(os.path.join(folder, section["table"]), encoding="utf-8") as file:
            section = dict(section, settings=json.load(file)["settings"])
        results = dict(results, simulation=section)
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Simulate one setting on the lab's core.")
    parser.add_argument("--results", required=True, help="results.json written by the generator")
    parser.add_argument("--max-batch", type=int, required=True, help="the cap B (0: none)")
    parser.add_argument("--max-wait-ms", type=float, default=0.0, help="the wait W in ms")
    parser.add_argument("--rate", type=float, required=True, help="arrival rate as a multiple of S")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--window-s", type=float, default=8.0)
    parser.add_argument("--per-call-us", type=float, help="another model: µs per call …")
    parser.add_argument("--per-row-us", type=float, help="… plus µs per row")
    parser.add_argument("--overhead-us", type=float, help="another cost outside the model")
    parser.add_argument("--machine", help="your machine: a file from `python -m lab demo --save`")
    args = parser.parse_args(argv)
    try:
        with open(args.results, encoding="utf-8") as file:
            results = with_table(json.load(file), os.path.dirname(os.path.abspath(args.results)))
        machine = None
        if args.machine:
            with open(args.machine, encoding="utf-8") as file:
                machine = json.load(file)
        text = simulate(
            results, args.max_batch, args.max_wait_ms, args.rate, args.seed,
            args.window_s, args.per_call_us, args.per_row_us, args.overhead_us, machine,
        )  # fmt: skip
    except (ValueError, OSError) as error:
        print(f"simulate: {error}", file=sys.stderr)
        return 2
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
