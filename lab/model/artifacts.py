"""Load the artifacts `python -m lab data` built, with a clear message when they are missing."""

import json
import pickle
from pathlib import Path

import numpy as np

from lab import paths
from lab.errors import MissingArtifacts


def folder() -> Path:
    found = paths.artifacts()
    if not (found / "manifest.json").exists():
        raise MissingArtifacts(f"no model in {found}: run `python -m lab data` first")
    return found


def manifest() -> dict:
    return json.loads((folder() / "manifest.json").read_text())


def load_model():
    return pickle.loads((folder() / "model.pkl").read_bytes())


def test_rows() -> np.ndarray:
    return np.load(folder() / "test_rows.npy")


def request_ids() -> np.ndarray:
    return np.load(folder() / "requests.npy")


def store_path() -> Path:
    return folder() / "features.sqlite"
