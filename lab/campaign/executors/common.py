"""What the executors share: a pinned `python -m lab …` child, the quiet check, a fresh
service per run, the core watch, and a child's scratch run file read back.

Every measured process (model timing, service, load client) is pinned to the measurement
core with one thread each; the runner itself stays on the other core.
"""

import subprocess
import sys
import tempfile
from pathlib import Path

from lab.campaign.context import Context, RunFailed
from lab.machine.core_watch import CoreWatch
from lab.machine.processes import die_with_parent, pin_command, single_thread_env
from lab.machine.quiet import quiet_check
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


def quiet(context: Context, echo=None) -> dict:
    cpu = context.cpu if context.cpu is not None else 0
    return quiet_check(
        cpu, seconds=context.profile.quiet_seconds, tries=context.profile.quiet_tries, echo=echo
    )


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
