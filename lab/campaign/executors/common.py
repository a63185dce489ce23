"""What the executors share: a pinned `python -m lab …` child, the quiet check, a fresh
service per run, the core watch, a child's scratch run file read back, and `ServedRun`: the
steps around a served run's client as the profile orders them (quiet rule, probes, load
snapshot; lab/design.py) with its timeline and its signals.

Every measured process (model timing, service, load client) is pinned to the measurement
core with one thread each; the runner itself stays on the other core.
"""

import contextlib
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from lab.campaign.context import Context, RunFailed
from lab.campaign.speed import probe_now
from lab.machine.core_watch import CoreWatch
from lab.machine.cpu import process_cpu_s
from lab.machine.processes import die_with_parent, pin_command, single_thread_env
from lab.machine.quiet import (
    cpu_sample,
    load_between,
    load_snapshot,
    quiet_check,
    quiet_from_watch,
)
from lab.rawformat import codec
from lab.service.process import ServiceProcess
from lab.servicespec import ServiceSpec


def run_pinned(context: Context, arguments: list[str], timeout_s: float) -> None:
    """`python -m lab ARGUMENTS` pinned to the measurement core; RunFailed on failure."""
    command = pin_command(context.cpu, [sys.executable, "-m", "lab", *arguments])
    env = single_thread_env({"LAB_RAW": str(context.campaign_dir.parent)})
    try:
        done = subprocess.run(
            command,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            preexec_fn=die_with_parent,
        )
    except subprocess.TimeoutExpired as error:
        raise RunFailed(f"`lab {arguments[0]}` took longer than {timeout_s:.0f} s") from error
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RunFailed(f"`lab {arguments[0]}` exited {done.returncode}: {last}")


def quiet(context: Context, echo=None, since: tuple | None = None, own_cpu_s=None) -> dict:
    """The quiet check before a run (with `since` and `own_cpu_s`, overlapped with the
    service's start: lab/machine/quiet.py)."""
    cpu = context.cpu if context.cpu is not None else 0
    found = quiet_check(cpu, seconds=context.profile.quiet_seconds,
                        tries=context.profile.quiet_tries, echo=echo, since=since,
                        own_cpu_s=own_cpu_s)  # fmt: skip
    context.timeline.mark("quiet")
    return found if since is None else dict(found, mode="startup")


def scratch_file(context: Context, name: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="lab-run-"))
    return folder / f"{name}{codec.SUFFIX}"


def service(context: Context, spec: ServiceSpec):
    """A fresh service for one run: forked by the pre-loaded launcher when the runner has
    one (saves ~5 s of imports per run), else started with `python -m lab serve`."""
    if context.launcher is not None:
        return context.launcher.service(spec, cpu=context.cpu)
    return ServiceProcess(spec, cpu=context.cpu)


def watch_core(context: Context, proc):
    """What else ran on the measurement core during the run (the quiet check before a run
    cannot see a process that starts in the middle of it)."""
    return CoreWatch(context.cpu if context.cpu is not None else 0, proc.pid)


def client_columns(context: Context, arguments: list[str], timeout_s: float, name: str):
    """(meta, columns) of a pinned child that writes its run to the scratch file `--out`."""
    out = scratch_file(context, name)
    try:
        run_pinned(context, [*arguments, "--out", str(out)], timeout_s)
        return codec.read_run(out)
    finally:
        out.unlink(missing_ok=True)
        out.parent.rmdir()


# What the codec adds to a file's meta; the runner's final file gets its own.
CODEC_KEYS = ("format", "columns", "column_layout", "shared_columns")


def child_run(context: Context, arguments: list[str], timeout_s: float, name: str):
    """(meta, columns) of a run a pinned child made whole (Part A, bits): its scratch file's
    meta without the codec's keys, for the runner to write the final file."""
    meta, columns = client_columns(context, arguments, timeout_s, name)
    return {k: v for k, v in meta.items() if k not in CODEC_KEYS}, columns


