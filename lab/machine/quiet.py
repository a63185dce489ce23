"""What the machine is and what it is doing: fingerprint, load, steal, the quiet check.

A campaign records the fingerprint once and refuses to continue on a machine that differs.
"""

import ctypes
import os
import platform
import resource
import signal
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

LIBRARIES = ("numpy", "scikit-learn", "fastapi", "uvicorn", "uvloop", "httptools", "pydantic")
TICKS = os.sysconf("SC_CLK_TCK")  # /proc/stat counts in clock ticks


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_id() -> str | None:
    """/etc/machine-id: tells two machines of the same kind apart (when their images differ)."""
    try:
        with open("/etc/machine-id") as handle:
            return handle.read().strip() or None
    except OSError:
        return None


def fingerprint() -> dict:
    """What must stay the same for runs to belong in one campaign."""
    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "machine": platform.machine(),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "machine_id": machine_id(),
        "libraries": versions,
    }


def git_commit() -> str:
    """HEAD (with -dirty for uncommitted changes); on a box with no .git (the AWS steps copy
    files, not the repository) the commit the steps recorded in LAB_GIT_COMMIT."""
    if os.environ.get("LAB_GIT_COMMIT"):
        return os.environ["LAB_GIT_COMMIT"]
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            cwd=os.path.dirname(__file__),
            timeout=10,
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            cwd=os.path.dirname(__file__),
            timeout=10,
        )
        commit = done.stdout.strip() or "unknown"
        return commit + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _cpu_times(cpu: int | None) -> tuple[int, int, int]:
    """(idle, steal, total) jiffies of one CPU, or of all CPUs when cpu is None."""
    label = "cpu" if cpu is None else f"cpu{cpu}"
    with open("/proc/stat") as handle:
        for line in handle:
            fields = line.split()
            if fields and fields[0] == label:
                values = [int(v) for v in fields[1:]]
                idle = values[3] + values[4]  # idle + iowait
                steal = values[7] if len(values) > 7 else 0
                return idle, steal, sum(values[:8])
    raise ValueError(f"no {label} in /proc/stat")


def other_cores_idle(idle: int, elapsed: int, cpu: int | None) -> float | None:
    if cpu is None or (os.cpu_count() or 1) < 2:
        return None
    return round(min(max(idle / max(elapsed, 1), 0.0), 1.0), 4)  # jiffies round unevenly


def load_snapshot(cpu: int | None = None, seconds: float = 0.5) -> dict:
    """Load average, and the idle and steal shares of `cpu` over `seconds`."""
    idle0, steal0, total0 = _cpu_times(cpu)
    machine_idle0, _, machine_total0 = _cpu_times(None)
    time.sleep(seconds)
    idle1, steal1, total1 = _cpu_times(cpu)
    machine_idle1, _, machine_total1 = _cpu_times(None)
    elapsed = max(total1 - total0, 1)
    machine_elapsed = max(machine_total1 - machine_total0, 1)
    return {
        "loadavg": list(os.getloadavg()),
        "cpu": cpu,
        "idle_share": round((idle1 - idle0) / elapsed, 4),
        "steal_share": round((steal1 - steal0) / elapsed, 4),
        # every core: the other vCPU may share a physical core with the measured one
        "machine_idle_share": round((machine_idle1 - machine_idle0) / machine_elapsed, 4),
        "other_cores_idle_share": other_cores_idle(
            machine_idle1 - machine_idle0 - (idle1 - idle0), machine_elapsed - elapsed, cpu
        ),
        "seconds": seconds,
        "at": time.time(),
    }


def quiet_check(
    cpu: int,
    idle_share: float = 0.95,
    seconds: float = 2.0,
    tries: int = 30,
    echo=None,
    other_cores_idle_share: float = 0.80,
) -> dict:
    """Wait until `cpu` is at least `idle_share` idle over `seconds` (and the other cores,
    which may share a physical core with it, at least `other_cores_idle_share`); every try
    is recorded. After `tries` the run goes ahead, recorded as not quiet."""
    attempts = []
    for _ in range(tries):
        snap = load_snapshot(cpu, seconds)
        attempts.append([snap["idle_share"], snap["other_cores_idle_share"]])
        others_quiet = (snap["other_cores_idle_share"] is None
                        or snap["other_cores_idle_share"] >= other_cores_idle_share)  # fmt: skip
        if snap["idle_share"] >= idle_share and others_quiet:
            return {"quiet": True, "tries": len(attempts), "idle_shares": attempts, **snap}
        if echo:
            echo(f"quiet rule: cpu{cpu} {snap['idle_share']:.0%} idle, other cores "
                 f"{snap['other_cores_idle_share']:.0%} idle; waiting")  # fmt: skip
    return {"quiet": False, "tries": len(attempts), "idle_shares": attempts, **snap}


def core_busy_s(cpu: int) -> float:
    """Seconds `cpu` spent not idle since boot (user, nice, system, irq, softirq, steal)."""
    idle, _, total = _cpu_times(cpu)
    return (total - idle) / TICKS


def process_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class CoreWatch:
    """While the block runs: the core's busy time, the measured process's CPU time (the
    service; for Part A the timing process itself), its clients' CPU time, and the share
    of the core the rest of the machine took (`others_share`). A quiet check before a run
    cannot see a process that starts in the middle of it; this can."""

    def __init__(self, cpu: int, service_pid: int):
        self.cpu = cpu
        self.service_pid = service_pid
        self.found: dict = {}

    def _sample(self) -> tuple[float, ...]:
        return (time.monotonic(), core_busy_s(self.cpu), process_cpu_s(self.service_pid),
                children_cpu_s(), self._other_cores_busy_s())  # fmt: skip

    def _other_cores_busy_s(self) -> float:
        # The two vCPUs of a small VM may be hyperthreads of one physical core: work on the
        # "other" core can slow the measured one, so how busy it was is recorded too.
        others = set(range(os.cpu_count() or 1)) - {self.cpu}
        return sum(core_busy_s(cpu) for cpu in others)

    def __enter__(self) -> "CoreWatch":
        self.start = self._sample()
        return self

    def __exit__(self, *exc) -> None:
        wall, busy, service, client, other_cores = (
            b - a for a, b in zip(self.start, self._sample(), strict=True))  # fmt: skip
        others = max(busy - service - client, 0.0)
        self.found = {
            "wall_s": round(wall, 3),
            "core_busy_s": round(busy, 3),
            "service_cpu_s": round(service, 3),
            "client_cpu_s": round(client, 3),
            "others_share": round(others / wall, 4) if wall else 0.0,
            "other_cores_busy_share": round(other_cores / wall, 4) if wall else 0.0,
        }


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
