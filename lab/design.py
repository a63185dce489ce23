"""The lab's design, written before any timed run (BRIEF §4): its profiles and its rules.

Why each rule is what it is: the dated notes, lab/design_notes.py. The dated guesses each
campaign freezes: lab/guesses.py. The tests add a profile of their own (`tiny`,
tests/support/profiles.py).

Measurements
  Part A   `predict_proba` alone on 1, 2, 4 … 1,024 real test rows; CALLS_PER_SIZE timed calls
           per size; PART_A_RUNS fresh processes, each with the sizes in a new random order;
           one thread, pinned to the measurement core. Every call's time is kept.
  Bits     every test row scored alone, inside batches of each size 2, 4 … 1,024 and all at
           once; every score must equal the single-row score to the bit (tolerance zero).
  S        saturation with no batching: closed loop, 16 connections, 8 counted seconds,
           SATURATION_RUNS runs; S = the median throughput.
  Part B   SETTINGS × RATE_MULTIPLES × ROUNDS; each run: a fresh service, 8 s (full3 2 s) of Poisson
           arrivals at rate × S, the same arrivals for every setting within a round and rate
           (seeded by campaign, round and rate), runs shuffled inside each round. Latency
           counts from the scheduled arrival.
  Part C   N customers through the real service: a loop of single /predict calls on one
           kept-alive connection versus /predict_batch in chunks; where one request's time
           goes (parse, validate, lookup, model, serialize).
  Switch-  (issue 28; the full3 and quick3 profiles schedule it, below) one
  back     service process serving two settings at once, arms A and B; SWITCHBACK_SLICE_S
           slices of one run's Poisson arrivals alternate A, B, A … from a first arm drawn
           per run; each request goes to the arm of the slice it is scheduled in.

Each run's fresh service is a new process forked from a launcher that imported the
libraries and loaded the model once (lab/service/launcher.py), then moved to the measurement core;
the load client is a new pinned process too. Part B's per-request durations are stored to 8
significant bits (within 0.4%; exact below 256 µs) to keep the raw data compact.

Quiet rule: before every run the measurement core is ≥ 95% idle over 2 s, and the other
core ≥ 80% idle (the two vCPUs of a small VM may be hyperthreads of one physical core: on
2026-11-29 a trial of Part A ran up to 2× slower while other work ran on the other core);
retried for up to two minutes, then the run goes ahead recorded as not quiet. Load, steal,
both cores' idle shares and, during the run, the share of the measurement core that
anything else took are recorded.

Told apart: for two settings measured on the same arrivals, take the paired difference per
round; they are told apart when all rounds agree in sign (5 of 5 in the full profile).
(The rule of the first two campaigns; from 2026-12-01 on, new campaigns are judged by the
interval rule of the 2026-12-01 note in lab/design_notes.py: TOLD_APART_RULE.)
Keeps up: throughput ≥ 95% of the arrival rate over the run.

This file is the one home of these numbers: the runner copies them into each campaign's
campaign.json (lab/campaign/description.py), so a campaign is judged by the rules and
guesses it started with. Read by every part of the lab; imports only `lab.servicespec` (the
settings' own type) and `lab.rawformat`.
"""

import dataclasses
import math
from dataclasses import dataclass

from lab.rawformat.kinds import slow_run_kinds
from lab.servicespec import NONE, QUEUE_B1, ServiceSpec, Setting


@dataclass(frozen=True)
class Switchback:
    """Two settings served by one process in alternating slices (a switchback run). Both the
    same: an A/A control. `added_work_us_b` is for the calibration check only (the
    known-effect runs): arm B's handler spins that many µs of CPU per request. `twin_slices`:
    each B slice repeats the arrivals of the A slice before it (lab.load.arrivals), so the
    two arms of a run meet the same traffic."""

    arm_a: Setting
    arm_b: Setting
    added_work_us_b: float = 0.0
    twin_slices: bool = False

    @property
    def name(self) -> str:
        """'none vs B=1 W=0', 'none vs none +150 µs' with added work, '…, twin slices'."""
        work = f" +{self.added_work_us_b:g} µs" if self.added_work_us_b else ""
        twin = ", twin slices" if self.twin_slices else ""
        return f"{self.arm_a.name} vs {self.arm_b.name}{work}{twin}"

    def service_spec(self, swap_routes: bool = False) -> ServiceSpec:
        """The one service that serves both arms (`swap_routes`: route a serving arm B)."""
        return ServiceSpec(self.arm_a, arm_b=self.arm_b, added_work_us_b=self.added_work_us_b,
                           swap_routes=swap_routes)  # fmt: skip

    def as_dict(self) -> dict:
        return {
            "arm_a": self.arm_a.as_dict(),
            "arm_b": self.arm_b.as_dict(),
            "added_work_us_b": self.added_work_us_b,
            "twin_slices": self.twin_slices,
            "name": self.name,
        }


