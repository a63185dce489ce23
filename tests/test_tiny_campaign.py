"""The one real tiny campaign, end to end (tests/conftest.py's `tiny_campaign`: real services,
clients, Part A, bits, S, Part B and Part C on the stand-in slow host, whose probe figures are
chosen, so the slow attempts are known; then `python -m generator build`): what every run
recorded, the attempts the slow-run rule asked for and where they ran, the attempt the
generator used and the run it marked as never passing, and the report agreeing, then failing
when a decision in results.json is altered or an attempt was not asked for.

One file, so the campaign is made once per run (pytest-xdist keeps a file on one worker).
Run: `.venv/bin/pytest tests/test_tiny_campaign.py`.
"""

import json
import shutil
import subprocess
import sys

import pytest

from generator.report import checks as report
from lab import design
from lab.guesses import GUESSES
from lab.rawformat import codec
from site_src.explorer import explorer
from tests.support.labrun import ROOT, attempts_by_time
from tests.support.profiles import TINY


def generator(*arguments) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "generator", *arguments]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_every_run_records_what_it_saw(tiny_campaign):
    """The one real tiny campaign (conftest.py): every timed run keeps its quiet check and who
    else used the core while it ran, Part B its latencies and every batch, and the campaign
    describes itself."""
    folder = tiny_campaign["folder"]
    runs = codec.run_files(folder)
    timed = [codec.read_meta(p) for p in runs if "bits" not in p.name]
    assert timed and all(m["quiet"]["tries"] >= 1 and "others_share" in m["core_watch"]
                         for m in timed)  # fmt: skip
    part_b = [codec.read_run(p) for p in runs if "part_b" in p.name]
    assert part_b and all(len(cols["latency_us"]) > 0 for _, cols in part_b)
    # The campaign describes itself (tests/test_campaign_description.py has the details).
    header = json.loads((folder / "campaign.json").read_text())
    assert header["guesses"]["items"] == [dict(guess) for guess in GUESSES]
    assert header["rules"]["keeps_up_share"] == design.KEEPS_UP_SHARE
    assert header["description_version"] == 1
    calibration = header["speed_probe"]
    assert len(calibration["probes"]) == TINY.probe_calibration
    assert set(calibration["reference"]) == {"python_us", "model_us", "memory_us"}
    # The runner got every batch of each run from /batches: together they hold every answer.
    queued = [(meta, cols) for meta, cols in part_b if meta["setting"]["batcher"] == "queue"]
    assert queued
    for meta, cols in queued:
        assert meta["client"]["non_200"] == 0
        assert int(cols["batches_size"].sum()) == meta["client"]["answered"]


@pytest.fixture
def slow_campaign(tiny_campaign):
    """The real tiny campaign on the stand-in slow host (conftest.py's `tiny_campaign`)."""
    return tiny_campaign


def test_exactly_the_slow_attempts_are_run_again_and_every_attempt_is_kept(slow_campaign):
    names = sorted(path.name for path in codec.run_files(slow_campaign["folder"]))
    schedule = json.loads((slow_campaign["folder"] / "schedule.json").read_text())
    again = ["part_a-0@2", "saturation-0@2", "saturation-0@3",
             "part_b-r0-x0.5-none@2", "part_b-r0-x0.5-none@3"]  # fmt: skip
    expected = sorted(f"{name}{codec.SUFFIX}" for name in [r["run_id"] for r in schedule] + again)
    assert names == expected
    for run_id, attempt, meta in attempts_by_time(slow_campaign["folder"]):
        assert meta["run_id"] == run_id and meta["probe_before"]["stand_in"]
        chosen = {f"{run_id}@{attempt}", f"{run_id}@*"} & set(slow_campaign["slow"])
        want = 2.0 if chosen else 1.0
        assert meta["probe_before"]["slowness"] == meta["probe_after"]["slowness"] == want
    assert "the re-run budget" not in slow_campaign["output"]


def test_a_slow_run_goes_again_at_the_end_of_its_block_never_twice_in_a_row(slow_campaign):
    order = [(run_id, attempt) for run_id, attempt, _ in attempts_by_time(slow_campaign["folder"])]
    position = {item: index for index, item in enumerate(order)}
    assert position[("part_a-0", 2)] == position[("part_a-0", 1)] + 1 < position[("bits", 1)]
    first_b = [position[(r, 1)] for r, a in order if r.startswith("part_b-r0") and a == 1]
    saturation = [position[("saturation-0", n)] for n in (1, 2, 3)]
    assert saturation == sorted(saturation) and saturation[-1] < min(first_b)
    none_again = [position[("part_b-r0-x0.5-none", n)] for n in (2, 3)]
    assert max(first_b) < none_again[0] < none_again[1] < position[("part_c-0", 1)]
    # Attempts 2 and 3 of one run follow each other only after the rule's pause.
    metas = {(r, a): m for r, a, m in attempts_by_time(slow_campaign["folder"])}
    for run_id, later in (("part_a-0", 2), ("saturation-0", 3), ("part_b-r0-x0.5-none", 3)):
        gap = metas[(run_id, later)]["probe_before"]["at"] - metas[(run_id, later - 1)][
            "probe_after"]["at"]  # fmt: skip
        assert gap >= TINY.slow_pause_s
    assert "s pause before part_b-r0-x0.5-none again" in slow_campaign["output"]


