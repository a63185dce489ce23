"""Part C's scores: read out of the answers (NaN where an answer holds none or is not aligned
with its records) and compared to the bit: each method against the loop, and the loop against
`lab.model.scoring.score` on the store's features in the client's own process.
"""

import hashlib
import json

import numpy as np

from lab.model import artifacts
from lab.model.scoring import score
from lab.model.store import FeatureStore

INPROCESS_SAMPLE = 500  # customers scored one row at a time in-process as the reference


def parsed(body: bytes) -> dict:
    """A JSON object answer, or {} for anything else (it then scores nothing)."""
    try:
        answer = json.loads(body)
    except ValueError:
        return {}
    return answer if isinstance(answer, dict) else {}


def probability_of(answer, customer_id) -> float:
    """The score in an answer or slot that echoes `customer_id` with no error; else NaN."""
    if not isinstance(answer, dict) or answer.get("customer_id") != int(customer_id):
        return np.nan
    probability = answer.get("probability")
    if answer.get("error") is not None or not isinstance(probability, float):
        return np.nan
    return probability


def loop_scores(bodies: list[bytes], customer_ids) -> np.ndarray:
    """The scores in /predict answers, in order; NaN where an answer holds none."""
    return np.array(
        [probability_of(parsed(body), c) for body, c in zip(bodies, customer_ids, strict=True)],
        dtype=np.float64,
    )


def batch_scores(bodies: list[bytes], customer_ids, chunk: int) -> np.ndarray:
    """The scores in /predict_batch answers, slot by slot; NaN for a slot with an error or a
    wrong echo, and for every record of a call whose answer is not aligned with its chunk."""
    scores = np.full(len(customer_ids), np.nan)
    for call, body in enumerate(bodies):
        first = call * chunk
        expected = customer_ids[first : first + chunk]
        slots = parsed(body).get("predictions")
        if isinstance(slots, list) and len(slots) == len(expected):
            scores[first : first + len(expected)] = [
                probability_of(slot, c) for slot, c in zip(slots, expected, strict=True)
            ]
    return scores


def bits_digest(scores: np.ndarray) -> str:
    """sha256 of the scores' float64 bytes (little-endian), in customer order."""
    return hashlib.sha256(np.ascontiguousarray(scores, dtype="<f8").tobytes()).hexdigest()


def bit_mismatches(scores: np.ndarray, reference: np.ndarray) -> int:
    """How many scores differ from the reference in any bit (tolerance zero)."""
    as_bits = np.ascontiguousarray(scores, dtype="<f8").view("<u8")
    return int(
        np.count_nonzero(as_bits != np.ascontiguousarray(reference, dtype="<f8").view("<u8"))
    )


def inprocess_check(customer_ids, loop_scores_: np.ndarray, seed: int) -> dict:
    """The loop's scores against `lab.model.scoring.score` on the store's features, in this
    process: all N rows in one call, and a sample scored one row at a time (the single-row
    score)."""
    store = FeatureStore(artifacts.store_path())
    found = store.rows([int(c) for c in customer_ids])
    store.close()
    rows = np.array([found[int(c)] for c in customer_ids], dtype=np.float64)
    model = artifacts.load_model()
    all_at_once = score(model, rows)
    sample = np.sort(
        np.random.default_rng(seed).choice(
            len(rows), min(INPROCESS_SAMPLE, len(rows)), replace=False
        )
    )
    one_by_one = np.array([score(model, rows[i : i + 1])[0] for i in sample])
    return {
        "all_at_once_rows": len(rows),
        "all_at_once_mismatches": bit_mismatches(loop_scores_, all_at_once),
        "single_row_sample": len(sample),
        "single_row_mismatches": bit_mismatches(loop_scores_[sample], one_by_one),
    }
