"""The bit check: score rows alone, then inside batches of 2, 4 … 1,024 and all at once, and
count the scores equal to the single-row score to the bit (tolerance zero).

The campaign's bit check is `python -m lab bits` (lab/parts/bits.py), which writes its raw file.
"""

import numpy as np

from lab.design import BIT_SIZES
from lab.model.scoring import score


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
