"""Build everything the lab serves from: the model, the test rows, the feature store, the
request list, and a manifest of their sha256. Run: `python -m lab data`.

Deterministic: the same log gives byte-identical files and identical predictions.
"""

import json
import pickle
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import average_precision_score

from lab import paths
from lab.model import shopdata
from lab.model.feature_names import FEATURES
from lab.model.features import SERVING_MONTH, TEST_FROM, customer_months, features_at
from lab.model.scoring import score
from lab.model.shopdata import sha256_of
from lab.model.store import write_store

SEED = 20261129
REQUEST_LIST_SIZE = 200_000
ARTIFACT_FILES = (
    "model.pkl",
    "test_rows.npy",
    "test_labels.npy",
    "features.sqlite",
    "requests.npy",
)


def train(rows: np.ndarray, labels: np.ndarray) -> HistGradientBoostingClassifier:
    model = HistGradientBoostingClassifier(random_state=SEED)
    return model.fit(rows, labels)


def model_facts(model) -> dict:
    trees = [tree for per_iteration in model._predictors for tree in per_iteration]
    return {"trees": len(trees), "max_leaves": max(int(t.get_n_leaf_nodes()) for t in trees)}


def _save_npy(path: Path, array: np.ndarray) -> None:
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, array, allow_pickle=False)
    tmp.replace(path)


def build(folder: Path | None = None, echo=print) -> dict:
    """Fetch, featurize, train, write the artifacts and return the manifest."""
    folder = folder or paths.artifacts()
    folder.mkdir(parents=True, exist_ok=True)
    log = shopdata.read_log(shopdata.shop_log_path())
    echo(
        f"shop log: {log['customer_id'].nunique():,} customers, {len(log):,} purchases, "
        f"{log['date'].min():%Y-%m} to {log['date'].max():%Y-%m}"
    )
    table = customer_months(log)
    is_test = table["month"] >= TEST_FROM
    train_part, test_part = table[~is_test], table[is_test]
    columns = list(FEATURES)
    model = train(train_part[columns].to_numpy(), train_part["label"].to_numpy())
    test_rows = np.ascontiguousarray(test_part[columns].to_numpy(), dtype=np.float64)
    test_labels = test_part["label"].to_numpy(dtype=np.int64)
    precision = float(average_precision_score(test_labels, score(model, test_rows)))
    facts = {
        "rows": len(table),
        "train_rows": len(train_part),
        "test_rows": len(test_part),
        "positive_rate": round(float(table["label"].mean()), 6),
        "test_average_precision": round(precision, 6),
        **model_facts(model),
        "features": columns,
        "seed": SEED,
        "train_months": f"{train_part['month'].min():%Y-%m} to {train_part['month'].max():%Y-%m}",
        "test_months": f"{test_part['month'].min():%Y-%m} to {test_part['month'].max():%Y-%m}",
        "serving_month": f"{SERVING_MONTH:%Y-%m}",
    }
    serving = features_at(log, SERVING_MONTH)
    requests = np.random.default_rng(SEED).choice(serving.index.to_numpy(), REQUEST_LIST_SIZE)
    tmp = folder / "model.pkl.tmp"
    tmp.write_bytes(pickle.dumps(model, protocol=5))
    tmp.replace(folder / "model.pkl")
    _save_npy(folder / "test_rows.npy", test_rows)
    _save_npy(folder / "test_labels.npy", test_labels)
    _save_npy(folder / "requests.npy", requests.astype(np.int64))
    write_store(folder / "features.sqlite", serving)
    manifest = {
        **facts,
        "store_customers": len(serving),
        "sha256": {name: sha256_of(folder / name) for name in ARTIFACT_FILES},
        "source": {
            "wheel": shopdata.WHEEL_SPEC,
            "wheel_sha256": shopdata.WHEEL_SHA256,
            "log_sha256": shopdata.LOG_SHA256,
        },
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    echo(
        f"rows {facts['rows']:,} (train {facts['train_rows']:,} {facts['train_months']}, "
        f"test {facts['test_rows']:,} {facts['test_months']}), "
        f"positive rate {facts['positive_rate']:.4f}"
    )
    echo(
        f"model: {facts['trees']} trees, at most {facts['max_leaves']} leaves, "
        f"test average precision {facts['test_average_precision']:.4f}"
    )
    echo(
        f"feature store: {len(serving):,} customers as of {facts['serving_month']}; "
        f"request list: {REQUEST_LIST_SIZE:,} ids; artifacts in {folder}"
    )
    return manifest


def add_arguments(parser) -> None:
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="artifact folder (default: the lab cache, see LAB_HOME)",
    )


def main(args) -> int:
    build(args.out)
    return 0