class ServedRun:
    """One run against a fresh service, its steps in the profile's order:

        served = ServedRun(context, echo)
        with served.service(spec) as proc:     # fork, quiet rule, probe before
            with served.watch(proc):           # the client, under the core watch
                …
            …                                  # probe after; the executor reads batches
        meta = {**served.meta(), …}            # load after (overlapped: across the stop)

    quiet_mode "before" checks with the service up, "startup" from before its fork (the
    check overlaps the start), "watch" judges the run's core watch afterwards; with
    `load_after_overlapped` the load snapshot after the run spans reading the batches and
    stopping the service instead of a 0.5 s sleep of its own."""

    def __init__(self, context: Context, echo=None):
        self.context, self.echo = context, echo
        self.cpu = context.cpu if context.cpu is not None else 0
        self.quiet: dict | None = None
        self.probes: dict = {}
        self.found: dict = {}
        self.load_after: dict | None = None

    @contextlib.contextmanager
    def service(self, spec: ServiceSpec):
        profile, timeline = self.context.profile, self.context.timeline
        since = cpu_sample(self.cpu) if profile.quiet_mode == "startup" else None
        with service(self.context, spec) as proc:
            timeline.mark("service_ready")
            if profile.quiet_mode == "before":
                self.quiet = quiet(self.context, self.echo)
            elif profile.quiet_mode == "startup":
                self.quiet = quiet(self.context, self.echo, since, lambda: process_cpu_s(proc.pid))
            self.probes.update(probe_now(self.context, "before"))
            yield proc
            span = cpu_sample(self.context.cpu) if profile.load_after_overlapped else None
            if span is None:
                self.load_after = load_snapshot(self.context.cpu)
        if span is not None:
            self.load_after = load_between(self.context.cpu, span, cpu_sample(self.context.cpu))
        timeline.mark("service_stopped")

    @contextlib.contextmanager
    def watch(self, proc):
        self.context.timeline.mark("client_start")
        start = cpu_sample(self.cpu)
        with watch_core(self.context, proc) as watch:
            yield watch
        self.found = watch.found
        self.context.timeline.mark("client_done")
        if self.context.profile.quiet_mode == "watch":  # the run's steal and load, its shares
            span = load_between(self.cpu, start, cpu_sample(self.cpu))
            self.quiet = {**span, **quiet_from_watch(watch.found, self.cpu), "mode": "watch"}
        self.probes.update(probe_now(self.context, "after"))

    def meta(self) -> dict:
        """quiet, load_before (the quiet record, as always), load_after, core_watch, the probes."""
        return {"quiet": self.quiet, "load_before": self.quiet, "load_after": self.load_after,
                "core_watch": self.found, **self.probes}  # fmt: skip


def send_lag_p99(lag_us) -> int | None:
    """The nearest-rank 99th percentile of the per-request send lag (µs, −1 for a request
    never sent), as the generator takes it from the column, but exact (not kept to 8 bits)."""
    ordered = np.sort(np.asarray(lag_us, dtype=np.int64))
    return int(ordered[(99 * len(ordered) + 99) // 100 - 1]) if len(ordered) else None


def fold_send_lag(context: Context, meta: dict, columns: dict) -> None:
    """A profile without the send lag column (Profile.send_lag_column False, format 4) keeps
    only its p99 in meta: the one figure the generator reads of it."""
    if not context.profile.send_lag_column:
        meta["send_lag_us_p99"] = send_lag_p99(columns.pop("send_lag_us"))


def signals(meta: dict, columns: dict | None = None) -> dict:
    """What a run's own seconds say about the host, kept as flags (lab/design.py
    FLAG_SIGNALS; never used to pick a run): the probe after's slowness, the median of
    ready_us over the answered requests, the client's CPU per request, the share of the core
    anything else took."""
    found = {
        "probe_after_slowness": (meta.get("probe_after") or {}).get("slowness"),
        "client_cpu_us_per_request": (meta.get("client") or {}).get("client_cpu_us_per_request"),
        "others_share": (meta.get("core_watch") or {}).get("others_share"),
    }
    if columns is not None and "ready_us" in columns:
        answered = np.asarray(columns["status"]) == 200
        ready = np.asarray(columns["ready_us"])[answered]
        found["ready_us_p50"] = float(np.median(ready)) if len(ready) else None
    return found
