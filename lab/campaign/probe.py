"""The speed probe: a short fixed workload, timed on the measurement core before and after runs.

A shared host's core speed moves without any process of this VM being busy (the quiet rule
cannot see it): the same one-row model call has measured 300 to 1,370 µs on an idle VM. The
probe times, in about 60 ms, what the runs exercise:

  python   a fixed pure-Python loop (dict, int and str work, like a request's handling)
  model    the model's one-row call on a fixed test row (median of PROBE_MODEL_CALLS calls)
  memory   a copy of a 32 MiB array (a memory-bound step, larger than the caches)

Each part is the median of a few repeats, in microseconds. `slowness` (lab/rawformat/slowrun.py,
the slow-run rule's one home) compares one probe with a reference (the campaign's
calibration): the geometric mean of the parts' ratios, so 1.0 is the reference speed and 1.25
is 25% slower.

The probe runs in its own pre-loaded process pinned to the measurement core (`ProbeWorker`,
driven over stdin/stdout like the service launcher), so a probe costs no start-up.

    python -m lab probe --cpu 1 --times 60 --every 1     # watch this host's weather

The runner's probe process is `python -m lab.campaign.probe --worker`.
"""

import json
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np

from lab import paths
from lab.errors import LabError
from lab.machine.processes import die_with_parent, end_piped_worker, python, single_thread_env
from lab.model import artifacts
from lab.model.scoring import as_rows, score
from lab.rawformat import codec
from lab.rawformat.slowrun import PROBE_PARTS, slowness

PYTHON_LOOP_STEPS = 20_000
PYTHON_REPEATS = 5
PROBE_MODEL_CALLS = 30
MEMORY_BYTES = 32 << 20
MEMORY_REPEATS = 3


def python_loop(steps: int = PYTHON_LOOP_STEPS) -> int:
    """Interpreter work of the kind a request's handling does: dict lookups, ints, strings."""
    table: dict[int, int] = {}
    total = 0
    for step in range(steps):
        key = step & 1023
        table[key] = table.get(key, 0) + step
        total += len(str(step))
    return total + len(table)


