"""The campaign runner: Part A, bits, S, Part B and Part C in one resumable schedule.

Run: `python -m lab run --profile quick|full --campaign NAME --cpu N`.
The schedule is built up front from a seed and saved; run it again and finished runs are
skipped. Every raw file is written atomically, so killing the runner at any moment (even
with SIGKILL) leaves no partial file. A failed run is recorded in failures.json and the
campaign goes on; too many failures in a row stop it.
"""

import argparse
import contextlib
import os
import sys
import time

from lab.campaign.context import Context, RunFailed
from lab.campaign.executors.bits import run_bits
from lab.campaign.executors.part_a import run_part_a
from lab.campaign.executors.part_b import run_part_b
from lab.campaign.executors.part_c import run_part_c
from lab.campaign.executors.saturation import run_saturation
from lab.campaign.folder import (
    campaign_dir,
    load_schedule,
    open_campaign,
    record_failure,
    remove_stale_temporaries,
    run_path,
    saturation_from_runs,
)
from lab.campaign.progress import Progress
from lab.campaign.runmeta import base_meta
from lab.design import PROFILES
from lab.errors import CampaignError, ServiceError
from lab.model import artifacts
from lab.rawformat import codec
from lab.service.launcher import Launcher

# kind -> executor. Part A and bits write their own files in a fresh pinned process.
EXECUTORS = {
    "part_a": run_part_a,
    "bits": run_bits,
    "saturation": run_saturation,
    "part_b": run_part_b,
    "part_c": run_part_c,
}


def execute(context: Context, run: dict, echo) -> None:
    """Run one scheduled run and write its raw file atomically."""
    meta = base_meta(run["kind"], run["run_id"], context.campaign, context.cpu)
    result = EXECUTORS[run["kind"]](context, run, echo)
    path = run_path(context.campaign_dir, run["run_id"])
    if result.columns is None:
        if not path.exists():
            raise RunFailed(f"{run['kind']} finished without writing {path}")
        return
    codec.write_run(
        path, {**meta, **result.meta}, result.columns, shared=result.shared, log8=result.log8
    )


def pin_runner_away_from(cpu: int | None) -> set[int]:
    """Keep the orchestrator off the measurement core."""
    cores = set(range(os.cpu_count() or 1))
    if cpu is not None and cpu not in cores:
        raise CampaignError(f"--cpu {cpu}: no such core here (cores {sorted(cores)})")
    others = (cores - {cpu}) if cpu is not None else set()
    if others:
        os.sched_setaffinity(0, others)
    return others


def run_campaign(
    name: str,
    profile_name: str,
    cpu: int | None,
    seed: int = 1,
    max_failures_in_row: int = 5,
    echo=print,
) -> dict:
    folder = campaign_dir(name)
    runner_cores = pin_runner_away_from(cpu)
    header = open_campaign(folder, profile_name, seed, cpu)
    remove_stale_temporaries(folder)
    schedule = load_schedule(folder, profile_name, header["seed"])
    context = Context(name, folder, cpu, PROFILES[profile_name], header["seed"])
    todo = [run for run in schedule if not run_path(folder, run["run_id"]).exists()]
    progress = Progress(len(schedule), len(schedule) - len(todo), echo)
    with start_launcher(runner_cores, progress) as context.launcher:
        failed = run_all(context, schedule, todo, progress, max_failures_in_row)
    progress.finish()
    missing = [r["run_id"] for r in schedule if not run_path(folder, r["run_id"]).exists()]
    return {"campaign": name, "runs": len(schedule), "missing": missing, "failed": failed}


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


def run_all(context, schedule, todo, progress, max_failures_in_row) -> list[str]:
    """Run every run still to do; a failed run is recorded and the campaign goes on."""
    failures_in_row, failed = 0, []
    for run in todo:
        context.saturation_s = saturation_from_runs(context.campaign_dir, schedule)
        started = time.monotonic()
        try:
            execute(context, run, lambda line: progress.note(line))
            failures_in_row = 0
            progress.done(run["run_id"], time.monotonic() - started, ok=True)
        except (RunFailed, ServiceError, OSError, TimeoutError, codec.RawFileError) as error:
            reason = f"{type(error).__name__}: {error}"
            record_failure(context.campaign_dir, run, reason)
            failed.append(run["run_id"])
            failures_in_row += 1
            progress.done(run["run_id"], time.monotonic() - started, ok=False, reason=reason)
            if failures_in_row >= max_failures_in_row:
                raise CampaignError(
                    f"{failures_in_row} runs failed in a row (last: {reason}); stopped. "
                    f"Fix the cause and run the same command again to resume"
                ) from error
    return failed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile",
        choices=sorted(PROFILES),
        default="quick",
        help="full: the whole design (about 2 hours); quick: a 5-minute rehearsal; "
        "tiny: for the tests",
    )
    parser.add_argument("--campaign", required=True, help="folder name under data/raw/")
    parser.add_argument(
        "--cpu",
        type=int,
        default=None,
        help="measurement core for the service, client and model timing",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the schedule (new only)")
    parser.add_argument(
        "--max-failures-in-row",
        type=int,
        default=5,
        help="stop after this many failed runs in a row",
    )


def main(args) -> int:
    artifacts.folder()  # clear message if `lab data` has not run
    summary = run_campaign(
        args.campaign, args.profile, args.cpu, args.seed, args.max_failures_in_row
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
