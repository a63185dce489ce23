"""Part C on its own: `python -m lab partc --cpu 1 [--records 10000] [--runs 5]
[--campaign NAME]` writes `data/raw/<campaign>/runs/part_c-<i>.run.zip`, one run after
another, each as the campaign runner does it (lab/campaign/executors/part_c.py): a fresh
service and Part C's client (`python -m lab partc-client`) pinned to the measurement core,
this process off it. Prints one line per run: time per record, speedup, the bit check.
"""

import argparse
import dataclasses
import sys

from lab import paths
from lab.campaign.context import Context
from lab.campaign.folder import run_path
from lab.campaign.runmeta import default_campaign
from lab.campaign.runner import execute, pin_runner_away_from
from lab.campaign.schedule import indexed_runs
from lab.design import FULL
from lab.parts.part_c.methods import LOOP
from lab.rawformat import codec


def summary(meta: dict, columns: dict) -> str:
    """Per-record time of the loop and of each chunk, the speedup, the bit check: one line."""
    chunks = columns["method_chunk"]
    per_record = columns["method_wall_ns"] / columns["method_records"] / 1000
    loop_us = float(per_record[chunks == LOOP][0])
    parts = [f"loop {loop_us:,.1f} µs/record"]
    for chunk in meta["chunks"]:
        chunk_us = float(per_record[chunks == chunk][0])
        parts.append(f"chunk {chunk:,} {chunk_us:,.1f} µs ({loop_us / chunk_us:,.1f}×)")
    bits = (
        "all scores equal to the bit"
        if meta["bits"]["all_equal"]
        else (f"{meta['bits']['mismatches']} mismatches, {meta['bits']['errors']} errors")
    )
    return f"{meta['run_id']}: " + ", ".join(parts) + f"; {bits}"


def run_on_its_own(args) -> int:
    campaign = args.campaign or default_campaign("part-c")
    pin_runner_away_from(args.cpu)
    profile = dataclasses.replace(
        FULL,
        part_c_records=args.records,
        part_c_runs=args.runs,
        quiet_tries=args.quiet_tries,
    )
    folder = paths.raw() / campaign
    context = Context(campaign, folder, args.cpu, profile, args.seed)
    for run in indexed_runs("part_c", args.runs, records=args.records):
        execute(context, run, echo=print)
        meta, columns = codec.read_run(run_path(folder, run["run_id"]))
        print(summary(meta, columns), flush=True)
    print(f"wrote {args.runs} runs to {folder}")
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cpu", type=int, default=None, help="measurement core for the service and the client"
    )
    parser.add_argument("--records", type=int, default=10_000, help="customers N per run")
    parser.add_argument("--runs", type=int, default=5, help="runs, each with a fresh service")
    parser.add_argument("--campaign", default=None, help="folder name under data/raw/")
    parser.add_argument("--seed", type=int, default=1, help="seed of customers and orders")
    parser.add_argument(
        "--quiet-tries",
        type=int,
        default=FULL.quiet_tries,
        help=f"{FULL.quiet_seconds:g} s quiet checks before a run goes ahead regardless",
    )


def main(args) -> int:
    if args.records < 1:
        print("lab partc: --records must be at least 1", file=sys.stderr)
        return 2
    return run_on_its_own(args)
