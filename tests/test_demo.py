"""`python -m lab demo` runs as a student would run it: the first line names this machine's
CPUs and load, every score is equal to the bit, `--save` writes JSON with the expected
keys, and a missing package is one line naming it, not a traceback.

Run: .venv/bin/pytest tests/test_demo.py
"""

import json
import subprocess
import sys

import pytest

from lab.paths import REPO

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo_run(lab_artifacts, tmp_path_factory):
    saved = tmp_path_factory.mktemp("demo") / "demo.json"
    done = subprocess.run(
        [sys.executable, "-m", "lab", "demo", "--save", str(saved)],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return done, saved


def test_the_demo_runs_and_says_where_its_times_come_from(demo_run):
    done, _ = demo_run
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Times below are from this machine:")
    assert "CPUs" in lines[0] and "load average" in lines[0]
    for size in ("1", "8", "32", "1,024"):
        assert any(line.strip().startswith("batch of") and f" {size}:" in line for line in lines)
    assert any("all equal to the bit" in line for line in lines)
    assert any("one call per request" in line for line in lines)
    assert any(line.startswith("Verdict:") for line in lines)


def test_save_writes_json_with_the_expected_keys(demo_run):
    done, saved = demo_run
    assert done.returncode == 0, done.stderr
    found = json.loads(saved.read_text())
    assert set(found) == {"machine", "model_times", "bits", "batcher", "verdict"}
    assert {"cpu_count", "loadavg"} <= set(found["machine"])
    assert [entry["batch_size"] for entry in found["model_times"]] == [1, 8, 32, 1024]
    assert all(entry["per_call_us"] > 0 for entry in found["model_times"])
    assert found["bits"]["equal"] is True
    race = found["batcher"]
    assert race["rate_per_s"] > 0 and race["arrivals"] > 0
    for name in ("one_call_per_request", "micro_batcher"):
        assert {"throughput", "p50_ms", "p99_ms", "kept_up"} <= set(race[name])
        assert race[name]["answers"] == race["arrivals"]  # every arrival answered
    assert race["micro_batcher"]["mean_batch"] >= 1


def test_a_missing_package_is_one_line_naming_it(lab_artifacts):
    # Block scikit-learn's import in a fresh interpreter, as if it were not installed.
    code = (
        "import sys; sys.modules['sklearn'] = None; "
        "from lab.cli import main; sys.exit(main(['demo']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert "sklearn" in done.stderr and "Traceback" not in done.stderr
