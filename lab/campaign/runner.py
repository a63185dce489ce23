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
import re
import statistics
import sys
import time
from pathlib import Path

from lab import artifacts, machine, paths
from lab.design import PROFILES
from lab.progress import Progress
from lab.rawformat import codec
from lab.runs import EXECUTORS, Context, RunFailed
from lab.schedule import build_schedule
from lab.serviceproc import ServiceError

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$")


class CampaignError(Exception):
    """The campaign cannot go on; the message says why and what to do."""


def campaign_dir(name: str) -> Path:
    if not NAME_PATTERN.match(name):
        raise CampaignError(f"campaign name {name!r}: use letters, digits, '.', '_' or '-'")
    return paths.raw() / name


def open_campaign(folder: Path, profile_name: str, seed: int, cpu: int | None) -> dict:
    """Create campaign.json, or check that an existing campaign may be continued here."""
    header_path = folder / "campaign.json"
    fingerprint = machine.fingerprint()
    if header_path.exists():
        header = read_json(header_path)
        if header["fingerprint"] != fingerprint:
            raise CampaignError(
                f"{folder.name} was started on another machine ({header['fingerprint']}); "
                f"this one is {fingerprint}. Runs from two machines never mix: "
                f"start a new campaign"
            )
        if header["profile"] != profile_name:
            raise CampaignError(
                f"{folder.name} is a {header['profile']!r} campaign, not {profile_name!r}"
            )
        return header
    profile = PROFILES[profile_name]
    header = {
        "campaign": folder.name,
        "profile": profile_name,
        "seed": seed,
        "cpu": cpu,
        "runner_cpu": sorted(os.sched_getaffinity(0)),
        "fingerprint": fingerprint,
        "git_commit": machine.git_commit(),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "design": design_record(profile),
        "model": artifacts.manifest(),
    }
    codec.write_json(header_path, header)
    return header


def design_record(profile) -> dict:
    record = {key: value for key, value in vars(profile).items() if key != "settings"}
    record["settings"] = [setting.as_dict() for setting in profile.settings]
    record["rate_multiples"] = list(profile.rate_multiples)
    return record


def read_json(path: Path):
    try:
        return codec.read_json(path)
    except codec.RawFileError as error:
        raise CampaignError(str(error)) from error


def load_schedule(folder: Path, profile_name: str, seed: int) -> list[dict]:
    path = folder / "schedule.json"
    if path.exists():
        return read_json(path)
    schedule = build_schedule(PROFILES[profile_name], seed)
    codec.write_json(path, schedule)
    return schedule


def remove_stale_temporaries(folder: Path) -> None:
    """Temp files of a writer that was killed mid-write: never a result, always safe to drop."""
    for stale in folder.rglob(".*.tmp"):
        stale.unlink(missing_ok=True)


def run_path(folder: Path, run_id: str) -> Path:
    return folder / "runs" / f"{run_id}{codec.SUFFIX}"


def saturation_from_runs(folder: Path, schedule: list[dict]) -> float | None:
    """S = the median throughput of the saturation runs, once they are all done."""
    ids = [run["run_id"] for run in schedule if run["kind"] == "saturation"]
    paths_ = [run_path(folder, run_id) for run_id in ids]
    if not ids or not all(path.exists() for path in paths_):
        return None
    return statistics.median(codec.read_meta(p)["stats"]["throughput"] for p in paths_)


def execute(context: Context, run: dict, echo) -> None:
    """Run one scheduled run and write its raw file atomically."""
    from lab.runmeta import base_meta

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


def record_failure(folder: Path, run: dict, reason: str) -> None:
    path = folder / "failures.json"
    failures = read_json(path) if path.exists() else []
    failures.append(
        {
            "run_id": run["run_id"],
            "reason": reason,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
    )
    codec.write_json(path, failures)


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
    from lab.launcher import Launcher

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
    parser.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    parser.add_argument("--campaign", required=True, help="folder name under data/raw/")
    parser.add_argument(
        "--cpu",
        type=int,
        default=None,
        help="measurement core for the service, client and model timing",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the schedule (new only)")
    parser.add_argument("--max-failures-in-row", type=int, default=5)


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