CAPS = (8, 32, 128)
WAITS_MS = (0.0, 1.0, 2.0, 5.0, 10.0)
SETTINGS = (NONE, QUEUE_B1) + tuple(Setting("queue", b, w) for b in CAPS for w in WAITS_MS)
RATE_MULTIPLES = (0.5, 0.8, 1.0, 1.25, 1.6, 2.0, 2.5)
PART_A_SIZES = tuple(2**k for k in range(11))  # 1, 2, 4 … 1,024
BIT_SIZES = PART_A_SIZES[1:]
# Part C's breakdown: this many single /predict calls, and this many /predict_batch calls of
# batch_records records each (capped at the run's N), every repetition kept.
PART_C_BREAKDOWN_REPS = {"predict": 200, "batch": 20, "batch_records": 1_000}

# The rules (see the top of this file).
KEEPS_UP_SHARE = 0.95  # a run keeps up when its throughput is at least this share of the rate
# The told-apart rule the first two campaigns ran under (frozen in their descriptions); new
# campaigns take TOLD_APART_RULE, the interval rule of the 2026-12-01 note (lab/design_notes.py).
ROUNDS_RULE = "all_rounds_agree_in_sign"
ROUNDS_RULE_TEXT = (
    "Two settings measured on the same arrivals are told apart when the paired difference "
    "has the same sign in every round."
)
QUIET_IDLE_SHARE = 0.95  # the measurement core, idle at least this share over QUIET_SECONDS
QUIET_OTHER_CORE_IDLE_SHARE = 0.80  # the other cores, which may share its physical core
QUIET_SECONDS = 2.0
QUIET_TRIES = 60  # then the run goes ahead, recorded as not quiet
# The two rates the pages single out: one the service meets easily, one past saturation.
QUIET_RATE = 0.5
BUSY_RATE = 1.6
# When the quiet rule looks at the measurement core (Profile.quiet_mode; the 2026-12-02 note):
# "before": a quiet check of quiet_seconds with the run's service up, before the client (the
# first two campaigns); "startup": the share of the core anything but the run's own service
# took from the service's fork until at least quiet_seconds have passed, so the check overlaps
# the service's start; "watch": no check before the run, the run's own core watch judged by
# the same shares afterwards (recorded, never used to wait). Part A and the bit check start no
# service: they always check before.
CAMPAIGN_BYTES_BUDGET = 40 * 1024 * 1024  # a campaign's folder, the first two full profiles'
QUIET_MODES = ("before", "startup", "watch")
PROBE_MOMENTS = ("before", "after")
SWITCHBACK_SLICE_S = 0.1  # a switchback run's slices (0.5 s until 2026-12-02; why 0.1 s:
# lab/design_notes.py, its 2026-12-02 note on slice length)


