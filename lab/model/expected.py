"""The single-row score of every customer in the feature store, computed once and kept, so
the open-loop client can check every answer to the bit without loading the model.

    python -m lab.model.expected   (the campaign runner does it before its first open-loop run)

Each customer's six features are read from the store and scored alone with
`lab.model.scoring.score` (one row per call, as BRIEF §4's bit check defines the reference). The
result is cached beside the artifacts as `expected_scores.npz` (customer_id, probability,
and the sha256 of the model and store it came from); a rebuilt model or store is noticed
and the cache is computed again. About 10 s on one core. Tested by tests/test_openloop.py.
"""

import sys
from pathlib import Path

import numpy as np

from lab.model import artifacts
from lab.model.scoring import score
from lab.model.store import FeatureStore

FILE = "expected_scores.npz"
SOURCES = ("model.pkl", "features.sqlite")


def path() -> Path:
    return artifacts.folder() / FILE


def _sources() -> dict[str, str]:
    sha = artifacts.manifest()["sha256"]
    return {name: sha[name] for name in SOURCES}


def _load_if_current() -> tuple[np.ndarray, np.ndarray] | None:
    try:
        with np.load(path()) as found:
            current = all(str(found[f"sha256_{name}"]) == sha for name, sha in _sources().items())
            return (found["customer_id"], found["probability"]) if current else None
    except (OSError, KeyError, ValueError):
        return None


def build() -> tuple[np.ndarray, np.ndarray]:
    """Score every customer alone and write the cache atomically; (ids, probabilities)."""
    model = artifacts.load_model()
    store = FeatureStore(artifacts.store_path())
    try:
        ids = np.array(sorted(store.customer_ids()), dtype=np.int64)
        scores = np.array([score(model, store.row(int(cid)))[0] for cid in ids])
    finally:
        store.close()
    target = path()
    temporary = target.with_name(f".{FILE}.tmp")
    with open(temporary, "wb") as handle:
        np.savez(
            handle,
            customer_id=ids,
            probability=scores,
            **{f"sha256_{name}": np.array(sha) for name, sha in _sources().items()},
        )
    temporary.replace(target)
    return ids, scores


def ensure() -> tuple[np.ndarray, np.ndarray]:
    """(customer ids sorted, their single-row probabilities), built first if missing or stale."""
    return _load_if_current() or build()


def for_customers(customer_ids) -> np.ndarray:
    """The expected probability of each customer id, in order; ValueError naming an id the
    store does not hold."""
    ids, scores = ensure()
    wanted = np.asarray(customer_ids, dtype=np.int64)
    at = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)
    unknown = wanted[ids[at] != wanted]
    if len(unknown):
        raise ValueError(f"customer_id {int(unknown[0])} is not in the feature store")
    return scores[at]


if __name__ == "__main__":
    found_ids, _ = ensure()
    print(f"expected single-row scores of {len(found_ids):,} customers in {path()}")
    sys.exit(0)
