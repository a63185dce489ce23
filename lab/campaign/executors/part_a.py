"""Part A's executor: one run of model timing in a fresh pinned process
(`python -m lab predict --one-run I --out SCRATCH`); the runner writes the raw file from its
scratch file, with the speed probe before and after the child's timing."""

import json

from lab.campaign.context import Context, RunResult
from lab.campaign.executors.common import child_run, quiet, signals
from lab.campaign.speed import probe_now


def run_part_a(context: Context, run: dict, echo=None) -> RunResult:
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
    before = probe_now(context, "before")
    context.timeline.mark("client_start")
    meta, columns = child_run(context, arguments, 1800, run["run_id"])
    context.timeline.mark("client_done")
    meta = {**meta, **before, **probe_now(context, "after")}
    return RunResult(dict(meta, signals=signals(meta)), columns)
