"""The campaign's bit check: every test row scored alone, inside batches of each size and all
at once (lab/model/bitcheck.py), written as the campaign's `bits` raw file.

Run: `python -m lab bits [--rows N] [--cpu N] [--campaign NAME]`.
"""

import argparse

from lab import paths
from lab.campaign.runmeta import base_meta, default_campaign
from lab.design import BIT_SIZES
from lab.machine.quiet import load_snapshot
from lab.model import artifacts
from lab.model.bitcheck import bit_check
from lab.rawformat import codec


def run(campaign: str, row_count: int | None, cpu: int | None, echo=print) -> dict:
    model, rows = artifacts.load_model(), artifacts.test_rows()
    rows = rows if row_count is None else rows[:row_count]
    meta = base_meta("bits", "bits", campaign, cpu)
    meta["load_before"] = load_snapshot(cpu)
    results = bit_check(model, rows, echo=echo)
    meta["load_after"] = load_snapshot(cpu)
    meta.update(rows=int(len(rows)), sizes=list(BIT_SIZES), results=results)
    codec.write_run(paths.raw() / campaign / "runs" / f"bits{codec.SUFFIX}", meta)
    return meta


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rows", type=int, default=None, help="first N test rows (default all)")
    parser.add_argument("--cpu", type=int, default=None, help="core this process runs on")
    parser.add_argument("--campaign", default=None, help="folder name under data/raw/")


def main(args) -> int:
    campaign = args.campaign or default_campaign("bits")
    meta = run(campaign, args.rows, args.cpu)
    total = sum(entry["scores"] for entry in meta["results"].values())
    equal = sum(entry["equal"] for entry in meta["results"].values())
    worst = max(entry["max_abs_diff"] for entry in meta["results"].values())
    print(
        f"bit check on {meta['rows']:,} rows: {equal:,} of {total:,} batched scores equal "
        f"to the single-row score to the bit; largest difference {worst:g}"
    )
    return 0 if equal == total else 1
