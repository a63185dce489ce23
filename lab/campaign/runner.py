"""The campaign runner: Part A, bits, S, Part B, switchback runs (when the profile has them)
and Part C in one resumable schedule.

Run: `python -m lab run --profile quick|full|quick3|full3 --campaign NAME --cpu N`
(`--projection-only`: print the profile's projected wall time and bytes, start nothing).
The schedule is built up front from a seed and saved. A new campaign starts with the speed
probe's calibration (its reference speed goes into campaign.json); then block by block (the
Part A runs, the bit check, the S runs, each Part B round, the switchback runs, the Part C
runs) every run's first attempt, then, at the end of the block, the attempts the slow-run
rule asks for (lab/campaign/attempts.py; every attempt is its own file). Once S is measured,
before the first run whose size depends on it (Part B, switchback), the projection is made
again at the measured S: over the profile's bytes budget, the runner stops there (every file
kept) unless `--over-budget` says to go on. Run it again and it
carries on from the files on disk. Every raw file is written atomically, so killing the
runner at any moment (even with SIGKILL) leaves no partial file and every attempt exactly
once. A failed run is recorded in failures.json and the campaign goes on; too many failures
in a row stop it.
"""

import argparse
import contextlib
import os
import sys
import time
from dataclasses import dataclass, field
from itertools import groupby

from lab.campaign import attempts, projection
from lab.campaign.attempts import SlowRunRule
from lab.campaign.context import Context, RunFailed
from lab.campaign.executors.bits import run_bits
from lab.campaign.executors.part_a import run_part_a
from lab.campaign.executors.part_b import run_part_b
from lab.campaign.executors.part_c import run_part_c
from lab.campaign.executors.saturation import run_saturation
from lab.campaign.executors.switchback import run_switchback
from lab.campaign.folder import (
    campaign_dir,
    load_schedule,
    open_campaign,
    record_failure,
    remove_stale_temporaries,
    run_path,
)
from lab.campaign.probe import ProbeError, ProbeWorker
from lab.campaign.progress import Progress
from lab.campaign.runmeta import base_meta, fold_machine
from lab.campaign.speed import calibrate
from lab.campaign.timeline import Timeline
from lab.design import PROFILES
from lab.errors import CampaignError, ServiceError
from lab.model import artifacts
from lab.rawformat import codec
from lab.service.launcher import Launcher

# kind -> executor, one for every kind of lab/rawformat/kinds.py (tests/test_runner.py holds
# the two to each other). Part A and bits run in a fresh pinned process that writes a scratch
# file.
EXECUTORS = {
    "part_a": run_part_a,
    "bits": run_bits,
    "saturation": run_saturation,
    "part_b": run_part_b,
    "part_c": run_part_c,
    "switchback": run_switchback,
}
FAILURES = (RunFailed, ServiceError, ProbeError, OSError, TimeoutError, codec.RawFileError)


def execute(context: Context, run: dict, echo, attempt: int = 1) -> None:
    """Run one attempt of a scheduled run and write its raw file atomically, with the
    attempt's timeline (lab/campaign/timeline.py)."""
    context.attempt, context.timeline = (run["run_id"], attempt), Timeline()
    meta = base_meta(run["kind"], run["run_id"], context.campaign, context.cpu)
    context.timeline.mark("meta")
    result = EXECUTORS[run["kind"]](context, run, echo)
    context.timeline.mark("measured")
    meta.update(result.meta, attempt=attempt, timeline=context.timeline.as_dict())
    if not context.profile.machine_per_run and context.header is not None:
        fold_machine(meta, context.header)
    path = run_path(context.campaign_dir, run["run_id"], attempt)
    codec.write_run(path, meta, result.columns, shared=result.shared, log8=result.log8)


def pin_runner_away_from(cpu: int | None) -> set[int]:
    """Keep the orchestrator off the measurement core."""
    cores = set(range(os.cpu_count() or 1))
    if cpu is not None and cpu not in cores:
        raise CampaignError(f"--cpu {cpu}: no such core here (cores {sorted(cores)})")
    others = (cores - {cpu}) if cpu is not None else set()
    if others:
        os.sched_setaffinity(0, others)
    return others


@dataclass
class Session:
    """One invocation of the runner: what it needs between attempts."""

    context: Context
    schedule: list
    rule: SlowRunRule | None
    progress: Progress
    max_failures_in_row: int
    failures_in_row: int = 0
    failed: list = field(default_factory=list)
    last_run_id: str | None = None
    over_budget: bool = False  # go on when the projection at the measured S is over budget
    budget_checked: bool = False


