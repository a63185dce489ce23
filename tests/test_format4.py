"""Raw format 4 (issue 29): a Part B or switchback run of a profile without the send lag
column keeps its send lag as `send_lag_us_p99` in meta. The writer marks only those runs 4
and refuses a run that holds both; the reader, the generator and the report take the p99
from meta when the column is absent, and from the column as before when it is there.

The same format lets a run name the keys it shares with campaign.json (`same_as_campaign`).

Run: `.venv/bin/pytest tests/test_format4.py`.
"""

import numpy as np
import pytest

from generator.arithmetic import results as build_results
from generator.reading.load import DataError, read_run
from generator.report import runs as report_runs
from lab import design
from lab.campaign.context import Context
from lab.campaign.executors.common import fold_send_lag, send_lag_p99
from lab.campaign.runmeta import fold_machine
from lab.rawformat import codec

REQUESTS = 400


def part_b_columns(rng) -> dict:
    latency = rng.integers(900, 5000, REQUESTS)
    return {
        "arrival_us": np.sort(rng.integers(0, 2_000_000, REQUESTS)).astype(np.uint32),
        "send_lag_us": rng.integers(-1, 3000, REQUESTS).astype(np.int32),
        "latency_us": latency.astype(np.int64),
        "status": np.full(REQUESTS, 200, dtype=np.uint16),
        "batch_size": np.ones(REQUESTS, dtype=np.uint16),
        "ready_us": rng.integers(50, 200, REQUESTS).astype(np.uint32),
        "queued_us": np.zeros(REQUESTS, dtype=np.uint32),
        "model_us": rng.integers(300, 600, REQUESTS).astype(np.uint32),
        "batches_size": np.zeros(0, dtype=np.uint16),
        "batches_first_wait_us": np.zeros(0, dtype=np.uint32),
    }


def part_b_meta() -> dict:
    return {
        "kind": "part_b",
        "run_id": "part_b-r0-x0.5-none",
        "round": 0,
        "rate_multiple": 0.5,
        "arrival_rate": 200.0,
        "window_s": 2.0,
        "setting": {"batcher": "none", "max_batch": 0, "max_wait_ms": 0.0, "name": "none"},
    }


def test_the_send_lag_p99_is_the_nearest_rank_of_every_request():
    lags = np.arange(-1, 199)  # 200 values: the 198th smallest is the p99 (ceil(0.99 × 200))
    assert send_lag_p99(np.random.default_rng(1).permutation(lags)) == sorted(lags)[197]
    assert send_lag_p99([7]) == 7
    assert send_lag_p99([]) is None


@pytest.mark.parametrize("profile", [design.FULL3, design.FULL])
def test_only_a_profile_without_the_column_folds_it(tmp_path, profile):
    columns = part_b_columns(np.random.default_rng(2))
    lags = columns["send_lag_us"].copy()
    meta = part_b_meta()
    fold_send_lag(Context("c", tmp_path, 1, profile, 1), meta, columns)
    assert ("send_lag_us" in columns) is profile.send_lag_column
    assert ("send_lag_us_p99" in meta) is not profile.send_lag_column
    if not profile.send_lag_column:
        assert meta["send_lag_us_p99"] == int(np.sort(lags)[(99 * REQUESTS + 99) // 100 - 1])


def test_format_4_round_trips_and_only_folded_runs_say_4(tmp_path):
    columns = part_b_columns(np.random.default_rng(3))
    lags = columns.pop("send_lag_us")
    meta = dict(part_b_meta(), send_lag_us_p99=send_lag_p99(lags))
    path = tmp_path / "folded.run.zip"
    codec.write_run(path, meta, columns, log8=("latency_us",))
    found_meta, found = codec.read_run(path)
    assert found_meta["format"] == "batching-lab-run/4"
    assert found_meta["send_lag_us_p99"] == meta["send_lag_us_p99"]
    assert "send_lag_us" not in found and "send_lag_us" not in found_meta["columns"]
    for name in ("arrival_us", "status", "ready_us", "model_us"):
        assert np.array_equal(found[name], columns[name]), name
    unfolded = tmp_path / "unfolded.run.zip"
    codec.write_run(unfolded, part_b_meta(), dict(columns, send_lag_us=lags))
    assert codec.read_meta(unfolded)["format"] == "batching-lab-run/2"
    with pytest.raises(ValueError, match="folded"):
        codec.write_run(tmp_path / "both.run.zip", meta, dict(columns, send_lag_us=lags))


def test_the_generator_and_the_report_read_the_p99_from_meta_or_column(tmp_path):
    columns = part_b_columns(np.random.default_rng(4))
    lags = columns.pop("send_lag_us")
    folded = tmp_path / "folded.run.zip"
    codec.write_run(folded, dict(part_b_meta(), send_lag_us_p99=send_lag_p99(lags)), columns)
    whole = tmp_path / "whole.run.zip"
    codec.write_run(whole, part_b_meta(), dict(columns, send_lag_us=lags))
    for path in (folded, whole):
        build_results.RUN_SUMMARIES.clear()
        _, _, metrics = build_results.part_b_summary(path, 0.95)
        meta, found = read_run(path, "part_b")
        mine = report_runs.part_b_metrics(meta, found, 0.95)
        assert metrics["send_lag_us_p99"] == mine["send_lag_us_p99"]
        assert metrics["send_lag_us_p99"] == float(np.sort(lags)[(99 * REQUESTS + 99) // 100 - 1])


def test_a_run_without_the_column_and_its_figure_is_refused(tmp_path):
    columns = part_b_columns(np.random.default_rng(5))
    columns.pop("send_lag_us")
    path = tmp_path / "neither.run.zip"
    codec.write_run(path, part_b_meta(), columns)
    with pytest.raises(DataError, match="missing column 'send_lag_us'"):
        read_run(path, "part_b")


def test_a_run_names_what_it_shares_with_campaign_json_instead_of_repeating_it(tmp_path):
    machine = {"cpu_model": "X", "cores": 2, "versions": ("3.11", "1.5")}
    header = {
        "fingerprint": {**machine, "versions": ["3.11", "1.5"]},
        "model": {"sha256": {"m": "a"}},
    }
    meta = {"kind": "bits", "fingerprint": machine, "artifacts_sha256": {"m": "a"}}
    fold_machine(meta, header)  # a tuple in the run is a list in campaign.json: the same
    assert meta == {"kind": "bits", "same_as_campaign": ["fingerprint", "artifacts_sha256"]}
    other = {"kind": "bits", "fingerprint": machine, "artifacts_sha256": {"m": "b"}}
    fold_machine(other, header)  # another model: its own record kept
    assert other["artifacts_sha256"] == {"m": "b"} and "fingerprint" not in other
    assert other["same_as_campaign"] == ["fingerprint"]
    path = tmp_path / "bits.run.zip"
    codec.write_run(path, meta)
    assert codec.read_meta(path)["format"] == "batching-lab-run/4"
    kept = {"kind": "bits", "fingerprint": machine}
    fold_machine(kept, {})  # nothing to share: the run stays as the first campaigns wrote it
    assert kept == {"kind": "bits", "fingerprint": machine}
    assert design.FULL3.machine_per_run is False and design.FULL.machine_per_run is True
