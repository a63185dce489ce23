"""CPU time from /proc: of one core or all of them, of one process, of this one's children.
Read by the quiet check and the core watch."""

import os
import resource
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")  # /proc/stat counts in clock ticks


def cpu_times(cpu: int | None) -> tuple[int, int, int]:
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


def core_busy_s(cpu: int) -> float:
    """Seconds `cpu` spent not idle since boot (user, nice, system, irq, softirq, steal)."""
    idle, _, total = cpu_times(cpu)
    return (total - idle) / TICKS


def process_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
