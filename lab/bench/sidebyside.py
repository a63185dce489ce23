"""One version of the lab's machinery (service, batcher, load clients): this checkout, or a
past commit unpacked into a temporary folder, so two versions can run side by side on the
same core and the same arrivals.

    with Machinery("old", commit="903928e") as old, Machinery("new") as new:
        with old.service(setting, cpu=1) as service:
            meta, columns = old.openloop(service.port, rate, window_s, seed, cpu=1)

A commit is unpacked with `git archive` (no worktree is registered in the repository), and
its processes run with this checkout's Python, artifacts (LAB_HOME) and `LAB_GIT_COMMIT`.
Every process is pinned to the given core with one thread, as the campaign runner does.
Used by lab/bench/handler_trace.py, lab/bench/batcher.py and lab/bench/switchback.py.
"""

import atexit
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from lab import paths
from lab.campaign.probe import ProbeWorker
from lab.machine.fingerprint import git_commit
from lab.machine.processes import pin_command, python, single_thread_env
from lab.rawformat import codec
from lab.service.process import ServiceProcess
from lab.servicespec import NONE, ServiceSpec, Setting

NICE_HELP = (
    "niceness (e.g. -10, as root) of this run's processes, to shield them from other work "
    "on a shared machine: run under `setsid -w` so the whole session gets it; 0 (default) on "
    "a quiet one"
)


_PROBES: dict[int, ProbeWorker] = {}


def probe_on_core(cpu: int) -> dict:
    """One speed probe (lab/campaign/probe.py) on `cpu`, for a benchmark's --probe
    (`lab.bench.sidebyside:probe_on_core`): one pre-loaded probe process per core, kept for
    the benchmark's life."""
    if cpu not in _PROBES:
        _PROBES[cpu] = ProbeWorker(cpu)
        atexit.register(_PROBES[cpu].close)
    return _PROBES[cpu].measure()


def shield(nice: int) -> str:
    """Give this process, and every process it starts, the niceness `nice` against the rest
    of the machine. With autogroups (kernel.sched_autogroup_enabled) the scheduler first
    shares the core between sessions, so the niceness that counts is that of this session's
    group, set only when this process leads its own session (`setsid -w python -m …`), so
    that nothing else is boosted. Says what it did."""
    if not nice:
        return "not shielded"
    os.setpriority(os.PRIO_PROCESS, 0, nice)  # children inherit it
    autogroup = Path("/proc/self/autogroup")
    if not autogroup.exists():
        return f"niceness {nice} (no autogroups)"
    if os.getsid(0) != os.getpid():
        return f"niceness {nice}; its session's group left alone: run under `setsid -w`"
    autogroup.write_text(str(nice))
    return f"niceness {nice}, and {nice} for its own session's group"


class Machinery:
    def __init__(self, label: str, commit: str | None = None):
        self.label = label
        self.commit = commit
        self.folder: Path | None = None
        if commit is None:
            self.root = paths.REPO
            self.git_commit = git_commit()
        else:
            self.folder = Path(tempfile.mkdtemp(prefix=f"lab-{label}-"))
            self.root = self.folder / "tree"
            self.root.mkdir()
            self.git_commit = _resolve(commit)
            archive = subprocess.run(
                ["git", "archive", self.git_commit], cwd=paths.REPO, capture_output=True, check=True
            )
            subprocess.run(["tar", "-x", "-C", str(self.root)], input=archive.stdout, check=True)
        self.env = {"LAB_HOME": str(paths.lab_home()), "LAB_GIT_COMMIT": self.git_commit}

    def service(self, setting: Setting, cpu: int | None) -> ServiceProcess:
        """This version's `python -m lab serve` with one plain setting (a past commit knows
        only the plain flags: no second arm)."""
        return ServiceProcess(ServiceSpec(setting), cpu=cpu, extra_env=self.env, cwd=self.root)

    def start_client(self, command: str, arguments: list[str], cpu: int | None, out: Path):
        """`python -m lab COMMAND ARGUMENTS --out OUT`, pinned, started (not waited for)."""
        full = pin_command(cpu, [python(), "-m", "lab", command, *arguments, "--out", str(out)])
        return subprocess.Popen(
            full, cwd=self.root, env=single_thread_env(self.env),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip

    def finish_client(self, process, out: Path, timeout_s: float) -> tuple[dict, dict]:
        try:
            _, stderr = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise RuntimeError(f"{self.label} client took longer than {timeout_s:.0f} s") from None
        if process.returncode != 0:
            last = (stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"{self.label} client exited {process.returncode}: {last}")
        try:
            return codec.read_run(out)
        finally:
            out.unlink(missing_ok=True)

    def openloop(self, port: int, arrival_rate: float, window_s: float, seed: int,
                 cpu: int | None, drain_s: float = 30.0,
                 extra: tuple = ()) -> tuple[dict, dict]:  # fmt: skip
        """One open-loop run of this version's client: (meta, columns). `extra`: more of
        `python -m lab openloop`'s options (a switchback run's --slice-s, --first-arm)."""
        arguments = ["--port", str(port), "--arrival-rate", f"{arrival_rate:.6f}",
                     "--window-s", str(window_s), "--seed", str(seed),
                     "--drain-s", str(drain_s), *extra]  # fmt: skip
        out = self.scratch("openloop")
        process = self.start_client("openloop", arguments, cpu, out)
        return self.finish_client(process, out, window_s + drain_s + 180)

    def closedloop(self, port: int, seconds: float, connections: int, cpu: int | None) -> dict:
        """One closed-loop run of this version's client: its stats (throughput, …)."""
        arguments = ["--port", str(port), "--seconds", str(seconds),
                     "--connections", str(connections)]  # fmt: skip
        out = self.scratch("saturate")
        process = self.start_client("saturate", arguments, cpu, out)
        meta, _ = self.finish_client(process, out, seconds + 180)
        return meta["stats"]

    def scratch(self, name: str) -> Path:
        folder = Path(tempfile.gettempdir())
        return folder / f"lab-{self.label}-{name}-{time.monotonic_ns()}{codec.SUFFIX}"

    def close(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> "Machinery":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _resolve(commit: str) -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--verify", f"{commit}^{{commit}}"],
        cwd=paths.REPO, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        raise ValueError(f"no commit {commit!r} in {paths.REPO}: {done.stderr.strip()}")
    return done.stdout.strip()


def campaign_saturation(campaign: str) -> float:
    """S of a campaign in data/raw: the median throughput of its saturation runs."""
    folder = paths.RAW / campaign / "runs"
    found = [codec.read_meta(path)["stats"]["throughput"] for path in folder.glob("saturation-*")]
    if not found:
        raise ValueError(f"no saturation runs in {folder}: give S with --saturation")
    return statistics.median(found)


def measure_saturation(version: Machinery, cpu: int | None, seconds: float,
                       loops: int = 3) -> list[float]:  # fmt: skip
    """Closed loops (16 connections) against a fresh `none` service of this version, on this
    host today: S is the median of their throughputs."""
    found = []
    for _ in range(loops):
        with version.service(NONE, cpu) as service:
            found.append(version.closedloop(service.port, seconds, 16, cpu)["throughput"])
    return found


def latency_percentiles_us(columns: dict, quantiles=(50, 99)) -> dict[str, float]:
    """Nearest-rank percentiles of the latency (µs); a request never answered (or not 200)
    counts as infinitely late, as the generator counts it."""
    latency = columns["latency_us"].astype(np.float64)
    latency[(columns["status"] != 200) | (latency < 0)] = np.inf
    return {f"p{q:g}": float(np.percentile(latency, q, method="inverted_cdf")) for q in quantiles}
