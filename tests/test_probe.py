"""The speed probe: a real pre-loaded probe process pinned to its core, its slowness as the
lab, the generator and the report compute it (three codes, one answer), `python -m lab
probe`, and a probe process that dies being started again.

Run: `.venv/bin/pytest tests/test_probe.py`.
"""

import json
import os
import subprocess
import sys
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.arithmetic import attempts as build_attempts
from generator.arithmetic import stats
from generator.report import attempts as report_attempts
from lab.campaign import attempts as lab_attempts
from lab.campaign import probe as probe_module
from lab.campaign import speed
from lab.campaign.probe import PROBE_PARTS, ProbeWorker, reference_of, slowness, spread
from lab.rawformat import slowrun

pytestmark = pytest.mark.usefixtures("processes")  # real processes: the process tier

PART_TIMES = st.floats(min_value=1.0, max_value=1e6, allow_nan=False)
PROBES = st.fixed_dictionaries({part: PART_TIMES for part in PROBE_PARTS})


@pytest.fixture(scope="module")
def worker(lab_artifacts):
    with ProbeWorker(cpu=1) as probe:
        yield probe


def test_a_probe_times_each_part_on_its_pinned_core(worker):
    before = time.time()
    probe = worker.measure("part_b-r0-x0.5-none", 1, "before")
    assert set(probe) == {*PROBE_PARTS, "at", "cpu"} and probe["cpu"] == 1
    assert all(probe[part] > 0 for part in PROBE_PARTS)
    assert before - 1 <= probe["at"] <= time.time() + 1
    assert os.sched_getaffinity(worker.process.pid) == {1}


def test_a_probe_process_that_died_is_started_again(worker):
    worker.process.kill()
    worker.process.wait()
    probe = worker.measure()
    assert probe["model_us"] > 0 and worker.process.poll() is None


@given(PROBES, PROBES)
def test_the_shared_rule_and_the_report_compute_the_same_slowness(probe, reference):
    """The lab and the build share one rule (lab/rawformat/slowrun.py); the report its own."""
    shared = slowness(probe, reference)
    assert report_attempts.slow_factor(probe, reference) == pytest.approx(shared, rel=1e-9)


def test_the_lab_and_the_build_decide_by_the_one_rule():
    assert probe_module.slowness is slowrun.slowness and speed.slowness is slowrun.slowness
    assert build_attempts.slowrun is slowrun and lab_attempts.slowrun is slowrun
    assert not {"slowness", "attempt_is_slow", "chosen_attempt"} & set(vars(stats))


def test_slowness_is_the_geometric_mean_of_the_parts_ratios():
    reference = {"python_us": 4000.0, "model_us": 500.0, "memory_us": 4000.0}
    assert slowness(reference, reference) == pytest.approx(1.0)
    doubled = {part: 2 * value for part, value in reference.items()}
    assert slowness(doubled, reference) == pytest.approx(2.0)
    one_part = {**reference, "python_us": 8 * 4000.0}  # 8× in one part of three: 2×
    assert slowness(one_part, reference) == pytest.approx(2.0)


def test_the_reference_is_each_parts_median():
    probes = [{"python_us": p, "model_us": m, "memory_us": 10.0}
              for p, m in ((1.0, 9.0), (3.0, 7.0), (2.0, 8.0))]  # fmt: skip
    assert reference_of(probes) == {"python_us": 2.0, "model_us": 8.0, "memory_us": 10.0}
    summary = spread(probes)
    assert summary["slowness_min"] <= summary["slowness_median"] <= summary["slowness_max"]


def test_the_probe_command_writes_every_probe_and_the_spread(tmp_path, lab_artifacts):
    out = tmp_path / "probes.json"
    command = [sys.executable, "-m", "lab", "probe", "--cpu", "1", "--times", "3",
               "--every", "0", "--out", str(out)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "slowness against the median probe" in done.stdout
    written = json.loads(out.read_text())
    assert len(written["probes"]) == 3 and all("load1" in p for p in written["probes"])
    assert set(written["summary"]["reference"]) == set(PROBE_PARTS)
