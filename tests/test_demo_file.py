"""The demo file (`python -m lab demo --save FILE`, format "batching-lab-demo/2") as the
simulator reads it (site_src/explorer/simulate.py: read_demo, for_machine, simulate(machine=…)):
the lab's own Part A in a demo file gives back the lab's calibrated machine; a slower core
gives a slower S; a missing or wrong field is refused with a message naming the field; a file
whose runs disagree beyond the demo's limit is read with a warning, and a file of the first
format ("batching-lab-demo/1", no spread recorded) is still read, with a note saying so.
The demo's own run (which writes a real file) is tests/test_demo.py.

Run: `.venv/bin/pytest -q tests/test_demo_file.py`.
"""

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from generator.simulation import validate as simulation
from lab.model import timing
from tests.support.demo import demo_of

GOLDEN = Path(__file__).resolve().parent / "fixtures" / "golden" / "assets" / "data"


@pytest.fixture(scope="module")
def sim():
    return simulation.load_simulator()


@pytest.fixture(scope="module")
def results() -> dict:
    return json.loads((GOLDEN / "results.json").read_text())


def test_the_labs_own_curve_gives_back_the_labs_machine(sim, results):
    lab = sim.calibrate(results["part_a"], results["saturation"], results["part_c"])
    mine = sim.for_machine(results, demo_of(results))
    assert mine["sources"]["speed"] == pytest.approx(1.0)
    assert mine["model_sizes"] == lab["model_sizes"]
    # the model map is published to 5 digits, so the curve agrees to that
    assert mine["model_us"] == pytest.approx(lab["model_us"], rel=1e-4, abs=0.05)
    for part in ("client_send_us", "client_receive_us", "handler_before_us", "answer_us"):
        assert mine[part] == pytest.approx(lab[part])
    assert mine["S"] == pytest.approx(lab["S"], rel=1e-3)


def test_a_core_twice_as_slow_has_half_the_s_and_says_so(sim, results):
    lab = sim.calibrate(results["part_a"], results["saturation"], results["part_c"])
    slow = demo_of(results, slower=2.0)
    mine = sim.for_machine(results, slow)
    assert mine["sources"]["speed"] == pytest.approx(2.0)
    # everything scales by 2 except the model map's fixed offset
    offset = mine["sources"]["model_map"]["offset_us"]
    assert 1e6 / mine["S"] == pytest.approx(2 * 1e6 / lab["S"] - offset, rel=1e-3)
    text = sim.simulate(results, 32, 2, 1.6, window_s=1.0, machine=slow)
    assert "SIMULATED, NOT MEASURED" in text.splitlines()[0]
    assert f"your machine: {slow['machine']['cpu_model']}" in text
    assert f"so S = {sim.per_second(mine['S'])} requests/s" in text
    assert "assumed, not measured: " + "; ".join(sim.MACHINE_ASSUMED) in text
    assert "nearest measured cell" not in text  # the lab's check is of the lab's machine


@pytest.mark.parametrize(
    "field",
    ["format", "machine", "machine.cpu_model", "machine.cores", "machine.python", "part_a",
     "part_a.by_size", "part_a.by_size.1", "part_a.by_size.32.per_call_us", "part_a.noise",
     "part_a.noise.too_noisy"],
)  # fmt: skip
def test_a_missing_field_is_named(sim, results, field):
    demo = demo_of(results)
    *parents, last = field.split(".")
    container = demo
    for part in parents:
        container = container[part]
    del container[last]
    with pytest.raises(sim.DemoFileError, match=rf"demo file: {re.escape(field)}\b"):
        sim.simulate(results, 32, 2, 1.0, window_s=0.5, machine=demo)


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("format", "batching-lab-demo/3", '"batching-lab-demo/1" or "batching-lab-demo/2"'),
        ("part_a.noise.too_noisy", "no", "true or false"),
        ("part_a.noise.largest_spread", -0.1, "a share, 0 or more"),
        ("machine.cores", "two", "a whole number"),
        ("machine.cores", True, "a whole number"),
        ("machine.cpu_model", 7, "text"),
        ("part_a.by_size.8.per_call_us", "fast", "a number of µs"),
        ("part_a.by_size.8.per_call_us", -3.0, "a number of µs"),
        ("part_a.by_size", [], "an object"),
    ],
)
def test_a_wrong_field_is_named_with_what_it_should_be(sim, results, field, value, says):
    demo = demo_of(results)
    *parents, last = field.split(".")
    container = demo
    for part in parents:
        container = container[part]
    container[last] = value
    with pytest.raises(sim.DemoFileError) as refused:
        sim.read_demo(demo)
    assert f"demo file: {field} is {value!r}" in str(refused.value)
    assert says in str(refused.value)


