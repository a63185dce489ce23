"""The campaign runner: resumable after SIGKILL, no partial files, refuses a foreign machine,
stops on repeated failures. Uses the real service and clients with the `tiny` profile.

Run: `.venv/bin/pytest tests/test_runner.py`.
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from lab import design
from lab.rawformat import codec

CAMPAIGN = "tiny-test"


def runner_command(cpu="1", profile="tiny", campaign=CAMPAIGN):
    return [
        sys.executable,
        "-m",
        "lab",
        "run",
        "--profile",
        profile,
        "--campaign",
        campaign,
        "--cpu",
        cpu,
    ]


def runner_env(raw):
    return {**os.environ, "LAB_RAW": str(raw)}


def finished_runs(raw):
    return codec.run_files(raw / CAMPAIGN)


def kill_after(raw, at_least: int, timeout_s: float = 240):
    """Start the runner, SIGKILL it once `at_least` run files exist."""
    process = subprocess.Popen(
        runner_command(), env=runner_env(raw), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + timeout_s
    while len(finished_runs(raw)) < at_least and process.poll() is None:
        assert time.monotonic() < deadline, "runner made no progress"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()


@pytest.mark.slow
def test_killed_twice_then_resumed_gives_every_run_exactly_once(tmp_path):
    kill_after(tmp_path, 1)
    kill_after(tmp_path, 4)
    done = subprocess.run(
        runner_command(), env=runner_env(tmp_path), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    schedule = json.loads((tmp_path / CAMPAIGN / "schedule.json").read_text())
    expected = sorted(f"{run['run_id']}{codec.SUFFIX}" for run in schedule)
    assert sorted(path.name for path in finished_runs(tmp_path)) == expected
    for path in finished_runs(tmp_path):
        meta, columns = codec.read_run(path)
        assert meta["run_id"] == path.name.removesuffix(codec.SUFFIX)
    assert not list((tmp_path / CAMPAIGN).rglob("*.tmp"))
    assert "already done" in done.stdout and "[" in done.stdout
    # Every timed run keeps its quiet check and who else used the core while it ran.
    timed = [codec.read_meta(p) for p in finished_runs(tmp_path) if "bits" not in p.name]
    assert timed and all(m["quiet"]["tries"] >= 1 and "others_share" in m["core_watch"]
                         for m in timed)  # fmt: skip
    part_b = [codec.read_run(p) for p in finished_runs(tmp_path) if "part_b" in p.name]
    assert part_b and all(len(cols["latency_us"]) > 0 for _, cols in part_b)
    # The campaign describes itself (tests/test_campaign_description.py has the details).
    header = json.loads((tmp_path / CAMPAIGN / "campaign.json").read_text())
    assert header["guesses"]["items"] == [dict(guess) for guess in design.GUESSES]
    assert header["rules"]["keeps_up_share"] == design.KEEPS_UP_SHARE
    assert header["description_version"] == 1
    # The runner got every batch of each run from /batches: together they hold every answer.
    queued = [(meta, cols) for meta, cols in part_b if meta["setting"]["batcher"] == "queue"]
    assert queued
    for meta, cols in queued:
        assert meta["client"]["non_200"] == 0
        assert int(cols["batches_size"].sum()) == meta["client"]["answered"]


def test_a_campaign_from_another_machine_is_refused(tmp_path):
    folder = tmp_path / CAMPAIGN
    folder.mkdir()
    header = {
        "campaign": CAMPAIGN,
        "profile": "tiny",
        "seed": 1,
        "fingerprint": {"cpu_model": "some other CPU", "cores": 1},
    }
    (folder / "campaign.json").write_text(json.dumps(header))
    done = subprocess.run(
        runner_command(), env=runner_env(tmp_path), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert "another machine" in done.stderr and "Traceback" not in done.stderr


def test_many_failures_in_a_row_stop_the_campaign_clearly(tmp_path):
    # With no `taskset` on PATH, no measured process can be pinned: every run fails.
    env = {**runner_env(tmp_path), "PATH": str(tmp_path / "empty-bin")}
    command = runner_command() + ["--max-failures-in-row", "2"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert "2 runs failed in a row" in done.stderr and "Traceback" not in done.stderr
    failures = json.loads((tmp_path / CAMPAIGN / "failures.json").read_text())
    assert [f["run_id"] for f in failures] == ["part_a-0", "bits"]
    assert not finished_runs(tmp_path)


def test_a_core_that_does_not_exist_is_refused(tmp_path):
    done = subprocess.run(
        runner_command(cpu=str(os.cpu_count() + 7)),
        env=runner_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "no such core" in done.stderr


def test_a_bad_campaign_name_is_refused(tmp_path):
    done = subprocess.run(
        runner_command(campaign="../escape"),
        env=runner_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "campaign name" in done.stderr