def test_the_generator_uses_the_chosen_attempt_and_marks_the_run_that_never_passed(
    slow_campaign,
):
    results = slow_campaign["results"]
    speed = results["speed_probe"]
    assert speed["decisions"] == {
        "part_a-0": {"slow": [True, False], "chosen": 2, "passed": True},
        "part_b-r0-x0.5-none": {"slow": [True, True, True], "chosen": 1, "passed": False},
        "saturation-0": {"slow": [True, True, False], "chosen": 3, "passed": True},
    }
    assert speed["never_passed"] == ["part_b-r0-x0.5-none"]
    assert (speed["runs_rerun"], speed["reruns"], speed["slow_attempts"]) == (3, 5, 6)
    chosen = codec.read_meta(slow_campaign["folder"] / "runs" / "saturation-0@3.run.zip")
    assert results["saturation"]["runs"][0]["throughput"] == pytest.approx(
        chosen["stats"]["throughput"], rel=1e-4
    )
    assert results["figures"]["slow_never_passed"]["value"] == 1
    cell = results["part_b"]["settings"]["none"]["rates"]["0.5"]
    assert cell["never_passed_rounds"] == [0]
    text = explorer.lookup(results, "none", 0, 0.5)
    assert "never passed the slow-run rule" in text and "round 1" in text
    pages = {name: (slow_campaign["out"] / name).read_text() for name in ("lab.md", "limits.md")}
    # the run as a reader counts it, from 1 (tests/test_counted_from_one.py), not its raw id
    lab_page = pages["lab.md"]
    assert "never passed" in lab_page and "Part B round 1, none at 0.5 × S" in lab_page
    assert "part_b-r0-x0.5-none" not in lab_page
    assert '<div class="chart" data-chart="probe_weather"' in pages["lab.md"]
    spec = json.loads((slow_campaign["out"] / "assets/charts/probe_weather.json").read_text())
    threshold = [t for t in spec["data"] if t["name"].startswith("threshold")]
    assert threshold and set(threshold[0]["y"]) == {1 + design.SLOW_RUN_THRESHOLD}


def test_results_json_names_the_file_of_attempts_instead_of_holding_it(slow_campaign):
    path = slow_campaign["results_path"]
    published = json.loads(path.read_text())["speed_probe"]
    assert "attempts" not in published and "decisions" not in published
    side = json.loads((path.parent / published["attempts_table"]).read_text())
    assert side["decisions"] == slow_campaign["results"]["speed_probe"]["decisions"]
    ran = len(side["attempts"]["run_id"])
    assert ran == published["attempts_made"] + len(side["attempts"]["not_judged"])


def test_the_report_agrees_and_fails_when_a_decision_is_altered(slow_campaign, tmp_path):
    raw, path = str(slow_campaign["raw"]), slow_campaign["results_path"]
    agreed = generator("report", "--raw", raw, "--campaign", "slowhost", "--results", str(path))
    assert agreed.returncode == 0, agreed.stdout[-3000:]
    assert "3 runs measured again (5 re-runs" in agreed.stdout
    alterations = {
        "chosen": lambda r: r["speed_probe"]["decisions"]["part_a-0"].update(chosen=1),
        "slow": lambda r: r["speed_probe"]["decisions"]["saturation-0"].update(
            slow=[True, False, False]
        ),
        "never_passed": lambda r: r["speed_probe"].update(never_passed=[]),
        "marked cell": lambda r: r["part_b"]["settings"]["none"]["rates"]["0.5"].pop(
            "never_passed_rounds"
        ),
        "a decision left out": lambda r: r["speed_probe"]["decisions"].pop("part_a-0"),
    }
    for label, alter in alterations.items():
        # The simulator's table read in, so the altered copy stands alone in tmp_path.
        results = report.with_table(json.loads(path.read_text()), path)
        alter(results)
        altered = tmp_path / f"{label}.json"
        altered.write_text(json.dumps(results))
        done = generator(
            "report", "--raw", raw, "--campaign", "slowhost", "--results", str(altered)
        )
        assert done.returncode == 1, label
        assert "DISAGREES" in done.stdout, label


def test_the_report_fails_on_an_attempt_the_rule_did_not_ask_for(slow_campaign, tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(slow_campaign["raw"], raw)
    runs = raw / "slowhost" / "runs"
    shutil.copy(runs / "part_c-0.run.zip", runs / "part_c-0@2.run.zip")
    done = generator("report", "--raw", str(raw), "--campaign", "slowhost",
                     "--results", str(slow_campaign["results_path"]))  # fmt: skip
    assert done.returncode == 1
    assert "measured again after an attempt that was not slow" in done.stdout
