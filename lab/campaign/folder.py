"""A campaign's folder under data/raw/ (or LAB_RAW): its name, campaign.json (created once,
or checked before a campaign is continued), schedule.json, the run files, failures.json.
The layout is in data/README.md. Used by the runner and by `python -m lab partc`.
"""

import os
import re
import statistics
import time
from pathlib import Path

from lab import paths
from lab.campaign.description import description
from lab.campaign.schedule import build_schedule
from lab.design import PROFILES
from lab.errors import CampaignError
from lab.machine.fingerprint import fingerprint, git_commit
from lab.model import artifacts
from lab.rawformat import codec

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$")


def campaign_dir(name: str) -> Path:
    if not NAME_PATTERN.match(name):
        raise CampaignError(f"campaign name {name!r}: use letters, digits, '.', '_' or '-'")
    return paths.raw() / name


def open_campaign(folder: Path, profile_name: str, seed: int, cpu: int | None) -> dict:
    """Create campaign.json, or check that an existing campaign may be continued here."""
    header_path = folder / "campaign.json"
    machine = fingerprint()
    if header_path.exists():
        header = read_json(header_path)
        if header["fingerprint"] != machine:
            raise CampaignError(
                f"{folder.name} was started on another machine ({header['fingerprint']}); "
                f"this one is {machine}. Runs from two machines never mix: "
                f"start a new campaign"
            )
        if header["profile"] != profile_name:
            raise CampaignError(
                f"{folder.name} is a {header['profile']!r} campaign, not {profile_name!r}"
            )
        return header
    commit = git_commit()
    header = {
        "campaign": folder.name,
        "profile": profile_name,
        "seed": seed,
        "cpu": cpu,
        "runner_cpu": sorted(os.sched_getaffinity(0)),
        "fingerprint": machine,
        "git_commit": commit,
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "model": artifacts.manifest(),
        **description(PROFILES[profile_name], commit),
    }
    codec.write_json(header_path, header)
    return header


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
