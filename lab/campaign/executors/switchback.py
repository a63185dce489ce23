"""The switchback executor (issue 28): a fresh two-armed service (lab/service/switchback.py:
arm A with the run's `arm_a`, arm B with its `arm_b`) and the open-loop client
(`python -m lab openloop --slice-s S --first-arm a|b`) at rate × S, both pinned to the
measurement core. Every request goes to the arm of the slice it is scheduled in; the file
keeps each request's arm and both arms' batches. Columns and meta: data/README.md.
"""

import numpy as np

from lab.campaign.context import Context, RunFailed, RunResult
from lab.campaign.executors.common import ServedRun, client_columns, fold_send_lag, signals
from lab.campaign.executors.part_b import PART_B_LOG8
from lab.load.arrivals import switchback_seed
from lab.model import expected
from lab.rawformat.names import rate_key
from lab.service.arms import ARMS
from lab.servicespec import ServiceSpec, Setting


def arm_batches(proc) -> dict[str, np.ndarray]:
    """Both arms' batches as the `batches_*` columns, arm A's first; RunFailed when an arm's
    records no longer hold every batch it made."""
    arm, size, first_wait = [], [], []
    for index, name in enumerate(ARMS):
        batches = proc.batches(name)
        if batches["records_dropped"]:
            raise RunFailed(
                f"arm {name} kept only the last {len(batches['size']):,} of its "
                f"{batches['batches_made']:,} batches: raise KEEP_BATCHES in "
                "lab/service/batcher.py"
            )
        arm += [index] * len(batches["size"])
        size += batches["size"]
        first_wait += batches["first_wait_us"]
    return {
        "batches_arm": np.asarray(arm, dtype="uint8"),
        "batches_size": np.asarray(size, dtype="uint16"),
        "batches_first_wait_us": np.asarray(first_wait, dtype="uint32"),
    }


def run_switchback(context: Context, run: dict, echo=None) -> RunResult:
    if not context.saturation_s:
        raise RunFailed("S is not measured yet: the saturation runs must finish first")
    expected.ensure()  # the client's bit check, made once on the runner's core
    arrival_rate = run["rate_multiple"] * context.saturation_s
    seed = switchback_seed(context.campaign, run["run_index"], run["rate_multiple"])
    swap_routes = bool(run.get("swap_routes", False))  # planned before routes were swapped: no
    twin_slices = bool(run.get("twin_slices", False))  # planned before twin slices: no
    spec = ServiceSpec(Setting.from_record(run["arm_a"]), arm_b=Setting.from_record(run["arm_b"]),
                       added_work_us_b=run["added_work_us_b"], swap_routes=swap_routes)  # fmt: skip
    served = ServedRun(context, echo)
    with served.service(spec) as proc:
        arguments = [
            "openloop",
            "--port", str(proc.port),
            "--arrival-rate", f"{arrival_rate:.6f}",
            "--window-s", str(run["window_s"]),
            "--seed", str(seed),
            "--drain-s", str(context.profile.drain_s),
            "--slice-s", str(run["slice_s"]),
            "--first-arm", run["first_arm"],
        ] + (["--swap-routes"] if swap_routes else []) + (
            ["--twin-slices"] if twin_slices else [])  # fmt: skip
        timeout_s = run["window_s"] + context.profile.drain_s + 120
        with served.watch(proc):
            client_meta, columns = client_columns(context, arguments, timeout_s, run["run_id"])
        columns.update(arm_batches(proc))
    columns.pop("call_us", None)  # as Part B: the per-request model call stays in `model_us`
    meta = {
        **served.meta(),
        "run_index": run["run_index"],
        "rate_multiple": run["rate_multiple"],
        "arrival_rate": arrival_rate,
        "saturation_S": context.saturation_s,
        "arm_a": run["arm_a"],
        "arm_b": run["arm_b"],
        "added_work_us_b": run["added_work_us_b"],
        "first_arm": run["first_arm"],
        "swap_routes": swap_routes,
        "twin_slices": twin_slices,
        "slice_s": run["slice_s"],
        "slice_us": client_meta["slice_us"],
        "slices": client_meta["stats"]["slices"],
        "window_s": run["window_s"],
        "seed": seed,
        "client": client_meta["stats"],
    }
    fold_send_lag(context, meta, columns)
    meta["signals"] = signals(meta, columns)
    # The pairs of one index meet the same arrivals: store them once.
    twin = "-twin" if twin_slices else ""
    arrivals = f"s{run['run_index']}-x{rate_key(run['rate_multiple'])}{twin}.zip"
    shared = {"arrival_us": context.campaign_dir / "arrivals" / arrivals}
    return RunResult(meta, columns, shared, PART_B_LOG8)