@dataclass(frozen=True)
class Profile:
    name: str
    settings: tuple
    rate_multiples: tuple
    rounds: int
    window_s: float
    part_a_runs: int
    calls_per_size: int
    saturation_runs: int
    saturation_s: float
    part_c_records: int
    part_c_runs: int
    bit_rows: int | None = None  # None: every test row
    drain_s: float = 60.0  # longest wait for answers still owed after the window
    quiet_seconds: float = QUIET_SECONDS
    quiet_tries: int = QUIET_TRIES
    # The speed probe and the slow-run rule (the 2026-11-30 note, lab/design_notes.py):
    probe_calibration: int = 15  # probes at the campaign's start, each after a quiet check
    slow_budget_share: float = 0.25  # re-runs allowed, as a share of the scheduled runs
    slow_pause_s: float = 10.0  # pause before a run goes again right after its own attempt
    # Switchback runs (issue 28): `switchback_runs` of each pair in `switchbacks`, at
    # `switchback_rate` × S, window_s long, in slices of slice_s. None in the profiles below.
    switchbacks: tuple = ()
    switchback_runs: int = 0
    switchback_rate: float = QUIET_RATE
    slice_s: float = SWITCHBACK_SLICE_S
    # The third full campaign's time cuts (issue 29; the defaults are what the first two full
    # campaigns ran, so a profile that names none of them runs exactly as before):
    reruns: bool = True  # False: the slow-run rule measures no run again (probes still kept)
    probes: tuple = PROBE_MOMENTS  # when each run's speed probe is taken: "before", "after"
    quiet_mode: str = "before"  # QUIET_MODES: when the quiet rule looks at the core
    load_after_overlapped: bool = False  # True: no 0.5 s sleep for the load snapshot after
    switchback_window_s: float | None = None  # None: window_s
    minutes_budget: float | None = None  # what `lab run` checks its projection against
    bytes_budget: int = CAMPAIGN_BYTES_BUDGET  # a campaign's folder (data/README.md)
    # False: Part B and switchback runs keep their send lag as its p99 in meta, not as a
    # per-request column (format 4, data/README.md): the generator reads nothing else of it.
    send_lag_column: bool = True
    # False: a run whose machine fingerprint and model files' sha256 are campaign.json's names
    # them in `same_as_campaign` instead of repeating them (format 4, data/README.md).
    machine_per_run: bool = True
    # Significant bits Part B's per-request durations keep (latency, ready, queued, model);
    # fewer than 8: format 4. Per-batch first waits and switchback runs always keep 8.
    part_b_request_bits: int = 8

    def __post_init__(self):
        if self.quiet_mode not in QUIET_MODES:
            raise ValueError(f"quiet_mode {self.quiet_mode!r}: one of {QUIET_MODES}")
        if not self.probes or not set(self.probes) <= set(PROBE_MOMENTS):
            raise ValueError(f"probes {self.probes!r}: some of {PROBE_MOMENTS}")

    @property
    def switchback_window(self) -> float:
        return self.window_s if self.switchback_window_s is None else self.switchback_window_s


FULL = Profile(
    "full",
    SETTINGS,
    RATE_MULTIPLES,
    rounds=5,
    window_s=8.0,
    part_a_runs=5,
    calls_per_size=2000,
    saturation_runs=5,
    saturation_s=8.0,
    part_c_records=10_000,
    part_c_runs=5,
)
QUICK = Profile(
    "quick",
    (NONE, QUEUE_B1, Setting("queue", 32, 0.0), Setting("queue", 32, 2.0)),
    (0.5, 1.0, 2.0),
    rounds=2,
    window_s=2.0,
    part_a_runs=2,
    calls_per_size=200,
    saturation_runs=2,
    saturation_s=2.0,
    part_c_records=2_000,
    part_c_runs=2,
)
# The third full campaign's profile (issue 29; why, lab/design_notes.py's 2026-12-02 note).
# The first two full campaigns keep `full`, the profile they ran (their schedules and frozen
# descriptions are its); this one is a profile of its own. The same Part A, bits, S, Part B
# grid and Part C, with R = 8 paired rounds of 2 s windows (the power analysis: B=32 W=0's
# p99 cut at 0.5 × S resolvable), no re-runs (the speed probe once, after the window, kept as
# a flag), the quiet rule judged on each run's own core watch instead of a check before it
# (measured: the check overlapped with the service's start costs 0.31 s a run, 5.5 minutes,
# and in full-20261130 it retried 8 of 753 times and never failed), the load snapshot after
# a run without its sleep, and the switchback block: none vs queue B=1, B=32 W=0 vs B=32 W=1 and
# the A/A control none vs none, SWITCHBACK_RUNS runs each in twin slices of 0.1 s, 5 s windows
# at 0.5 × S, each run's first arm and routes counterbalanced (lab/campaign/schedule.py).
# Bytes (the 2026-12-02 note on full3): the send lag folded into its p99, the machine's record
# named, Part B's per-request durations at 6 significant bits. Budget: 100 minutes and 18 MiB,
# checked by `lab run`'s projection before it starts and again at the measured S
# (lab/campaign/projection.py, lab/campaign/runner.py).
SWITCHBACK_PAIRS = (  # in twin slices (lab/design_notes.py, 2026-12-02)
    Switchback(NONE, QUEUE_B1, twin_slices=True),
    Switchback(Setting("queue", 32, 0.0), Setting("queue", 32, 1.0), twin_slices=True),
    Switchback(NONE, NONE, twin_slices=True),  # A/A
)
SWITCHBACK_RUNS = 40
FULL3 = dataclasses.replace(  # the same grid, Part A, bits, S and Part C as FULL
    FULL,
    name="full3",
    rounds=8,
    window_s=2.0,
    quiet_seconds=0.5,
    switchbacks=SWITCHBACK_PAIRS,
    switchback_runs=SWITCHBACK_RUNS,
    switchback_window_s=5.0,
    reruns=False,
    probes=("after",),
    quiet_mode="watch",
    load_after_overlapped=True,
    minutes_budget=100.0,
    bytes_budget=18 * 1024 * 1024,
    send_lag_column=False,
    machine_per_run=False,
    part_b_request_bits=6,
)
# full3's per-run machinery on a short campaign (what measured its seconds and bytes per run,
# 2026-12-02): 3 settings × 2 rates × 2 rounds, 2 runs of each switchback pair, Part A and
# Part C runs at full3's size, one of each, and 2 S runs. About 6 minutes.
QUICK3 = dataclasses.replace(
    FULL3,
    name="quick3",
    settings=(NONE, QUEUE_B1, Setting("queue", 32, 0.0)),
    rate_multiples=(QUIET_RATE, 2.5),
    rounds=2,
    part_a_runs=1,
    saturation_runs=2,
    part_c_runs=1,
    switchback_runs=2,
    minutes_budget=None,
)
# The tests add their own profile here (tests/support/profiles.py), as a campaign names its
# profile by name.
PROFILES = {profile.name: profile for profile in (FULL, QUICK, FULL3, QUICK3)}

