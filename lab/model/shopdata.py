"""Fetch the CDNOW shop log from the `lifetimes` wheel on the package index and check it.

Only `pip download --no-deps lifetimes==0.11.3` touches the network; the `lifetimes`
library itself is never imported. Run: `python -m lab data` (which also builds the model).
"""

import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from lab import paths
from lab.errors import ShopDataError

WHEEL_SPEC = "lifetimes==0.11.3"
WHEEL_NAME = "Lifetimes-0.11.3-py3-none-any.whl"
WHEEL_SHA256 = "261e3dc89977c2b60767ca6728aaa29d429de0c814635070a749c36555895da8"
LOG_MEMBER = "lifetimes/datasets/CDNOW_master.txt"
LOG_SHA256 = "eff6889ed364c5199d6eacbbeb7a6d559971df4406ac876f322c373f00a072ef"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_sha256(path: Path, expected: str) -> None:
    actual = sha256_of(path)
    if actual != expected:
        raise ShopDataError(
            f"checksum mismatch for {path}: expected sha256 {expected}, got {actual}; "
            f"delete it and run `python -m lab data` again"
        )


def fetch_wheel(folder: Path) -> Path:
    """Download the wheel once; later calls reuse the cached copy after checking it."""
    wheel = folder / WHEEL_NAME
    if not wheel.exists():
        folder.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--disable-pip-version-check",
            "--quiet",
            WHEEL_SPEC,
            "-d",
            str(folder),
        ]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0 or not wheel.exists():
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise ShopDataError(f"could not download {WHEEL_SPEC} with pip (no network?): {last}")
    check_sha256(wheel, WHEEL_SHA256)
    return wheel


def shop_log_path() -> Path:
    """The checked CDNOW_master.txt, extracted from the checked wheel."""
    folder = paths.downloads()
    log = folder / "CDNOW_master.txt"
    if not log.exists():
        wheel = fetch_wheel(folder)
        with zipfile.ZipFile(wheel) as archive:
            tmp = log.with_suffix(".tmp")
            tmp.write_bytes(archive.read(LOG_MEMBER))
            tmp.replace(log)
    check_sha256(log, LOG_SHA256)
    return log


def read_log(path: Path) -> pd.DataFrame:
    """Columns: customer_id (int), date (datetime64), cds (int), spend (float, dollars)."""
    raw = pd.read_csv(path, sep=r"\s+", dtype={"date": str})
    return pd.DataFrame(
        {
            "customer_id": raw["customer_id"].astype(np.int64),
            "date": pd.to_datetime(raw["date"], format="%Y%m%d"),
            "cds": raw["number_of_cds"].astype(np.int64),
            "spend": raw["dollar_value"].astype(np.float64),
        }
    )
