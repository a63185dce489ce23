"""What the machine is doing: a load snapshot (load average, idle and steal shares) and the
quiet check every run waits for. The thresholds are the design's quiet rule (lab/design.py).
"""

import os
import time

from lab.design import QUIET_IDLE_SHARE, QUIET_OTHER_CORE_IDLE_SHARE, QUIET_SECONDS, QUIET_TRIES
from lab.machine.cpu import cpu_times


def other_cores_idle(idle: int, elapsed: int, cpu: int | None) -> float | None:
    if cpu is None or (os.cpu_count() or 1) < 2:
        return None
    return round(min(max(idle / max(elapsed, 1), 0.0), 1.0), 4)  # jiffies round unevenly


def load_snapshot(cpu: int | None = None, seconds: float = 0.5) -> dict:
    """Load average, and the idle and steal shares of `cpu` over `seconds`."""
    idle0, steal0, total0 = cpu_times(cpu)
    machine_idle0, _, machine_total0 = cpu_times(None)
    time.sleep(seconds)
    idle1, steal1, total1 = cpu_times(cpu)
    machine_idle1, _, machine_total1 = cpu_times(None)
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
    idle_share: float = QUIET_IDLE_SHARE,
    seconds: float = QUIET_SECONDS,
    tries: int = QUIET_TRIES,
    echo=None,
    other_cores_idle_share: float = QUIET_OTHER_CORE_IDLE_SHARE,
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
