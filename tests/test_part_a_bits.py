"""Part A and the bit check write valid raw files.

Run: `.venv/bin/pytest tests/test_part_a_bits.py`.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

from lab.design import BIT_SIZES, PART_A_SIZES
from lab.model import artifacts
from lab.model.bitcheck import bit_check, same_bits
from lab.rawformat import codec

pytestmark = pytest.mark.usefixtures("processes")  # real processes: the process tier

BASE_KEYS = {
    "format",
    "kind",
    "run_id",
    "campaign",
    "fingerprint",
    "git_commit",
    "artifacts_sha256",
    "load_before",
    "load_after",
    "columns",
}


def run_lab(tmp_path, *arguments):
    env = {**os.environ, "LAB_RAW": str(tmp_path), "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "lab", *arguments],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=True,
    )


def test_part_a_writes_valid_runs_with_sizes_in_new_orders(tmp_path):
    run_lab(tmp_path, "predict", "--runs", "2", "--calls", "7", "--campaign", "t", "--cpu", "0")
    files = codec.run_files(tmp_path / "t")
    assert [f.name for f in files] == ["part_a-0.run.zip", "part_a-1.run.zip"]
    orders = []
    for path in files:
        meta, columns = codec.read_run(path)
        assert set(meta) >= BASE_KEYS
        assert meta["kind"] == "part_a" and meta["calls_per_size"] == 7
        assert sorted(meta["sizes_order"]) == list(PART_A_SIZES)
        assert columns["size"].dtype == np.uint16 and columns["call_ns"].dtype == np.int64
        assert len(columns["size"]) == len(columns["call_ns"]) == 7 * len(PART_A_SIZES)
        sizes_in_call_order = list(dict.fromkeys(columns["size"].tolist()))
        assert sizes_in_call_order == meta["sizes_order"]
        assert (columns["call_ns"] > 0).all()
        assert meta["fingerprint"]["cores"] == os.cpu_count()
        assert meta["artifacts_sha256"] == artifacts.manifest()["sha256"]
        orders.append(meta["sizes_order"])
    assert orders[0] != orders[1]


def test_bit_check_on_a_subset_reports_all_equal():
    model, rows = artifacts.load_model(), artifacts.test_rows()[:300]
    results = bit_check(model, rows)
    assert set(results) == {str(size) for size in BIT_SIZES} | {"all"}
    for entry in results.values():
        assert entry == {"scores": 300, "equal": 300, "max_abs_diff": 0.0}


def test_same_bits_is_strict():
    a = np.array([0.5, 0.0, 1e-300])
    assert same_bits(a, a.copy()).all()
    assert not same_bits(a, np.nextafter(a, 1.0)).any()
    assert not same_bits(np.array([0.0]), np.array([-0.0])).any()


def test_bits_command_writes_its_run(tmp_path):
    run_lab(tmp_path, "bits", "--rows", "40", "--campaign", "t")
    meta, columns = codec.read_run(tmp_path / "t" / "runs" / "bits.run.zip")
    assert meta["kind"] == "bits" and meta["rows"] == 40 and columns == {}
    assert meta["results"]["all"]["equal"] == 40
