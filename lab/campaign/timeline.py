"""Where one run's seconds went: the runner starts a `Timeline` per attempt and the executor
marks each step as it ends; the run's meta keeps it as `timeline` (data/README.md):

    {"start": 1796079341.84 (Unix time), "marks": {"meta": 0.031, "service_ready": 0.22, …}}

each mark the seconds from `start` at which that step ended. The steps, in the order they
happen (a run marks the ones it has): meta (the run's base metadata: git, fingerprint),
service_ready (fork and health check), quiet (the quiet rule's check), probe_before,
client_start (the core watch begins), client_done (the client process ended: start-up,
window, drain, scratch file written and read), probe_after, service_stopped (the batches read,
the load snapshot, the service stopped), measured (the executor handed back its result).
The file's own writing is the gap to the next run's `start`. Read by the projection's
measurements (lab/campaign/projection.py) and by people; no rule reads it.
"""

import time


class Timeline:
    def __init__(self):
        self.start = time.time()
        self._started = time.monotonic()
        self.marks: dict[str, float] = {}

    def mark(self, step: str) -> None:
        """`step` ended now."""
        self.marks[step] = round(time.monotonic() - self._started, 4)

    def as_dict(self) -> dict:
        return {"start": round(self.start, 4), "marks": dict(self.marks)}
