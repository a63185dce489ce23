"""The bit check's executor: `python -m lab bits` in a fresh pinned process, which writes the
campaign's `bits` raw file itself; the runner checks it."""

from lab.campaign.context import Context, RunResult
from lab.campaign.executors.common import quiet, run_pinned


def run_bits(context: Context, run: dict, echo=None) -> RunResult:
    quiet(context, echo)  # the bit check times nothing, but it should not share the core
    arguments = ["bits", "--campaign", context.campaign]
    if run.get("rows"):
        arguments += ["--rows", str(run["rows"])]
    if context.cpu is not None:
        arguments += ["--cpu", str(context.cpu)]
    run_pinned(context, arguments, timeout_s=3600)
    return RunResult({})
