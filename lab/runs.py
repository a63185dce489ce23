"""Execute one scheduled run of each kind and return what goes into its raw file.

Every measured process (model timing, service, load client) is pinned to the measurement
core with one thread each; the runner itself stays on the other core. Used by lab/runner.py.
"""

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lab import machine
from lab.design import NONE, Profile
from lab.rawformat import codec

# Part B's per-request durations are kept to 8 significant bits (exact below 256 µs,
# within 0.4% above), so that a full campaign of ~10 million requests stays under 40 MiB.
PART_B_LOG8 = ("latency_us", "send_lag_us", "ready_us", "queued_us", "model_us",
               "batches_first_wait_us")  # fmt: skip


@dataclass
class Context:
    campaign: str
    campaign_dir: Path
    cpu: int | None
    profile: Profile
    seed: int
    saturation_s: float | None = None  # S, answers per second, once measured
    launcher: object = None  # lab.launcher.Launcher, when the runner uses one


class RunFailed(Exception):
    pass


@dataclass
class RunResult:
    """What an executor hands the runner for the raw file. columns None: the run wrote its
    own file in a fresh pinned process (Part A, bits) and the runner only checks it."""

    meta: dict
    columns: dict | None = None
    shared: dict | None = None  # column name -> shared zip (Part B's arrivals)
    log8: tuple = ()


def run_pinned(context: Context, arguments: list[str], timeout_s: float) -> None:
    """`python -m lab ARGUMENTS` pinned to the measurement core; RunFailed on failure."""
    command = machine.pin_command(context.cpu, [sys.executable, "-m", "lab", *arguments])
    env = machine.single_thread_env({"LAB_RAW": str(context.campaign_dir.parent)})
    try:
        done = subprocess.run(
            command,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            preexec_fn=machine.die_with_parent,
        )
    except subprocess.TimeoutExpired as error:
        raise RunFailed(f"`lab {arguments[0]}` took longer than {timeout_s:.0f} s") from error
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RunFailed(f"`lab {arguments[0]}` exited {done.returncode}: {last}")


def quiet(context: Context, echo=None) -> dict:
    cpu = context.cpu if context.cpu is not None else 0
    return machine.quiet_check(
        cpu, seconds=context.profile.quiet_seconds, tries=context.profile.quiet_tries, echo=echo
    )


def scratch_file(context: Context, name: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="lab-run-"))
    return folder / f"{name}{codec.SUFFIX}"


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


def run_bits(context: Context, run: dict, echo=None) -> RunResult:
    quiet(context, echo)  # the bit check times nothing, but it should not share the core
    arguments = ["bits", "--campaign", context.campaign]
    if run.get("rows"):
        arguments += ["--rows", str(run["rows"])]
    if context.cpu is not None:
        arguments += ["--cpu", str(context.cpu)]
    run_pinned(context, arguments, timeout_s=3600)
    return RunResult({})


def service(context: Context, setting: dict):
    """A fresh service for one run: forked by the pre-loaded launcher when the runner has
    one (saves ~5 s of imports per run), else started with `python -m lab serve`."""
    from lab.serviceproc import ServiceProcess

    if context.launcher is not None:
        return context.launcher.service(setting["batcher"], setting["max_batch"],
                                        setting["max_wait_ms"], cpu=context.cpu)  # fmt: skip
    return ServiceProcess(
        batcher=setting["batcher"],
        max_batch=setting["max_batch"],
        max_wait_ms=setting["max_wait_ms"],
        cpu=context.cpu,
    )


def watch_core(context: Context, proc):
    """What else ran on the measurement core during the run (the quiet check before a run
    cannot see a process that starts in the middle of it)."""
    return machine.CoreWatch(context.cpu if context.cpu is not None else 0, proc.pid)


def client_columns(context: Context, arguments: list[str], timeout_s: float, name: str):
    out = scratch_file(context, name)
    try:
        run_pinned(context, [*arguments, "--out", str(out)], timeout_s)
        return codec.read_run(out)
    finally:
        out.unlink(missing_ok=True)
        out.parent.rmdir()


def run_saturation(context: Context, run: dict, echo=None) -> RunResult:
    with service(context, NONE.as_dict()) as proc:
        quiet_record = quiet(context, echo)
        arguments = ["saturate", "--port", str(proc.port), "--seconds", str(run["counted_s"])]
        with watch_core(context, proc) as watch:
            client_meta, columns = client_columns(context, arguments, 300, run["run_id"])
        load_after = machine.load_snapshot(context.cpu)
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
    }
    return RunResult(meta, columns)


def run_part_b(context: Context, run: dict, echo=None) -> RunResult:
    from lab import expected
    from lab.arrivals import arrival_seed

    if not context.saturation_s:
        raise RunFailed("S is not measured yet: the saturation runs must finish first")
    # The client checks every answer against these single-row scores; made once (about 10 s,
    # on the runner's core) so no client computes them on the measurement core.
    expected.ensure()
    arrival_rate = run["rate_multiple"] * context.saturation_s
    seed = arrival_seed(context.campaign, run["round"], run["rate_multiple"])
    with service(context, run["setting"]) as proc:
        quiet_record = quiet(context, echo)
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
        with watch_core(context, proc) as watch:
            client_meta, columns = client_columns(context, arguments, timeout_s, run["run_id"])
        batches = proc.batches()
        load_after = machine.load_snapshot(context.cpu)
    # The model call alone stays in the client's own file: one more per-request column would
    # take a full campaign past 40 MiB (the per-request `model_us` holds it and the way back).
    columns.pop("call_us", None)
    columns["batches_size"] = np.asarray(batches["size"], dtype="uint16")
    columns["batches_first_wait_us"] = np.asarray(batches["first_wait_us"], dtype="uint32")
    meta = {
        "quiet": quiet_record,
        "load_before": quiet_record,
        "load_after": load_after,
        "round": run["round"],
        "rate_multiple": run["rate_multiple"],
        "arrival_rate": arrival_rate,
        "saturation_S": context.saturation_s,
        "setting": run["setting"],
        "window_s": run["window_s"],
        "seed": seed,
        "client": client_meta["stats"],
        "core_watch": watch.found,
    }
    # Every setting in a round and rate meets the same arrivals: store them once.
    arrivals = f"r{run['round']}-x{run['rate_multiple']:g}.zip"
    shared = {"arrival_us": context.campaign_dir / "arrivals" / arrivals}
    return RunResult(meta, columns, shared, PART_B_LOG8)


def run_part_c(context: Context, run: dict, echo=None) -> RunResult:
    from lab import part_c

    quiet_record = quiet(context, echo)
    meta, columns = part_c.run_for_campaign(context, run)
    return RunResult({"quiet": quiet_record, "load_before": quiet_record, **meta}, columns)


# kind -> executor. Part A and bits write their own files in a fresh pinned process.
EXECUTORS = {
    "part_a": run_part_a,
    "bits": run_bits,
    "saturation": run_saturation,
    "part_b": run_part_b,
    "part_c": run_part_c,
}
