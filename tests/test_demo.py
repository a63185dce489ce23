"""`python -m lab demo` runs as a student would run it: the first line names this machine's
CPUs and load, every score is equal to the bit, `--save` writes the documented JSON
("batching-lab-demo/2", with each run's medians, the runs' orders and their noise) that the
simulator reads to simulate this machine, and a missing
package is one line naming it, not a traceback.

Run: .venv/bin/pytest tests/test_demo.py
"""

import json
import statistics
import subprocess
import sys

import pytest

from generator.simulation import validate as simulation
from lab.demo import SEED
from lab.design import FULL
from lab.model.timing import TOO_NOISY_SPREAD, sizes_order, spread
from lab.paths import REPO

pytestmark = pytest.mark.usefixtures("processes")  # real processes: the process tier


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
    for size in ("1", "2", "8", "32", "128", "1,024"):
        assert any(line.strip().startswith("batch of") and f" {size}:" in line for line in lines)
    assert any("all equal to the bit" in line for line in lines)
    assert any("one call per request" in line for line in lines)
    assert any(line.startswith("Verdict:") for line in lines)


def test_save_writes_json_with_the_expected_keys(demo_run):
    done, saved = demo_run
    assert done.returncode == 0, done.stderr
    found = json.loads(saved.read_text())
    assert set(found) == {"format", "machine", "part_a", "bits", "batcher", "verdict"}
    assert found["format"] == "batching-lab-demo/2"
    assert {"cpu_model", "cores", "usable_cpus", "machine", "python", "loadavg"} == set(
        found["machine"]
    )
    assert found["machine"]["cpu_model"] in done.stdout.splitlines()[0]
    part_a = found["part_a"]
    assert part_a["sizes"] == [2**k for k in range(11)]  # 1, 2, 4 … 1,024, as Part A's
    assert sorted(part_a["by_size"], key=int) == [str(size) for size in part_a["sizes"]]
    assert part_a["runs"] == len(part_a["orders"]) == FULL.part_a_runs  # as many as Part A's
    assert part_a["orders"] == [sizes_order(SEED + run) for run in range(part_a["runs"])]
    for key, entry in part_a["by_size"].items():
        assert entry["size"] == int(key) and entry["calls"] > 0 and entry["per_call_us"] > 0
        assert entry["per_row_us"] == pytest.approx(entry["per_call_us"] / entry["size"], 1e-3)
        assert len(entry["per_call_us_runs"]) == part_a["runs"]
        assert entry["per_call_us"] == pytest.approx(statistics.median(entry["per_call_us_runs"]))
        assert entry["spread"] == pytest.approx(spread(entry["per_call_us_runs"]), abs=1e-4)
    noise = part_a["noise"]
    worst = max(part_a["by_size"].values(), key=lambda entry: entry["spread"])
    assert noise["at_size"] == worst["size"]
    assert noise["largest_spread"] == pytest.approx(worst["spread"], abs=1e-4)
    assert noise["spread_limit"] == TOO_NOISY_SPREAD
    assert noise["too_noisy"] == (noise["largest_spread"] > TOO_NOISY_SPREAD)
    said = "TOO NOISY TO LEAN ON" if noise["too_noisy"] else "steady enough to compare sizes"
    assert said in done.stdout
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


def test_the_simulator_reads_the_saved_file_and_simulates_this_machine(demo_run):
    done, saved = demo_run
    assert done.returncode == 0, done.stderr
    golden = REPO / "tests" / "fixtures" / "golden" / "assets" / "data" / "results.json"
    sim = simulation.load_simulator()
    results = json.loads(golden.read_text())
    mine = json.loads(saved.read_text())
    text = sim.simulate(results, 32, 2, 1.6, window_s=1.0, machine=mine)
    assert f"your machine: {mine['machine']['cpu_model']}, {mine['machine']['cores']} cores" in text
    costs = sim.for_machine(results, mine)  # the saved curve is the simulated model's
    assert costs["model_sizes"] == mine["part_a"]["sizes"]
    lab_one_row = results["part_a"]["by_size"]["1"]["per_call_us"]
    speed = mine["part_a"]["by_size"]["1"]["per_call_us"] / lab_one_row
    assert costs["sources"]["speed"] == pytest.approx(speed, rel=1e-4)