def run_campaign(
    name: str,
    profile_name: str,
    cpu: int | None,
    seed: int = 1,
    max_failures_in_row: int = 5,
    echo=print,
    probe_factory=ProbeWorker,
    over_budget: bool = False,
) -> dict:
    """Run (or carry on) a campaign. `probe_factory(cpu)` makes the speed probe; tests pass
    a stand-in slow host. `over_budget`: go on past the bytes check at the measured S."""
    folder = campaign_dir(name)
    runner_cores = pin_runner_away_from(cpu)
    profile = PROFILES[profile_name]
    started = (folder / "campaign.json").exists()
    header = open_campaign(folder, profile_name, seed, cpu) if started else None
    with start_probe(probe_factory, cpu, header) as probe:
        if header is None:
            echo(f"lab run: calibrating the speed probe ({profile.probe_calibration} probes)")
            calibration = calibrate(probe, profile, cpu, echo=lambda line: echo(f"lab run: {line}"))
            header = open_campaign(folder, profile_name, seed, cpu, speed_probe=calibration)
        remove_stale_temporaries(folder)
        schedule = load_schedule(folder, profile_name, header["seed"])
        rule = SlowRunRule.of(header)
        context = Context(name, folder, cpu, profile, header["seed"], header=header)
        if probe is not None:  # every campaign with a calibration probes (full3: no re-runs)
            context.probe, context.reference = probe, header["speed_probe"]["reference"]
        done = sum(attempts.attempts_made(folder, run["run_id"]) for run in schedule)
        reruns = attempts.reruns_made(folder, schedule)
        progress = Progress(len(schedule) + reruns, done, echo)
        session = Session(
            context, schedule, rule, progress, max_failures_in_row, over_budget=over_budget
        )
        with start_launcher(runner_cores, progress) as context.launcher:
            run_blocks(session)
    progress.finish()
    missing = [r["run_id"] for r in schedule if not run_path(folder, r["run_id"]).exists()]
    return {"campaign": name, "runs": len(schedule), "missing": missing, "failed": session.failed}


@contextlib.contextmanager
def start_probe(probe_factory, cpu: int | None, header: dict | None):
    """The campaign session's speed probe, pinned to the measurement core; none for a
    campaign begun before the probe existed (its campaign.json has no `speed_probe`)."""
    if header is not None and "speed_probe" not in header:
        yield None
        return
    probe = probe_factory(cpu)
    try:
        yield probe
    finally:
        probe.close()


@contextlib.contextmanager
def start_launcher(runner_cores: set, progress):
    """The pre-loaded launcher that forks each run's fresh service; without it (it failed to
    start) every service is started with `python -m lab serve`, only slower."""
    try:
        launcher = Launcher(cores=runner_cores or None)
    except (OSError, ServiceError) as error:
        progress.note(f"no pre-loaded launcher ({error}); services start the slow way")
        yield None
        return
    with launcher:
        yield launcher


def block_name(run: dict) -> str:
    """Runs of one block share a name: the kind, and for Part B the round."""
    return f"part_b-r{run['round']}" if run["kind"] == "part_b" else run["kind"]


SIZED_BY_S = ("part_b", "switchback")  # the kinds whose files grow with S (rate × S × window)


def check_bytes_at_measured_s(session: Session, block: list[dict]) -> None:
    """Before the first block of runs sized by S that still has runs to do: the projection
    at the measured S against the profile's bytes budget; over it, CampaignError (the runs
    so far are kept, nothing is lost) unless the session may go on over budget."""
    context = session.context
    if session.budget_checked or block[0]["kind"] not in SIZED_BY_S:
        return
    if all(run_path(context.campaign_dir, run["run_id"]).exists() for run in block):
        return
    saturation = attempts.saturation_from_runs(context.campaign_dir, session.schedule, session.rule)
    if saturation is None:
        return  # the S runs failed: the runs sized by S fail on their own, recorded
    session.budget_checked = True
    found = projection.project(context.profile, saturation)
    line = f"at the measured S = {saturation:,.0f}/s: {projection.describe(found)}"
    if found["bytes"] <= found["bytes_budget"]:
        session.progress.note(line)
        return
    budget, mib = found["bytes_budget"] / 2**20, found["bytes"] / 2**20
    if session.over_budget:
        session.progress.note(f"{line}\n  going on over the {budget:g} MiB budget (--over-budget)")
        return
    raise CampaignError(
        f"stopped before the runs sized by S: at the measured S = {saturation:,.0f}/s the "
        f"campaign is projected at {mib:.1f} MiB, over its profile's budget of {budget:g} MiB "
        f"({context.profile.name}). Every run so far is kept; nothing is lost. Run the same "
        "command with --over-budget to go on anyway, or start a campaign of a profile that "
        "fits"
    )


def run_blocks(session: Session) -> None:
    """Block by block: every first attempt still to do, then the block's re-runs."""
    folder = session.context.campaign_dir
    for _, block in groupby(session.schedule, key=block_name):
        block = list(block)
        check_bytes_at_measured_s(session, block)
        for run in block:
            if not run_path(folder, run["run_id"]).exists():
                run_attempt(session, run, 1)
        rerun_block(session, block)


