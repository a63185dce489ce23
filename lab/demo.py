"""A short demo for your own computer: the model's cost per batch size, the bit check, and a
tiny in-process micro-batcher against one model call per request (no web server).

Run: `python -m lab demo [--save FILE]` (after `python -m lab data`). About half a minute.

1. Times the model on batches of 1, 2, 4 … 1,024 real test rows (one thread) as Part A does:
   RUNS runs, each timing every size once in a new random order (lab/model/timing.py), so a
   change of the host's speed part-way shows up as disagreeing runs, not as a size effect;
   prints how far the runs agree and says when they are too noisy to lean on
   (timing.TOO_NOISY_SPREAD).
2. Scores rows alone and inside batches and checks every score is equal to the bit.
3. Sends the same Poisson arrivals, at twice the rate one call per request can serve, first
   to a handler that calls the model once per request, then to the micro-batcher
   (lab/service/batcher.py, B=32, W=0), and says which kept up (throughput at least the
   design's keeps-up share of the arrival rate, KEEPS_UP_SHARE in lab/design.py).

`--save FILE` writes it all as JSON in the format "batching-lab-demo/2" (README.md, "Your
own machine"): `format`, `machine` (cpu_model, cores, usable_cpus, machine, python,
loadavg), `part_a` (results.json's shape: `sizes`, `runs`, `by_size` {size: {size, calls,
per_call_us, per_row_us, per_call_us_runs, spread}}, and `orders`, `noise`), `bits`,
`batcher`, `verdict`. The simulator
(site_src/explorer/simulate.py, `for_machine`) reads it to simulate batching on your core.
"""

import asyncio
import json
import os
import platform
import sys
from pathlib import Path

# Imported here, not later, so a missing package is one line from `lab.cli`.
import numpy as np
import sklearn.ensemble  # noqa: F401  (the model's library, needed to unpickle it)
from threadpoolctl import threadpool_limits

from lab.design import FULL, KEEPS_UP_SHARE, PART_A_SIZES
from lab.machine.fingerprint import cpu_model
from lab.model import artifacts, timing
from lab.model.scoring import score
from lab.model.timing import time_calls
from lab.rawformat.names import setting_name
from lab.service.batcher import MicroBatcher

SIZES = PART_A_SIZES  # 1, 2, 4 … 1,024
RUNS = FULL.part_a_runs  # as many runs as Part A, each timing every size once
BLOCK_S = 0.1  # one size's timed calls in one run last about this long
MIN_CALLS = 5  # per size and run, however slow a call is
ESTIMATE_CALLS = 5  # calls per size that set each block's count (and warm the model up)
BLOCK_WARMUP = 2  # untimed calls before each block
BIT_ROWS = 1024
BIT_SIZES = (8, 32, 1024)
RATE_MULTIPLE = 2.0  # arrivals at 2 × what one call per request can serve
WINDOW_S = 1.5
DEMO_B, DEMO_W_MS = 32, 0.0
SEED = 20261129
# The saved file's format (README.md, "Your own machine"); site_src/explorer/simulate.py reads it.
DEMO_FORMAT = "batching-lab-demo/2"


def machine_line() -> tuple[str, dict]:
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    load = os.getloadavg() if hasattr(os, "getloadavg") else None  # not on Windows
    facts = {
        "cpu_model": cpu_model(),
        "cores": cores,
        "usable_cpus": usable,
        "loadavg": [round(x, 2) for x in load] if load else None,
        "machine": platform.machine(),
        "python": platform.python_version(),
    }
    shown = f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min)" if load else "unknown"
    line = (
        f"Times below are from this machine: {facts['cpu_model']}, {cores} CPUs "
        f"({usable} usable), load average {shown}, "
        f"{platform.machine()}, Python {platform.python_version()}; the model runs on "
        "one thread."
    )
    return line, facts


def block_calls(model, rows: np.ndarray) -> dict[int, int]:
    """Calls per size in one run's block: as many as fit in BLOCK_S, at least MIN_CALLS."""
    calls = {}
    for size in SIZES:
        estimate_ns = float(np.median(time_calls(model, rows, size, ESTIMATE_CALLS, warmup=2)))
        calls[size] = max(MIN_CALLS, int(BLOCK_S * 1e9 / estimate_ns))
    return calls


