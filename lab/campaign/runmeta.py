"""Metadata every raw run file carries: which machine, which code, which data; and the
default name of a campaign started by a part on its own (`python -m lab predict`, …)."""

import json
import time

from lab.machine.fingerprint import fingerprint, git_commit
from lab.model import artifacts


def base_meta(kind: str, run_id: str, campaign: str, cpu: int | None) -> dict:
    return {
        "kind": kind,
        "run_id": run_id,
        "campaign": campaign,
        "cpu": cpu,
        "fingerprint": fingerprint(),
        "git_commit": git_commit(),
        "artifacts_sha256": artifacts.manifest()["sha256"],
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


# What a run's meta repeats of campaign.json: key -> where campaign.json has it.
CAMPAIGN_KEYS = {"fingerprint": ("fingerprint",), "artifacts_sha256": ("model", "sha256")}


def as_json(value):
    """The value as campaign.json holds it (tuples as lists), for comparing the two."""
    return json.loads(json.dumps(value))


def fold_machine(meta: dict, header: dict) -> None:
    """Format 4 (Profile.machine_per_run False): the machine's fingerprint and the model
    files' sha256 that a run shares with its campaign.json are named in `same_as_campaign`,
    not repeated (about 0.5 KB a file); a run on another machine or model keeps its own."""
    same = []
    for key, where in CAMPAIGN_KEYS.items():
        value = header
        for step in where:
            value = value.get(step) if isinstance(value, dict) else None
        if value is not None and as_json(meta.get(key)) == as_json(value):
            same.append(key)
            del meta[key]
    if same:
        meta["same_as_campaign"] = same


def default_campaign(prefix: str) -> str:
    return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
