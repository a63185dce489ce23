"""A stand-in slow host for the runner's tests: a speed probe that reports the reference
speed, except for chosen run attempts, which it reports twice as slow. Everything else in the
campaign is real (services, clients, Part A, bits, the quiet check); only the probe's figures
are chosen, so a test knows exactly which attempts the slow-run rule must call slow.

    python tests/slow_host.py CAMPAIGN RUN_ID@ATTEMPT … [--cpu 1]

runs (or carries on) a `tiny` campaign under LAB_RAW with this probe; `RUN_ID@*` makes every
attempt of a run slow. Used by tests/test_slow_runs.py, never by the lab.
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab.campaign.runner import run_campaign  # noqa: E402

# The stand-in's reference speed, near a quiet core's probe (python ~4 ms, model ~0.47 ms).
STEADY = {"python_us": 4000.0, "model_us": 470.0, "memory_us": 3800.0}
SLOW_FACTOR = 2.0


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("campaign")
    parser.add_argument("slow", nargs="*", help="RUN_ID@ATTEMPT or RUN_ID@*")
    parser.add_argument("--cpu", type=int, default=1)
    args = parser.parse_args()
    slow = slow_attempts(args.slow)
    summary = run_campaign(
        args.campaign,
        "tiny",
        args.cpu,
        echo=lambda line: print(line, flush=True),
        probe_factory=lambda cpu: SlowHost(cpu, slow),
    )
    return 1 if summary["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())