def rerun_block(session: Session, block: list[dict]) -> None:
    """The slow-run rule at the end of a block: each run whose every attempt so far was slow
    goes again, in schedule order, pass after pass, while attempts and the campaign's budget
    last. A run never goes twice in a row without a pause in between."""
    rule, folder = session.rule, session.context.campaign_dir
    if rule is None:
        return
    gave_up = set()  # not again in this session (a re-run failed, or no room): retried when resumed
    while True:
        due = [
            r for r in block if r["run_id"] not in gave_up and attempts.due_again(folder, r, rule)
        ]
        if not due:
            return
        for run in due:
            if attempts.reruns_made(folder, session.schedule) >= rule.budget_runs:
                session.progress.note(f"the re-run budget ({rule.budget_runs} runs) is spent")
                return
            if not attempts.room_for_again(folder, run, session.schedule, rule):
                session.progress.note(
                    f"no room in the data budget ({rule.budget_bytes / 2**20:g} MiB) for "
                    f"{run['run_id']} again"
                )
                gave_up.add(run["run_id"])
                continue
            if session.last_run_id == run["run_id"]:
                session.progress.note(f"{rule.pause_s:g} s pause before {run['run_id']} again")
                time.sleep(rule.pause_s)
            number = attempts.attempts_made(folder, run["run_id"]) + 1
            session.progress.note(
                f"{run['run_id']} was slow: attempt {number} of at most {rule.max_attempts}"
            )
            session.progress.add_one()
            if not run_attempt(session, run, number):
                gave_up.add(run["run_id"])


def run_attempt(session: Session, run: dict, attempt: int) -> bool:
    """One attempt; a failure is recorded and the campaign goes on (until too many in a row)."""
    context = session.context
    context.saturation_s = attempts.saturation_from_runs(
        context.campaign_dir, session.schedule, session.rule
    )
    label = run["run_id"] if attempt == 1 else f"{run['run_id']} (attempt {attempt})"
    session.last_run_id = run["run_id"]
    started = time.monotonic()
    try:
        execute(context, run, lambda line: session.progress.note(line), attempt)
    except FAILURES as error:
        reason = f"{type(error).__name__}: {error}"
        record_failure(context.campaign_dir, run, reason, attempt)
        session.failed.append(run["run_id"])
        session.failures_in_row += 1
        session.progress.done(label, time.monotonic() - started, ok=False, reason=reason)
        if session.failures_in_row >= session.max_failures_in_row:
            raise CampaignError(
                f"{session.failures_in_row} runs failed in a row (last: {reason}); stopped. "
                f"Fix the cause and run the same command again to resume"
            ) from error
        return False
    session.failures_in_row = 0
    session.progress.done(label, time.monotonic() - started, ok=True)
    return True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default="quick",
        help="full3: the third full campaign's design (about 90 minutes, no re-runs); full: the "
        "first two full campaigns' (2 to 3 hours with re-runs); quick: a 5-minute rehearsal; "
        "quick3: full3's machinery on a short campaign (the tests add tiny, "
        "tests/support/profiles.py). The projected time and bytes are printed first",
    )
    parser.add_argument("--campaign", required=True, help="folder name under data/raw/")
    parser.add_argument(
        "--cpu",
        type=int,
        default=None,
        help="measurement core for the service, client, model timing and speed probe",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the schedule (new only)")
    parser.add_argument(
        "--projection-only",
        action="store_true",
        help="print the profile's projected wall time and bytes, and start nothing",
    )
    parser.add_argument(
        "--over-budget",
        action="store_true",
        help="go on when, once S is measured, the projection at that S is over the profile's "
        "bytes budget (without it the runner stops there, every run kept)",
    )
    parser.add_argument(
        "--max-failures-in-row",
        type=int,
        default=5,
        help="stop after this many failed runs in a row",
    )


def main(args) -> int:
    # Before anything starts: how long and how large the whole profile is projected to be.
    if projection.MEASURED:
        found = projection.project(PROFILES[args.profile])
        print(f"lab run: {args.profile}: {projection.describe(found)}")
    if args.projection_only:
        return 0
    artifacts.folder()  # clear message if `lab data` has not run
    summary = run_campaign(
        args.campaign,
        args.profile,
        args.cpu,
        args.seed,
        args.max_failures_in_row,
        over_budget=args.over_budget,
    )
    if summary["missing"]:
        print(
            f"{len(summary['missing'])} runs missing: {', '.join(summary['missing'])}; "
            f"run the same command again to retry them",
            file=sys.stderr,
        )
        return 1
    print(f"campaign {summary['campaign']} complete: {summary['runs']} runs")
    return 0
