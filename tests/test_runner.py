"""The campaign runner: resumable after SIGKILL, no partial files, refuses a foreign machine,
stops on repeated failures. The runner's own properties on stand-in runs
(tests/support/labrun.py); what a real run records on the one real tiny campaign.

Run: `.venv/bin/pytest tests/test_runner.py`.
"""

import json
import os
import signal
import subprocess
import time

from lab.rawformat import codec

CAMPAIGN = "tiny-test"


def finished_runs(raw):
    return codec.run_files(raw / CAMPAIGN)


def kill_after(lab_runner, at_least: int, timeout_s: float = 120):
    """Start the runner (stand-in runs), SIGKILL it once `at_least` run files exist."""
    process = lab_runner.popen(
        lab_runner.command(CAMPAIGN, "--stand-in-runs"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + timeout_s
    while len(finished_runs(lab_runner.raw)) < at_least and process.poll() is None:
        assert time.monotonic() < deadline, "runner made no progress"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()


def test_killed_twice_then_resumed_gives_every_run_exactly_once(lab_runner):
    """The runner's own property, on stand-in runs (tests/support/labrun.py): each run holds
    the core a moment and writes a small file, so the kills land inside runs too."""
    kill_after(lab_runner, 1)
    kill_after(lab_runner, 4)
    done = lab_runner.run(lab_runner.command(CAMPAIGN, "--stand-in-runs"))
    assert done.returncode == 0, done.stderr[-2000:]
    raw = lab_runner.raw
    schedule = json.loads((raw / CAMPAIGN / "schedule.json").read_text())
    expected = sorted(f"{run['run_id']}{codec.SUFFIX}" for run in schedule)
    names = [path.name for path in finished_runs(raw)]
    assert sorted(names) == expected  # the stand-in host is never slow: no second attempts
    for path in finished_runs(raw):
        meta = codec.read_meta(path)
        assert meta["run_id"] == path.name.removesuffix(codec.SUFFIX) and meta["attempt"] == 1
        assert {"probe_before", "probe_after"} <= set(meta)
    assert not list((raw / CAMPAIGN).rglob("*.tmp"))
    assert "already done" in done.stdout and "[" in done.stdout


def test_a_campaign_from_another_machine_is_refused(lab_runner):
    folder = lab_runner.raw / CAMPAIGN
    folder.mkdir()
    header = {
        "campaign": CAMPAIGN,
        "profile": "tiny",
        "seed": 1,
        "fingerprint": {"cpu_model": "some other CPU", "cores": 1},
    }
    (folder / "campaign.json").write_text(json.dumps(header))
    done = lab_runner.run(lab_runner.real_command(CAMPAIGN), timeout=120)
    assert done.returncode == 2
    assert "another machine" in done.stderr and "Traceback" not in done.stderr


def test_many_failures_in_a_row_stop_the_campaign_clearly(lab_runner):
    # Stand-in runs that all fail, as runs whose measured process cannot start.
    done = lab_runner.run(
        lab_runner.command(CAMPAIGN, "--failing-runs", "--max-failures-in-row", "2"), timeout=300
    )
    assert done.returncode == 2
    assert "2 runs failed in a row" in done.stderr and "Traceback" not in done.stderr
    failures = json.loads((lab_runner.raw / CAMPAIGN / "failures.json").read_text())
    assert [f["run_id"] for f in failures] == ["part_a-0", "bits"]
    assert not finished_runs(lab_runner.raw)


def test_a_run_whose_process_cannot_be_pinned_fails_with_the_reason(lab_runner):
    """The real executors: with no `taskset` on PATH no measured process can be pinned, and the
    failure says so (the runner's failures in a row are the test above)."""
    env = {"PATH": str(lab_runner.raw / "empty-bin")}
    done = lab_runner.run(
        lab_runner.real_command(CAMPAIGN, "--max-failures-in-row", "1"), timeout=300, **env
    )
    assert done.returncode == 2
    failures = json.loads((lab_runner.raw / CAMPAIGN / "failures.json").read_text())
    assert failures[0]["run_id"] == "part_a-0" and "taskset" in failures[0]["reason"]


def test_a_core_that_does_not_exist_is_refused(lab_runner):
    done = lab_runner.run(lab_runner.real_command(CAMPAIGN, "--cpu", str(os.cpu_count() + 7)),
                          timeout=60)  # fmt: skip
    assert done.returncode == 2 and "no such core" in done.stderr


def test_a_bad_campaign_name_is_refused(lab_runner):
    done = lab_runner.run(lab_runner.real_command("../escape"), timeout=60)
    assert done.returncode == 2 and "campaign name" in done.stderr
