"""The saturation executor: a fresh `batcher none` service and the closed-loop client
(`python -m lab saturate`), both pinned to the measurement core, with the speed probe right
before and right after the client; S is the median of the runs."""

from lab.campaign.context import Context, RunResult
from lab.campaign.executors.common import ServedRun, client_columns, signals
from lab.design import NONE
from lab.servicespec import ServiceSpec


def run_saturation(context: Context, run: dict, echo=None) -> RunResult:
    served = ServedRun(context, echo)
    with served.service(ServiceSpec(NONE)) as proc:
        arguments = ["saturate", "--port", str(proc.port), "--seconds", str(run["counted_s"])]
        with served.watch(proc):
            client_meta, columns = client_columns(context, arguments, 300, run["run_id"])
    stats = client_meta["stats"]
    meta = {
        **served.meta(),
        "run_index": run["run_index"],
        "counted_s": run["counted_s"],
        "stats": stats,
        "connections": stats.get("connections", 16),
        "warmup_s": stats.get("warmup_s"),
    }
    meta["signals"] = signals(meta)
    return RunResult(meta, columns)
