"""Metadata every raw run file carries: which machine, which code, which data; and the
default name of a campaign started by a part on its own (`python -m lab predict`, …)."""

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


def default_campaign(prefix: str) -> str:
    return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
