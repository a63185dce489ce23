"""The bit check: score every test row alone, then inside batches of 2, 4 … 1,024 and all at
once, and count the scores equal to the single-row score to the bit (tolerance zero).

Run: `python -m lab bits [--rows N] [--cpu N] [--campaign NAME]`.
"""

import argparse

import numpy as np

from lab import machine, paths
from lab.design import BIT_SIZES
from lab.rawformat import codec
from lab.runmeta import base_meta, default_campaign
from lab.scoring import score


def same_bits(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Elementwise: the two float64 arrays hold the very same bits."""
    return left.astype(np.float64).view(np.uint64) == right.astype(np.float64).view(np.uint64)


def score_alone(model, rows: np.ndarray) -> np.ndarray:
    return np.concatenate([score(model, rows[i : i + 1]) for i in range(len(rows))])


def score_in_batches(model, rows: np.ndarray, size: int) -> np.ndarray:
    return np.concatenate([score(model, rows[i : i + size]) for i in range(0, len(rows), size)])


def compare(reference: np.ndarray, other: np.ndarray) -> dict:
    equal = same_bits(reference, other)
    return {
        "scores": int(len(other)),
        "equal": int(equal.sum()),
        "max_abs_diff": float(np.max(np.abs(reference - other), initial=0.0)),
    }


def bit_check(model, rows: np.ndarray, sizes=BIT_SIZES, echo=None) -> dict:
    """Per batch size (and 'all'): how many scores equal the single-row score to the bit."""
    alone = score_alone(model, rows)
    results = {}
    for size in sizes:
        results[str(size)] = compare(alone, score_in_batches(model, rows, size))
        if echo:
            echo(f"  size {size:>5}: {results[str(size)]['equal']:,} of {len(rows):,} equal")
    results["all"] = compare(alone, score(model, rows))
    return results


def run(campaign: str, row_count: int | None, cpu: int | None, echo=print) -> dict:
    from lab import artifacts

    model, rows = artifacts.load_model(), artifacts.test_rows()
    rows = rows if row_count is None else rows[:row_count]
    meta = base_meta("bits", "bits", campaign, cpu)
    meta["load_before"] = machine.load_snapshot(cpu)
    results = bit_check(model, rows, echo=echo)
    meta["load_after"] = machine.load_snapshot(cpu)
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
