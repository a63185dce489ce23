"""The simulator's runs for the validation, kept between builds (a rebuild simulates again
only when something it depends on changed). Used by generator/simulation/validate.py.

Folder: `.cache/generator/` at the repository root (git-ignored), or the folder the
LESSON_CACHE environment variable names. One JSON file per key, the key the sha256 of
  * site_src/explorer/simulate.py's bytes (the simulator),
  * the calibrated costs (calibrate() of part_a, saturation and part_c: set by those inputs
    and the simulator, so equal costs mean equal calibration inputs for this simulator),
  * every cell's setting (B, W), arrival rate, window and keeps-up share, in order,
  * the seeds.
The value is every run's metrics as `run()` returned them. A missing, unreadable or foreign
file is simulated again; the newest KEEP files stay, older ones are removed.
"""

import hashlib
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_FOLDER = ROOT / ".cache" / "generator"
KEEP = 8
PREFIX = "simulation-"


def folder() -> Path:
    """Where the cache lives: LESSON_CACHE, else .cache/generator/ at the repository root."""
    return Path(os.environ.get("LESSON_CACHE") or DEFAULT_FOLDER)


def key(simulator: bytes, costs: dict, cells: list, seeds: list) -> str:
    digest = hashlib.sha256(simulator)
    inputs = {"costs": costs, "cells": cells, "seeds": seeds}
    digest.update(json.dumps(inputs, sort_keys=True, allow_nan=True).encode())
    return digest.hexdigest()


def load(where: Path | None, wanted: str) -> list | None:
    """The runs stored under `wanted`, or None (no cache, no file, or not readable)."""
    if where is None:
        return None
    path = Path(where) / f"{PREFIX}{wanted}.json"
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("key") != wanted:
        return None
    path.touch()  # recently used: kept by the pruning below
    return stored.get("runs")


def store(where: Path | None, wanted: str, runs: list) -> None:
    """Write the runs (atomically: parallel builds may share the folder), prune old files."""
    if where is None:
        return
    where = Path(where)
    try:
        where.mkdir(parents=True, exist_ok=True)
        path = where / f"{PREFIX}{wanted}.json"
        temporary = where / f".{path.name}.{os.getpid()}.tmp"
        temporary.write_text(json.dumps({"key": wanted, "runs": runs}), encoding="utf-8")
        temporary.replace(path)
        kept = sorted(where.glob(f"{PREFIX}*.json"), key=lambda p: p.stat().st_mtime)
        for old in kept[:-KEEP]:
            old.unlink(missing_ok=True)
    except OSError:
        pass  # a cache that cannot be written only costs time
