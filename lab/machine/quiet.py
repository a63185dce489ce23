"""What the machine is doing: a load snapshot (load average, idle and steal shares) and the
quiet check every run waits for. The thresholds are the design's quiet rule (lab/design.py).
"""

import os
import time

from lab.design import QUIET_IDLE_SHARE, QUIET_OTHER_CORE_IDLE_SHARE, QUIET_SECONDS, QUIET_TRIES
from lab.machine.cpu import TICKS, cpu_times


def other_cores_idle(idle: int, elapsed: int, cpu: int | None) -> float | None:
    if cpu is None or (os.cpu_count() or 1) < 2:
        return None
    return round(min(max(idle / max(elapsed, 1), 0.0), 1.0), 4)  # jiffies round unevenly


def cpu_sample(cpu: int | None) -> tuple:
    """The moment and the CPU counters a load record spans from (`load_between`)."""
    return time.monotonic(), cpu_times(cpu), cpu_times(None)


def load_between(cpu: int | None, start: tuple, end: tuple, own_busy_s: float = 0.0) -> dict:
    """Load average, and the idle and steal shares of `cpu` between two `cpu_sample`s.
    `own_busy_s` (CPU seconds of the run's own service in between) counts as idle: the share
    left is what anything else took."""
    (t0, (idle0, steal0, total0), (machine_idle0, _, machine_total0)) = start
    (t1, (idle1, steal1, total1), (machine_idle1, _, machine_total1)) = end
    elapsed = max(total1 - total0, 1)
    machine_elapsed = max(machine_total1 - machine_total0, 1)
    own = min(round(own_busy_s * TICKS), elapsed - (idle1 - idle0))  # jiffies of our service
    return {
        "loadavg": list(os.getloadavg()),
        "cpu": cpu,
        "idle_share": round((idle1 - idle0 + own) / elapsed, 4),
        "steal_share": round((steal1 - steal0) / elapsed, 4),
        # every core: the other vCPU may share a physical core with the measured one
        "machine_idle_share": round((machine_idle1 - machine_idle0) / machine_elapsed, 4),
        "other_cores_idle_share": other_cores_idle(
            machine_idle1 - machine_idle0 - (idle1 - idle0), machine_elapsed - elapsed, cpu
        ),
        "seconds": round(t1 - t0, 3),
        "at": time.time(),
    }


def load_snapshot(cpu: int | None = None, seconds: float = 0.5) -> dict:
    """Load average, and the idle and steal shares of `cpu` over `seconds`."""
    start = cpu_sample(cpu)
    time.sleep(seconds)
    return dict(load_between(cpu, start, cpu_sample(cpu)), seconds=seconds)


def quiet_check(
    cpu: int,
    idle_share: float = QUIET_IDLE_SHARE,
    seconds: float = QUIET_SECONDS,
    tries: int = QUIET_TRIES,
    echo=None,
    other_cores_idle_share: float = QUIET_OTHER_CORE_IDLE_SHARE,
    since: tuple | None = None,
    own_cpu_s=None,
) -> dict:
    """Wait until `cpu` is at least `idle_share` idle over `seconds` (and the other cores,
    which may share a physical core with it, at least `other_cores_idle_share`); every try
    is recorded. After `tries` the run goes ahead, recorded as not quiet.

    Overlapped with the service's start (quiet_mode "startup", lab/design.py): `since` is a
    `cpu_sample` taken before the service was forked and `own_cpu_s()` the service's CPU
    seconds so far; the first try spans from `since` (at least `seconds`), and the service's
    own CPU counts as idle, so what is judged is what anything else took."""
    attempts = []
    start = cpu_sample(cpu) if since is None else since
    own_before = 0.0  # a service forked after `since` had used none then
    for _ in range(tries):
        time.sleep(max(seconds - (time.monotonic() - start[0]), 0.0))
        end = cpu_sample(cpu)
        own = own_cpu_s() if own_cpu_s else 0.0
        snap = load_between(cpu, start, end, own_busy_s=own - own_before)
        if since is None:
            snap["seconds"] = seconds  # as recorded before the overlapped check existed
        start, own_before = end, own
        attempts.append([snap["idle_share"], snap["other_cores_idle_share"]])
        others_quiet = (snap["other_cores_idle_share"] is None
                        or snap["other_cores_idle_share"] >= other_cores_idle_share)  # fmt: skip
        if snap["idle_share"] >= idle_share and others_quiet:
            return {"quiet": True, "tries": len(attempts), "idle_shares": attempts, **snap}
        if echo:
            echo(f"quiet rule: cpu{cpu} {snap['idle_share']:.0%} idle, other cores "
                 f"{snap['other_cores_idle_share']:.0%} idle; waiting")  # fmt: skip
    return {"quiet": False, "tries": len(attempts), "idle_shares": attempts, **snap}


def quiet_from_watch(found: dict, cpu: int) -> dict:
    """The quiet rule judged on a run's own core watch (quiet_mode "watch", lab/design.py):
    the share anything else took of the core during the run, and the other cores' busy
    share, against the same thresholds; recorded, never waited for."""
    idle = round(1 - found["others_share"], 4)
    others = round(1 - found["other_cores_busy_share"], 4)
    quiet = idle >= QUIET_IDLE_SHARE and others >= QUIET_OTHER_CORE_IDLE_SHARE
    return {"quiet": quiet, "tries": 1, "idle_shares": [[idle, others]], "idle_share": idle,
            "other_cores_idle_share": others, "cpu": cpu, "seconds": found["wall_s"],
            "loadavg": list(os.getloadavg()), "at": time.time()}  # fmt: skip
