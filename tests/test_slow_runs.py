"""The slow-run rule's mechanics: the runner resumes after SIGKILL in the middle of a re-run
with every attempt exactly once, sees a real CPU hog on the measurement core, and makes a
re-run only while the campaign fits its data budget. What the rule decided in a real
campaign, and what the generator and the report make of it, is tests/test_tiny_campaign.py.

The kill and the hog run on stand-in runs (tests/support/labrun.py), the hog test with the
real probe. Run: `.venv/bin/pytest tests/test_slow_runs.py`.
"""

import json
import signal
import subprocess
import sys
import time

from lab import design
from lab.campaign import attempts
from lab.campaign.folder import run_path
from lab.campaign.schedule import build_schedule
from lab.rawformat import codec
from tests.support.labrun import ROOT, attempts_by_time


def test_killed_in_the_middle_of_re_runs_then_resumed_keeps_every_attempt_once(lab_runner):
    """The runner's own property, on stand-in runs (tests/support/labrun.py)."""
    target = "part_b-r0-x1.6-b32-w2"  # the round's last run: each re-run follows a pause
    slow = [f"{target}@1", f"{target}@2"]
    command = lab_runner.command("killed", *slow, "--stand-in-runs")
    folder = lab_runner.raw / "killed"
    for attempt in (2, 3):
        runner = lab_runner.popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 300
        for line in runner.stdout:
            assert time.monotonic() < deadline, "no re-run seen"
            if f"{target} was slow: attempt {attempt} " in line:
                break
        time.sleep(0.05)  # into the attempt: its probe or its run
        runner.send_signal(signal.SIGKILL)
        runner.wait()
        assert not (folder / "runs" / f"{target}@{attempt}.run.zip").exists()
    done = lab_runner.popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output, _ = done.communicate(timeout=300)
    assert done.returncode == 0, output[-3000:]
    assert "runs already done" in output
    schedule = json.loads((folder / "schedule.json").read_text())
    expected = [r["run_id"] for r in schedule] + [f"{target}@2", f"{target}@3"]
    names = [path.name for path in codec.run_files(folder)]
    assert sorted(names) == sorted(f"{name}{codec.SUFFIX}" for name in expected)
    assert not list(folder.rglob("*.tmp"))
    metas = [codec.read_meta(folder / "runs" / name) for name in names]
    assert sorted(m["attempt"] for m in metas if m["run_id"] == target) == [1, 2, 3]


def hogs(count: int, cpu: int) -> list[subprocess.Popen]:
    """Busy loops pinned to `cpu`: a real neighbour taking the measurement core."""
    spin = [sys.executable, "-c", "while True: pass"]
    return [subprocess.Popen(["taskset", "-c", str(cpu), *spin]) for _ in range(count)]


def test_a_real_cpu_hog_on_the_measurement_core_is_seen_and_the_run_goes_again(lab_runner):
    """The real probe, stand-in runs: four busy loops on core 1 for one attempt (the one after
    S's first run) make its probes slow, and the rule runs it again."""
    command = lab_runner.command("hog", "--real-probe", "--stand-in-runs")
    runner = lab_runner.popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
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
        assert runner.wait(timeout=600) == 0, "".join(lines)[-3000:]
    finally:
        for hog in started or []:
            hog.kill()
            hog.wait()
    assert len(window) == 2, "".join(lines)[-3000:]
    ran = attempts_by_time(lab_runner.raw / "hog")
    inside = [item for item in ran if window[0] <= item[2]["probe_before"]["at"] <= window[1]]
    assert len(inside) == 1, inside
    run_id, attempt, meta = inside[0]
    limit = 1 + design.SLOW_RUN_THRESHOLD
    assert meta["probe_before"]["slowness"] > limit or meta["probe_after"]["slowness"] > limit
    assert (lab_runner.raw / "hog" / "runs" / f"{run_id}@{attempt + 1}.run.zip").exists()
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
