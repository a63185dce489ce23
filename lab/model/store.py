"""The feature store: SQLite, one row per customer as of the serving month.

Read with parameterized queries only. `FeatureStore` is opened once per process; SQLite
connections are used from one thread at a time (the batch route opens its own).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from lab.model.feature_names import FEATURES

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ", ".join(FEATURES)
_ONE = f"SELECT {COLUMNS} FROM features WHERE customer_id = ?"


def write_store(path: Path, table: pd.DataFrame) -> None:
    """Write `table` (indexed by customer_id, the six features) as a fresh SQLite file."""
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    with sqlite3.connect(tmp) as db:
        columns = ", ".join(f"{name} REAL NOT NULL" for name in FEATURES)
        db.execute(f"CREATE TABLE features (customer_id INTEGER PRIMARY KEY, {columns})")
        rows = [
            (int(cid), *map(float, values))
            for cid, values in zip(table.index, table[list(FEATURES)].to_numpy(), strict=True)
        ]
        marks = ", ".join("?" * (len(FEATURES) + 1))
        db.executemany(f"INSERT INTO features VALUES ({marks})", rows)
    db.close()
    tmp.replace(path)


class FeatureStore:
    def __init__(self, path: Path, check_same_thread: bool = True):
        uri = f"file:{path}?mode=ro"
        self.db = sqlite3.connect(uri, uri=True, check_same_thread=check_same_thread)

    def row(self, customer_id: int) -> np.ndarray | None:
        """The customer's six features as a (1, 6) float64 array, or None if unknown."""
        found = self.db.execute(_ONE, (customer_id,)).fetchone()
        if found is None:
            return None
        return np.array([found], dtype=np.float64)

    def rows(self, customer_ids: list[int]) -> dict[int, tuple[float, ...]]:
        """Features of every known id among `customer_ids`, in one query."""
        if not customer_ids:
            return {}
        unique = sorted(set(customer_ids))
        marks = ", ".join("?" * len(unique))
        query = f"SELECT customer_id, {COLUMNS} FROM features WHERE customer_id IN ({marks})"
        return {found[0]: found[1:] for found in self.db.execute(query, unique)}

    def customer_ids(self) -> list[int]:
        return [found[0] for found in self.db.execute("SELECT customer_id FROM features")]

    def close(self) -> None:
        self.db.close()
