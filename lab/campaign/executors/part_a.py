"""Part A's executor: one run of model timing in a fresh pinned process
(`python -m lab predict --one-run I`), which writes its own raw file; the runner checks it."""

import json

from lab.campaign.context import Context, RunResult
from lab.campaign.executors.common import quiet, run_pinned


def run_part_a(context: Context, run: dict, echo=None) -> RunResult:
    """Part A writes its own raw file (a fresh process); the runner only checks it."""
    quiet_record = quiet(context, echo)
    arguments = [
        "predict",
        "--one-run",
        str(run["run_index"]),
        "--calls",
        str(run["calls_per_size"]),
        "--seed",
        str(context.seed),
        "--campaign",
        context.campaign,
        "--quiet-json",
        json.dumps(quiet_record),
    ]
    if context.cpu is not None:
        arguments += ["--cpu", str(context.cpu)]
    run_pinned(context, arguments, timeout_s=1800)
    return RunResult({})
