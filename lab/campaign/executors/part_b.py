"""Part B's executor: a fresh service with the run's setting and the open-loop client
(`python -m lab openloop`) at rate × S with the round's seeded arrivals, both pinned to the
measurement core; the service's batches are added to the client's columns."""

import numpy as np

from lab.campaign.context import Context, RunFailed, RunResult
from lab.campaign.executors.common import ServedRun, client_columns, fold_send_lag, signals
from lab.load.arrivals import arrival_seed
from lab.model import expected
from lab.rawformat.names import rate_key
from lab.servicespec import ServiceSpec, Setting

# Part B's per-request durations are kept to 8 significant bits (exact below 256 µs,
# within 0.4% above), so that a full campaign of ~10 million requests stays under 40 MiB.
PART_B_LOG8 = ("latency_us", "send_lag_us", "ready_us", "queued_us", "model_us",
               "batches_first_wait_us")  # fmt: skip
PER_BATCH = ("batches_first_wait_us",)


def part_b_bits(request_bits: int) -> dict:
    """{column: significant bits kept}: the per-request durations at the profile's
    `part_b_request_bits` (full3: 6, within 1.6%: the grid resolves nothing that fine; its fine
    costs are the switchback runs', which keep 8), the per-batch first waits at 8."""
    return {name: 8 if name in PER_BATCH else request_bits for name in PART_B_LOG8}


def run_part_b(context: Context, run: dict, echo=None) -> RunResult:
    if not context.saturation_s:
        raise RunFailed("S is not measured yet: the saturation runs must finish first")
    # The client checks every answer against these single-row scores; made once (about 10 s,
    # on the runner's core) so no client computes them on the measurement core.
    expected.ensure()
    arrival_rate = run["rate_multiple"] * context.saturation_s
    seed = arrival_seed(context.campaign, run["round"], run["rate_multiple"])
    served = ServedRun(context, echo)
    with served.service(ServiceSpec(Setting.from_record(run["setting"]))) as proc:
        arguments = [
            "openloop",
            "--port",
            str(proc.port),
            "--arrival-rate",
            f"{arrival_rate:.6f}",
            "--window-s",
            str(run["window_s"]),
            "--seed",
            str(seed),
            "--drain-s",
            str(context.profile.drain_s),
        ]
        timeout_s = run["window_s"] + context.profile.drain_s + 120
        with served.watch(proc):
            client_meta, columns = client_columns(context, arguments, timeout_s, run["run_id"])
        batches = proc.batches()
    # The model call alone stays in the client's own file: one more per-request column would
    # take a full campaign past 40 MiB (the per-request `model_us` holds it and the way back).
    columns.pop("call_us", None)
    if batches["records_dropped"]:  # the service keeps lab/service/batcher.py's KEEP_BATCHES
        raise RunFailed(
            f"the service kept only the last {len(batches['size']):,} of its "
            f"{batches['batches_made']:,} batches: raise KEEP_BATCHES in lab/service/batcher.py"
        )
    columns["batches_size"] = np.asarray(batches["size"], dtype="uint16")
    columns["batches_first_wait_us"] = np.asarray(batches["first_wait_us"], dtype="uint32")
    meta = {
        **served.meta(),
        "round": run["round"],
        "rate_multiple": run["rate_multiple"],
        "arrival_rate": arrival_rate,
        "saturation_S": context.saturation_s,
        "setting": run["setting"],
        "window_s": run["window_s"],
        "seed": seed,
        "client": client_meta["stats"],
        # The service's garbage collector over the run's life (lab/service/gc_watch.py).
        "service_gc": batches.get("gc"),
    }
    fold_send_lag(context, meta, columns)
    meta["signals"] = signals(meta, columns)
    # Every setting in a round and rate meets the same arrivals: store them once.
    arrivals = f"r{run['round']}-x{rate_key(run['rate_multiple'])}.zip"
    shared = {"arrival_us": context.campaign_dir / "arrivals" / arrivals}
    return RunResult(meta, columns, shared, part_b_bits(context.profile.part_b_request_bits))