def time_model(model, rows: np.ndarray, echo, timer=None) -> tuple[list[dict], dict]:
    """Each size's median time per call over RUNS interleaved runs (`timing.interleaved`,
    Part A's orders), the runs' own medians and their spread; and the timings' noise
    (`timing.noise`). `timer(size)` times one block (the tests give their own)."""
    if timer is None:
        calls = block_calls(model, rows)

        def timer(size: int) -> np.ndarray:
            return time_calls(model, rows, size, calls[size], warmup=BLOCK_WARMUP)

    counted: dict[int, int] = dict.fromkeys(SIZES, 0)

    def counting(size: int) -> np.ndarray:
        times = timer(size)
        counted[size] += len(times)
        return times

    orders, medians = timing.interleaved(counting, SIZES, RUNS, SEED)
    found = []
    for size in SIZES:
        runs_us = [value / 1e3 for value in medians[size]]
        per_call_us = float(np.median(runs_us))
        found.append(
            {
                "batch_size": size,
                "calls": counted[size],
                "per_call_us": per_call_us,
                "per_row_us": per_call_us / size,
                "per_call_us_runs": runs_us,
                "spread": timing.spread(runs_us),
            }
        )
    one = found[0]["per_call_us"]
    for entry in found:
        cheaper = one / entry["per_row_us"]
        compared = f", {cheaper:,.1f} × cheaper per row than one row alone" if cheaper != 1 else ""
        echo(
            f"  batch of {entry['batch_size']:>5,}: {entry['per_call_us']:>9,.1f} µs per call, "
            f"{entry['per_row_us']:>7,.2f} µs per row{compared} (runs within "
            f"{entry['spread']:.1%}, {entry['calls']:,} calls)"
        )
    noise = timing.noise(medians)
    echo(noise_line(noise))
    return found, {"orders": orders, "noise": noise}


def noise_line(noise: dict) -> str:
    """Whether the timings are steady enough to compare sizes, in words."""
    limit, largest = noise["spread_limit"], noise["largest_spread"]
    rows = f"{noise['at_size']:,} row{'s' if noise['at_size'] != 1 else ''}"
    if noise["too_noisy"]:
        return (
            f"  TOO NOISY TO LEAN ON: the runs of {rows} differ by {largest:.1%} of their "
            f"median, more than the {limit:.0%} limit; something else used this core while it "
            "timed. Close other programs and run the demo again."
        )
    return (
        f"  The runs agree within {largest:.1%} at worst ({rows}), inside the {limit:.0%} "
        "limit: steady enough to compare sizes."
    )


def check_bits(model, rows: np.ndarray, echo) -> dict:
    """Every row scored alone equals, to the bit, the same row scored inside larger batches."""
    rows = rows[:BIT_ROWS]
    alone = np.array([score(model, rows[i : i + 1])[0] for i in range(len(rows))])
    mismatches = {}
    for size in BIT_SIZES:
        batched = np.concatenate(
            [score(model, rows[i : i + size]) for i in range(0, len(rows), size)]
        )
        mismatches[str(size)] = int(np.sum(alone.view(np.int64) != batched.view(np.int64)))
    equal = not any(mismatches.values())
    sizes = ", ".join(f"{size:,}" for size in BIT_SIZES)
    verdict = "all equal to the bit" if equal else f"NOT equal, rows differing: {mismatches}"
    echo(f"  {len(rows):,} rows scored alone and in batches of {sizes}: {verdict}")
    return {
        "rows": len(rows),
        "batch_sizes": list(BIT_SIZES),
        "mismatches": mismatches,
        "equal": equal,
    }


def arrivals(rate: float, window_s: float, seed: int = SEED) -> np.ndarray:
    """Poisson arrival times (seconds from the start) at `rate` per second over the window."""
    gaps = np.random.default_rng(seed).exponential(1 / rate, int(rate * window_s * 2) + 10)
    times = np.cumsum(gaps)
    return times[times < window_s]


