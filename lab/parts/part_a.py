"""Part A: time `predict_proba` alone on batches of 1, 2, 4 … 1,024 real test rows.

Each run is a fresh Python process, pinned to one core with one OpenMP thread, timing the
sizes in a new random order; every call's time is kept. Run:
`python -m lab predict --cpu 1 [--runs 5] [--calls 2000] [--campaign NAME]`.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from lab import paths
from lab.campaign.runmeta import base_meta, default_campaign
from lab.machine.core_watch import CoreWatch
from lab.machine.processes import pin_command, single_thread_env
from lab.machine.quiet import load_snapshot
from lab.model import artifacts
from lab.model.timing import WARMUP_CALLS, sizes_order, time_calls
from lab.rawformat import codec


def one_run(
    campaign: str,
    run_index: int,
    calls: int,
    seed: int,
    cpu: int | None,
    quiet: dict | None = None,
    out: Path | None = None,
) -> Path:
    """Time every size once in this process and write the run's raw file (with the runner's
    quiet check before it, when the runner made one), or the scratch file `out` the runner
    makes the raw file from."""
    model, rows = artifacts.load_model(), artifacts.test_rows()
    run_id = f"part_a-{run_index}"
    meta = base_meta("part_a", run_id, campaign, cpu)
    if quiet is not None:
        meta["quiet"] = quiet
    meta["load_before"] = load_snapshot(cpu)
    order = sizes_order(seed + run_index)
    # Who else used the core (and the other, possibly sibling, core) while the calls ran.
    with CoreWatch(cpu if cpu is not None else 0, os.getpid()) as watch:
        timed = [(size, time_calls(model, rows, size, calls)) for size in order]
    meta["core_watch"] = watch.found
    meta["load_after"] = load_snapshot(cpu)
    meta.update(
        run_index=run_index,
        sizes_order=order,
        calls_per_size=calls,
        warmup_calls=WARMUP_CALLS,
        seed=seed + run_index,
        omp_num_threads=os.environ.get("OMP_NUM_THREADS"),
    )
    columns = {
        "size": np.concatenate([np.full(len(t), s, dtype=np.uint16) for s, t in timed]),
        "call_ns": np.concatenate([t for _, t in timed]),
    }
    path = out or paths.raw() / campaign / "runs" / f"{run_id}{codec.SUFFIX}"
    codec.write_run(path, meta, columns)
    return path


def run_in_fresh_process(
    campaign: str, run_index: int, calls: int, seed: int, cpu: int | None, raw: Path | None = None
) -> Path:
    """One Part A run in a new pinned, single-threaded Python process."""
    command = pin_command(
        cpu,
        [
            sys.executable,
            "-m",
            "lab",
            "predict",
            "--one-run",
            str(run_index),
            "--calls",
            str(calls),
            "--seed",
            str(seed),
            "--campaign",
            campaign,
        ],
    )
    if cpu is not None:
        command += ["--cpu", str(cpu)]
    env = single_thread_env({"LAB_RAW": str(raw)} if raw else None)
    subprocess.run(command, check=True, env=env)
    return (raw or paths.raw()) / campaign / "runs" / f"part_a-{run_index}{codec.SUFFIX}"


def summary(path: Path) -> str:
    meta, columns = codec.read_run(path)
    parts = []
    for size in (1, 32, 1024):
        times = columns["call_ns"][columns["size"] == size]
        if len(times):
            parts.append(f"{size} rows {np.median(times) / 1000:,.1f} µs")
    return f"{meta['run_id']}: order {meta['sizes_order']}; median per call: " + ", ".join(parts)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cpu", type=int, default=None, help="core to pin the timing to")
    parser.add_argument("--runs", type=int, default=5, help="fresh processes (default 5)")
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per size")
    parser.add_argument("--seed", type=int, default=1, help="seed of the size orders")
    parser.add_argument("--campaign", default=None, help="folder name under data/raw/")
    parser.add_argument(
        "--one-run",
        type=int,
        default=None,
        metavar="I",
        help="time run I in this process, as each fresh process does (the runner starts them so)",
    )
    parser.add_argument(
        "--quiet-json",
        type=json.loads,
        default=None,
        help="with --one-run: the runner's quiet check, as JSON, to keep in the run's raw file",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="with --one-run: write the run here (the runner's scratch file) instead of "
        "into the campaign",
    )


def main(args) -> int:
    artifacts.folder()  # one clear line if `lab data` has not run (not one per child process)
    campaign = args.campaign or default_campaign("part-a")
    if args.one_run is not None:
        one_run(campaign, args.one_run, args.calls, args.seed, args.cpu, args.quiet_json, args.out)
        return 0
    for run_index in range(args.runs):
        path = run_in_fresh_process(campaign, run_index, args.calls, args.seed, args.cpu)
        print(summary(path), flush=True)
    print(f"wrote {args.runs} runs to {paths.raw() / campaign}")
    return 0
