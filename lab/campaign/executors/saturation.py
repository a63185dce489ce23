"""The saturation executor: a fresh `batcher none` service and the closed-loop client
(`python -m lab saturate`), both pinned to the measurement core, with the speed probe right
before and right after the client; S is the median of the runs."""

from lab.campaign.context import Context, RunResult
from lab.campaign.executors.common import client_columns, quiet, service, watch_core
from lab.campaign.speed import probe_now
from lab.design import NONE
from lab.machine.quiet import load_snapshot
from lab.servicespec import ServiceSpec


def run_saturation(context: Context, run: dict, echo=None) -> RunResult:
    with service(context, ServiceSpec(NONE)) as proc:
        quiet_record = quiet(context, echo)
        arguments = ["saturate", "--port", str(proc.port), "--seconds", str(run["counted_s"])]
        probes = probe_now(context, "before")
        with watch_core(context, proc) as watch:
            client_meta, columns = client_columns(context, arguments, 300, run["run_id"])
        probes.update(probe_now(context, "after"))
        load_after = load_snapshot(context.cpu)
    stats = client_meta["stats"]
    meta = {
        "quiet": quiet_record,
        "load_before": quiet_record,
        "load_after": load_after,
        "run_index": run["run_index"],
        "counted_s": run["counted_s"],
        "stats": stats,
        "connections": stats.get("connections", 16),
        "warmup_s": stats.get("warmup_s"),
        "core_watch": watch.found,
        **probes,
    }
    return RunResult(meta, columns)
