"""The bit check's executor: `python -m lab bits --out SCRATCH` in a fresh pinned process;
the runner writes the campaign's `bits` raw file from its scratch file, with the speed probe
before and after (the slow-run rule does not re-run the bit check: it times nothing)."""

from lab.campaign.context import Context, RunResult
from lab.campaign.executors.common import child_run, quiet, signals
from lab.campaign.speed import probe_now


def run_bits(context: Context, run: dict, echo=None) -> RunResult:
    quiet(context, echo)  # the bit check times nothing, but it should not share the core
    arguments = ["bits", "--campaign", context.campaign]
    if run.get("rows"):
        arguments += ["--rows", str(run["rows"])]
    if context.cpu is not None:
        arguments += ["--cpu", str(context.cpu)]
    before = probe_now(context, "before")
    context.timeline.mark("client_start")
    meta, columns = child_run(context, arguments, 3600, run["run_id"])
    context.timeline.mark("client_done")
    meta = {**meta, **before, **probe_now(context, "after")}
    return RunResult(dict(meta, signals=signals(meta)), columns)
