"""Who else used the measurement core while a run ran: `with CoreWatch(cpu, pid) as watch:`,
then `watch.found`. Used by the campaign's executors, Part A and the wrk cross-check."""

import os
import time

from lab.machine.cpu import children_cpu_s, core_busy_s, process_cpu_s


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