async def drive(schedule: np.ndarray, handle) -> dict:
    """Start `handle(i)` at each scheduled time (late ones at once, never skipped); latency
    counts from the scheduled arrival, so every kind of waiting counts."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    latencies = np.zeros(len(schedule))

    async def one(i: int) -> None:
        await handle(i)
        latencies[i] = loop.time() - (start + schedule[i])

    tasks = []
    for i, at in enumerate(schedule):
        delay = start + at - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(i)))
    await asyncio.gather(*tasks)
    elapsed = loop.time() - start
    return {
        "answers": len(schedule),
        "seconds": elapsed,
        "throughput": len(schedule) / elapsed,
        "p50_ms": float(np.percentile(latencies, 50)) * 1e3,
        "p99_ms": float(np.percentile(latencies, 99)) * 1e3,
    }


async def one_call_per_request(model, rows: np.ndarray, schedule: np.ndarray) -> dict:
    async def handle(i: int) -> None:
        score(model, rows[i % len(rows)][None, :])  # blocks the loop, like batcher none

    return await drive(schedule, handle)


async def micro_batched(model, rows: np.ndarray, schedule: np.ndarray) -> dict:
    batcher = MicroBatcher(lambda batch: score(model, batch), DEMO_B, DEMO_W_MS)
    batcher.start()

    async def handle(i: int) -> None:
        await batcher.submit(rows[i % len(rows)][None, :])

    try:
        found = await drive(schedule, handle)
    finally:
        await batcher.stop()
    found["batches"] = batcher.batches_made
    found["mean_batch"] = batcher.rows_scored / max(batcher.batches_made, 1)
    return found


def race(model, rows: np.ndarray, one_row_us: float, echo) -> dict:
    capacity = 1e6 / one_row_us
    rate = RATE_MULTIPLE * capacity
    schedule = arrivals(rate, WINDOW_S)
    echo(
        f"  {len(schedule):,} Poisson arrivals over {WINDOW_S:g} s at {rate:,.0f}/s, "
        f"{RATE_MULTIPLE:g} × the {capacity:,.0f}/s that one model call per request allows:"
    )
    runs = {
        "one_call_per_request": asyncio.run(one_call_per_request(model, rows, schedule)),
        "micro_batcher": asyncio.run(micro_batched(model, rows, schedule)),
    }
    for name, run in runs.items():
        run["kept_up"] = run["throughput"] >= KEEPS_UP_SHARE * rate
        label = (
            "one call per request"
            if name == "one_call_per_request"
            else f"micro-batcher {setting_name('queue', DEMO_B, DEMO_W_MS)}"
        )
        extra = f", mean batch {run['mean_batch']:.1f} rows" if "mean_batch" in run else ""
        echo(
            f"  {label:<24} {run['throughput']:>8,.0f} answers/s, p50 {run['p50_ms']:,.1f} ms, "
            f"p99 {run['p99_ms']:,.1f} ms{extra}: "
            f"{'kept up' if run['kept_up'] else 'fell behind'}"
        )
    return {
        "rate_per_s": rate,
        "rate_multiple": RATE_MULTIPLE,
        "window_s": WINDOW_S,
        "arrivals": len(schedule),
        "max_batch": DEMO_B,
        "max_wait_ms": DEMO_W_MS,
        "keeps_up_share": KEEPS_UP_SHARE,
        **runs,
    }


def verdict_line(race_found: dict) -> str:
    kept = [
        name for name in ("micro_batcher", "one_call_per_request") if race_found[name]["kept_up"]
    ]
    words = {"micro_batcher": "the micro-batcher", "one_call_per_request": "one call per request"}
    if kept == ["micro_batcher"]:
        return "Verdict: the micro-batcher kept up; one call per request fell behind."
    if not kept:
        return "Verdict: neither kept up at this rate on this machine."
    return "Verdict: " + " and ".join(words[name] for name in kept) + " kept up."


def part_a_block(timings: list[dict], runs: dict) -> dict:
    """The model times in results.json's `part_a` shape (`runs`, `sizes`, `by_size` with each
    run's median), with the runs' orders and the timings' noise, so the simulator and the
    explorer read the reader's curve as they read the lab's, and know how far to trust it."""
    by_size = {
        str(entry["batch_size"]): {
            "size": entry["batch_size"],
            "calls": entry["calls"],
            "per_call_us": round(entry["per_call_us"], 3),
            "per_row_us": round(entry["per_row_us"], 4),
            "per_call_us_runs": [round(value, 3) for value in entry["per_call_us_runs"]],
            "spread": round(entry["spread"], 4),
        }
        for entry in timings
    }
    return {
        "runs": len(runs["orders"]),
        "sizes": [entry["batch_size"] for entry in timings],
        "orders": runs["orders"],
        "by_size": by_size,
        "noise": dict(runs["noise"], largest_spread=round(runs["noise"]["largest_spread"], 4)),
    }


def run_demo(echo=print) -> dict:
    line, facts = machine_line()
    echo(line)
    model, rows = artifacts.load_model(), artifacts.test_rows()
    with threadpool_limits(limits=1):
        echo(
            f"The model alone: {RUNS} runs, each timing every size once in a new random order "
            "(as the lab's Part A); the median of the runs, and how far they agree:"
        )
        timings, runs = time_model(model, rows, echo)
        echo("Bit check:")
        bits = check_bits(model, rows, echo)
        echo("A tiny in-process micro-batcher against one model call per request:")
        race_found = race(model, rows, timings[0]["per_call_us"], echo)
    verdict = verdict_line(race_found)
    echo(verdict)
    return {
        "format": DEMO_FORMAT,
        "machine": facts,
        "part_a": part_a_block(timings, runs),
        "bits": bits,
        "batcher": race_found,
        "verdict": verdict,
    }


def add_arguments(parser) -> None:
    parser.add_argument(
        "--save", type=Path, default=None,
        help=f'write the numbers as JSON (format "{DEMO_FORMAT}", README.md "Your own machine")',
    )  # fmt: skip


def main(args) -> int:
    try:
        found = run_demo()
    except ModuleNotFoundError as error:
        print(f"lab demo: missing Python package {error.name!r}", file=sys.stderr)
        return 2
    if args.save:
        args.save.write_text(json.dumps(found, indent=2) + "\n")
        print(f"saved to {args.save}")
    return 0 if found["bits"]["equal"] else 1