def test_a_size_that_is_not_a_batch_size_is_named(sim, results):
    demo = demo_of(results)
    demo["part_a"]["by_size"]["many"] = copy.deepcopy(demo["part_a"]["by_size"]["1"])
    with pytest.raises(sim.DemoFileError, match="part_a.by_size has the key 'many'"):
        sim.read_demo(demo)


def test_the_command_line_reads_a_demo_file_and_names_a_bad_one(sim, results, tmp_path, processes):
    good, bad = tmp_path / "mine.json", tmp_path / "bad.json"
    good.write_text(json.dumps(demo_of(results, slower=1.5)))
    broken = demo_of(results)
    del broken["machine"]["python"]
    bad.write_text(json.dumps(broken))
    command = [sys.executable, sim.__file__, "--results", str(GOLDEN / "results.json"),
               "--max-batch", "8", "--max-wait-ms", "1", "--rate", "1.25",
               "--window-s", "1"]  # fmt: skip
    done = subprocess.run([*command, "--machine", str(good)], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == sim.simulate(results, 8, 1, 1.25, window_s=1.0,
                                               machine=demo_of(results, slower=1.5))  # fmt: skip
    refused = subprocess.run([*command, "--machine", str(bad)], capture_output=True, text=True,
                             timeout=60)  # fmt: skip
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        "simulate: demo file: machine.python is missing; it should be text"
    )


def test_the_demos_format_is_the_one_the_simulator_reads_first(sim):
    from lab import demo

    assert demo.DEMO_FORMAT == sim.DEMO_FORMAT and sim.DEMO_FORMAT in sim.DEMO_FORMATS


def test_a_steady_file_is_read_without_a_caution(sim, results):
    steady = demo_of(results, spread=timing.TOO_NOISY_SPREAD / 2)
    found = sim.read_demo(steady)
    assert found["noise"]["too_noisy"] is False and sim.demo_caution(found) == ""
    text = sim.simulate(results, 32, 2, 1.6, window_s=0.5, machine=steady)
    assert "too noisy" not in text and "older demo" not in text


def test_a_noisy_file_is_read_with_a_warning_naming_its_spread(sim, results):
    noisy = demo_of(results, spread=timing.TOO_NOISY_SPREAD * 2)
    found = sim.read_demo(noisy)
    assert found["noise"]["too_noisy"] is True
    caution = sim.demo_caution(found)
    limit = f"{timing.TOO_NOISY_SPREAD:.0%}"
    spread = f"{timing.TOO_NOISY_SPREAD * 2:.1%}"
    assert caution.startswith("Warning: this demo file's timings are too noisy to lean on")
    assert f"differ by {spread} of their median, more than the demo's {limit} limit" in caution
    text = sim.simulate(results, 32, 2, 1.6, window_s=0.5, machine=noisy)
    assert caution in text.splitlines()


def test_a_file_of_the_first_format_still_loads_and_says_what_it_lacks(sim, results):
    old = demo_of(results, old=True)
    assert old["format"] == "batching-lab-demo/1" and "noise" not in old["part_a"]
    found = sim.read_demo(old)
    assert found["noise"] is None and found["sizes"] == old["part_a"]["sizes"]
    caution = sim.demo_caution(found)
    assert caution.startswith('Note: this file is from an older demo (format "batching-lab-demo/1"')
    assert "recorded no spread" in caution
    mine = sim.for_machine(results, old)
    assert mine["sources"]["speed"] == pytest.approx(1.0)
