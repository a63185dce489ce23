"""Part C's executor: a fresh pinned `batcher none` service and Part C's pinned client
(`python -m lab partc-client`, lab/parts/part_c/client.py) against it; (meta, columns) for
the raw file. Used by the runner and by `python -m lab partc` (lab/parts/part_c/command.py).
"""

import numpy as np

from lab.campaign.context import Context, RunResult
from lab.campaign.executors.common import ServedRun, client_columns, signals
from lab.design import NONE, PART_C_BREAKDOWN_REPS
from lab.load.arrivals import customer_offset
from lab.model import artifacts
from lab.servicespec import ServiceSpec


def run_seed(campaign_seed: int, run_index: int) -> int:
    """The seed of one run: its customers, its method order, its in-process sample."""
    return int(np.random.SeedSequence([campaign_seed, run_index, 0xC]).generate_state(1)[0])


def client_timeout_s(records: int, reps: dict) -> float:
    # Generous: about 1 ms per record per method on a slow core, plus the breakdown.
    return 300.0 + records * 0.02 + reps["predict"] * 0.01 + reps["batch"] * 0.5


def run_for_campaign(context: Context, run: dict, echo=None) -> tuple[dict, dict]:
    """One Part C run: a fresh pinned service, the quiet check, the speed probe, the pinned
    client, the probe again; (meta, columns) for the raw file (the runner adds the base
    metadata)."""
    seed = run_seed(context.seed, run["run_index"])
    reps = PART_C_BREAKDOWN_REPS
    served = ServedRun(context, echo)
    with served.service(ServiceSpec(NONE)) as proc:
        arguments = [
            "partc-client",
            "--records",
            str(run["records"]),
            "--seed",
            str(seed),
            "--port",
            str(proc.port),
        ]
        with served.watch(proc):
            client_meta, columns = client_columns(
                context, arguments, client_timeout_s(run["records"], reps), run["run_id"]
            )
    meta = {
        **served.meta(),
        "run_index": run["run_index"],
        "seed": seed,
        "customer_offset": customer_offset(seed, len(artifacts.request_ids())),
        "service": NONE.as_dict(),
        **client_meta["part_c"],
    }
    meta["signals"] = signals(meta)
    return meta, columns


def run_part_c(context: Context, run: dict, echo=None) -> RunResult:
    return RunResult(*run_for_campaign(context, run, echo))
