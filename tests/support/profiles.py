"""The tests' own campaign profile, `tiny` (the whole pipeline in well under a minute), and
how the lab gets to run it: `register()` adds it to the lab's profiles (lab/design.py
PROFILES) in this process, and

    python -m tests.support.profiles run --profile tiny --campaign NAME --cpu 1

is `python -m lab …` with it registered, for a test that runs the real command line in a
process of its own. tests/conftest.py registers it in every test process; the campaign tier's
runner (tests/support/labrun.py) registers it too. The lab itself never knows of it.
"""

import sys

from lab import design
from lab.design import BUSY_RATE, NONE, QUIET_RATE, Profile, Setting

# For tests only: the whole pipeline in well under a minute.
TINY = Profile(
    "tiny",
    (NONE, Setting("queue", 32, 2.0)),
    (QUIET_RATE, BUSY_RATE),
    rounds=1,
    window_s=0.5,
    part_a_runs=1,
    calls_per_size=5,
    saturation_runs=1,
    saturation_s=0.5,
    part_c_records=200,
    part_c_runs=1,
    bit_rows=64,
    drain_s=10.0,
    quiet_seconds=0.2,
    quiet_tries=2,
    probe_calibration=3,
    slow_budget_share=1.0,
    slow_pause_s=0.3,
)


def register() -> None:
    """Let the lab run the `tiny` profile in this process (idempotent)."""
    design.PROFILES.setdefault(TINY.name, TINY)


if __name__ == "__main__":
    register()
    from lab.cli import main

    sys.exit(main())
