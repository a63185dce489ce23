"""Metadata every raw run file carries: which machine, which code, which data, what load."""

import time

from lab import artifacts, machine


def base_meta(kind: str, run_id: str, campaign: str, cpu: int | None) -> dict:
    return {
        "kind": kind,
        "run_id": run_id,
        "campaign": campaign,
        "cpu": cpu,
        "fingerprint": machine.fingerprint(),
        "git_commit": machine.git_commit(),
        "artifacts_sha256": artifacts.manifest()["sha256"],
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def default_campaign(prefix: str) -> str:
    return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
