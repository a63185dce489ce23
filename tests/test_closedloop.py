"""The closed-loop client for S against the real service (ServiceProcess), tiny windows.

Run: .venv/bin/pytest tests/test_closedloop.py
"""

import subprocess
import sys

import numpy as np
import pytest

from lab.load.closedloop import run_closed_loop
from lab.model import artifacts
from lab.paths import REPO
from lab.rawformat import codec
from lab.service.process import free_port

pytestmark = pytest.mark.usefixtures("processes")  # real processes: the process tier

COUNTED_S = 1.5


@pytest.fixture(scope="module")
def service(service_launcher):
    with service_launcher.service() as running:
        yield running


@pytest.fixture(scope="module")
def saturation(service):
    return run_closed_loop(
        service.host, service.port, artifacts.request_ids(), 16, warmup_s=0.5, counted_s=COUNTED_S
    )


def test_positive_throughput_from_answers_in_the_counted_window(saturation):
    columns, stats = saturation
    assert stats["throughput"] > 0 and stats["errors"] == 0
    assert stats["answers"] == len(columns["done_us"]) == len(columns["latency_us"])
    assert stats["throughput"] == pytest.approx(stats["answers"] / COUNTED_S)
    assert np.all(columns["status"] == 200)


def test_the_model_time_per_answer_comes_from_the_same_answers(saturation):
    """The model stage of the counted answers (the batching ceiling's share, issue 33): a real
    part of each answer's time, shorter than its latency, and no longer than the whole core
    time one answer has at that throughput (16 connections keep the core busy)."""
    columns, stats = saturation
    model_us = stats["model_us_p50"]
    assert model_us is not None and 0 < model_us < np.median(columns["latency_us"])
    assert model_us * stats["throughput"] / 1e6 < 1  # a share of the core, below all of it


def test_only_the_counted_window_counts(saturation):
    columns, stats = saturation
    done_us = columns["done_us"]
    assert done_us.min() >= 0 and done_us.max() < COUNTED_S * 1e6
    assert np.all(np.diff(done_us.astype(np.int64)) >= 0)  # in completion order
    # Answers in the warm-up (0.5 s) and after the window were made but not counted.
    assert stats["answers_all"] > stats["answers"] + 0.2 * stats["throughput"]
    # Answers spread over the whole window, not bunched at one end.
    assert done_us.min() < 0.1e6 and done_us.max() > (COUNTED_S - 0.1) * 1e6


def test_sixteen_connections_each_wait_for_their_answer(saturation):
    # Little's law for a closed loop: requests in flight = throughput × mean latency = 16.
    columns, stats = saturation
    in_flight = stats["throughput"] * columns["latency_us"].mean() / 1e6
    assert in_flight == pytest.approx(16, rel=0.15)


def test_cli_writes_a_saturation_client_file(service, tmp_path):
    out = tmp_path / "s.run.zip"
    command = [sys.executable, "-m", "lab", "saturate", "--port", str(service.port)]
    command += ["--seconds", "1", "--warmup-s", "0.2", "--out", str(out)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("S: ")
    meta, columns = codec.read_run(out)
    assert meta["kind"] == "saturation_client" and meta["stats"]["throughput"] > 0
    assert meta["stats"]["connections"] == 16 and meta["stats"]["counted_s"] == 1
    assert set(columns) == {"done_us", "latency_us", "status"}


def test_no_service_makes_the_cli_fail_loudly(tmp_path):
    port = free_port()  # nobody listens there
    out = tmp_path / "dead.run.zip"
    command = [sys.executable, "-m", "lab", "saturate", "--port", str(port)]
    command += ["--seconds", "1", "--out", str(out)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "FAILED" in done.stderr
    assert not out.exists()
