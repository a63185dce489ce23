"""The one scoring function. Part A, the bit check, the service and the batch route all call
it, so a score computed anywhere can be compared with any other to the bit."""

import numpy as np

from lab.model.feature_names import FEATURES


def as_rows(values) -> np.ndarray:
    """Feature rows as the model always sees them: C-ordered float64, shape (n, 6)."""
    rows = np.ascontiguousarray(values, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[1] != len(FEATURES):
        raise ValueError(f"expected rows of {len(FEATURES)} features, got shape {rows.shape}")
    return rows


def score(model, rows) -> np.ndarray:
    """Probability of buying this month, one float64 per row, in the order given."""
    return model.predict_proba(as_rows(rows))[:, 1]
