"""A simulator of the lab's one core: Poisson arrivals, the service's event loop, the batcher.

Standard library only: it runs unchanged in CPython and in the reader's browser (Pyodide), and
imports nothing of the project. Use:
        import json, simulate
        results = json.load(open("docs/assets/data/results.json"))
        print(simulate.simulate(results, 32, 2, 1.6))          # B=32 W=2 at 1.6 × S
    python site_src/explorer/simulate.py --results docs/assets/data/results.json \
        --max-batch 32 --max-wait-ms 2 --rate 1.6 [--seed 0]
Validated against every measured Part B cell by `python -m generator.simulation`.

The machine (one core; the load client and the service share it; every cost is µs of core):
  * a request arrives on its own clock (Poisson, seeded) and is readable by the service at once;
  * the service is one uvloop event loop (lab/service.py): each iteration runs the callbacks
    that were ready when it began, then polls the sockets (new requests become handler
    callbacks for the next iteration), then runs due timers;
  * a handler callback costs `handler_before_us` plus the client's send (`client_send_us`); in
    mode none it then scores its own row and answers in the same callback;
  * queue mode is lab/batcher.py step by step: submit sets the batcher's event when B rows wait
    or W = 0, else the first row arms a timer; the batcher callback takes up to B rows, calls
    the model once (`model_us` at that batch size, piecewise linear between measured sizes),
    plans the leftovers, and yields (sleep(0)); each answer is a callback of its own costing
    `answer_us` plus the client's receive (`client_receive_us`);
  * timers are uvloop's: `call_later` rounds the delay to whole milliseconds of a loop clock
    that is itself whole milliseconds (a delay under 0.5 ms becomes `call_soon`, so the
    batcher re-checks every iteration), an idle loop sleeps in epoll for a whole number of
    ms counted from its cached clock, and the kernel wakes it `timer_slack_us` late.
Latency counts from the scheduled arrival. Costs come from `calibrate(part_a, saturation,
part_c)`, which never sees Part B: Part B is what the simulator is checked against.
"""

import argparse
import json
import math
import random
import sys
from collections import deque

INFINITY = float("inf")
KEEPS_UP_SHARE = 0.95
# Linux's default timer slack for a normal thread (prctl PR_SET_TIMERSLACK): an epoll_wait
# timeout may end this much late. A documented kernel constant, not a measurement of ours.
TIMER_SLACK_US = 50.0
MS = 1000.0
# Kinds of ready callbacks in the simulated loop.
HANDLERS, ANSWERS, BATCHER = 0, 1, 2


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
        "timer": "uvloop",
        "spread": "fixed",
        "S": 1e6 / per_answer_us,
        "sources": {
            "model_map": {"slope": round(slope, 5), "offset_us": round(offset, 3)},
            "per_answer_us": round(per_answer_us, 3),
            "client_us": client_us,
            "plumbing_us": round(plumbing_us, 3),
            "assumed": [
                "the open-loop client costs what the closed-loop client of the S runs costs",
                "the batcher's own bookkeeping costs nothing beyond the measured stages",
                "uvicorn's work outside the handler is half before the model, half after",
                f"timers are uvloop's whole milliseconds, {TIMER_SLACK_US:g} µs kernel slack",
            ],
        },
    }


def with_costs(costs: dict, per_call_us=None, per_row_us=None, overhead_us=None) -> dict:
    """The same machine with another model (per call + per row × rows) or another total cost
    per request outside the model (`overhead_us`, shared in the calibrated proportions)."""
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
    return changed


def model_table(costs: dict, largest: int) -> list:
    """The model call's cost for 0 … largest rows."""
    sizes, values = costs["model_sizes"], costs["model_us"]
    extra = costs.get("batcher_us_per_batch", 0.0)
    return [0.0] + [interpolate(sizes, values, size) + extra for size in range(1, largest + 1)]


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


