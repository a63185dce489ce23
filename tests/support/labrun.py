"""The lab's campaign runner for the tests, with stand-ins where the property under test is the
runner's own (resume after SIGKILL, attempts, the re-run rule, failures in a row):

- a stand-in slow host: a speed probe that reports the reference speed, except for chosen run
  attempts, which it reports twice as slow, so a test knows exactly which attempts the
  slow-run rule must call slow;
- stand-in executors (`--stand-in-runs`): every run probes before and after as a real one does,
  holds the core for STAND_IN_RUN_S, and writes a small run file; no service, client or model
  (and no pre-loaded launcher). `--failing-runs` makes every run fail, as a run whose
  measured process cannot start does.

    python -m tests.support.labrun CAMPAIGN [RUN_ID@ATTEMPT …] [--cpu 1] [--stand-in-runs]
        [--failing-runs] [--real-probe]

runs (or carries on) a `tiny` campaign under LAB_RAW; `RUN_ID@*` makes every attempt of a
run slow; `--real-probe` keeps the lab's own probe (a real neighbour on the core is then what
makes an attempt slow). Used by the campaign tier's tests (the `lab_runner` fixture), never by
the lab. The one real tiny campaign end to end (real services, clients, Part A, bits) is
tests/conftest.py's `tiny_campaign`, with the stand-in slow host only. `attempts_by_time`
reads back, in the order they ran, the attempts of a campaign either made.
"""

import argparse
import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

# The stand-in's reference speed, near a quiet core's probe (python ~4 ms, model ~0.47 ms).
STEADY = {"python_us": 4000.0, "model_us": 470.0, "memory_us": 3800.0}
SLOW_FACTOR = 2.0
STAND_IN_RUN_S = 0.15  # long enough for a test to kill the runner inside a run
STAND_IN_THROUGHPUT = 1000.0  # S, for the runner's Part B rates


class SlowHost:
    """measure(run_id, attempt, moment) as lab.campaign.probe.ProbeWorker's, with chosen
    figures: STEADY, or SLOW_FACTOR × STEADY for the chosen (run_id, attempt) pairs."""

    def __init__(self, cpu, slow: dict):
        self.cpu, self.slow = cpu, slow  # run_id -> set of attempts, or "*" for every one

    def measure(self, run_id=None, attempt=None, moment=None) -> dict:
        chosen = self.slow.get(run_id, ())
        factor = SLOW_FACTOR if chosen == "*" or attempt in chosen else 1.0
        figures = {part: value * factor for part, value in STEADY.items()}
        return {**figures, "at": round(time.time(), 3), "cpu": self.cpu, "stand_in": True}

    def close(self) -> None:
        pass


def attempts_by_time(folder: Path) -> list[tuple[str, int, dict]]:
    """(run_id, attempt, meta) of every run file, in the order the attempts ran."""
    from lab.rawformat import codec

    found = []
    for path in codec.run_files(folder):
        meta = codec.read_meta(path)
        found.append((meta["run_id"], meta["attempt"], meta))
    return sorted(found, key=lambda item: item[2]["probe_before"]["at"])


def slow_attempts(specs: list[str]) -> dict:
    """["part_a-0@1", "part_b-r0-x0.5-none@*"] -> {"part_a-0": {1}, "part_b-…": "*"}."""
    slow = {}
    for spec in specs:
        run_id, _, attempt = spec.partition("@")
        if attempt == "*":
            slow[run_id] = "*"
        else:
            slow.setdefault(run_id, set()).add(int(attempt))
    return slow


def stand_in_run(context, run: dict, echo=None):
    """A run as the runner sees one: probes before and after, the core held in between, a
    small file (its `stats.throughput` is S for the runner's Part B rates)."""
    from lab.campaign.context import RunResult
    from lab.campaign.speed import probe_now

    probes = probe_now(context, "before")
    deadline = time.perf_counter() + STAND_IN_RUN_S
    while time.perf_counter() < deadline:  # busy, as a measured run keeps the core busy
        pass
    probes.update(probe_now(context, "after"))
    meta = {"stand_in": True, "stats": {"throughput": STAND_IN_THROUGHPUT}, **probes}
    return RunResult(meta, {"value": np.arange(4, dtype=np.int64)})


def failing_run(context, run: dict, echo=None):
    from lab.campaign.context import RunFailed

    raise RunFailed("the stand-in's measured process could not start")


@contextlib.contextmanager
def no_launcher(runner_cores, progress):
    yield None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("campaign")
    parser.add_argument("slow", nargs="*", help="RUN_ID@ATTEMPT or RUN_ID@*")
    parser.add_argument("--cpu", type=int, default=1)
    parser.add_argument("--stand-in-runs", action="store_true")
    parser.add_argument("--failing-runs", action="store_true")
    parser.add_argument("--real-probe", action="store_true")
    parser.add_argument("--max-failures-in-row", type=int, default=5)
    args = parser.parse_args()

    from lab.campaign import runner
    from lab.errors import LabError
    from tests.support import profiles

    profiles.register()

    if args.stand_in_runs or args.failing_runs:
        executor = failing_run if args.failing_runs else stand_in_run
        runner.EXECUTORS = {kind: executor for kind in runner.EXECUTORS}
        runner.start_launcher = no_launcher
    options = {}
    if not args.real_probe:
        slow = slow_attempts(args.slow)
        options["probe_factory"] = lambda cpu: SlowHost(cpu, slow)
    try:
        summary = runner.run_campaign(
            args.campaign,
            "tiny",
            args.cpu,
            max_failures_in_row=args.max_failures_in_row,
            echo=lambda line: print(line, flush=True),
            **options,
        )
    except LabError as error:
        print(f"lab: {error}", file=sys.stderr)
        return 2
    return 1 if summary["missing"] else 0


class LabRunner:
    """The fixture `lab_runner`: this module's command (or the real `python -m lab run`, with
    the `tiny` profile registered) on a raw folder of the test's own."""

    def __init__(self, raw: Path):
        self.raw = raw

    def env(self, **extra) -> dict:
        return {**os.environ, "LAB_RAW": str(self.raw), **extra}

    def command(self, campaign: str, *options: str) -> list[str]:
        return [sys.executable, "-m", "tests.support.labrun", campaign, *options]

    def real_command(self, campaign: str, *options: str) -> list[str]:
        # `python -m lab run`, with the tests' `tiny` profile registered.
        return [sys.executable, "-m", "tests.support.profiles", "run", "--profile", "tiny",
                "--campaign", campaign, "--cpu", "1", *options]  # fmt: skip

    def popen(self, command: list[str], **popen) -> subprocess.Popen:
        return subprocess.Popen(command, env=self.env(), cwd=ROOT, text=True, **popen)

    def run(self, command: list[str], timeout: float = 600, **extra_env):
        return subprocess.run(command, env=self.env(**extra_env), cwd=ROOT, capture_output=True,
                              text=True, timeout=timeout)  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