def median_us(work, repeats: int) -> float:
    """Median wall time of `work()` over `repeats` calls, in microseconds."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter_ns()
        work()
        times.append(time.perf_counter_ns() - started)
    return statistics.median(times) / 1e3


class Workload:
    """The probe's fixed inputs, made once per process: the model, one test row, two arrays."""

    def __init__(self, model, row: np.ndarray):
        self.row = as_rows(row[None, :] if row.ndim == 1 else row[:1])
        self.model = model
        self.source = np.ones(MEMORY_BYTES // 8)
        self.target = np.empty_like(self.source)
        self.measure()  # first touch of the arrays and the model's code: not a measurement

    def measure(self) -> dict:
        """One probe: each part's median time in microseconds, and when it was taken."""
        return {
            "python_us": round(median_us(python_loop, PYTHON_REPEATS), 1),
            "model_us": round(median_us(self._one_row, PROBE_MODEL_CALLS), 1),
            "memory_us": round(median_us(self._copy, MEMORY_REPEATS), 1),
            "at": round(time.time(), 3),
        }

    def _one_row(self) -> None:
        score(self.model, self.row)

    def _copy(self) -> None:
        np.copyto(self.target, self.source)


def workload() -> dict:
    """What one probe does, as campaign.json records it."""
    return {
        "parts": list(PROBE_PARTS),
        "python_loop_steps": PYTHON_LOOP_STEPS,
        "python_repeats": PYTHON_REPEATS,
        "model_calls": PROBE_MODEL_CALLS,
        "memory_bytes": MEMORY_BYTES,
        "memory_repeats": MEMORY_REPEATS,
        "each_part": "median of the repeats, microseconds",
    }


def reference_of(probes: list[dict]) -> dict:
    """The calibration's reference speed: each part's median over the calibration probes."""
    return {part: round(statistics.median(p[part] for p in probes), 1) for part in PROBE_PARTS}


# ------------------------------------------------------------------ the probe's own process


class ProbeError(LabError):
    """The probe process could not start or stopped answering."""


class ProbeWorker:
    """The runner's handle on a pre-loaded probe process pinned to `cpu`.

    with ProbeWorker(cpu=1) as probe:
        before = probe.measure()
    """

    def __init__(self, cpu: int | None):
        self.cpu = cpu
        self._start()

    def _start(self) -> None:
        cpu = self.cpu

        def prepare() -> None:  # in the probe process, before it starts Python
            die_with_parent()
            if cpu is not None:
                os.sched_setaffinity(0, {cpu})  # the measurement core, like the runs

        try:
            self.process = subprocess.Popen(
                [python(), "-m", "lab.campaign.probe", "--worker"], cwd=paths.REPO,
                env=single_thread_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                text=True, preexec_fn=prepare,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError) as error:
            raise ProbeError(f"the speed probe could not start on core {cpu} ({error})") from error
        self._ask("ready")

    def _ask(self, word: str) -> dict:
        try:
            self.process.stdin.write(word + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        except (BrokenPipeError, OSError) as error:
            raise ProbeError(f"the probe process is gone ({error})") from error
        if not line:
            raise ProbeError(f"the probe process exited (code {self.process.wait()})")
        return json.loads(line)

    def measure(
        self, run_id: str | None = None, attempt: int | None = None, moment: str | None = None
    ) -> dict:
        """One probe. The labels (which run attempt, before or after) are not needed here;
        the tests' stand-in slow host uses them to pick the probes it makes slow. A probe
        process that died is started again (the probe is then late, never wrong)."""
        if self.process.poll() is not None:
            self._start()
        return {**self._ask("probe"), "cpu": self.cpu}

    def close(self) -> None:
        end_piped_worker(self.process)

    def __enter__(self) -> "ProbeWorker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def worker_main() -> int:
    """The probe process: load the model and a fixed test row, then answer one probe per line."""
    workload = Workload(artifacts.load_model(), artifacts.test_rows()[0])
    for line in sys.stdin:
        word = line.strip()
        answer = {"ready": True} if word == "ready" else workload.measure()
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


# ------------------------------------------------------------------ `python -m lab probe`


def add_arguments(parser) -> None:
    parser.add_argument("--cpu", type=int, default=None, help="the core to probe (pinned)")
    parser.add_argument("--times", type=int, default=20, help="how many probes")
    parser.add_argument("--every", type=float, default=1.0, help="seconds between probes")
    parser.add_argument("--out", default=None, help="write every probe as JSON to this file")


def spread(probes: list[dict]) -> dict:
    """Each probe's slowness against the median of all, and their range."""
    reference = reference_of(probes)
    values = sorted(round(slowness(p, reference), 4) for p in probes)
    return {
        "reference": reference,
        "slowness_min": values[0],
        "slowness_median": statistics.median(values),
        "slowness_max": values[-1],
        "slowness_p90": values[min(len(values) - 1, math.ceil(0.9 * len(values)) - 1)],
    }


def main(args) -> int:
    probes = []
    with ProbeWorker(args.cpu) as worker:
        for index in range(args.times):
            if index:
                time.sleep(args.every)
            probe = {**worker.measure(), "load1": os.getloadavg()[0]}
            probes.append(probe)
            print(
                f"probe {index + 1:3}/{args.times}: python {probe['python_us']:8.0f} µs  "
                f"model {probe['model_us']:6.0f} µs  memory {probe['memory_us']:7.0f} µs",
                flush=True,
            )
    summary = spread(probes)
    print(
        f"slowness against the median probe: {summary['slowness_min']:.3f} … "
        f"{summary['slowness_max']:.3f} (p90 {summary['slowness_p90']:.3f})"
    )
    if args.out:  # atomically, like every file the lab writes
        codec.write_json(args.out, {"probes": probes, "summary": summary, "load": os.getloadavg()})
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        sys.exit(worker_main())
    sys.exit("run `python -m lab probe --help` (--worker is the runner's probe process)")