def serve(arrivals: list, max_batch: int, max_wait_ms: float, costs: dict, seed: int) -> dict:
    """Run the service over the arrivals; max_batch 0 is mode none. Returns per-request done
    times (µs), per-request batch sizes and per-batch first waits (µs)."""
    machine = random.Random(f"machine|{seed}")
    phase_us = machine.random() * MS  # where the loop's millisecond ticks fall
    slack = costs["timer_slack_us"]
    uvloop_timer = costs["timer"] == "uvloop"
    spread = machine.expovariate if costs["spread"] == "exponential" else None
    count, none = len(arrivals), max_batch == 0
    before = costs["client_send_us"] + costs["handler_before_us"]
    after = costs["answer_us"] + costs["client_receive_us"]
    model = model_table(costs, max(max_batch, 1))
    whole = before + model[1] + after  # mode none: one callback per request
    max_wait_us = max_wait_ms * MS
    done, size_of, first_waits = [0.0] * count, [1] * count, []
    enqueued, pending = [0.0] * count, []
    head = 0  # pending[head:] still wait for the batcher
    go, waiting = False, True  # the batcher's event, and whether the batcher waits on it
    timer, due_ms = 0, 0  # timer 0: none, 1: a whole-ms uvloop timer, 2: checked every iteration
    ready = deque()
    now, loop_ms, next_read = 0.0, int(phase_us // MS), 0
    while True:
        for _ in range(len(ready)):  # the callbacks ready when this iteration began
            kind, first, last = ready.popleft()
            if kind == HANDLERS:
                if none:
                    for index in range(first, last):
                        now += spread(1.0 / whole) if spread else whole
                        done[index] = now
                    continue
                for index in range(first, last):
                    now += spread(1.0 / before) if spread else before
                    enqueued[index] = now
                    pending.append(index)
                    queued = len(pending) - head
                    if queued >= max_batch or max_wait_us == 0:
                        if not go:
                            go = True
                            if waiting:
                                waiting = False
                                ready.append((BATCHER, 0, 0))
                    elif queued == 1 and timer == 0:
                        when = round(max_wait_us / MS)
                        timer, due_ms = (1, loop_ms + when) if uvloop_timer and when else (2, 0)
            elif kind == ANSWERS:
                for index in first:
                    now += spread(1.0 / after) if spread else after
                    done[index] = now
            else:  # the batcher task: woken by its event, or back from sleep(0)
                if not go:
                    waiting = True
                    continue
                go = False
                if head < len(pending):
                    taken = pending[head : head + max_batch]
                    head += len(taken)
                    timer = 0
                    first_waits.append(now - enqueued[taken[0]])
                    size = len(taken)
                    now += spread(1.0 / model[size]) if spread else model[size]
                    for index in taken:
                        size_of[index] = size
                    ready.append((ANSWERS, taken, 0))
                    if head < len(pending):  # _plan_leftovers
                        remaining = enqueued[pending[head]] + max_wait_us - now
                        if len(pending) - head >= max_batch or max_wait_us == 0 or remaining <= 0:
                            go = True
                        else:
                            when = round(remaining / MS)
                            timer, due_ms = (1, loop_ms + when) if uvloop_timer and when else (2, 0)
                ready.append((BATCHER, 0, 0))  # await asyncio.sleep(0)
        if not ready:  # idle: sleep in epoll until a request comes or the timer is due
            wake = INFINITY
            if timer == 1:
                wake = now + (due_ms - loop_ms) * MS + slack if due_ms > loop_ms else now
            elif timer == 2:
                wake = max(now, enqueued[pending[head]] + max_wait_us)
            coming = arrivals[next_read] if next_read < count else INFINITY
            wake = min(wake, coming)
            if wake == INFINITY:
                break
            now = max(now, wake)
        if next_read < count and arrivals[next_read] <= now:  # poll: read what has come
            last = next_read + 1
            while last < count and arrivals[last] <= now:
                last += 1
            ready.append((HANDLERS, next_read, last))
            next_read = last
        loop_ms = int((now + phase_us) // MS)
        if timer and head < len(pending):  # timers; _timer_fired re-checks against W
            deadline = enqueued[pending[head]] + max_wait_us
            if (loop_ms >= due_ms) if timer == 1 else (now >= deadline):
                timer = 0
                remaining = deadline - now
                if remaining > 0:
                    when = round(remaining / MS)
                    timer, due_ms = (1, loop_ms + when) if uvloop_timer and when else (2, 0)
                elif not go:
                    go = True
                    if waiting:
                        waiting = False
                        ready.append((BATCHER, 0, 0))
        elif timer:
            timer = 0
    return {"done_us": done, "batch_size": size_of, "first_wait_us": first_waits}


# --- what the campaign publishes per run -------------------------------------------------


def nearest_rank(ordered: list, p: float) -> float:
    return ordered[max(math.ceil(p * len(ordered) / 100) - 1, 0)]


def run_metrics(arrivals, served, window_s, drain_s, keeps_up_share=KEEPS_UP_SHARE) -> dict:
    """p50, p99 (never answered = ∞), throughput, keeps up and mean batch size of one run,
    by the campaign's rules (generator/SCHEMA.md, Methods)."""
    cutoff = (window_s + drain_s) * 1e6
    latencies, last_done, rows, batched = [], 0.0, 0, 0
    for arrival, done, size in zip(arrivals, served["done_us"], served["batch_size"]):
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
        keeps_up_share=KEEPS_UP_SHARE) -> dict:  # fmt: skip
    """One simulated run: a setting (max_batch 0 = none) at `arrival_rate` requests/s."""
    check_setting(max_batch, max_wait_ms)
    if not arrival_rate > 0 or not window_s > 0:
        raise ValueError(f"arrival rate and window must be positive: {arrival_rate}, {window_s}")
    arrivals = poisson_arrivals_us(arrival_rate, window_s, seed)
    served = serve(arrivals, max_batch, max_wait_ms, costs, seed)
    return run_metrics(arrivals, served, window_s, drain_s, keeps_up_share)


def check_setting(max_batch, max_wait_ms) -> None:
    if not isinstance(max_batch, int) or isinstance(max_batch, bool) or max_batch < 0:
        raise ValueError(f"B must be a whole number, 0 for no batching; got {max_batch!r}")
    if not isinstance(max_wait_ms, int | float) or not max_wait_ms >= 0:
        raise ValueError(f"W must be 0 or more milliseconds; got {max_wait_ms!r}")
    if max_batch == 0 and max_wait_ms:
        raise ValueError("no batching (B=0) has no wait: use W=0")
    if max_batch == 1 and max_wait_ms:
        raise ValueError("B=1 with W>0 is not a setting: a batch of one never waits")


# --- the reader's box --------------------------------------------------------------------


def describe(metrics: dict) -> list:
    p50, p99 = metrics["p50_ms"], metrics["p99_ms"]
    return [
        f"p50 {'never answered' if p50 == INFINITY else f'{p50:.2f} ms'}",
        f"p99 {'never answered' if p99 == INFINITY else f'{p99:.2f} ms'}",
        f"throughput {metrics['throughput']:,.0f}/s of {metrics['offered_rate']:,.0f}/s offered",
        f"keeps up: {'yes' if metrics['keeps_up'] else 'no'}",
        f"mean batch size {metrics['mean_batch_size']:.2f}",
    ]


def simulate(results, b, w=0, rate=1, seed=0, window_s=8.0, per_call_us=None,
             per_row_us=None, overhead_us=None) -> str:  # fmt: skip
    """B=b W=w (b=0: no batching) at rate × S on the lab's calibrated machine, next to no
    batching on the same arrivals; other costs on request. Plain text."""
    costs = with_costs(
        calibrate(results.get("part_a"), results.get("saturation"), results.get("part_c")),
        per_call_us,
        per_row_us,
        overhead_us,
    )
    arrival_rate = float(rate) * costs["S"]
    share = results.get("design", {}).get("keeps_up_share", KEEPS_UP_SHARE)
    mine = run(int(b), float(w), arrival_rate, costs, window_s, seed, keeps_up_share=share)
    plain = run(0, 0.0, arrival_rate, costs, window_s, seed, keeps_up_share=share)
    name = "no batching" if b == 0 else f"B={b} W={w:g}"
    lines = [
        f"{name} at {float(rate):g} × S ({arrival_rate:,.0f} requests/s, {window_s:g} s, "
        f"seed {seed}): simulated, not measured",
        *("  " + line for line in describe(mine)),
        "no batching on the same arrivals (simulated):",
        *("  " + line for line in describe(plain)),
    ]
    if per_call_us is not None or overhead_us is not None:
        lines.append(f"costs: model {costs['model_us'][0]:,.1f} µs for 1 row; outside the "
                     f"model {one_row_us(costs) - model_table(costs, 1)[1]:,.1f} µs per request")  # fmt: skip
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Simulate one setting on the lab's core.")
    parser.add_argument("--results", required=True, help="results.json written by the generator")
    parser.add_argument("--max-batch", type=int, required=True, help="the cap B (0: none)")
    parser.add_argument("--max-wait-ms", type=float, default=0.0, help="the wait W in ms")
    parser.add_argument("--rate", type=float, required=True, help="arrival rate as a multiple of S")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--window-s", type=float, default=8.0)
    args = parser.parse_args(argv)
    with open(args.results, encoding="utf-8") as file:
        results = json.load(file)
    try:
        text = simulate(
            results, args.max_batch, args.max_wait_ms, args.rate, args.seed, args.window_s
        )
    except ValueError as error:
        print(f"simulate: {error}", file=sys.stderr)
        return 2
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
