"""The slow-run rule, end to end: the runner re-runs exactly the attempts the speed probe found
slow, later in the schedule, keeps every attempt, stops at the attempt limit with the run
marked, resumes after SIGKILL in the middle of a re-run with every attempt exactly once, and
sees a real CPU hog on the measurement core; the generator uses the attempt the rule chose,
the pages and the explorer say which runs never passed, and the report fails when a decision
in results.json is altered.

Real tiny campaigns (real services, clients, Part A, bits). The first three tests use the
stand-in slow host of tests/slow_host.py (the probe's figures chosen, so the slow attempts
are known); the hog test uses the real probe. Run: `.venv/bin/pytest tests/test_slow_runs.py`.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from generator import report
from lab import design
from lab.campaign import attempts
from lab.campaign.folder import run_path
from lab.campaign.schedule import build_schedule
from lab.rawformat import codec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "site_src" / "explorer"))

import explorer  # noqa: E402

TINY = design.PROFILES["tiny"]
SLOW = [
    "bits@1",  # probed, but the rule never re-runs the bit check
    "part_a-0@1",  # slow once: the second attempt counts
    "saturation-0@1",
    "saturation-0@2",  # slow twice: the third attempt counts
    "part_b-r0-x0.5-none@*",  # slow every time: three attempts, marked as never passing
]


def stand_in(raw: Path, campaign: str, *slow: str, **popen) -> subprocess.Popen:
    command = [sys.executable, str(ROOT / "tests" / "slow_host.py"), campaign, *slow]
    env = {**os.environ, "LAB_RAW": str(raw)}
    return subprocess.Popen(command, env=env, cwd=ROOT, text=True, **popen)


def attempts_by_time(folder: Path) -> list[tuple[str, int, dict]]:
    """(run_id, attempt, meta) of every run file, in the order the attempts ran."""
    found = []
    for path in codec.run_files(folder):
        meta = codec.read_meta(path)
        found.append((meta["run_id"], meta["attempt"], meta))
    return sorted(found, key=lambda item: item[2]["probe_before"]["at"])


def generator(*arguments) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "generator", *arguments]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def slow_campaign(tmp_path_factory, lab_artifacts) -> dict:
    """A tiny campaign on the stand-in slow host, built by the generator."""
    raw = tmp_path_factory.mktemp("raw")
    done = stand_in(raw, "slowhost", *SLOW, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output, _ = done.communicate(timeout=1200)
    assert done.returncode == 0, output[-3000:]
    out = tmp_path_factory.mktemp("built")
    built = generator("build", "--raw", str(raw), "--campaign", "slowhost", "--out", str(out))
    assert built.returncode == 0, built.stdout + built.stderr
    results_path = out / "assets" / "data" / "results.json"
    results = report.with_table(json.loads(results_path.read_text()), results_path)
    return {"raw": raw, "folder": raw / "slowhost", "out": out, "output": output,
            "results_path": results_path, "results": results}  # fmt: skip


@pytest.mark.slow
def test_exactly_the_slow_attempts_are_run_again_and_every_attempt_is_kept(slow_campaign):
    names = sorted(path.name for path in codec.run_files(slow_campaign["folder"]))
    schedule = json.loads((slow_campaign["folder"] / "schedule.json").read_text())
    again = ["part_a-0@2", "saturation-0@2", "saturation-0@3",
             "part_b-r0-x0.5-none@2", "part_b-r0-x0.5-none@3"]  # fmt: skip
    expected = sorted(f"{name}{codec.SUFFIX}" for name in [r["run_id"] for r in schedule] + again)
    assert names == expected
    for run_id, attempt, meta in attempts_by_time(slow_campaign["folder"]):
        assert meta["run_id"] == run_id and meta["probe_before"]["stand_in"]
        want = 2.0 if f"{run_id}@{attempt}" in SLOW or f"{run_id}@*" in SLOW else 1.0
        assert meta["probe_before"]["slowness"] == meta["probe_after"]["slowness"] == want
    assert "the re-run budget" not in slow_campaign["output"]


@pytest.mark.slow
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


@pytest.mark.slow
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
    assert "never passed" in pages["lab.md"] and "part_b-r0-x0.5-none" in pages["lab.md"]
    assert '<div class="chart" data-chart="probe_weather"' in pages["lab.md"]
    spec = json.loads((slow_campaign["out"] / "assets/charts/probe_weather.json").read_text())
    threshold = [t for t in spec["data"] if t["name"].startswith("threshold")]
    assert threshold and set(threshold[0]["y"]) == {1 + design.SLOW_RUN_THRESHOLD}


@pytest.mark.slow
def test_results_json_names_the_file_of_attempts_instead_of_holding_it(slow_campaign):
    path = slow_campaign["results_path"]
    published = json.loads(path.read_text())["speed_probe"]
    assert "attempts" not in published and "decisions" not in published
    side = json.loads((path.parent / published["attempts_table"]).read_text())
    assert side["decisions"] == slow_campaign["results"]["speed_probe"]["decisions"]
    ran = len(side["attempts"]["run_id"])
    assert ran == published["attempts_made"] + len(side["attempts"]["not_judged"])


@pytest.mark.slow
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


@pytest.mark.slow
def test_the_report_fails_on_an_attempt_the_rule_did_not_ask_for(slow_campaign, tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(slow_campaign["raw"], raw)
    runs = raw / "slowhost" / "runs"
    shutil.copy(runs / "part_c-0.run.zip", runs / "part_c-0@2.run.zip")
    done = generator("report", "--raw", str(raw), "--campaign", "slowhost",
                     "--results", str(slow_campaign["results_path"]))  # fmt: skip
    assert done.returncode == 1
    assert "measured again after an attempt that was not slow" in done.stdout


@pytest.mark.slow
def test_killed_in_the_middle_of_re_runs_then_resumed_keeps_every_attempt_once(tmp_path):
    target = "part_b-r0-x1.6-b32-w2"  # the round's last run: each re-run follows a pause
    slow = [f"{target}@1", f"{target}@2"]
    for attempt in (2, 3):
        runner = stand_in(
            tmp_path, "killed", *slow, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 900
        for line in runner.stdout:
            assert time.monotonic() < deadline, "no re-run seen"
            if f"{target} was slow: attempt {attempt} " in line:
                break
        time.sleep(0.3)  # into the attempt: its service and quiet check are starting
        runner.send_signal(signal.SIGKILL)
        runner.wait()
        assert not (tmp_path / "killed" / "runs" / f"{target}@{attempt}.run.zip").exists()
    done = stand_in(tmp_path, "killed", *slow, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output, _ = done.communicate(timeout=900)
    assert done.returncode == 0, output[-3000:]
    assert "runs already done" in output
    schedule = json.loads((tmp_path / "killed" / "schedule.json").read_text())
    expected = [r["run_id"] for r in schedule] + [f"{target}@2", f"{target}@3"]
    names = [path.name for path in codec.run_files(tmp_path / "killed")]
    assert sorted(names) == sorted(f"{name}{codec.SUFFIX}" for name in expected)
    assert not list((tmp_path / "killed").rglob("*.tmp"))
    metas = [codec.read_meta(tmp_path / "killed" / "runs" / name) for name in names]
    assert sorted(m["attempt"] for m in metas if m["run_id"] == target) == [1, 2, 3]


def hogs(count: int, cpu: int) -> list[subprocess.Popen]:
    """Busy loops pinned to `cpu`: a real neighbour taking the measurement core."""
    spin = [sys.executable, "-c", "while True: pass"]
    return [subprocess.Popen(["taskset", "-c", str(cpu), *spin]) for _ in range(count)]


@pytest.mark.slow
def test_a_real_cpu_hog_on_the_measurement_core_is_seen_and_the_run_goes_again(tmp_path):
    """The real probe: four busy loops on core 1 for one attempt (the one after S's first
    run) make its probes slow, and the rule runs it again."""
    command = [sys.executable, "-m", "lab", "run", "--profile", "tiny", "--campaign", "hog",
               "--cpu", "1"]  # fmt: skip
    env = {**os.environ, "LAB_RAW": str(tmp_path)}
    runner = subprocess.Popen(command, env=env, cwd=ROOT, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip
    started, window, lines = None, [], []
    try:
        for line in runner.stdout:
            lines.append(line)
            if started is None and "saturation-0 ok" in line:
                started = hogs(4, 1)
                window.append(time.time())
            elif started and len(window) == 1 and line.startswith("lab run: [") and " ok " in line:
                window.append(time.time())
                for hog in started:
                    hog.kill()
                    hog.wait()
        assert runner.wait(timeout=900) == 0, "".join(lines)[-3000:]
    finally:
        for hog in started or []:
            hog.kill()
            hog.wait()
    assert len(window) == 2, "".join(lines)[-3000:]
    ran = attempts_by_time(tmp_path / "hog")
    inside = [item for item in ran if window[0] <= item[2]["probe_before"]["at"] <= window[1]]
    assert len(inside) == 1, inside
    run_id, attempt, meta = inside[0]
    limit = 1 + design.SLOW_RUN_THRESHOLD
    assert meta["probe_before"]["slowness"] > limit or meta["probe_after"]["slowness"] > limit
    assert (tmp_path / "hog" / "runs" / f"{run_id}@{attempt + 1}.run.zip").exists()
    # The report's check of decisions made by the real probe runs on every committed full
    # campaign (tests/test_report.py: full-20261130 holds 143 such attempts), not again here.


# --- the data budget: a re-run only while the campaign stays under 40 MiB ---------------------


def data_budget_rule(budget_bytes: int) -> "attempts.SlowRunRule":
    return attempts.SlowRunRule(
        threshold=design.SLOW_RUN_THRESHOLD,
        max_attempts=design.SLOW_RUN_MAX_ATTEMPTS,
        kinds=design.SLOW_RUN_KINDS,
        budget_runs=100,
        pause_s=0.0,
        reference={},
        budget_bytes=budget_bytes,
        run_bytes={"part_b": 1_000},
        arrivals_bytes=500,
    )


def test_a_re_run_is_made_only_while_the_campaign_fits_its_data_budget(tmp_path):
    (tmp_path / "runs").mkdir()
    schedule = [{"run_id": f"part_b-r0-x1-b{cap}-w0", "kind": "part_b"} for cap in (1, 8, 32)]
    run_path(tmp_path, schedule[0]["run_id"]).write_bytes(b"x" * 3_000)
    run_path(tmp_path, schedule[0]["run_id"], 2).write_bytes(b"x" * 2_000)
    (tmp_path / "campaign.json").write_bytes(b"x" * 100)
    # folder 5,100 + the latest attempt once more 2,000 + two runs owed 2,000 + arrivals 500
    needed = 9_600

    def room(budget_bytes: int) -> bool:
        rule = data_budget_rule(budget_bytes)
        return attempts.room_for_again(tmp_path, schedule[0], schedule, rule)

    assert room(needed) and not room(needed - 1)
    run_path(tmp_path, schedule[1]["run_id"]).write_bytes(b"x" * 1_000)  # owed becomes on disk
    assert room(needed)


def test_the_full_profile_leaves_room_for_re_runs_and_its_sizes_are_not_below_what_was_stored():
    schedule = build_schedule(design.FULL, seed=1)
    first_attempts = sum(design.RUN_BYTES[run["kind"]] for run in schedule)
    room = design.CAMPAIGN_BYTES_BUDGET - first_attempts - design.ARRIVALS_BYTES
    assert room > 60 * design.RUN_BYTES["part_b"]  # about 10% of Part B's runs again
    for folder in sorted((ROOT / "data" / "raw").glob("full-*")):
        sizes = {}
        for path in codec.run_files(folder):
            sizes.setdefault(codec.read_meta(path)["kind"], []).append(path.stat().st_size)
        for kind, found in sizes.items():
            assert sum(found) / len(found) <= design.RUN_BYTES[kind], (folder.name, kind)