# The speed probe and the slow-run rule, and the data budget: why, in lab/design_notes.py's
# 2026-11-30 note (and its 2026-12-01 addition); the third full campaign's profile revisits it
# (the 2026-12-01 note on evidence).
SLOW_RUN_THRESHOLD = 0.15
RUN_BYTES = {"part_a": 52_000, "bits": 2_000, "saturation": 30_000, "part_b": 60_000,
             "part_c": 200_000, "switchback": 60_000}  # fmt: skip
ARRIVALS_BYTES = 1_000_000
SLOW_RUN_MAX_ATTEMPTS = 3
SLOW_RUN_KINDS = slow_run_kinds()  # part_a, saturation, part_b, part_c (lab/rawformat/kinds.py)
SLOW_RUN_SELECTION = "first_not_slow_else_least_slow"
SLOW_RUN_TEXT = (
    "A run attempt is slow when the speed probe right before or right after it ran more than "
    "{threshold:.0%} slower than the campaign's reference (the median of the probes at its "
    "start). A slow run is measured again at the end of its block, up to {attempts} attempts "
    "in all, while the campaign's re-runs stay within its budgets of runs and bytes; the "
    "attempt used is the first that was not slow, else the least slow, marked."
)

# No re-runs (the 2026-12-01 note on evidence; profiles with reruns=False, from full3 on): the
# rule's record says so, and the signals that read a run's own seconds are kept in every run
# (`signals`, lab/campaign/executors/common.py) to be shown as flags, never to pick a run.
NO_RERUN_TEXT = (
    "No run is measured again: every run has one attempt, and every one counts. The speed "
    "probe after each run's window, the median of ready_us and the client's CPU per request "
    "are kept in the run and shown as flags (more than {threshold:.0%} above the median of "
    "the runs at its rate), never used to pick or drop a run."
)
FLAG_SIGNALS = ("probe_after_slowness", "ready_us_p50", "client_cpu_us_per_request",
                "others_share")  # fmt: skip

# The interval rule for telling two settings apart, and its δ per statistic: why, in
# lab/design_notes.py's 2026-12-01 note on the interval rule.
TOLD_APART_RULE = "hodges_lehmann_wilcoxon_95"
TOLD_APART_CONFIDENCE = 0.95
SAME_WITHIN_CONFIDENCE = 0.90
TOLD_APART_DELTA = {
    "p50": math.log(1.05),
    "p99": math.log(1.25),
    "server": math.log(1.05),
    "throughput": math.log(1.05),
}
TOLD_APART_TEXT = (
    "Per paired run (or round, on the same arrivals) d = ln(B) - ln(A); over the runs the "
    "Hodges-Lehmann estimate with the exact Wilcoxon signed-rank interval. Told apart when "
    "the 95% interval excludes 0; the same within +-delta when the 90% interval lies inside "
    "+-delta (delta: 5% for p50, the server time and throughput, 25% for p99); otherwise not "
    "resolved, with the smallest difference the design could resolve (the 95% interval's "
    "half-width)."
)
