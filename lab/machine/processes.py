"""How measured processes start: pinned to one core, one BLAS/OpenMP thread each, and gone
when their parent dies, and how a worker driven over stdin ends. Used by the service wrapper,
the launcher, the speed probe, the runner and the parts."""

import ctypes
import os
import signal
import subprocess
import sys


def die_with_parent() -> None:
    """In a child process: SIGKILL when the parent dies, so a killed runner leaves no
    service or client behind (prctl PR_SET_PDEATHSIG)."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


def pin_command(cpu: int | None, command: list[str]) -> list[str]:
    return command if cpu is None else ["taskset", "-c", str(cpu), *command]


def single_thread_env(extra: dict | None = None) -> dict:
    """The environment for measured processes: one BLAS/OpenMP thread each."""
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = "1"
    env["PYTHONHASHSEED"] = "0"
    env.update(extra or {})
    return env


def python() -> str:
    return sys.executable


def end_piped_worker(process: subprocess.Popen, timeout: float = 10.0) -> None:
    """End a worker that reads its requests from stdin (the launcher, the speed probe):
    closing stdin is its signal to finish; killed if it has not within `timeout` seconds."""
    if process.poll() is None:
        process.stdin.close()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
